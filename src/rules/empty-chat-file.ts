import { basename } from "node:path";
import type { Report, Rule } from "./rule.js";

const SUFFIX = /-([0-9a-f]{8})\.jsonl?$/;

/** Every chat file that ends in `name`'s 8 characters, as the client's cleanup matches them. */
function atRisk(name: string): string {
  const suffix = SUFFIX.exec(name)?.[1];
  return suffix ? `every chat file ending in -${suffix}.jsonl or -${suffix}.json` : "the chat files that share its suffix";
}

/**
 * Gemini CLI: a chat file its client reads no session from, beside a session's own file. 0.61's start-up cleanup
 * (`cleanupExpiredSessions`, on by default) deletes every such file, and with it every chat file whose name ends in
 * the same 8 characters: the session's own file among them (docs/research/gemini-truncated-chats.md). Two shapes:
 * - a file with nothing in it (0 bytes, or blank lines only: a resume or a sub-agent killed right after creating
 *   its file, gemini-cli#26425), a session of its own here (it names no session id);
 * - a resume's fresh recording with nothing resumable in it (its metadata and the session context only), which the
 *   client itself leaves beside the session when it resumes it in a later minute: a companion of that session
 *   (TranscriptRecords.companions).
 * The fix removes that file before the client's next start can take the session with it; the backup keeps it and
 * `session restore` puts it back.
 */
export const emptyChatFile: Rule = {
  id: "empty-chat-file",
  severity: "warning",
  description:
    "a Gemini CLI chat file with no session in it (empty, or a resume's stub): the client's next start deletes it, and every chat file with the same 8-character suffix",
  fixedBy: "repair",
  apis: ["gemini"],
  check(view) {
    const records = view.transcript?.records;
    if (!records || records.discarded) return [];
    const reports: Report[] = [];
    const path = records.sessionRef.path;
    if (!records.lines.some((l) => l.raw.some((b) => b !== 0x20 && b !== 0x09 && b !== 0x0d))) {
      const name = path ? basename(path) : "";
      reports.push({
        message: `an empty chat file${name ? ` (${name})` : ""}: Gemini CLI reads no session from it, and 0.61 deletes it at its next start and ${atRisk(name)} (an intact session's own file may be one); the repair removes it (kept in the backup)`,
      });
    }
    for (const companion of records.companions ?? []) {
      const name = basename(companion.path);
      reports.push({
        message: `${name}, another chat file of this session, holds no session for Gemini CLI (${companion.readsNoSession}): 0.61 deletes it at its next start and ${atRisk(name)}, this session's own file${path ? ` (${basename(path)})` : ""} among them; the repair removes ${name} (kept in the backup)`,
        path: companion.path,
      });
    }
    return reports;
  },
  fix(finding) {
    return [
      {
        op: "discard-file",
        ...(finding.path !== undefined ? { path: finding.path } : {}),
        reason: "a chat file with no session in it: removed before Gemini CLI's start-up cleanup takes the session that shares its suffix",
      },
    ];
  },
};
