/**
 * opencode ≥1.2: `opencode.db` (WAL mode) with tables session, message, part; ids in columns, the rest JSON in
 * `data` (reference opencode.md §3). Scans open it read-only through SQLite itself, which reads the -wal file
 * with the db, so a scan sees exactly what opencode sees.
 */
import { isUtf8 } from "node:buffer";
import Database from "better-sqlite3";
import { RecoverError } from "../../errors.js";
import type { LoadMode, MessageRecord, PartRecord, SessionRecords, SessionSummary } from "../../model/opencode-records.js";
import type { RecordRef } from "../../model/record.js";
import type { SessionStore, StoreInfo } from "../store.js";
import { assembleSession, messageFromBytes, partFromBytes, partFromSkeleton } from "./record-builder.js";
import { LEAN_PART_COLUMNS, leanContent, restorePlaceholders, type LeanPartRow } from "./sqlite-queries.js";

interface SessionRow {
  id: string;
  title: string;
  directory: string;
  parentId: string | null;
  created: number;
  updated: number;
  messages: number;
}

interface MessageRow {
  id: string;
  created: number;
  updated: number;
  valid: number;
  utf8: number;
  data: string | null;
}

const REQUIRED_TABLES = ["session", "message", "part"];

export class OpencodeSqliteStore implements SessionStore {
  readonly info: StoreInfo;
  private readonly db: Database.Database;

  constructor(dbPath: string, notices: string[] = []) {
    this.info = { format: "opencode-sqlite", path: dbPath, notices: [...notices] };
    try {
      this.db = new Database(dbPath, { readonly: true, fileMustExist: true, timeout: 5000 });
    } catch (error) {
      throw sqliteError(error, dbPath);
    }
    this.guard(() => this.checkSchema());
    this.db.function("recover_utf8_valid", { deterministic: true }, (bytes: unknown) => (Buffer.isBuffer(bytes) && isUtf8(bytes) ? 1 : 0));
  }

  private checkSchema(): void {
    const tables = new Set(
      this.db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").pluck().all() as string[],
    );
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
    const check = this.db.prepare("PRAGMA quick_check").pluck().all() as string[];
    if (check.length !== 1 || check[0] !== "ok") {
      throw corrupt(this.info.path, check.slice(0, 3).join("; "));
    }
  }

  /** Turn SQLite's errors into one-line, actionable ones. */
  private guard<T>(work: () => T): T {
    try {
      return work();
    } catch (error) {
      throw sqliteError(error, this.info.path);
    }
  }

  listSessions(): SessionSummary[] {
    return this.guard(() =>
      (
        this.db
          .prepare(
            `SELECT s.id, s.title, s.directory, s.parent_id AS parentId, s.time_created AS created, s.time_updated AS updated,
                    (SELECT count(*) FROM message m WHERE m.session_id = s.id) AS messages
             FROM session s ORDER BY s.time_updated DESC, s.id`,
          )
          .all() as SessionRow[]
      ).map(toSummary),
    );
  }

  listStraySessionIds(): string[] {
    return this.guard(
      () =>
        this.db
          .prepare(
            `SELECT session_id FROM message WHERE session_id NOT IN (SELECT id FROM session)
             UNION SELECT session_id FROM part WHERE session_id NOT IN (SELECT id FROM session)
             ORDER BY 1`,
          )
          .pluck()
          .all() as string[],
    );
  }

  loadSession(id: string, mode: LoadMode): SessionRecords {
    return this.guard(() => this.load(id, mode));
  }

  private load(id: string, mode: LoadMode): SessionRecords {
    const row = this.db
      .prepare(
        `SELECT s.id, s.title, s.directory, s.parent_id AS parentId, s.time_created AS created, s.time_updated AS updated,
                (SELECT count(*) FROM message m WHERE m.session_id = s.id) AS messages
         FROM session s WHERE s.id = ?`,
      )
      .get(id) as SessionRow | undefined;
    const sessionRef: RecordRef = { kind: "session", id, sessionId: id };
    const messages = mode === "full" ? this.fullMessages(id) : this.leanMessages(id);
    const parts = mode === "full" ? this.fullParts(id) : this.leanParts(id);
    const lastActivity = (this.db
      .prepare(
        `SELECT max(coalesce((SELECT max(time_updated) FROM message WHERE session_id = @id), 0),
                    coalesce((SELECT max(time_updated) FROM part WHERE session_id = @id), 0),
                    coalesce((SELECT time_updated FROM session WHERE id = @id), 0))`,
      )
      .pluck()
      .get({ id }) as number) ?? 0;
    const summary = row ? toSummary(row) : straySummary(id, messages);
    return assembleSession(
      summary,
      sessionRef,
      messages,
      parts,
      lastActivity,
      { missing: !row },
    );
  }

