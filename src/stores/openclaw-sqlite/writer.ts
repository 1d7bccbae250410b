/**
 * Writes sessions of openclaw's database as whole session images (session-rows.ts): the before-image a backup keeps,
 * the after-image a plan makes (rewrite.ts). One BEGIN IMMEDIATE transaction per apply, so a crash leaves the old
 * session or the new one; each table is brought to the image by primary key, touching only rows that differ, so a
 * restore gives back every row as it was, cell for cell.
 *
 * `session_nodes`' triggers reset `entry_valid` and queue the key for validation
 * whenever a node row is written; the image says what those columns hold afterwards, so a second pass sets them.
 */
import { RecoverError, storeChanged } from "../../errors.js";
import { sameImage, type RecordKey, type StoredImage } from "../../model/change.js";
import { SqliteDatabaseWriter } from "../sqlite/database-writer.js";
import { bindValue, type Cell, placeholder, quoteName } from "../sqlite/row.js";
import type { ImageTarget, StoreInfo, StoreWriter } from "../store.js";
import { rewriteSession } from "./rewrite.js";
import {
  BY_ROWID,
  decodeImage,
  encodeImage,
  imageColumns,
  readSessionImage,
  sameCells,
  SESSION_TABLES,
  type SessionImage,
  type TableRows,
  transcriptOf,
} from "./session-rows.js";

/**
 * Tables whose rows are replaced (deleted, then inserted) rather than updated: their unique `seq` indexes would clash
 * mid-way, and an FTS5 row is its text.
 */
const REPLACED = new Set([
  "transcript_events",
  "transcript_event_identities",
  "session_transcript_active_events",
  "session_transcript_fts_rows",
  "session_transcript_fts",
]);

export class OpenclawSqliteWriter extends SqliteDatabaseWriter implements StoreWriter {
  private readonly keys = new Map<string, string[]>();

  constructor(
    info: StoreInfo,
    private readonly present: ReadonlySet<string>,
  ) {
    super(info);
  }

  read(key: RecordKey): StoredImage {
    const image = this.guard(() => readSessionImage(this.db, key.sessionId, this.present));
    const holds = Object.values(image.tables).some((table) => table.rows.length > 0);
    return holds ? { exists: true, bytes: encodeImage(image) } : { exists: false };
  }

  /** The session's transcript, one line per event: what the planner read and changes. */
  payload(image: StoredImage): Buffer | undefined {
    return image.exists ? transcriptOf(decodeImage(image.bytes)) : undefined;
  }

  describe(image: StoredImage): string {
    return image.exists ? transcriptOf(decodeImage(image.bytes)).toString("utf8") : "";
  }

  withPayload(_key: RecordKey, before: StoredImage, bytes: Buffer, now: number): StoredImage {
    if (!before.exists) throw new Error("openclaw sessions are repaired in place; recover creates none");
    return { exists: true, bytes: encodeImage(rewriteSession(decodeImage(before.bytes), bytes, now, this.nextSearchRowId())) };
  }

  touched(): StoredImage | undefined {
    return undefined;
  }

  apply(targets: readonly ImageTarget[]): void {
    const write = this.db.transaction(() => {
      for (const target of targets) {
        if (!sameImage(this.read(target.key), target.before)) {
          throw storeChanged(`session ${target.key.sessionId} of ${this.info.path} changed since it was read (is openclaw running?); nothing was changed`);
        }
        const after: SessionImage = target.after.exists ? decodeImage(target.after.bytes) : { openclawSession: target.key.sessionId, tables: {} };
        // The triggers of session_nodes change rows after they are written: the second pass puts back what the image says.
        for (let pass = 0; pass < 2; pass++) this.writeImage(target.key.sessionId, after);
        if (!sameImage(this.read(target.key), target.after)) {
          throw new RecoverError("internal", `session ${target.key.sessionId} did not read back as written; nothing was changed`);
        }
      }
    });
    this.guard(() => write.immediate());
  }

