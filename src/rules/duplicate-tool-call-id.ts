import { at, messages, parts } from "./helpers.js";
import type { Report, Rule } from "./rule.js";
import { freshCallId } from "../plan/fixes.js";

export const duplicateToolCallId: Rule = {
  id: "duplicate-tool-call-id",
  severity: "error",
  description: "the same callID twice in one session (`tool_use ids must be unique`)",
  fix: "repair",
  check(view) {
    const first = new Map<string, string>();
    const reports: Report[] = [];
    for (const message of messages(view)) {
      for (const { record, part } of parts(message)) {
        if (part.type !== "tool") continue;
        const callID = (part as { callID: string }).callID;
        const earlier = first.get(callID);
        if (earlier === undefined) first.set(callID, record.ref.id);
        else reports.push(at(record, `callID ${callID} is already used by part ${earlier} (rejected: \`tool_use\` ids must be unique)`));
      }
    }
    return reports;
  },
  repair(finding, context) {
    const part = context.part(finding.partId);
    if (!part) return [];
    return context.update(part, "gave the later call a fresh id (call ids are not signed; providers only need them unique)", (value) => {
      value.callID = freshCallId(typeof value.callID === "string" ? value.callID : undefined);
    });
  },
};
