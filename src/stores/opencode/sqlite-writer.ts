/**
 * Writes to opencode.db as whole rows. An image is every column of a row with its SQLite type (text and blobs
 * as exact bytes, integers as decimal strings so 64-bit values survive), so a restore puts a row back identical
 * in every column. All targets go into one BEGIN IMMEDIATE transaction: SQLite's own journal makes it atomic,
 * and the -wal/-shm files are SQLite's business, never ours.
 */
import type Database from "better-sqlite3";
import { RecoverError } from "../../errors.js";
import { applyOrder, sameImage, type RecordKey, type StoredImage } from "../../model/change.js";
import type { ImageTarget, StoreInfo, StoreWriter } from "../store.js";
import { FileWriter } from "../file-writer.js";
import { SqliteDatabaseWriter } from "../sqlite/database-writer.js";

import {
  bindValue,
  type Cell,
  cellAt,
  cellSelect,
  type ColumnInfo,
  columnsOf,
  decodeRow,
  encodeRow,
  fitRow,
  insertSql,
  integerCell as integer,
  placeholder,
  quoteName,
  textCell as text,
  valueCell,
} from "../sqlite/row.js";
import { formatCount } from "../../model/format-count.js";

const TABLE: Record<Exclude<RecordKey["record"], "file" | "line" | "index">, string> = {
  project: "project",
  session: "session",
  message: "message",
  part: "part",
};

function tableOf(key: RecordKey): string {
  if (key.record === "file" || key.record === "line" || key.record === "index") throw new Error(`opencode.db holds no ${key.record} records (${key.id})`);
  return TABLE[key.record];
}

export class OpencodeSqliteWriter extends SqliteDatabaseWriter implements StoreWriter {
  /** The database's own files, whole (a salvage's swap and its undo): never through SQLite. */
  private readonly files: FileWriter;
  private readonly columns = new Map<string, ColumnInfo[]>();
  private readonly statements = new Map<string, Database.Statement>();
  private readonly readers = new Map<string, Database.Statement>();

  constructor(info: StoreInfo) {
    super(info);
    this.files = new FileWriter(info);
  }

  private tableColumns(table: string): ColumnInfo[] {
    let columns = this.columns.get(table);
    if (!columns) {
      columns = this.guard(() => columnsOf(this.db, table));
      this.columns.set(table, columns);
    }
    return columns;
  }

  /**
   * A new row of one of opencode's tables (an import's, a recreated session's): the cells given, mapped onto this
   * database's columns (see fitRow), as the image a read of it will give back.
   */
  newRow(table: "project" | "session" | "message" | "part", given: ReadonlyMap<string, Cell>): StoredImage {
    return { exists: true, bytes: encodeRow(fitRow(table, this.tableColumns(table), given)) };
  }

  /** One prepared SELECT per table for before-images (a trim reads thousands of rows). */
  private rowReader(table: string, names: readonly string[]): Database.Statement {
    let reader = this.readers.get(table);
    if (!reader) {
      reader = this.db
        .prepare(`SELECT ${cellSelect(names)} FROM ${quoteName(table)} WHERE id = ?`)
        .raw(true)
        .safeIntegers(true);
      this.readers.set(table, reader);
    }
    return reader;
  }

  private statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  read(key: RecordKey): StoredImage {
    if (key.record === "file") return this.files.read(key);
    return this.guard(() => {
      const table = tableOf(key);
      const names = this.tableColumns(table).map((c) => c.name);
      const row = this.rowReader(table, names).get(key.id) as unknown[] | undefined;
      if (!row) return { exists: false };
      const columns: [string, Cell][] = names.map((name, i) => [name, cellAt(row, i)]);
      return { exists: true, bytes: encodeRow({ table, columns }) };
    });
  }

  payload(image: StoredImage): Buffer | undefined {
    if (!image.exists) return undefined;
    if (!isRowImage(image.bytes)) return this.files.payload(image);
    const data = decodeRow(image.bytes).columns.find(([name]) => name === "data")?.[1];
    return data && (data.t === "text" || data.t === "blob") ? Buffer.from(data.v, "base64") : undefined;
  }

  describe(image: StoredImage): string {
    if (!image.exists) return "";
    if (!isRowImage(image.bytes)) return `(the database file as it was: ${formatCount(image.bytes.length)} bytes)\n`;
    const row: Record<string, unknown> = {};
    for (const [name, c] of decodeRow(image.bytes).columns) {
      if (c.t === "null") row[name] = null;
      else if (c.t === "integer") row[name] = Number.isSafeInteger(Number(c.v)) ? Number(c.v) : c.v;
      else if (c.t === "real") row[name] = c.v;
      else {
        const text = lossy.decode(Buffer.from(c.v, "base64"));
        row[name] = name === "data" ? parsedOr(text) : text;
      }
    }
    return `${JSON.stringify(row, null, 2)}\n`;
  }

