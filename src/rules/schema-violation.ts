import { recordsWithProblem } from "./helpers.js";
import type { Rule } from "./rule.js";

export const schemaViolation: Rule = {
  id: "schema-violation",
  severity: "error",
  description: "parses, but is not a valid message/part (e.g. tool part without callID)",
  fix: "repair",
  check(view) {
    return recordsWithProblem(view, "schema").map(({ report, label, detail }) => ({ ...report, message: `not a valid ${label}: ${detail}` }));
  },
};
