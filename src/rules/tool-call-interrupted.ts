import { at, isLiveTail, messages, parts } from "./helpers.js";
import type { Report, Rule } from "./rule.js";

export const toolCallInterrupted: Rule = {
  id: "tool-call-interrupted",
  severity: "error",
  description: "tool part left pending/running in an assistant turn that is over (crashed or aborted)",
  fix: "repair",
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
};
