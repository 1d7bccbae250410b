import { at, isLiveTail, messages, parts } from "./helpers.js";
import type { Report, Rule } from "./rule.js";
import { isObject } from "../model/edit.js";
import { OPENCODE_INTERRUPTED_TOOL } from "../model/opencode.js";

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
  /**
   * Closed as an error whose text is the very result opencode already sends for a call still open
   * (`[Tool execution was interrupted]`, every version since 1.1.65: reference opencode.md §4), metadata untouched
   * (`metadata.interrupted` would make later versions send the partial output instead). So the request the client
   * builds does not change by one byte, and no thinking a current Claude model bound to it is lost (measured with the
   * real client: docs/research/opencode-prefix-thinking.md). The processor's own "Tool execution aborted" would change it.
   */
  fix(finding, context) {
    if (context.kind !== "records") return [];
    const part = context.part(finding.partId);
    if (!part) return [];
    return context.update(part, "closed the interrupted call with the result opencode already sends for it", (value) => {
      const state = isObject(value.state) ? value.state : {};
      const time = isObject(state.time) ? state.time : {};
      value.state = {
        status: "error",
        input: isObject(state.input) ? state.input : {},
        error: OPENCODE_INTERRUPTED_TOOL,
        ...(isObject(state.metadata) ? { metadata: state.metadata } : {}),
        time: { start: typeof time.start === "number" ? time.start : context.now, end: context.now },
      };
    });
  },
};
