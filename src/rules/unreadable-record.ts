import { at } from "./helpers.js";
import type { Report, Rule } from "./rule.js";

export const unreadableRecord: Rule = {
  id: "unreadable-record",
  severity: "error",
  description: "a message/part whose stored JSON does not parse, is truncated, or is not valid UTF-8",
  fix: "repair",
  check(view) {
    const session = view.opencode;
    if (!session) return [];
    const reports: Report[] = [];
    if (session.problem?.kind === "unreadable") reports.push({ message: `session record: ${session.problem.detail}`, ...(session.sessionRef.path ? { path: session.sessionRef.path } : {}) });
    for (const message of session.messages) {
      if (message.problem?.kind === "unreadable") reports.push(at(message, `message record: ${message.problem.detail}`));
      for (const part of message.parts) if (part.problem?.kind === "unreadable") reports.push(at(part, `part record: ${part.problem.detail}`));
    }
    return reports;
  },
};
