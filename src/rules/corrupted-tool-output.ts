import { at, atLine } from "./helpers.js";
import type { Report, Rule } from "./rule.js";
import { cleanStrings } from "../model/clean-strings.js";

export const corruptedToolOutput: Rule = {
  id: "corrupted-tool-output",
  severity: "error",
  description: "NUL bytes, lone surrogates or invalid UTF-8 inside a tool output or text",
  fixedBy: "repair",
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
  /** A transcript line as read (invalid UTF-8 already dropped at byte level), its strings cleaned of NULs and broken surrogates. */
  fix(finding, context) {
    if (context.kind === "lines") {
      const line = context.line(finding.messageId);
      if (!line?.corruption) return [];
      return context.update(line, stripped(line.corruption.kind), (value) => cleanStrings(value));
    }
    const part = context.part(finding.partId);
    if (!part) return [];
    return context.stripCorruption(part, stripped(part.content.corruption?.kind));
  },
};

function stripped(kind: string | undefined): string {
  return `stripped ${kind === "invalid-utf8" ? "invalid UTF-8 sequences" : "NUL characters and broken surrogates"} (the original bytes are in the backup)`;
}
