/**
 * opencode ≥1.2: `opencode.db` (WAL mode) with tables session, message, part; ids in columns, the rest JSON in
 * `data` (reference opencode.md §3). Scans open it read-only through SQLite itself, which reads the -wal file
 * with the db, so a scan sees exactly what opencode sees (from a private copy when SQLite cannot read it in place:
 * sqlite/open.ts).
 */
import type Database from "better-sqlite3";
import { RecoverError } from "../../errors.js";
import type { LoadMode, MessageRecord, PartRecord, SessionHome, SessionRecords, SessionSummary } from "../../model/opencode-records.js";
import type { StoreFixing } from "../../model/fixing.js";
import type { RecordRef } from "../../model/record.js";
import type { HiddenSessions, OpencodeCodec, OpencodeStore, StoreInfo, StoreWriter } from "../store.js";
import { sqliteCodec } from "./codec.js";
import { opencodeFixing } from "./working.js";
import { corrupt, sqliteError } from "../sqlite/errors.js";
import { openForReading, type ReadConnection } from "../sqlite/open.js";
import { OpencodeSqliteWriter } from "./sqlite-writer.js";
import { recordedActivity } from "./activity.js";
import { assembleSession, messageFromBytes, partFromBytes } from "./record-builder.js";
import { sessionPaths } from "./recreate-session.js";
import { columnsOf, idText, quoteName } from "../sqlite/row.js";

interface SessionRow {
  id: string;
  title: string;
  directory: string;
  parentId: unknown;
  created: number;
  updated: number;
  messages: number;
}

interface StoredRow {
  id: string;
  created: number;
  updated: number;
  /** TEXT as opencode writes it; a damaged row may hold a BLOB, NULL or a number instead. */
  data: string | Buffer | null | number;
}

/** Part rows larger than this are measured in SQLite, not read whole into a scan (the `parts` statement). */
export const HUGE_ROW_BYTES = 8 * 1024 * 1024;

const SESSION_SELECT = `SELECT s.id, s.title, s.directory, s.parent_id AS parentId, s.time_created AS created, s.time_updated AS updated,
         (SELECT count(*) FROM message m WHERE m.session_id = s.id) AS messages
  FROM session s`;

/**
 * The id and link columns that place a row in a session: a row with a non-text value in one of them belongs to no
 * session recover (or opencode) can name, so it is left as it is and the store says so (see noteRowsWithoutSession).
 * A part whose message_id is not text still belongs to its session: it is read, as a part of no message.
 */
const PLACING_COLUMNS: readonly [table: string, column: string][] = [
  ["session", "id"],
  ["message", "id"],
  ["message", "session_id"],
  ["part", "id"],
  ["part", "session_id"],
];
/** How many such rows a notice names one by one. */
const NAMED_ROWS = 5;

const REQUIRED_TABLES = ["session", "message", "part"];

export class OpencodeSqliteStore implements OpencodeStore {
  /** Set by the data dir it was opened from, when that holds other stores (data-dir.ts). */
  hiddenSessions?: () => HiddenSessions[];
  readonly info: StoreInfo;
  readonly codec: OpencodeCodec = sqliteCodec;
  readonly fixing: StoreFixing = opencodeFixing(sqliteCodec);
  private readonly db: Database.Database;
  private readonly connection: ReadConnection;
  private hasProjects = false;
  private readonly statements: Record<
    "session" | "messages" | "messagesAsBytes" | "parts" | "partsAsBytes" | "lastPartUpdate" | "messageBytes" | "partBytes",
    Database.Statement
  >;

