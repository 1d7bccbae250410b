/**
 * What the planner needs from a store to fix a session in memory, as model-level interfaces the caller passes in
 * (plan/ never imports a store). The planner keeps one working copy (plan/working-copy.ts): the session's records
 * in store order, and for each the values fixes gave it. Each store family says how its records live in that copy
 * (stores/opencode/working.ts, stores/transcript/working.ts): how a record is named, where a new one goes, how the
 * session reads back after the edits, and what the difference comes to for its writer.
 */
import type { FileImage, RecordChange, RecordKey } from "./change.js";
import type { Edit, Json, StoredRecord } from "./edit.js";
import type { FixContext } from "./fix-context.js";
import type { SessionRecords } from "./opencode-records.js";
import type { RecordRef } from "./record.js";
import type { RuleOptions } from "./rule-options.js";
import type { SessionView } from "./session-view.js";
import type { IndexRow, TranscriptRecords } from "./transcript.js";

/** A session as a store loads it: opencode's records or a transcript's lines. */
export type LoadedRecords = SessionRecords | TranscriptRecords;

/** A new record as its store places it. */
export interface NewRecord {
  /** Its id in the session (what later edits and claims name it by). */
  id: string;
  /** The id of the record it follows in store order; none: it goes last (its store orders it on assembly). */
  after?: string;
  /** Its stored object. */
  value: Json;
  ref: RecordRef;
  key: RecordKey;
}

/** One record of the working copy. */
export interface DraftEntry {
  id: string;
  /** The record as loaded; none: a record a fix added. */
  original?: StoredRecord;
  added?: NewRecord;
  /** undefined: as loaded; null: deleted; otherwise the stored objects in its place (a split line holds several). */
  values?: Json[] | null;
  /** The rules whose fixes touched it, in order, and one reason per edit. */
  rules: string[];
  reasons: string[];
}

/** How a store family's records live in the planner's working copy. */
export interface RecordFamily {
  /** Every loaded record, in store order. */
  records(): StoredRecord[];
  /** A record's id in the session, the same across planning passes. */
  idOf(record: StoredRecord): string;
  /** Where an inserted record goes, and what it holds as stored. */
  place(edit: Edit & { op: "insert" }): NewRecord;
  /** The records an edit claims in one planning pass (`ownRecordOnly`: its fix reads nothing but its record). */
  claims(edit: Edit, ownRecordOnly: boolean): string[];
  /** Records no fix may touch, claimed before any fix (records another session reads too); a fix touching one is left out. */
  untouchable?(): string[];
  /** The session as a load of the written records would read it (`beside`: files removed, index rows set). */
  assemble(entries: readonly DraftEntry[], beside?: readonly Beside[]): LoadedRecords;
  /** The store's fix context on a view of the assembled session. */
  context(view: SessionView, options: RuleOptions): FixContext;
  /** What an entry comes to, compared with the stored bytes; none when it is unchanged. */
  change(entry: DraftEntry): RecordChange | undefined;
  /** The changes as the plan lists them, and the whole-file images a store that writes whole files needs; throws if a change is invalid. */
  outcome(entries: readonly DraftEntry[], changes: RecordChange[], beside?: readonly Beside[]): { changes: RecordChange[]; files?: FileImage[] };
}

/**
 * An edit of what lies beside the session's records, not one of them: a whole file a fix removes (`discard-file`), a
 * row of the agent's index a fix sets (`set-index`). One per file or row, with the rules and reasons that asked for it.
 */
export interface Beside {
  edit: Edit & { op: "discard-file" | "set-index" };
  rules: string[];
  reasons: string[];
}

/** What a Beside edit is about: the same file or row is one edit, however many fixes ask for it. */
export function besideKey(edit: Edit & { op: "discard-file" | "set-index" }): string {
  return edit.op === "discard-file" ? `file:${edit.path ?? ""}` : indexRowKey(edit.row);
}

export function indexRowKey(row: IndexRow): string {
  return `index:${row.path}#${row.id}`;
}

/** A store's way of fixing its sessions. */
export interface StoreFixing {
  family(loaded: LoadedRecords): RecordFamily;
}
