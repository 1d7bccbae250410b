import type { Handle } from "../model/conversation.js";
import { formatCount } from "../model/format-count.js";
import { at, atBlock, messages, parts } from "./helpers.js";
import type { Report, Rule } from "./rule.js";
import { MAX_REQUEST_BYTES } from "./trim/image-limits.js";

const NOTE = "[attachment removed: over the provider's 32 MB request limit by itself; it is kept in recover's backup]";

/**
 * An attachment (an image or document stored as base64: an opencode `file` part's data URL, a transcript's image or
 * document block) whose data alone is over the Messages API's 32 MB request limit (issue 40; sst/opencode#49221,
 * anomalyco/opencode#42263). Every request that carries it is refused with a 413 `request_too_large`, and the client
 * reads it into memory again each time it opens the session, even after its own compaction took it out of the
 * request: opencode 1.18.33 loads every part of a session to build a request or an export
 * (docs/research/opencode-attachments.md). Decided from the stored size only: the scan never holds the data
 * (a SQLite row this large is measured by SQLite, stores/opencode/sqlite-store.ts).
 */
export const oversizedAttachment: Rule = {
  id: "oversized-attachment",
  severity: "warning",
  description:
    "an image or document whose data alone is over the API's 32 MB request limit: every request with it is refused, and the client loads it each time",
  fixedBy: "repair",
  independentFixes: true,
  check(view) {
    const reports: Report[] = [];
    const seen = new Set<string>();
    const say = (mime: string, chars: number, sent: boolean) =>
      `a ${mime} attachment of ${formatCount(chars)} bytes (base64), over the API's 32 MB request limit by itself: ${
        sent ? "every request that sends it is refused (413 request_too_large)" : "it is no longer sent (compacted), but the client still reads it"
      } and the client holds it in memory each time it opens the session; it gives way to a note, kept in the backup`;
    // opencode: every stored file part, in the request or not (a compaction leaves it in the store).
    const sentParts = new Set<string>();
    for (const message of view.conversation.messages) for (const block of message.blocks) if (block.type === "media") sentParts.add(keyOf(block.source));
    for (const message of messages(view))
      for (const { record, part } of parts(message)) {
        if (part.type !== "file") continue;
        const chars = record.content.urlChars ?? 0;
        if (chars <= MAX_REQUEST_BYTES) continue;
        seen.add(keyOf(record.ref));
        reports.push(at(record, say((part as { mime: string }).mime, chars, sentParts.has(keyOf(record.ref)))));
      }
    // Any store: the media blocks of the request (a transcript's images and documents).
    for (const message of view.conversation.messages)
      for (const block of message.blocks)
        if (block.type === "media" && block.chars > MAX_REQUEST_BYTES && !seen.has(keyOf(block.source)))
          reports.push(atBlock(block, say(block.mime, block.chars, true)));
    return reports;
  },
  fix(finding, context) {
    return context.replaceMedia(finding, NOTE, "replaced an attachment over the API's 32 MB request limit with a note (the attachment is in the backup)");
  },
};

function keyOf(ref: Pick<Handle, "id"> & { kind: string }): string {
  return `${ref.kind}:${ref.id}`;
}
