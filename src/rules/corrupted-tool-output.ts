import { at, atLine } from "./helpers.js";
import type { Report, Rule } from "./rule.js";
import { cleanStrings } from "../model/clean-strings.js";

export const corruptedToolOutput: Rule = {
  id: "corrupted-tool-output",
  severity: "error",
  description: "NUL bytes, lone surrogates or invalid UTF-8 inside a tool output, tool input or text",
  fixedBy: "repair",
  check(view) {
    const reports: Report[] = [];
    for (const line of view.transcript?.chain ?? []) {
      const damage = line.corruption;
      if (!damage) continue;
      // A client that replaces a lone surrogate before it sends (Claude Code: with U+FFFD, in every request) is never
      // refused for it: a warning, left alone when it mends it every time (stripping it instead would change what
      // the client sends, and with it the prefix later thinking is bound to).
      const copes = damage.kind === "lone-surrogate" ? view.copes?.loneSurrogate : undefined;
      if (!copes) {
        reports.push(atLine(line, `${damage.detail}: ${SAYS}`));
        continue;
      }
      reports.push({
        ...atLine(line, `${damage.detail}: ${copes}`),
        severity: "warning",
        ...(view.copes?.mendsEveryTime?.includes("loneSurrogate") ? { fixable: false } : {}),
      });
    }
    for (const message of view.opencode?.messages ?? []) {
      for (const part of message.parts) {
        const damage = part.content.corruption;
        if (damage) reports.push(at(part, `${damage.detail}: ${SAYS}`));
      }
    }
    return reports;
  },
  /** A transcript line as read (invalid UTF-8 already dropped at byte level), its strings cleaned of NULs and broken surrogates. */
  fix(finding, context) {
    // Not fixable: the client mends it every time (view.copes.mendsEveryTime), and recover leaves it as it is.
    if (!finding.fixable) return [];
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

/** What the API answers a body holding the damage (a lone surrogate: anthropics/claude-code#68325). */
const SAYS = "the request body will not encode cleanly (rejected: `The request body is not valid JSON: no low surrogate in string`)";

function stripped(kind: string | undefined): string {
  return `stripped ${kind === "invalid-utf8" ? "invalid UTF-8 sequences" : "NUL characters and broken surrogates"} (the original bytes are in the backup)`;
}