  private fullMessages(sessionId: string): MessageRecord[] {
    const rows = this.db
      .prepare("SELECT id, time_created AS created, CAST(data AS BLOB) AS bytes FROM message WHERE session_id = ?")
      .all(sessionId) as { id: string; created: number; bytes: Buffer }[];
    return rows.map((r) => messageFromBytes({ kind: "message", id: r.id, sessionId }, r.bytes, r.created, true));
  }

  private leanMessages(sessionId: string): MessageRecord[] {
    const rows = this.db
      .prepare(
        `SELECT id, time_created AS created, time_updated AS updated, json_valid(data) AS valid,
                CASE WHEN octet_length(data) = length(data) THEN 1 ELSE recover_utf8_valid(CAST(data AS BLOB)) END AS utf8,
                CASE WHEN octet_length(data) > 65536 AND json_valid(data) THEN json_remove(data, '$.summary.diffs') ELSE data END AS data
         FROM message WHERE session_id = ?`,
      )
      .all(sessionId) as MessageRow[];
    return rows.map((r) => {
      const ref: RecordRef = { kind: "message", id: r.id, sessionId };
      // Damaged rows are rare: fetch their exact bytes so the finding can say what is wrong and where.
      const bytes = r.valid && r.utf8 ? (r.data ?? "") : this.messageBytes(r.id);
      return messageFromBytes(ref, bytes, r.created, false);
    });
  }

  private fullParts(sessionId: string): PartRecord[] {
    const rows = this.db
      .prepare("SELECT id, message_id AS messageId, CAST(data AS BLOB) AS bytes FROM part WHERE session_id = ?")
      .all(sessionId) as { id: string; messageId: string; bytes: Buffer }[];
    return rows.map((r) => partFromBytes({ kind: "part", id: r.id, sessionId, messageId: r.messageId }, r.bytes, true));
  }

  private leanParts(sessionId: string): PartRecord[] {
    const parts: PartRecord[] = [];
    const rows = this.db.prepare(`SELECT ${LEAN_PART_COLUMNS} FROM part WHERE session_id = ?`).iterate(sessionId) as IterableIterator<LeanPartRow>;
    for (const row of rows) {
      const ref: RecordRef = { kind: "part", id: row.id, sessionId, messageId: row.messageId };
      if (!row.valid || !row.utf8 || (row.suspect && row.skeleton !== null)) {
        parts.push(partFromBytes(ref, this.partBytes(row.id), false));
      } else if (row.skeleton !== null) {
        const value = restorePlaceholders(JSON.parse(row.skeleton), JSON.parse(row.heavyTypes ?? "[]"));
        parts.push(partFromSkeleton(ref, value, leanContent(row)));
      } else {
        parts.push(partFromBytes(ref, row.data ?? "", false));
      }
    }
    return parts;
  }

  private partBytes(id: string): Buffer {
    return this.db.prepare("SELECT CAST(data AS BLOB) FROM part WHERE id = ?").pluck().get(id) as Buffer;
  }

  private messageBytes(id: string): Buffer {
    return this.db.prepare("SELECT CAST(data AS BLOB) FROM message WHERE id = ?").pluck().get(id) as Buffer;
  }

  close(): void {
    this.db.close();
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
    ...(row.parentId ? { parentId: row.parentId } : {}),
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

function corrupt(path: string, damage: string): RecoverError {
  return new RecoverError(
    "store-corrupt",
    `${path} is damaged (PRAGMA quick_check: ${damage}); work on a copy: \`sqlite3 ${path} .recover > recovered.sql\``,
  );
}

export function sqliteError(error: unknown, path: string): Error {
  if (error instanceof RecoverError) return error;
  const code = (error as { code?: string }).code ?? "";
  const message = (error as Error).message ?? String(error);
  if (code === "SQLITE_NOTADB") return new RecoverError("not-a-store", `${path} is not a SQLite database`);
  if (code.startsWith("SQLITE_CORRUPT")) return corrupt(path, message);
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) {
    return new RecoverError("store-busy", `${path} is locked by another process (${message}); try again when opencode is idle`, 3);
  }
  if (code.startsWith("SQLITE_CANTOPEN") || code === "SQLITE_PERM" || code === "SQLITE_READONLY") {
    return new RecoverError("store-unreadable", `cannot open ${path} (${message}); check that it exists and you may read it and its directory`);
  }
  if (code.startsWith("SQLITE_IOERR")) return new RecoverError("store-unreadable", `cannot read ${path}: ${message}`);
  return error instanceof Error ? error : new Error(message);
}
