/**
 * A SQLite row as bytes recover can keep: every column with its SQLite storage class (text and blobs as exact
 * bytes, integers as decimal strings so 64-bit values survive). The writer's before/after images, an import's new
 * rows and a salvage's copied rows are all made of these cells, so what is written is what a read gives back.
 */
import type Database from "better-sqlite3";

export type Cell = { t: "null" } | { t: "integer"; v: string } | { t: "real"; v: number } | { t: "text" | "blob"; v: string };

export interface RowImage {
  table: string;
  columns: [string, Cell][];
}

/** A table's columns as SQLite declares them. */
export interface ColumnInfo {
  name: string;
  type: string;
  notnull: number;
  dflt_value: string | null;
  pk: number;
}

export const quoteName = (name: string) => `"${name.replace(/"/g, '""')}"`;

export function columnsOf(db: Database.Database, table: string): ColumnInfo[] {
  return db.prepare(`PRAGMA table_info(${quoteName(table)})`).all() as ColumnInfo[];
}

/**
 * The select list that reads every named column as its storage class, value and bytes (see `cellOf`). `numeric`:
 * columns that can hold no text or blob (a STRICT table's INTEGER or REAL column): their bytes are not read.
 */
export function cellSelect(names: readonly string[], numeric: ReadonlySet<string> = new Set()): string {
  return names.map((n) => `typeof(${quoteName(n)}), ${quoteName(n)}, ${numeric.has(n) ? "NULL" : `CAST(${quoteName(n)} AS BLOB)`}`).join(", ");
}

/** Column `i` of a raw row read with `cellSelect` (and `safeIntegers`). */
export function cellAt(row: readonly unknown[], i: number): Cell {
  return cellOf(row[i * 3] as string, row[i * 3 + 1], row[i * 3 + 2] as Buffer | null);
}

export function cellOf(type: string, value: unknown, bytes: Buffer | null): Cell {
  switch (type) {
    case "integer":
      return { t: "integer", v: String(value) };
    case "real":
      return { t: "real", v: Number(value) };
    case "text":
    case "blob":
      return { t: type, v: (bytes ?? Buffer.alloc(0)).toString("base64") };
    default:
      return { t: "null" };
  }
}

/** How much of a blob an id label shows: enough to recognise it, never a megabyte in a finding or a manifest. */
const LABEL_BYTES = 32;

/**
 * An id or link column (`id`, `session_id`, `message_id`, `parent_id`, …) as the record model names it: the text
 * opencode writes there or, when damage or a foreign writer left another storage class, a label saying what is there
 * that no opencode id can be: `(blob X'deadbeef')`, `(integer 7)`, `(real 1.5)`, `(null)`. Records, findings, `--json`
 * and the backup manifest hold ids as strings; the row's exact bytes are in its image, which restore writes back.
 */
export function idText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === null || value === undefined) return "(null)";
  if (Buffer.isBuffer(value)) {
    // A foreign writer that bound bytes for a string leaves the id's own text in a blob: show it as that text.
    const text = printableText(value);
    if (text !== undefined) return `(blob '${text}')`;
    const hex = value.subarray(0, LABEL_BYTES).toString("hex");
    return `(blob X'${hex}'${value.length > LABEL_BYTES ? `… ${value.length} bytes` : ""})`;
  }
  if (typeof value === "bigint" || Number.isSafeInteger(value)) return `(integer ${String(value)})`;
  return `(real ${String(value)})`;
}

/** An id or link cell as the record model names it (see idText). */
export function cellIdText(cell: Cell | undefined): string {
  if (cell === undefined || cell.t === "null") return idText(null);
  if (cell.t === "text") return Buffer.from(cell.v, "base64").toString("utf8");
  if (cell.t === "blob") return idText(Buffer.from(cell.v, "base64"));
  return idText(cell.t === "integer" ? BigInt(cell.v) : cell.v);
}