  constructor(dbPath: string, notices: string[] = []) {
    this.info = { format: "opencode-sqlite", path: dbPath, notices: [...notices] };
    try {
      this.connection = openForReading(dbPath);
    } catch (error) {
      throw sqliteError(error, dbPath);
    }
    this.db = this.connection.db;
    if (this.connection.notice) this.info.notices.push(this.connection.notice);
    if (this.connection.copy) this.info.readFrom = this.connection.copy;
    this.guard(() => this.checkSchema());
    this.guard(() => this.noteRowsWithoutSession());
    this.statements = this.guard(() => ({
      session: this.db.prepare(`${SESSION_SELECT} WHERE s.id = ?`),
      // A row whose id is not text (NULL or a blob after row damage) cannot be named as a record (a change, a backup
      // manifest, a finding): it is left out of the session, as it is, for messages and parts alike.
      messages: this.db.prepare("SELECT id, time_created AS created, time_updated AS updated, data FROM message WHERE session_id = ? AND typeof(id) = 'text'"),
      // A full load keeps every record's exact bytes: read with the row, not asked for again row by row.
      messagesAsBytes: this.db.prepare(
        "SELECT id, time_created AS created, time_updated AS updated, CAST(data AS BLOB) AS data FROM message WHERE session_id = ? AND typeof(id) = 'text'",
      ),
      // Only what a record needs, as arrays: every extra column is a measurable share of a scan.
      // A row over HUGE_ROW_BYTES (an attachment of tens of megabytes as a data URL) never reaches JavaScript whole:
      // SQLite measures it (octet_length reads no content) and hands over the record with its `url` emptied and the
      // URL's length beside it, so a scan's memory does not grow with the attachment (issue 40).
      parts: this.db
        .prepare(
          `SELECT id, message_id,
             CASE WHEN octet_length(data) > ${HUGE_ROW_BYTES} AND json_valid(data) THEN json_replace(data, '$.url', '') ELSE data END,
             CASE WHEN octet_length(data) > ${HUGE_ROW_BYTES} AND json_valid(data) THEN length(json_extract(data, '$.url')) END
           FROM part WHERE session_id = ? AND typeof(id) = 'text'`,
        )
        .raw(),
      partsAsBytes: this.db.prepare("SELECT id, message_id, CAST(data AS BLOB) FROM part WHERE session_id = ? AND typeof(id) = 'text'").raw(),
      lastPartUpdate: this.db.prepare("SELECT max(time_updated) FROM part WHERE message_id = ?").pluck(),
      messageBytes: this.db.prepare("SELECT CAST(data AS BLOB) FROM message WHERE id = ?").pluck(),
      partBytes: this.db.prepare("SELECT CAST(data AS BLOB) FROM part WHERE id = ?").pluck(),
    }));
  }