  /** Every table of the session brought to the image, in SESSION_TABLES order. */
  private writeImage(sessionId: string, after: SessionImage): void {
    const now = readSessionImage(this.db, sessionId, this.present);
    for (const { name } of SESSION_TABLES) {
      if (!this.present.has(name)) continue;
      const target = after.tables[name] ?? { columns: now.tables[name]?.columns ?? [], rows: [] };
      this.writeTable(name, now.tables[name] ?? { columns: target.columns, rows: [] }, target);
    }
  }

  private writeTable(table: string, current: TableRows, target: TableRows): void {
    const keys = this.primaryKey(table);
    const at = keys.map((k) => current.columns.indexOf(k));
    const keyOf = (row: readonly Cell[]) => JSON.stringify(at.map((i) => row[i]));
    const wanted = new Map(target.rows.map((row) => [keyOf(row), row] as const));
    const have = new Map(current.rows.map((row) => [keyOf(row), row] as const));
    // Text cells are bound as bytes and cast back (sqlite/row.ts): compared as blobs they would match nothing.
    const where = (row: readonly Cell[]) => keys.map((k, j) => `${quoteName(k)} = ${placeholder(row[at[j]!]!)}`).join(" AND ");
    const replaced = REPLACED.has(table);
    const gone = current.rows.filter((row) => {
      const next = wanted.get(keyOf(row));
      return !next || (replaced && !sameCells(next, row));
    });
    for (const row of gone) this.db.prepare(`DELETE FROM ${quoteName(table)} WHERE ${where(row)}`).run(...at.map((i) => bindValue(row[i]!)));
    for (const row of target.rows) {
      const old = have.get(keyOf(row));
      if (!old || (replaced && !sameCells(old, row))) {
        const holes = row.map(placeholder).join(", ");
        this.db.prepare(`INSERT INTO ${quoteName(table)} (${target.columns.map(quoteName).join(", ")}) VALUES (${holes})`).run(...row.map(bindValue));
        continue;
      }
      // Only the columns that differ: a trigger watching a column recover does not change must not fire.
      const changed = target.columns.map((_, i) => i).filter((i) => !sameCells([old[i]!], [row[i]!]));
      if (changed.length === 0) continue;
      const sets = changed.map((i) => `${quoteName(target.columns[i]!)} = ${placeholder(row[i]!)}`).join(", ");
      this.db
        .prepare(`UPDATE ${quoteName(table)} SET ${sets} WHERE ${where(row)}`)
        .run(...changed.map((i) => bindValue(row[i]!)), ...at.map((i) => bindValue(row[i]!)));
    }
  }

  /** Whether the database has `table` (an older schema may lack a derived one). */
  holds(table: string): boolean {
    return this.present.has(table);
  }

  columnsOf(table: string): string[] {
    return this.guard(() => imageColumns(this.db, table));
  }

  /** The id the next search-index row takes (its rows table numbers them across sessions). */
  nextSearchRowId(): number | undefined {
    if (!this.present.has("session_transcript_fts_rows")) return undefined;
    return this.guard(() => Number(this.db.prepare("SELECT coalesce(max(id), 0) + 1 FROM session_transcript_fts_rows").pluck().get()));
  }

  hasNode(sessionKey: string): boolean {
    return this.guard(() => this.db.prepare("SELECT 1 FROM session_nodes WHERE session_key = ?").get(sessionKey) !== undefined);
  }

  private primaryKey(table: string): string[] {
    if (BY_ROWID.has(table)) return ["rowid"];
    let keys = this.keys.get(table);
    if (!keys) {
      const columns = this.db.prepare(`PRAGMA table_info(${quoteName(table)})`).all() as { name: string; pk: number }[];
      keys = columns
        .filter((c) => c.pk > 0)
        .sort((a, b) => a.pk - b.pk)
        .map((c) => c.name);
      if (keys.length === 0) throw new Error(`${table} has no primary key`);
      this.keys.set(table, keys);
    }
    return keys;
  }
}
