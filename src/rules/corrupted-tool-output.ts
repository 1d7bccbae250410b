import { at } from "./helpers.js";
import type { Report, Rule } from "./rule.js";

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
};