  withPayload(key: RecordKey, before: StoredImage, bytes: Buffer, now: number): StoredImage {
    if (before.exists) {
      const row = decodeRow(before.bytes);
      row.columns = row.columns.map(([name, value]) =>
        name === "data" ? [name, { t: "text", v: bytes.toString("base64") }] : name === "time_updated" ? [name, integer(now)] : [name, value],
      );
      return { exists: true, bytes: encodeRow(row) };
    }
    if (key.record === "session") return this.newSessionRow(bytes);
    if (key.record !== "part" || key.messageId === undefined) throw new Error(`cannot create a ${key.record} row`);
    return this.newRow(
      "part",
      new Map<string, Cell>([
        ["id", text(key.id)],
        ["message_id", text(key.messageId)],
        ["session_id", text(key.sessionId)],
        ["time_created", integer(now)],
        ["time_updated", integer(now)],
        ["data", { t: "text", v: bytes.toString("base64") }],
      ]),
    );
  }

  /**
   * A recreated session row from its Session.Info (stores/opencode/recreate-session.ts), mapped to columns as
   * opencode maps them. A column it does not name is NULL, or its declared default when it has one (a newer
   * opencode's NOT NULL rollups), so the row is one this database accepts.
   */
  private newSessionRow(bytes: Buffer): StoredImage {
    const info = JSON.parse(bytes.toString("utf8")) as Record<string, unknown>;
    const time = (info.time ?? {}) as Record<string, unknown>;
    const tokens = (info.tokens ?? {}) as Record<string, unknown>;
    const cache = (tokens.cache ?? {}) as Record<string, unknown>;
    const known: Record<string, unknown> = {
      id: info.id,
      project_id: info.projectID,
      parent_id: info.parentID,
      slug: info.slug,
      directory: info.directory,
      path: info.path,
      title: info.title,
      version: info.version,
      cost: info.cost,
      tokens_input: tokens.input,
      tokens_output: tokens.output,
      tokens_reasoning: tokens.reasoning,
      tokens_cache_read: cache.read,
      tokens_cache_write: cache.write,
      agent: info.agent,
      model: info.model === undefined ? undefined : JSON.stringify(info.model),
      time_created: time.created,
      time_updated: time.updated,
    };
    const given = new Map<string, Cell>();
    for (const [name, value] of Object.entries(known)) if (value !== undefined && value !== null) given.set(name, valueCell(value));
    return this.newRow("session", given);
  }

  touched(_key: RecordKey, before: StoredImage, now: number): StoredImage | undefined {
    if (!before.exists) return undefined;
    const row = decodeRow(before.bytes);
    row.columns = row.columns.map(([name, value]) => {
      if (name !== "time_updated") return [name, value];
      const old = value.t === "integer" ? Number(value.v) : 0;
      return [name, integer(Math.max(old, now))];
    });
    return { exists: true, bytes: encodeRow(row) };
  }

  apply(targets: readonly ImageTarget[]): void {
    const files = targets.filter((t) => t.key.record === "file");
    if (files.length > 0) {
      if (files.length !== targets.length) throw new Error("a transaction writes either the database's files or its rows, never both");
      this.files.apply(targets);
      return;
    }
    const ordered = applyOrder(targets);
    const write = this.db.transaction(() => {
      for (const target of ordered) {
        const current = this.read(target.key);
        if (!sameImage(current, target.before)) {
          throw new RecoverError(
            "store-changed",
            `${target.key.record} ${target.key.id} changed since it was read (is opencode running?); nothing was changed`,
          );
        }
        this.write(target);
        // The repair's verdict (the planner judged the records these bytes decode to) holds only for what is really
        // stored: a row SQLite keeps otherwise (a value its column's type turns into another) rolls everything back.
        if (!sameImage(this.read(target.key), target.after)) {
          throw new RecoverError("internal", `${target.key.record} ${target.key.id} did not read back as written; nothing was changed`);
        }
      }
    });
    this.guard(() => write.immediate());
  }

  private write(target: ImageTarget): void {
    const table = tableOf(target.key);
    if (!target.after.exists) {
      this.statement(`DELETE FROM ${quoteName(table)} WHERE id = ?`).run(target.key.id);
      return;
    }
    const row = decodeRow(target.after.bytes);
    const values = row.columns.map(([, c]) => bindValue(c));
    if (target.before.exists) {
      const sets = row.columns.map(([name, c]) => `${quoteName(name)} = ${placeholder(c)}`).join(", ");
      this.statement(`UPDATE ${quoteName(table)} SET ${sets} WHERE id = ?`).run(...values, target.key.id);
    } else {
      this.statement(insertSql(row)).run(...values);
    }
  }
}

/** A row image is our JSON (encodeRow); anything else is one of the database's files, whole. */
function isRowImage(bytes: Buffer): boolean {
  return bytes.subarray(0, 9).toString("latin1") === '{"table":';
}

const lossy = new TextDecoder("utf-8", { fatal: false });

function parsedOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
