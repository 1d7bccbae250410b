import { recordsWithProblem } from "./helpers.js";
import type { Rule } from "./rule.js";
import { salvageMessage, salvagePart } from "../plan/fixes.js";

export const unreadableRecord: Rule = {
  id: "unreadable-record",
  severity: "error",
  description: "a message/part whose stored JSON does not parse, is truncated, or is not valid UTF-8",
  fix: "repair",
  check(view) {
    return recordsWithProblem(view, "unreadable").map(({ report, label, detail }) => ({ ...report, message: `${label} record: ${detail}` }));
  },
  /** A session record (JSON tree) is left alone: sessions are opencode's index, rebuilding one is not a repair. */
  repair(finding, context) {
    const part = context.part(finding.partId);
    if (part) return salvagePart(part, context);
    const message = finding.partId === undefined ? context.message(finding.messageId) : undefined;
    return message ? salvageMessage(message, context) : [];
  },
};
