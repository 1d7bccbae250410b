import { basename } from "node:path";
import type { Rule } from "./rule.js";

/**
 * Gemini CLI: a chat file with nothing in it (0 bytes, or blank lines only; a resume or a sub-agent killed right
 * after creating its file, gemini-cli#26425). Gemini CLI reads no session from it; 0.61's startup cleanup deletes it
 * as corrupted, and with it every chat file whose name ends in the same 8 characters (an intact session's own file
 * among them, docs/research/gemini-truncated-chats.md). The fix is removing the file, which a repair cannot do yet (a
 * transcript plan writes whole files): the finding says what to do by hand, before the client starts again.
 */
export const emptyChatFile: Rule = {
  id: "empty-chat-file",
  severity: "warning",
  description: "a Gemini CLI chat file with nothing in it: the client's next start deletes it, and every chat file with the same 8-character suffix",
  fixedBy: "none",
  apis: ["gemini"],
  check(view) {
    const records = view.transcript?.records;
    if (!records || records.lines.some((l) => l.raw.some((b) => b !== 0x20 && b !== 0x09 && b !== 0x0d))) return [];
    const path = records.sessionRef.path;
    const suffix = path ? /-([0-9a-f]{8})\.jsonl?$/.exec(basename(path))?.[1] : undefined;
    const siblings = suffix ? ` and every other chat file ending in -${suffix}.jsonl or -${suffix}.json (an intact session's own file may be one)` : "";
    return [
      {
        message: `an empty chat file${path ? ` (${basename(path)})` : ""}: Gemini CLI reads no session from it, and 0.61 deletes it at its next start${siblings}; move it out of chats/ before starting gemini (recover cannot remove a file yet)`,
        fixable: false,
      },
    ];
  },
};
