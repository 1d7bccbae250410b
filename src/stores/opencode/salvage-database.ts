/**
 * `store salvage`: a database SQLite calls malformed (SQLITE_CORRUPT: opencode will not start, anomalyco/opencode
 * #30157) read row by row into a new database with the same schema. Every row that can be read is kept; what cannot
 * be read is reported by table and rowid range. The original is only read.
 *
 * How rows are read past damage: each table is walked by rowid in batches (`WHERE rowid > ?`, never an index, so
 * a damaged index loses nothing; `rowid >= next`, so a batch starts on the page that holds next). When a step fails, a seek (`WHERE rowid >= x LIMIT 1`) finds the first rowid
 * after the damage whose page reads again: a seek only descends to the page that would hold x, so seeks succeed
 * again right past a damaged page, and a doubling then halving search finds that point in a few dozen seeks. The
 * rowids in between are reported as unreadable. A row whose own overflow pages are damaged is seekable but not
 * readable: it alone is reported.
 */
import { shellQuote } from "../../model/shell-quote.js";
import type Database from "better-sqlite3";
import { existsSync, renameSync, rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { RecoverError } from "../../errors.js";
import { fsyncPath, TEMP_MARKER } from "../../fs/durable.js";
import { openDatabase, openForReading, type ReadConnection } from "../sqlite/open.js";
import { bindValue, cellAt, cellSelect, columnsOf, quoteName } from "../sqlite/row.js";
import { sqliteError } from "../sqlite/errors.js";

export interface UnreadableRange {
  /** Rowids from … to, both included (`to` undefined: every rowid after `from`). */
  from: number;
  to?: number;
  /** SQLite's words for why. */
  why: string;
}

export interface SalvagedTable {
  name: string;
  rows: number;
  unreadable: UnreadableRange[];
}

export interface SalvageResult {
  from: string;
  out: string;
  tables: SalvagedTable[];
  /** Indexes, triggers and views that could not be made again in the new database, with why. */
  skipped: { name: string; why: string }[];
}

interface SchemaEntry {
  type: string;
  name: string;
  sql: string;
}

const BATCH = 1000;

class WriteFailed extends Error {
  constructor(override readonly cause: unknown) {
    super("writing the salvaged database failed");
  }
}

/** Where a salvage writes by default: beside the original, `<name>.salvaged.db`. */
export function defaultSalvageOut(db: string): string {
  return join(dirname(db), `${basename(db).replace(/\.db$/, "")}.salvaged.db`);
}

/**
 * Read every readable row of `from` into a new database at `out` (made under a temporary name and renamed into place
 * once complete and checked, so `out` is never half written). `out` must not exist.
 */
export function salvageDatabase(from: string, out: string): SalvageResult {
  if (existsSync(out)) throw new RecoverError("usage", `${out} already exists; name another with --out`);
  let connection: ReadConnection;
  let schema: SchemaEntry[];
  let userVersion: number;
  try {
    connection = openForReading(from);
  } catch (error) {
    if (!isCorrupt(error)) throw sqliteError(error, from);
    throw schemaUnreadable(from, error);
  }
  const source = connection.db;
  try {
    try {
      schema = source.prepare("SELECT type, name, sql FROM sqlite_schema WHERE sql IS NOT NULL ORDER BY rowid").all() as SchemaEntry[];
      userVersion = source.pragma("user_version", { simple: true }) as number;
    } catch (error) {
      throw schemaUnreadable(from, error);
    }
    const temp = join(dirname(out), `${basename(out)}${TEMP_MARKER}${process.pid}`);
    rmSync(temp, { force: true });
    let target: Database.Database | undefined;
    try {
      target = openDatabase(temp, {});
      // Rows are copied as they are, orphans too (a part whose message was on a lost page): scan and repair judge them.
      target.pragma("foreign_keys = OFF");
      const result = copyInto(source, target, schema, from, out);
      target.pragma(`user_version = ${Number(userVersion) | 0}`);
      const check = target.prepare("PRAGMA integrity_check").pluck().all() as string[];
      if (check.join() !== "ok") throw new Error(`the new database fails its own integrity check: ${check.slice(0, 3).join("; ")}`);
      target.close();
      target = undefined;
      fsyncPath(temp);
      renameSync(temp, out);
      fsyncPath(dirname(out));
      return result;
    } catch (error) {
      target?.close();
      rmSync(temp, { force: true });
      rmSync(`${temp}-journal`, { force: true });
      throw error instanceof RecoverError ? error : sqliteError(error, out);
    }
  } finally {
    connection.close();
  }
}

function isCorrupt(error: unknown): boolean {
  return /^SQLITE_(CORRUPT|NOTADB)/.test(String((error as { code?: unknown })?.code));
}

function schemaUnreadable(from: string, error: unknown): RecoverError {
  return new RecoverError(
    "store-corrupt",
    `${from}: its schema (sqlite_schema, from page 1) cannot be read (${(error as Error).message}), so nothing can be read row by row; try \`sqlite3 ${shellQuote(from)} .recover\` on a copy`,
  );
}

/** Tables first (rows copied), then the indexes, triggers and views over them. */
function copyInto(source: Database.Database, target: Database.Database, schema: readonly SchemaEntry[], from: string, out: string): SalvageResult {
  const result: SalvageResult = { from, out, tables: [], skipped: [] };
  const tables = schema.filter((e) => e.type === "table" && !e.name.startsWith("sqlite_"));
  for (const table of tables) target.exec(table.sql);
  for (const table of tables) {
    // A virtual table's rows are its module's; a table without rowids cannot be walked by them: read whole or not.
    if (/^\s*CREATE\s+VIRTUAL\b/i.test(table.sql)) continue;
    result.tables.push(copyTable(source, target, table.name, /WITHOUT\s+ROWID/i.test(table.sql)));
  }
  for (const entry of schema.filter((e) => e.type !== "table")) {
    try {
      target.exec(entry.sql);
    } catch (error) {
      result.skipped.push({ name: entry.name, why: (error as Error).message });
    }
  }
  return result;
}

function copyTable(source: Database.Database, target: Database.Database, table: string, withoutRowid: boolean): SalvagedTable {
  const names = columnsOf(source, table).map((c) => c.name);
  const copied: SalvagedTable = { name: table, rows: 0, unreadable: [] };
  // Text goes in as its exact bytes, cast back to text (even invalid UTF-8 survives), anything else as it is.
  const holes = names.map(() => "iif(?, CAST(? AS TEXT), ?)");
  const insert = target.prepare(
    `INSERT INTO ${quoteName(table)} (${withoutRowid ? "" : "rowid, "}${names.map(quoteName).join(", ")}) VALUES (${withoutRowid ? "" : "?, "}${holes.join(", ")})`,
  );
  const put = (row: unknown[], rowid?: bigint) => {
    const values = names.flatMap((_, i) => {
      const cell = cellAt(row, i);
      const value = bindValue(cell);
      return cell.t === "text" ? [1, value, null] : [0, null, value];
    });
    try {
      insert.run(...(rowid === undefined ? values : [rowid, ...values]));
    } catch (error) {
      // Writing the copy failed (a full disk): not a row of the original that could not be read.
      throw new WriteFailed(error);
    }
    copied.rows++;
  };
  const write = target.transaction((work: () => void) => work());
  if (withoutRowid) {
    write(() => {
      try {
        for (const row of source
          .prepare(`SELECT ${cellSelect(names)} FROM ${quoteName(table)}`)
          .raw(true)
          .safeIntegers(true)
          .iterate())
          put(row as unknown[]);
      } catch (error) {
        if (error instanceof WriteFailed) throw error.cause;
        copied.unreadable.push({ from: 0, why: `${(error as Error).message} (a table without rowids is read whole: the rest of it)` });
      }
    });
    return copied;
  }
  const batch = source
    .prepare(`SELECT rowid, ${cellSelect(names)} FROM ${quoteName(table)} NOT INDEXED WHERE rowid >= ? ORDER BY rowid LIMIT ${BATCH}`)
    .raw(true)
    .safeIntegers(true);
  const seek = source
    .prepare(`SELECT rowid FROM ${quoteName(table)} NOT INDEXED WHERE rowid >= ? ORDER BY rowid LIMIT 1`)
    .pluck()
    .safeIntegers(true);
  let after = -(2n ** 63n);
  write(() => {
    for (;;) {
      let read = 0;
      try {
        // From `after + 1` on (>=, as a seek): `> after` would descend to the page holding `after`, the damaged one.
        for (const row of batch.iterate(after + 1n) as Iterable<unknown[]>) {
          const rowid = row[0] as bigint;
          put(row.slice(1), rowid);
          after = rowid;
          read++;
        }
        if (read < BATCH) return;
      } catch (error) {
        if (error instanceof WriteFailed) throw error.cause;
        const why = (error as Error).message;
        const next = firstSeekable(seek, after + 1n);
        if (next === undefined) {
          copied.unreadable.push({ from: Number(after + 1n), why });
          return;
        }
        if (next.at === after + 1n) {
          // The page that holds the next row reads, the row itself does not (its overflow pages).
          copied.unreadable.push({ from: Number(next.rowid), to: Number(next.rowid), why });
          after = next.rowid;
        } else {
          copied.unreadable.push({ from: Number(after + 1n), to: Number(next.at - 1n), why });
          after = next.at - 1n;
        }
      }
    }
  });
  return copied;
}

const MAX_ROWID = 2n ** 63n - 1n;

/**
 * The smallest x ≥ from whose seek reads, with the rowid it finds; undefined when nothing after `from` reads. Seeks
 * fail for every x inside a damaged page's range and succeed again past it: double the step until one succeeds,
 * then halve back to the first that does.
 */
function firstSeekable(seek: Database.Statement, from: bigint): { at: bigint; rowid: bigint } | undefined {
  const probe = (x: bigint): { ok: boolean; rowid?: bigint } => {
    try {
      const rowid = seek.get(x) as bigint | undefined;
      return { ok: true, ...(rowid !== undefined ? { rowid } : {}) };
    } catch {
      return { ok: false };
    }
  };
  let bad = from - 1n;
  let good: bigint | undefined;
  for (let x = from, step = 1n; ; x = x + step > MAX_ROWID ? MAX_ROWID : x + step, step *= 2n) {
    if (probe(x).ok) {
      good = x;
      break;
    }
    bad = x;
    if (x >= MAX_ROWID) break;
  }
  if (good === undefined) return undefined;
  let first: bigint = good;
  while (first - bad > 1n) {
    const mid: bigint = bad + (first - bad) / 2n;
    if (probe(mid).ok) first = mid;
    else bad = mid;
  }
  const found = probe(first).rowid;
  return found === undefined ? undefined : { at: first, rowid: found };
}
