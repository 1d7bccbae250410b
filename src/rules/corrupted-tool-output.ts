import { at, atLine } from "./helpers.js";
import type { Report, Rule } from "./rule.js";
import { cleanCorruptedRecord, cleanStrings } from "../plan/fixes.js";

export const corruptedToolOutput: Rule = {
  id: "corrupted-tool-output",
  severity: "error",
  description: "NUL bytes, lone surrogates or invalid UTF-8 inside a tool output or text",
  fix: "repair",
  check(view) {
    const reports: Report[] = [];
    for (const line of view.transcript?.chain ?? []) {
      const damage = line.corruption;
      if (damage) reports.push(atLine(line, `${damage.detail}: the request body will not encode cleanly`));
    }
    for (const message of view.opencode?.messages ?? []) {
      for (const part of message.parts) {
        const damage = part.content.corruption;
        if (damage) reports.push(at(part, `${damage.detail}: the request body will not encode cleanly`));
      }
    }
    return reports;
  },
  /** The line as read (invalid UTF-8 already dropped at byte level), its strings cleaned of NULs and broken surrogates. */
  repairTranscript(finding, context) {
    const line = context.line(finding.messageId);
    if (!line?.corruption) return [];
    return context.update(line, `stripped ${line.corruption.kind === "invalid-utf8" ? "invalid UTF-8 sequences" : "NUL characters and broken surrogates"} (the original bytes are in the backup)`, (value) => cleanStrings(value));
  },
  repair(finding, context) {
    const part = context.part(finding.partId);
    if (!part) return [];
    const invalidUtf8 = part.content.corruption?.kind === "invalid-utf8";
    return cleanCorruptedRecord(part, context, `stripped ${invalidUtf8 ? "invalid UTF-8 sequences" : "NUL characters and broken surrogates"} (the original bytes are in the backup)`);
  },
};
