/**
 * Changes as data (ESLint's fixes, applied by an engine): what a repair does to a store is a list of record
 * changes with their full before and after values. It can be printed, diffed, serialised into a backup manifest,
 * applied, and reversed. The zod schemas are the single source of these types: the manifest is read back with them.
 */
import * as z from "zod";
import { onFirstUse } from "./on-first-use.js";
import type { RecordRef } from "./record.js";

/** The schemas of this module, built on first use (by the manifest's reader): a run that reads no backup builds none. */
function buildSchemas() {
  /**
   * `file`: a whole file kept by path (a battle's state files, a transcript); `line`: one line of a transcript;
   * `index`: a row of the agent's own index beside its transcripts (Codex's `threads`), named by its database file
   * and id; the rest are opencode's records (`project`: the row a session belongs to, written only by an import).
   */
  const RecordKind = z.enum(["project", "session", "message", "part", "file", "line", "index"]);
  /** Which stored record: enough for any adapter to find it again. */
  const RecordKey = z.object({
    record: RecordKind,
    id: z.string(),
    sessionId: z.string(),
    messageId: z.string().optional(),
    /** JSON tree: the record's file. */
    path: z.string().optional(),
  });
  const ChangeOp = z.enum(["insert", "update", "delete"]);
  /** A change as the manifest and `--json` report it. */
  const ChangeSummary = z.object({
    op: ChangeOp,
    record: RecordKind,
    id: z.string(),
    sessionId: z.string(),
    messageId: z.string().optional(),
    rules: z.array(z.string()),
  });
  return { RecordKind, RecordKey, ChangeOp, ChangeSummary };
}

type Schemas = ReturnType<typeof buildSchemas>;

export const changeSchemas: () => Schemas = onFirstUse(buildSchemas);

export type RecordKind = z.infer<Schemas["RecordKind"]>;
export type RecordKey = z.infer<Schemas["RecordKey"]>;
export type ChangeOp = z.infer<Schemas["ChangeOp"]>;
export type ChangeSummary = z.infer<Schemas["ChangeSummary"]>;

/**
 * A record exactly as a store holds it, with every byte needed to put it back: a SQLite row (all columns, typed)
 * or a file (bytes and mode). Opaque to everything but its store adapter.
 */
export type StoredImage =
  | { exists: false }
  | {
      exists: true;
      bytes: Buffer;
      mode?: number /** Files: kept so a restored file also reads as written when it was. Not part of a record's identity. */;
      mtimeMs?: number;
    };
export const ABSENT: StoredImage = { exists: false };

/** One planned change to a message or part: the stored objects before and after (absent for insert/delete). */
export interface RecordChange {
  op: ChangeOp;
  key: RecordKey;
  /** The stored object before; undefined for inserts and for records that never parsed (see `beforeText`). */
  before?: Record<string, unknown>;
  /** What an unreadable record held, decoded as far as it goes, so the diff shows what is replaced. */
  beforeText?: string;
  /** The stored bytes before (absent for inserts): the plan is only valid while the store still holds them. */
  beforeBytes?: Buffer;
  after?: Record<string, unknown>;
  /** The rules whose fixes produced this change, in the order they ran. */
  rules: string[];
  /** Why, one line per fix. */
  reasons: string[];
}

/** A whole file's image before and after a plan (a transcript: what the writer puts in place; null: the file goes). */
export interface FileImage {
  key: RecordKey;
  before: Buffer;
  after: Buffer | null;
}

/** The key a change names a message, part or session record by. */
export function keyOf(ref: RecordRef): RecordKey {
  const key: RecordKey = { record: ref.kind === "message" ? "message" : ref.kind === "session" ? "session" : "part", id: ref.id, sessionId: ref.sessionId };
  if (ref.messageId !== undefined) key.messageId = ref.messageId;
  if (ref.path !== undefined) key.path = ref.path;
  return key;
}

export function summariseChange(change: RecordChange): ChangeSummary {
  const { record, id, sessionId, messageId } = change.key;
  return { op: change.op, record, id, sessionId, ...(messageId !== undefined ? { messageId } : {}), rules: [...change.rules] };
}

export function sameImage(a: StoredImage, b: StoredImage): boolean {
  if (!a.exists || !b.exists) return a.exists === b.exists;
  return a.bytes.equals(b.bytes) && (a.mode ?? null) === (b.mode ?? null);
}

const DEPTH: Record<RecordKind, number> = { project: -1, session: 0, message: 1, part: 2, file: 0, line: 1, index: 0 };

/**
 * The order a store applies targets in: deletions first, children before parents; then the rest, parents before
 * children (as opencode's cascades go), so no step ever leaves a part pointing at a message not yet written.
 */
export function applyOrder<T extends { key: RecordKey; after: StoredImage }>(targets: readonly T[]): T[] {
  return [...targets].sort((a, b) => {
    const aGone = !a.after.exists;
    const bGone = !b.after.exists;
    if (aGone !== bGone) return aGone ? -1 : 1;
    return aGone ? DEPTH[b.key.record] - DEPTH[a.key.record] : DEPTH[a.key.record] - DEPTH[b.key.record];
  });
}
