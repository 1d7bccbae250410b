/**
 * A session of openclaw's database as one image: every row of every table that holds it (its transcript events,
 * the tables the client derives from them, its window, the session keys pointing at it), each cell with its exact
 * storage class and bytes (sqlite/row.ts). The image is what a backup keeps and a restore writes back; its
 * transcript (the events' JSON in `seq` order, one line each) is what the planner reads and changes.
 */
import type Database from "better-sqlite3";
import { type Cell, cellAt, cellSelect, quoteName } from "../sqlite/row.js";
import { decodeEvent, type DecodedEvent } from "./event-codec.js";

/**
 * The session keys a session's image holds: those pointing at it, and one pointing at a session with no rows at all
 * when this is the newest session its window gives that key (a pointer repair moves it here). A key pointing at
 * another session is that session's: every node row is in one image only. (A UNION of two indexed lookups: an OR
 * across them would read every node for every session.)
 */
const NODE_KEYS = `SELECT session_key FROM session_nodes WHERE current_session_id = :id
  UNION
  SELECT n.session_key FROM session_windows w JOIN session_nodes n ON n.session_key = w.session_key
  WHERE w.session_id = :id
    AND NOT EXISTS (SELECT 1 FROM transcript_events e WHERE e.session_id = n.current_session_id)
    AND NOT EXISTS (SELECT 1 FROM session_windows o WHERE o.session_id = n.current_session_id)
    AND :id = (SELECT o.session_id FROM session_windows o WHERE o.session_key = n.session_key ORDER BY o.updated_at DESC, o.session_id DESC LIMIT 1)`;

/** The tables a session lives in, how its rows are found, and the order they are kept in. */
export const SESSION_TABLES = [
  { name: "session_windows", where: "session_id = :id", order: "session_id" },
  { name: "session_nodes", where: `session_key IN (${NODE_KEYS})`, order: "session_key" },
  {
    name: "session_canonical_validation_pending",
    // Written by session_nodes' triggers: part of what a write to those rows leaves behind.
    where: `session_key IN (${NODE_KEYS})`,
    order: "session_key",
  },
  { name: "transcript_events", where: "session_id = :id", order: "seq" },
  { name: "transcript_event_identities", where: "session_id = :id", order: "seq, event_id" },
  { name: "session_transcript_active_events", where: "session_id = :id", order: "active_position" },
  { name: "session_transcript_index_state", where: "session_id = :id", order: "session_id" },
  { name: "transcript_rewrite_watermarks", where: "session_id = :id", order: "session_id" },
  // The search index of the active branch's texts: its rows table, then the FTS5 table they name by rowid (deleting a
  // rows-table row deletes its text by trigger).
  { name: "session_transcript_fts_rows", where: "session_id = :id", order: "id" },
  { name: "session_transcript_fts", where: "rowid IN (SELECT id FROM session_transcript_fts_rows WHERE session_id = :id)", order: "rowid" },
] as const;

/** Tables whose rows are named by SQLite's rowid, not by a declared key (an FTS5 table): its image holds it first. */
export const BY_ROWID: ReadonlySet<string> = new Set(["session_transcript_fts"]);

/** The columns of a STRICT table that hold only numbers (SQLite enforces it there): no bytes to read for them. */
function numericColumns(db: Database.Database, table: string): Set<string> {
  const sql = db.prepare("SELECT sql FROM sqlite_schema WHERE name = ?").pluck().get(table) as string | undefined;
  if (!sql || !/\)\s*STRICT\s*(,|$)/i.test(sql.trim())) return new Set();
  const columns = db.prepare(`PRAGMA table_info(${quoteName(table)})`).all() as { name: string; type: string }[];
  return new Set(columns.filter((c) => /^(INTEGER|INT|REAL)$/i.test(c.type)).map((c) => c.name));
}

/** A table's columns as its image holds them. */
export function imageColumns(db: Database.Database, table: string): string[] {
  const declared = (db.prepare(`PRAGMA table_info(${quoteName(table)})`).all() as { name: string }[]).map((c) => c.name);
  return BY_ROWID.has(table) ? ["rowid", ...declared] : declared;
}

export type SessionTable = (typeof SESSION_TABLES)[number]["name"];

/** Rows of one table: the column names once, then each row's cells in that order. */
export interface TableRows {
  columns: string[];
  rows: Cell[][];
}

export interface SessionImage {
  openclawSession: string;
  tables: Partial<Record<SessionTable, TableRows>>;
  /**
   * Session keys whose node points at a session id with no rows at all, while this session's window names the key:
   * the client refuses the key ("invalid persisted session row requires repair"). Only when there are any.
   */
  danglingKeys?: string[];
}

/** What reading sessions of one connection prepares once: each table's columns and its SELECT (thousands of sessions). */
const prepared = new WeakMap<Database.Database, Map<string, { columns: string[]; select: Database.Statement }>>();

function readerOf(db: Database.Database, table: (typeof SESSION_TABLES)[number], limit: string) {
  let cache = prepared.get(db);
  if (!cache) {
    cache = new Map();
    prepared.set(db, cache);
  }
  const key = `${table.name}${limit}`;
  let reader = cache.get(key);
  if (!reader) {
    const columns = imageColumns(db, table.name);
    const sql = `SELECT ${cellSelect(columns, numericColumns(db, table.name))} FROM ${quoteName(table.name)} WHERE ${table.where} ORDER BY ${table.order}${limit}`;
    reader = { columns, select: db.prepare(sql).raw(true).safeIntegers(true) };
    cache.set(key, reader);
  }
  return reader;
}

