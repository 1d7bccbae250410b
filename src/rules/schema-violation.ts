import { recordsWithProblem } from "./helpers.js";
import type { Rule } from "./rule.js";
import { validatePart } from "../model/opencode.js";

export const schemaViolation: Rule = {
  id: "schema-violation",
  severity: "error",
  description: "parses, but is not a valid message/part (e.g. tool part without callID)",
  fixedBy: "repair",
  check(view) {
    return recordsWithProblem(view, "schema").map(({ report, label, detail }) => ({ ...report, message: `not a valid ${label}: ${detail}` }));
  },
  /** Only the one case with a faithful fix: a tool call that lost its id gets a fresh one. Others are left alone. */
  fix(finding, context) {
    if (context.kind !== "records") return [];
    const part = context.part(finding.partId);
    const value = part?.original;
    if (!part || !value || value.type !== "tool" || typeof value.callID === "string") return [];
    const edits = context.update(part, "gave the tool call the id it was missing", (v) => {
      v.callID = context.freshCallId(undefined);
    });
    return edits.every((e) => e.op !== "update" || validatePart(e.value).success) ? edits : [];
  },
};
