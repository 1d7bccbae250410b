import { at, isLiveTail, messages } from "./helpers.js";
import type { Rule } from "./rule.js";
import { isObject } from "../model/edit.js";
import { isCompactionSummary } from "./stuck-compaction.js";

export const incompleteMessage: Rule = {
  id: "incomplete-message",
  severity: "warning",
  description: "assistant message without time.completed and without error that is not the live tail",
  fixedBy: "repair",
  check(view) {
    return (
      messages(view)
        // An unfinished compaction summary is stuck-compaction's: completing it as aborted leaves the compaction pending.
        .filter(
          (m) => m.info?.role === "assistant" && m.info.time.completed === undefined && !m.info.error && !isLiveTail(view, m.ref.id) && !isCompactionSummary(m),
        )
        .map((m) => at(m, "assistant message never finished (no time.completed, no error): the agent stopped mid-turn"))
    );
  },
  fix(finding, context) {
    if (context.kind !== "records") return [];
    const message = context.message(finding.messageId);
    if (!message) return [];
    return context.update(message, "completed the turn as aborted, as opencode does when a turn is cancelled", (value) => {
      value.time = { ...(isObject(value.time) ? value.time : {}), completed: context.now };
      value.error ??= { name: "MessageAbortedError", data: { message: "The agent stopped before this turn finished (closed by recover)" } };
    });
  },
};
