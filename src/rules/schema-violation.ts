import { at } from "./helpers.js";
import type { Report, Rule } from "./rule.js";

export const schemaViolation: Rule = {
  id: "schema-violation",
  severity: "error",
  description: "parses, but is not a valid message/part (e.g. tool part without callID)",
  fix: "repair",
  check(view) {
    const session = view.opencode;
    if (!session) return [];
    const reports: Report[] = [];
    if (session.problem?.kind === "schema") reports.push({ message: `session record is not a valid Session: ${session.problem.detail}` });
    for (const message of session.messages) {
      if (message.problem?.kind === "schema") reports.push(at(message, `not a valid message: ${message.problem.detail}`));
      for (const part of message.parts) if (part.problem?.kind === "schema") reports.push(at(part, `not a valid part: ${part.problem.detail}`));
    }
    return reports;
  },
};
