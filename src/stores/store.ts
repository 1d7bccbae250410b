/**
 * What every store adapter offers. Nothing outside src/stores opens a file of a store.
 *
 * Reading (`SessionStore`) and writing (`StoreWriter`) are apart: scans never hold a writable handle, and every
 * write goes through the transaction layer (src/txn), which backs up before-images first.
 */
import type { LoadMode, SessionRecords, SessionSummary } from "../model/opencode-records.js";
import type { RecordKey, StoredImage } from "../model/change.js";
import type { TranscriptRecords } from "../model/transcript.js";
import type { StoreFixing } from "../model/fixing.js";

/**
 * A store's format, as `--format` and a backup's manifest spell it: one per adapter in registry.ts (the session
 * stores a user can name), plus "pokeralph-battle", a battle's files, reached through its backups only.
 */
export type StoreFormat = string;

/** One session as a store loads it: opencode's records, or a transcript's lines. */
export type LoadedSession = SessionRecords | TranscriptRecords;

export interface HiddenSessions {
  /** The store that holds them (a database file, a storage/ folder). */
  store: string;
  sessions: SessionSummary[];
}

export interface StoreInfo {
  format: StoreFormat;
  /** The store: the file or directory the records are read from (locks, the journal and backups are keyed by it). */
  path: string;
  /** What `--store` named, when that is only a part of the store (one project's transcripts): what is read. */
  part?: string;
  /** A private copy the records are read from, when the store could not be read in place (see sqlite/open.ts). */
  readFrom?: string;
  /** Things the user should know about this store that are not findings (a stale legacy tree, OpenCode 2). */
  notices: string[];
}

/**
 * How records of one store format are serialised: fixes edit the stored object, the codec turns it back into the
 * bytes this format keeps, so the planner can rebuild records exactly as the store will read them after a write.
 */
export interface RecordCodec {
  /** Bytes of a stored object as this format writes them (SQLite `data`: compact, no ids; JSON tree: pretty, ids first). */
  encode(stored: Record<string, unknown>): Buffer;
  /** The stored object for a record's fields (no ids): the JSON tree keeps the ids in the object, first; SQLite in columns. */
  stored(ids: { id: string; sessionId: string; messageId?: string }, data: Record<string, unknown>): Record<string, unknown>;
  /** Where a new part lives (JSON tree: its file path). */
  partPath(messageId: string, partId: string): string | undefined;
}

export interface SessionStore {
  readonly info: StoreInfo;
  readonly codec: RecordCodec;
  /** How its sessions are fixed in the planner's working copy (where a new record goes, its agent's fix context). */
  readonly fixing: StoreFixing;
  /** Every session, newest update first. */
  listSessions(): SessionSummary[];
  /** Just the ids, when listing costs more than finding them (a transcript's summary reads the file). */
  listSessionIds?(): string[];
  /** Sessions that records point at but that have no session record of their own (orphaned messages). */
  listStraySessionIds(): string[];
  /**
   * Sessions that stores beside this one hold and it lacks (an opencode data dir's other databases and its legacy
   * storage/ tree): the agent reads this one and does not show them. Per store, newest first.
   */
  hiddenSessions?(): HiddenSessions[];
  /** One session's records, ordered. `lean` may summarise heavy fields (see PartRecord); `full` keeps bytes. */
  loadSession(id: string, mode: LoadMode): LoadedSession;
  /**
   * The version of the agent's client that last wrote session `id`, as the session records it (Claude Code's
   * `version` on each record, Codex's `session_meta.payload.cli_version`, opencode's session `version`), read from
   * that session alone. Undefined when the format records none (Gemini CLI, openclaw) or this session does not;
   * never throws (it only informs a listing). `recover store list` asks it of the newest session.
   */
  clientVersion?(id: string): string | undefined;
  /** Another name the agent gives a session (openclaw's session keys), resolved to its id. */
  resolveAlias?(name: string): string | undefined;
  /** The other names that resolve to session `id` now (resolveAlias the other way), sorted; none when it has none. */
  aliasesOf?(id: string): string[];
  /** A writer on the same store; only mutating commands ask for one. */
  openWriter(): StoreWriter;
  close(): void;
}

/** opencode's codecs also store a session record (one recreated from its messages: opencode/recreate-session.ts). */
export interface OpencodeCodec extends RecordCodec {
  /** The session record as this format stores it (SQLite: every field, its writer maps them to columns), and its file. */
  session(session: Record<string, unknown>): { value: Record<string, unknown>; path?: string };
}

/** A store of opencode's records (SQLite or the JSON tree): its sessions load as Session → Message → Part. */
export interface OpencodeStore extends SessionStore {
  readonly codec: OpencodeCodec;
  loadSession(id: string, mode: LoadMode): SessionRecords;
}

export function isOpencodeStore(store: SessionStore): store is OpencodeStore {
  return store.info.format === "opencode-sqlite" || store.info.format === "opencode-json";
}

/** One record's target: what the store must hold for `key` after a transaction (absent = deleted). */
export interface ImageTarget {
  key: RecordKey;
  before: StoredImage;
  after: StoredImage;
}

/**
 * Writes to a store, always as whole before/after images of records, so a repair, its undo and a restore are the
 * same operation. Implementations verify that each record still equals its `before` image as they write, and
 * refuse (store-changed) otherwise: someone else wrote since the plan was made.
 */
export interface StoreWriter {
  readonly info: StoreInfo;
  /** Refuse to write into a damaged store (SQLite: PRAGMA quick_check). */
  checkIntegrity(): void;
  /** Other processes holding the store open right now (pid and name), e.g. a running opencode. */
  openers(): { pid: number; name: string }[];
  /** The record exactly as stored now (every column / every byte and the file mode), or absent. */
  read(key: RecordKey): StoredImage;
  /** The record's JSON bytes inside an image (SQLite: the `data` column; JSON tree: the file), to compare with a load. */
  payload(image: StoredImage): Buffer | undefined;
  /** An image as a person reads it in a diff (pretty JSON; a row as its columns). */
  describe(image: StoredImage): string;
  /** The image after a fix: `bytes` become the record's JSON; bookkeeping (time_updated, ids, mode) follows the store's rules. */
  withPayload(key: RecordKey, before: StoredImage, bytes: Buffer, now: number): StoredImage;
  /** The session record with its update time moved to `now` (opencode touches it on every write), if it has one. */
  touched(key: RecordKey, before: StoredImage, now: number): StoredImage | undefined;
  /** Put every target in place: SQLite in one transaction; files one rename at a time (the journal covers a crash). */
  apply(targets: readonly ImageTarget[]): void;
  close(): void;
}