/** The blob's text when it is short, valid UTF-8 and printable ASCII-or-letters, as ids are; else undefined. */
function printableText(bytes: Buffer): string | undefined {
  if (bytes.length === 0 || bytes.length > 2 * LABEL_BYTES) return undefined;
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
  return /^[\p{L}\p{N}_.:@-]+$/u.test(text) ? text : undefined;
}

export const integerCell = (n: number): Cell => ({ t: "integer", v: String(Math.trunc(n)) });
export const textCell = (s: string): Cell => ({ t: "text", v: Buffer.from(s).toString("base64") });

/** A JavaScript value as the cell SQLite stores for it (objects are JSON text, as drizzle's json columns). */
export function valueCell(value: unknown): Cell {
  if (typeof value === "string") return textCell(value);
  if (typeof value === "number") return Number.isInteger(value) ? integerCell(value) : { t: "real", v: value };
  if (typeof value === "boolean") return integerCell(value ? 1 : 0);
  if (value !== null && typeof value === "object") return textCell(JSON.stringify(value));
  return { t: "null" };
}

/**
 * The cell a column of this declared type holds once SQLite has applied its affinity (sqlite.org/datatype3.html
 * §3.1): a REAL column keeps 3 as 3.0, an INTEGER column keeps 2.0 as 2. Images are compared with what a read gives
 * back, so they are stored as SQLite will hold them.
 */
export function withAffinity(type: string, value: Cell): Cell {
  const t = type.toUpperCase();
  const integral = value.t === "real" && Number.isInteger(value.v) && Number.isSafeInteger(value.v);
  if (t.includes("INT")) return integral ? integerCell(value.t === "real" ? value.v : 0) : value;
  if (/CHAR|CLOB|TEXT/.test(t)) return value.t === "integer" ? textCell(value.v) : value;
  if (t.includes("BLOB") || t === "") return value;
  if (/REAL|FLOA|DOUB/.test(t)) return value.t === "integer" && Number.isSafeInteger(Number(value.v)) ? { t: "real", v: Number(value.v) } : value;
  return integral ? integerCell(value.t === "real" ? value.v : 0) : value;
}

/**
 * A new row of `table`, in its columns' order: each column from `given`, else its declared numeric default (a newer
 * opencode's NOT NULL rollups), else NULL, so the row is one this database accepts.
 */
export function fitRow(table: string, columns: readonly ColumnInfo[], given: ReadonlyMap<string, Cell>): RowImage {
  return {
    table,
    columns: columns.map(({ name, type, dflt_value }) => {
      const value = given.get(name) ?? (dflt_value !== null && /^-?\d+(\.\d+)?$/.test(dflt_value) ? valueCell(Number(dflt_value)) : { t: "null" as const });
      return [name, withAffinity(type, value)];
    }),
  };
}

export function encodeRow(row: RowImage): Buffer {
  return Buffer.from(JSON.stringify(row));
}

export function decodeRow(bytes: Buffer): RowImage {
  return JSON.parse(bytes.toString("utf8")) as RowImage;
}

/** TEXT keeps its exact bytes (even invalid UTF-8) when bound as a blob and cast back, as opencode's rows are TEXT. */
export function placeholder(c: Cell): string {
  return c.t === "text" ? "CAST(? AS TEXT)" : "?";
}

export function bindValue(c: Cell): unknown {
  switch (c.t) {
    case "null":
      return null;
    case "integer":
      return BigInt(c.v);
    case "real":
      return c.v;
    default:
      return Buffer.from(c.v, "base64");
  }
}

/** The INSERT of a whole row image (column names and placeholders as its cells need). */
export function insertSql(row: RowImage): string {
  const names = row.columns.map(([name]) => quoteName(name)).join(", ");
  const holes = row.columns.map(([, c]) => placeholder(c)).join(", ");
  return `INSERT INTO ${quoteName(row.table)} (${names}) VALUES (${holes})`;
}
