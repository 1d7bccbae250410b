import { at } from "./helpers.js";
import type { Report, Rule } from "./rule.js";
import { cleanCorruptedRecord } from "../plan/fixes.js";

export const corruptedToolOutput: Rule = {
  id: "corrupted-tool-output",
  severity: "error",
  description: "NUL bytes, lone surrogates or invalid UTF-8 inside a tool output or text",
  fix: "repair",
  check(view) {
    const reports: Report[] = [];
    for (const message of view.opencode?.messages ?? []) {
      for (const part of message.parts) {
        const damage = part.content.corruption;
        if (damage) reports.push(at(part, `${damage.detail}: the request body will not encode cleanly`));
      }
    }
    return reports;
  },
  repair(finding, context) {
    const part = context.part(finding.partId);
    if (!part) return [];
    const invalidUtf8 = part.content.corruption?.kind === "invalid-utf8";
    return cleanCorruptedRecord(part, context, `stripped ${invalidUtf8 ? "invalid UTF-8 sequences" : "NUL characters and broken surrogates"} (the original bytes are in the backup)`);
  },
};
