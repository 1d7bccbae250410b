import { atLine } from "./helpers.js";
import type { Edit } from "../model/edit.js";
import type { TranscriptLine, TranscriptRecords } from "../model/transcript.js";
import type { Rule } from "./rule.js";

/**
 * Claude Code: a second compaction in one process re-appends, to the transcript, a copy of every record the process
 * held from where its history began up to the first compaction's preserved segment, each with its original `uuid`,
 * `parentUuid` and `timestamp` (anthropics/claude-code#92089, #92849; #66947 for auto-compaction). Reproduced with
 * the real client 2.1.277 (two `/compact` in one `-p --input-format stream-json` process: 19 records copied, each
 * with a `slug` added and nothing else changed); 2.1.332 no longer does it (docs/research/claude-code-compaction.md).
 *
 * The copies change nothing the client sends (a uuid names the record whatever its copies), but the file grows with
 * the square of the compactions, and the report's second effect loses history silently: the record written right
 * after the copies is parented to the last copy, a record from before the first compaction, so the resumed chain
 * runs from there into the old history and skips everything since. That second effect was not reproduced offline
 * (print mode writes the new compaction boundary, a root, right after the copies). Built from one report's words (the
 * next prompt after the copies, parented to the last copy), it did not mislead 2.1.277 or 2.1.332, which still sent
 * the latest compaction's history, but it misleads every walk of the parent links (recover's view among them).
 *
 * The fix deletes the copies (a copy is its original plus the client's `slug`; anything else is not this shape and
 * is left alone), and points the record that follows them at the record written right before them, the one it
 * follows in the conversation. Every deleted byte is in the backup.
 */
const REASON = "a copy of an earlier record (same uuid), re-appended by a second compaction in one Claude Code process";

/** Fields the client adds to the copies it re-appends. */
const ADDED = new Set(["slug"]);

function sameRecord(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const keys = (v: Record<string, unknown>) => Object.keys(v).filter((k) => !ADDED.has(k));
  const ka = keys(a);
  const kb = keys(b);
  return ka.length === kb.length && ka.every((k) => k in b && JSON.stringify(a[k]) === JSON.stringify(b[k]));
}

interface Replay {
  copies: TranscriptLine[];
  /** The record written right before the copies (the one the conversation continues from). */
  before?: TranscriptLine;
  /** The record written right after the copies, when it hangs from the last copy. */
  misparented?: TranscriptLine;
}

/** Each run of copies in the file, in order: records that repeat an earlier record's uuid and content. */
export function replaysIn(records: TranscriptRecords): Replay[] {
  if (records.dialect !== "claude") return [];
  const first = new Map<string, TranscriptLine>();
  const replays: Replay[] = [];
  let open: Replay | undefined;
  let lastWithId: TranscriptLine | undefined;
  for (const line of records.lines) {
    if (line.uuid === undefined || !line.value) continue;
    const original = first.get(line.uuid);
    if (original?.value && !line.sidechain && sameRecord(original.value, line.value)) {
      if (!open) {
        open = { copies: [], ...(lastWithId ? { before: lastWithId } : {}) };
        replays.push(open);
      }
      open.copies.push(line);
      continue;
    }
    if (open && line.parent === open.copies.at(-1)!.uuid) open.misparented = line;
    open = undefined;
    if (!original) first.set(line.uuid, line);
    lastWithId = line;
  }
  return replays;
}

export const replayedHistory: Rule = {
  id: "replayed-history",
  severity: "warning",
  description:
    "Claude Code records re-appended with the uuids of earlier ones by a second compaction (the file grows with every compaction; the record after them can hang from the old history)",
  fixedBy: "repair",
  check(view) {
    const history = view.transcript;
    if (!history) return [];
    return replaysIn(history.records).map((replay) => {
      const n = replay.copies.length;
      const lost = replay.misparented
        ? `; ${replay.misparented.ref.id} is parented to the last copy, so its parent chain runs into the history from before the first compaction and skips everything written since (anthropics/claude-code#92849)`
        : "";
      return atLine(
        replay.copies[0]!,
        `${n} record${n === 1 ? "" : "s"} re-appended with the uuid${n === 1 ? "" : "s"} and content of earlier records (a second compaction's replay of the history it had summarized)${lost}`,
      );
    });
  },
  fix(finding, context) {
    if (context.kind !== "lines") return [];
    const replay = replaysIn(context.history.records).find((r) => r.copies[0]!.ref.id === finding.messageId);
    if (!replay) return [];
    // The copies share their uuids with the originals: deleting them leaves every link resolving as it did, so no
    // child is relinked (deleteLine would move the original's children).
    const edits: Edit[] = replay.copies.map((target): Edit => ({ op: "delete", target, reason: REASON }));
    if (replay.misparented && replay.before?.uuid !== undefined)
      edits.push(
        ...context.relink(
          replay.misparented,
          replay.before.uuid,
          `was parented to the last re-appended copy (${replay.misparented.parent}); relinked to the record written right before the copies (${replay.before.uuid}), which it follows`,
        ),
      );
    return edits;
  },
};