/**
 * Every row of session `id`, in the tables this database has (an older schema may lack a derived one). `head`: only its
 * window and first `head` events (a listing's title and directory), which is no image to write back.
 */
export function readSessionImage(db: Database.Database, id: string, present: ReadonlySet<string>, head?: number): SessionImage {
  const image: SessionImage = { openclawSession: id, tables: {} };
  for (const table of SESSION_TABLES) {
    if (!present.has(table.name)) continue;
    if (head !== undefined && table.name !== "transcript_events" && table.name !== "session_windows") continue;
    const { columns, select } = readerOf(db, table, head !== undefined && table.name === "transcript_events" ? ` LIMIT ${Math.trunc(head)}` : "");
    const rows = select.all({ id }) as unknown[][];
    image.tables[table.name] = { columns, rows: rows.map((row) => columns.map((_, i) => cellAt(row, i))) };
  }
  const dangling = danglingKeys(image);
  if (dangling.length > 0) image.danglingKeys = dangling;
  return image;
}

/** Node rows of the image that point elsewhere: by NODE_KEYS, at a session with no rows. */
function danglingKeys(image: SessionImage): string[] {
  const nodes = image.tables.session_nodes;
  if (!nodes) return [];
  return nodes.rows.flatMap((row) =>
    cellBytes(columnCell(nodes, row, "current_session_id"))?.toString("utf8") === image.openclawSession
      ? []
      : [cellBytes(columnCell(nodes, row, "session_key"))!.toString("utf8")],
  );
}

export function encodeImage(image: SessionImage): Buffer {
  return Buffer.from(JSON.stringify(image));
}

export function decodeImage(bytes: Buffer): SessionImage {
  return JSON.parse(bytes.toString("utf8")) as SessionImage;
}

/** A row's cell by column name (NULL for a column the table lacks). */
export function columnCell(table: TableRows, row: readonly Cell[], column: string): Cell {
  const at = table.columns.indexOf(column);
  return at < 0 ? { t: "null" } : row[at]!;
}

/** Two rows hold the same cells: the same storage classes and values. */
export function sameCells(a: readonly Cell[], b: readonly Cell[]): boolean {
  return a.length === b.length && a.every((cell, i) => cell.t === b[i]!.t && (cell.t === "null" || cell.v === (b[i] as { v: unknown }).v));
}

export function sameRows(a: readonly (readonly Cell[])[] | undefined, b: readonly (readonly Cell[])[] | undefined): boolean {
  const left = a ?? [];
  const right = b ?? [];
  return left.length === right.length && left.every((row, i) => sameCells(row, right[i]!));
}

export function cellBytes(cell: Cell): Buffer | null {
  return cell.t === "text" || cell.t === "blob" ? Buffer.from(cell.v, "base64") : null;
}

export function cellNumber(cell: Cell): number | undefined {
  return cell.t === "integer" ? Number(cell.v) : cell.t === "real" ? cell.v : undefined;
}

/** One event row as the transcript reads it. */
export interface EventRow {
  seq: number;
  event: DecodedEvent;
  /** What `event_utf8_bytes` says the event's JSON is long. */
  utf8Bytes: number | undefined;
  /** When the client wrote the row, epoch ms. */
  createdAt: number | undefined;
}

/** Decoded once per events table (an image's tables are never changed in place; a changed one is a new object). */
const decoded = new WeakMap<TableRows, EventRow[]>();

export function eventRows(image: SessionImage): EventRow[] {
  const table = image.tables.transcript_events;
  if (!table) return [];
  const known = decoded.get(table);
  if (known) return known;
  const rows = table.rows.map((row) => {
    const zstd = cellBytes(columnCell(table, row, "event_zstd"));
    const utf8Bytes = cellNumber(columnCell(table, row, "event_utf8_bytes"));
    return {
      seq: cellNumber(columnCell(table, row, "seq")) ?? 0,
      event: decodeEvent(cellBytes(columnCell(table, row, "event_json")), zstd, utf8Bytes),
      utf8Bytes,
      createdAt: cellNumber(columnCell(table, row, "created_at")),
    };
  });
  decoded.set(table, rows);
  return rows;
}

/**
 * The line a row reads as in the session's transcript: its JSON text; for a row that holds none readable, a line
 * that says so (never JSON, never a newline), so it reads as an unreadable record at its place.
 */
export function lineOfRow(row: EventRow): Buffer {
  if ("text" in row.event) return withoutNewlines(row.event.text);
  return Buffer.from(`(seq ${row.seq}: ${row.event.problem})`);
}

/** JSON text never holds a raw newline; a damaged row might: it would split the line, so it reads as an escape. */
function withoutNewlines(text: Buffer): Buffer {
  return text.includes(0x0a) ? Buffer.from(text.toString("latin1").replace(/\n/g, "\\n"), "latin1") : text;
}

/** The session's transcript: one line per event row, in `seq` order, each ending in "\n". */
export function transcriptOf(image: SessionImage): Buffer {
  const chunks: Buffer[] = [];
  for (const row of eventRows(image)) chunks.push(lineOfRow(row), NEWLINE);
  return Buffer.concat(chunks);
}

const NEWLINE = Buffer.from("\n");
