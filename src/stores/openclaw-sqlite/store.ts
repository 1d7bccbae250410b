/**
 * One agent's openclaw database (`<state>/agents/<agent>/agent/openclaw-agent.sqlite`) as a session store: a session
 * is a session id of `transcript_events`, read as the transcript its events form (transcript.ts); its session keys
 * (`agent:main:main`, in `session_nodes`) name it too. Read-only here; writes go through writer.ts.
 */
import type Database from "better-sqlite3";
import { statSync } from "node:fs";
import { RecoverError } from "../../errors.js";
import type { LoadMode, SessionSummary } from "../../model/opencode-records.js";
import type { TranscriptRecords } from "../../model/transcript.js";
import { assertSafeId } from "../session-id.js";
import { guarded } from "../sqlite/errors.js";
import { openForReading, type ReadConnection } from "../sqlite/open.js";
import type { HiddenSessions, RecordCodec, SessionStore, StoreInfo, StoreWriter } from "../store.js";
import { transcriptFixing } from "../transcript/working.js";
import { legacySessionsBeside } from "./legacy.js";
import { readSessionImage } from "./session-rows.js";
import { sessionTranscript } from "./transcript.js";
import { OpenclawSqliteWriter } from "./writer.js";

/** An event is written as compact JSON, as the client writes it. */
const eventCodec: RecordCodec = {
  encode: (stored) => Buffer.from(JSON.stringify(stored)),
  stored: (_ids, data) => data,
  partPath: () => undefined,
};

/** How many of a session's first events a listing reads for its title and directory. */
const HEAD_EVENTS = 16;

export class OpenclawSqliteStore implements SessionStore {
  readonly info: StoreInfo;
  readonly codec = eventCodec;
  readonly fixing = transcriptFixing;
  private connection?: ReadConnection;
  private tables?: Set<string>;

  constructor(dbPath: string, notices: string[] = []) {
    this.info = { format: "openclaw-sqlite", path: dbPath, notices };
  }

  private get db(): Database.Database {
    if (!this.connection) {
      this.connection = this.guard(() => openForReading(this.info.path));
      if (this.connection.notice) this.info.notices.push(this.connection.notice);
      if (this.connection.copy) this.info.readFrom = this.connection.copy;
    }
    return this.connection.db;
  }

  private guard<T>(work: () => T): T {
    return guarded(this.info.path, work);
  }

  /** The tables an openclaw agent database has and this one lacks (opencode.db, any SQLite file named so). */
  missingTables(): string[] {
    const tables = this.presentTables();
    return ["transcript_events", "session_nodes", "session_windows"].filter((t) => !tables.has(t));
  }