  private checkSchema(): void {
    const tables = new Set(this.db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").pluck().all() as string[]);
    this.hasProjects = tables.has("project");
    const missing = REQUIRED_TABLES.filter((t) => !tables.has(t));
    if (tables.has("session_v2")) {
      if (missing.length > 0) {
        throw new RecoverError(
          "unsupported-store",
          `${this.info.path} is an OpenCode 2 database (session_v2, no ${missing.join("/")} tables); recover reads opencode 1.x stores`,
        );
      }
      this.info.notices.push(
        "this database also holds OpenCode 2 tables (session_v2): sessions created by OpenCode 2 are not scanned; the opencode 1.x tables are",
      );
    }
    if (missing.length > 0) {
      throw new RecoverError("not-a-store", `${this.info.path} is a SQLite database but not an opencode store (no ${missing.join(", ")} table)`);
    }
  }

  /**
   * Name the rows no session holds because an id or link column of theirs is not text. Each column is indexed in
   * opencode's schema, and non-text values sort apart from text (NULL and numbers before it, blobs after), so this is
   * a few index seeks, not a pass over the tables.
   */
  private noteRowsWithoutSession(): void {
    const found: string[] = [];
    let count = 0;
    for (const [table, column] of PLACING_COLUMNS) {
      const name = quoteName(column);
      // Each test its own seek; IS NULL only where NULL can be (on a NOT NULL column SQLite plans it as a scan).
      const nullable = columnsOf(this.db, table).find((c) => c.name === column)?.notnull === 0;
      for (const test of [...(nullable ? ["IS NULL"] : []), "< ''", ">= X''"]) {
        const where = `FROM ${quoteName(table)} WHERE ${name} ${test}`;
        count += this.db.prepare(`SELECT count(*) ${where}`).pluck().get() as number;
        if (found.length >= NAMED_ROWS) continue;
        const rows = this.db
          .prepare(`SELECT rowid, ${name} ${where} LIMIT ?`)
          .raw()
          .all(NAMED_ROWS - found.length) as [number, unknown][];
        for (const [rowid, value] of rows) found.push(`${table} row ${rowid} (${column} ${idText(value)})`);
      }
    }
    if (count === 0) return;
    const one = count === 1;
    this.info.notices.push(
      `${count} row${one ? "" : "s"} of this database ${one ? "has" : "have"} a non-text id or session link, so no session holds ${one ? "it" : "them"} (opencode cannot show ${one ? "it" : "them"} either); recover leaves ${one ? "it as it is" : "them as they are"}: ${found.join(", ")}${count > found.length ? ", …" : ""}`,
    );
  }

  /**
   * Turn SQLite's errors into one-line, actionable ones. A scan reads every page of the tables it reports on, and
   * SQLite checks each page it reads, so damage surfaces here; only then do we pay for PRAGMA quick_check (a
   * full pass over the file, a third of a whole scan's time on a large store) to name the damage.
   */
  private guard<T>(work: () => T): T {
    try {
      return work();
    } catch (error) {
      if (String((error as { code?: unknown }).code).startsWith("SQLITE_CORRUPT")) throw corrupt(this.info.path, this.describeDamage(error));
      throw sqliteError(error, this.info.path);
    }
  }

  private describeDamage(error: unknown): string {
    try {
      const lines = this.db.prepare("PRAGMA quick_check(3)").pluck().all() as string[];
      // quick_check's rows span several lines ("*** in database main ***\nTree 8 page 8 …"): keep the error one line.
      return lines.map((line) => line.replace(/\s*\n\s*/g, " ")).join("; ");
    } catch {
      return (error as Error).message;
    }
  }

  listSessions(): SessionSummary[] {
    // A session row whose id is not text cannot be named; its messages are listed as the session they name.
    return this.guard(() =>
      (this.db.prepare(`${SESSION_SELECT} WHERE typeof(s.id) = 'text' ORDER BY s.time_updated DESC, s.id`).all() as SessionRow[]).map(toSummary),
    );
  }

  /**
   * Session ids that messages or parts name but no session row holds: their data is still there, and a scan of every
   * session must not pass it by. Only text ids name a session: a damaged row whose session_id became a number or a
   * blob cannot be addressed as one (a backup manifest could not name it, so no repair of it could be undone).
   */
  listStraySessionIds(): string[] {
    return this.guard(() => {
      const named = [this.sessionIdsIn("message"), this.sessionIdsIn("part")];
      if (named.some((ids) => ids === undefined)) {
        return this.db
          .prepare(
            `SELECT session_id FROM message WHERE typeof(session_id) = 'text' AND session_id NOT IN (SELECT id FROM session)
             UNION SELECT session_id FROM part WHERE typeof(session_id) = 'text' AND session_id NOT IN (SELECT id FROM session)
             ORDER BY 1`,
          )
          .pluck()
          .all() as string[];
      }
      const known = new Set(this.db.prepare("SELECT id FROM session").pluck().all());
      const strays = new Set(named.flatMap((ids) => ids!).filter((id) => !known.has(id)));
      // In SQLite's own order (BINARY: UTF-8 bytes), as the query above gives them.
      return [...strays].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    });
  }

  /**
   * The text session ids a table names, each once, by seeking from one to the next in an index on session_id (one
   * seek per session). Reading every row's entry instead (DISTINCT, NOT IN) took a fifth of a second on 300,000
   * parts before the first session was scanned. Undefined when no index leads with session_id: then a seek would be
   * a scan of the table.
   */
  private sessionIdsIn(table: "message" | "part"): string[] | undefined {
    const indexes = this.db.prepare(`PRAGMA index_list(${table})`).all() as { name: string; partial: number }[];
    const leading = this.db.prepare("SELECT name, coll FROM pragma_index_xinfo(?) WHERE seqno = 0");
    const indexed = indexes.some((index) => {
      const column = leading.get(index.name) as { name: string; coll: string } | undefined;
      return index.partial === 0 && column?.name === "session_id" && column.coll === "BINARY";
    });
    if (!indexed) return undefined;
    const first = this.db.prepare(`SELECT session_id FROM ${table} WHERE session_id >= '' ORDER BY session_id LIMIT 1`).pluck();
    const next = this.db.prepare(`SELECT session_id FROM ${table} WHERE session_id > ? ORDER BY session_id LIMIT 1`).pluck();
    const ids: string[] = [];
    // Text sorts after numbers and NULL and before blobs: the walk starts at the first text id and ends at a blob.
    for (let id: unknown = first.get(); typeof id === "string"; id = next.get(id)) ids.push(id);
    return ids;
  }

  /** The session row's `version` column: the opencode version that created the session (a preview build: `0.0.0-…`). */
  clientVersion(id: string): string | undefined {
    try {
      const version = this.db.prepare("SELECT version FROM session WHERE id = ? AND typeof(version) = 'text'").pluck().get(id);
      return typeof version === "string" && version !== "" ? version : undefined;
    } catch {
      // A session table without the column (not opencode's schema) or a damaged page: the listing goes on without it.
      return undefined;
    }
  }

  loadSession(id: string, mode: LoadMode): SessionRecords {
    return this.guard(() => this.load(id, mode));
  }

  private load(id: string, mode: LoadMode): SessionRecords {
    const row = this.statements.session.get(id) as SessionRow | undefined;
    const sessionRef: RecordRef = { kind: "session", id, sessionId: id };
    const keep = mode === "full";
    let lastActivity = row?.updated ?? 0;
    const messages = ((keep ? this.statements.messagesAsBytes : this.statements.messages).all(id) as StoredRow[]).map((r) => {
      lastActivity = Math.max(lastActivity, r.updated);
      return messageFromBytes({ kind: "message", id: r.id, sessionId: id }, this.messageBytes(r), r.created, keep);
    });
    const parts: PartRecord[] = [];
    const damaged: number[] = [];
    // Iterate rather than .all(): each row's JSON text dies as soon as its record is built, instead of living as
    // long as the session (which made the garbage collector copy megabytes of tool output again and again).
    const rows = (keep ? this.statements.partsAsBytes : this.statements.parts).iterate(id) as IterableIterator<
      [string, unknown, StoredRow["data"], number | null | undefined]
    >;
    for (const [partId, messageId, data, urlChars] of rows) {
      // A message_id that is not text names no message: the part is read as one of no message, named by its label.
      const ref: RecordRef = { kind: "part", id: partId, sessionId: id, messageId: typeof messageId === "string" ? messageId : idText(messageId) };
      if (typeof data === "string" && data.includes("\ufffd")) damaged.push(parts.length);
      const record = partFromBytes(ref, data, keep);
      if (typeof urlChars === "number") {
        // The URL SQLite left out: its length is the figure the rules read, and the record is lean (never written).
        record.content.urlChars = urlChars;
        record.stripped = true;
      }
      parts.push(record);
    }
    // The connection is free again: re-read as bytes the rows that showed U+FFFD (see messageBytes).
    for (const index of damaged) {
      const ref = parts[index]!.ref;
      parts[index] = partFromBytes(ref, this.statements.partBytes.get(ref.id) as Buffer, keep);
    }
    // Streamed parts are written after their message: the newest message's parts say when the session last moved.
    const newest = messages.reduce<MessageRecord | undefined>((a, m) => (!a || m.created >= a.created ? m : a), undefined);
    if (newest) lastActivity = Math.max(lastActivity, (this.statements.lastPartUpdate.get(newest.ref.id) as number | null) ?? 0);
    // The records' own times too, as the JSON tree reads them. The rows' time_updated columns stay: opencode bumps
    // them on every streamed update (a tool's growing output changes no time field), and a copy of the database
    // keeps them as they were, unlike a file's mtime. A row with no readable data has its columns and nothing else.
    lastActivity = recordedActivity(lastActivity, messages, parts, () => 0);
    const summary = row ? toSummary(row) : straySummary(id, messages);
    const records = assembleSession(summary, sessionRef, messages, parts, lastActivity, { missing: !row });
    if (!row && records.messages.length > 0) records.home = this.home(records.messages);
    return records;
  }

  /**
   * Where a session without its row belongs: the project whose worktree its messages ran in, else the project of a
   * session in the same directory, else opencode's "global" project; the version of the newest session.
   */
  private home(messages: MessageRecord[]): SessionHome {
    const { directory, worktree } = sessionPaths(messages);
    const version =
      (this.db.prepare("SELECT version FROM session WHERE typeof(version) = 'text' ORDER BY time_updated DESC LIMIT 1").pluck().get() as string | undefined) ??
      "unknown";
    const project =
      worktree === undefined || !this.hasProjects
        ? undefined
        : (this.db.prepare("SELECT id, worktree FROM project WHERE worktree = ? AND typeof(id) = 'text'").get(worktree) as
            | { id: string; worktree: string }
            | undefined);
    if (project) return { projectID: project.id, worktree: project.worktree, version, found: `its worktree ${project.worktree}` };
    const sibling =
      directory === undefined
        ? undefined
        : (this.db.prepare("SELECT project_id FROM session WHERE directory = ? AND typeof(project_id) = 'text' LIMIT 1").pluck().get(directory) as
            | string
            | undefined);
    if (sibling !== undefined) return { projectID: sibling, version, found: `another session in ${directory}` };
    return { projectID: "global", version, found: "no project holds its directory" };
  }

  /**
   * Scans read `data` as text, which is what JSON.parse needs anyway. SQLite hands invalid UTF-8 over with each
   * bad sequence replaced by U+FFFD, so a row showing U+FFFD is re-read as bytes to tell a real U+FFFD from
   * damage and to say where it is. Full loads read the exact bytes in the first place (messagesAsBytes).
   */
  private messageBytes(row: StoredRow): StoredRow["data"] {
    if (typeof row.data === "string" && row.data.includes("\ufffd")) return this.statements.messageBytes.get(row.id) as Buffer;
    return row.data;
  }

  openWriter(): StoreWriter {
    return new OpencodeSqliteWriter(this.info);
  }

  close(): void {
    this.connection.close();
  }
}

function toSummary(row: SessionRow): SessionSummary {
  return {
    id: row.id,
    title: row.title,
    directory: row.directory,
    created: row.created,
    updated: row.updated,
    messages: row.messages,
    ...(row.parentId !== null && row.parentId !== "" ? { parentId: idText(row.parentId) } : {}),
  };
}

function straySummary(id: string, messages: MessageRecord[]): SessionSummary {
  const times = messages.map((m) => m.created);
  return {
    id,
    title: "(no session record)",
    directory: "",
    created: times.length ? Math.min(...times) : 0,
    updated: times.length ? Math.max(...times) : 0,
    messages: messages.length,
  };
}
