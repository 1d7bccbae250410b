import { at, isLiveTail, messages, parts } from "./helpers.js";
import type { Report, Rule } from "./rule.js";
import { isObject } from "../model/edit.js";

export const toolCallInterrupted: Rule = {
  id: "tool-call-interrupted",
  severity: "error",
  description: "tool part left pending/running in an assistant turn that is over (crashed or aborted)",
  fixedBy: "repair",
  check(view) {
    const reports: Report[] = [];
    for (const message of messages(view)) {
      if (message.info?.role !== "assistant" || isLiveTail(view, message.ref.id)) continue;
      for (const { record, part } of parts(message)) {
        if (part.type !== "tool") continue;
        const { status } = (part as { state: { status: string } }).state;
        if (status !== "pending" && status !== "running") continue;
        const { tool, callID } = part as { tool: string; callID: string };
        reports.push(at(record, `${tool} call ${callID} is still "${status}" but its turn is over (the agent was killed or crashed mid-call)`));
      }
    }
    return reports;
  },
  /** What opencode's processor writes for a call still open when a turn is aborted (reference opencode.md §2). */
  fix(finding, context) {
    if (context.kind !== "records") return [];
    const part = context.part(finding.partId);
    if (!part) return [];
    return context.update(part, "closed the interrupted call the way opencode does on abort", (value) => {
      const state = isObject(value.state) ? value.state : {};
      const time = isObject(state.time) ? state.time : {};
      value.state = {
        status: "error",
        input: isObject(state.input) ? state.input : {},
        error: "Tool execution aborted",
        metadata: { ...(isObject(state.metadata) ? state.metadata : {}), interrupted: true },
        time: { start: typeof time.start === "number" ? time.start : context.now, end: context.now },
      };
    });
  },
};
