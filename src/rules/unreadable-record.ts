import { recordsWithProblem } from "./helpers.js";
import type { Rule } from "./rule.js";

export const unreadableRecord: Rule = {
  id: "unreadable-record",
  severity: "error",
  description: "a message/part whose stored JSON does not parse, is truncated, or is not valid UTF-8",
  fix: "repair",
  check(view) {
    return recordsWithProblem(view, "unreadable").map(({ report, label, detail }) => ({ ...report, message: `${label} record: ${detail}` }));
  },
};