  /** The tables this database has (a schema of another version may lack a derived one). */
  presentTables(): Set<string> {
    this.tables ??= new Set(this.guard(() => this.db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").pluck().all() as string[]));
    return this.tables;
  }

  listSessionIds(): string[] {
    return this.guard(
      () =>
        this.db
          .prepare("SELECT session_id FROM transcript_events GROUP BY session_id UNION SELECT session_id FROM session_windows ORDER BY 1")
          .pluck()
          .all() as string[],
    );
  }

  listSessions(): SessionSummary[] {
    const counts = this.guard(
      () =>
        this.db
          .prepare("SELECT session_id AS id, count(*) AS events, min(created_at) AS first, max(created_at) AS last FROM transcript_events GROUP BY session_id")
          .all() as { id: string; events: number; first: number; last: number }[],
    );
    const messages = this.messageCounts();
    const sessions = counts.map(({ id, first, last }) => {
      const head = this.headSummary(id);
      return { ...head, created: head.created || first, updated: Math.max(last, head.updated), modified: last, messages: messages.get(id) ?? head.messages };
    });
    return sessions.sort((a, b) => b.updated - a.updated || (a.id < b.id ? -1 : 1));
  }

  listStraySessionIds(): string[] {
    return [];
  }

  /** Message events per session, from the identities the client derives (one row per event, typed). */
  private messageCounts(): Map<string, number> {
    if (!this.presentTables().has("transcript_event_identities")) return new Map();
    const rows = this.guard(
      () =>
        this.db.prepare("SELECT session_id AS id, count(*) AS n FROM transcript_event_identities WHERE event_type = 'message' GROUP BY session_id").all() as {
          id: string;
          n: number;
        }[],
    );
    return new Map(rows.map((r) => [r.id, r.n]));
  }

  private headSummary(id: string): SessionSummary {
    const image = this.guard(() => readSessionImage(this.db, id, this.presentTables(), HEAD_EVENTS));
    return sessionTranscript(image, this.info.path, false, this.mtime(), true).summary;
  }

  private mtime(): number {
    try {
      return statSync(this.info.path).mtimeMs;
    } catch {
      // gone since it was opened: the rows' own times say when they were written
      return 0;
    }
  }

  /**
   * A session key (`agent:main:main`) names the session its node points at; a key pointing at a session with no rows
   * names the newest session whose window gives it that key (the one a repair points it back at).
   */
  resolveAlias(name: string): string | undefined {
    if (!this.presentTables().has("session_nodes")) return undefined;
    return this.guard(() => {
      const pointed = this.db.prepare("SELECT current_session_id FROM session_nodes WHERE session_key = ?").pluck().get(name) as string | undefined;
      if (pointed === undefined || this.holdsSession(pointed)) return pointed;
      const newest = this.db
        .prepare("SELECT session_id FROM session_windows WHERE session_key = ? ORDER BY updated_at DESC, session_id DESC LIMIT 1")
        .pluck()
        .get(name) as string | undefined;
      return newest ?? pointed;
    });
  }

  aliasesOf(id: string): string[] {
    if (!this.presentTables().has("session_nodes")) return [];
    const keys = this.guard(
      () => this.db.prepare("SELECT DISTINCT session_key FROM session_nodes WHERE typeof(session_key) = 'text'").pluck().all() as string[],
    );
    return keys.filter((key) => this.resolveAlias(key) === id).sort();
  }

  private holdsSession(id: string): boolean {
    return (
      this.db
        .prepare("SELECT EXISTS (SELECT 1 FROM transcript_events WHERE session_id = :id) OR EXISTS (SELECT 1 FROM session_windows WHERE session_id = :id)")
        .pluck()
        .get({ id }) === 1
    );
  }

  /** The client that last opened the database (schema_meta); sessions do not name one. */
  clientVersion(_id: string): string | undefined {
    if (!this.presentTables().has("schema_meta")) return undefined;
    try {
      return (this.db.prepare("SELECT app_version FROM schema_meta ORDER BY updated_at DESC LIMIT 1").pluck().get() as string | null) ?? undefined;
    } catch {
      return undefined;
    }
  }

  /** Legacy JSONL transcripts beside the database that it does not hold: the 2026.9 client never reads them. */
  hiddenSessions(): HiddenSessions[] {
    return legacySessionsBeside(this.info.path, new Set(this.listSessionIds()));
  }

  loadSession(id: string, mode: LoadMode): TranscriptRecords {
    assertSafeId(id);
    const image = this.guard(() => readSessionImage(this.db, id, this.presentTables()));
    if ((image.tables.transcript_events?.rows.length ?? 0) === 0 && (image.tables.session_windows?.rows.length ?? 0) === 0) {
      const keys = this.presentTables().has("session_nodes")
        ? (this.guard(() => this.db.prepare("SELECT session_key FROM session_nodes WHERE current_session_id = ?").pluck().all(id)) as string[])
        : [];
      const named =
        keys.length > 0 ? `; session key ${keys.join(", ")} points at it, but it has no rows (the key's own session: recover session scan ${keys[0]})` : "";
      throw new RecoverError("session-not-found", `no session ${id} in this store${named}`, { words: ["session", "list"], why: "to see them" });
    }
    return sessionTranscript(image, this.info.path, mode === "full", this.mtime());
  }

  openWriter(): StoreWriter {
    if (this.info.readFrom !== undefined) {
      throw new RecoverError("store-read-only", `${this.info.path} was read from a private copy (its folder cannot be written); nothing was changed`);
    }
    return new OpenclawSqliteWriter(this.info, this.presentTables());
  }

  close(): void {
    this.connection?.close();
    this.connection = undefined;
  }
}
