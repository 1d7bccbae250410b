/**
 * What openclaw derives from a session's events and keeps beside them (docs/research/openclaw-sqlite.md): one
 * identity row per event (its id, type, parent, idempotency key), the active path from the leaf back to the root,
 * the index state (last seq, leaf, counts), the window of the session and the session key pointing at it. The same
 * derivation says what is stale in a stored session (`bookkeepingDefects`) and writes it anew after a plan
 * (`deriveBookkeeping`), so a repair leaves the rows agreeing with the events, as the client's own appends do.
 */
import { randomUUID } from "node:crypto";
import { obj, str, timeOf } from "../transcript/dialect.js";
import { activeBranch, projected } from "./active-path.js";
import { type Cell, integerCell, textCell } from "../sqlite/row.js";
import {
  cellBytes,
  cellNumber,
  columnCell,
  eventRows,
  type EventRow,
  sameCells,
  sameRows,
  type SessionImage,
  type SessionTable,
  type TableRows,
} from "./session-rows.js";

interface ParsedEvent {
  seq: number;
  createdAt: number;
  value?: Record<string, unknown>;
}

/** Parsed once per events table, as eventRows decodes it once. */
const parsed = new WeakMap<TableRows, ParsedEvent[]>();

function parsedEvents(image: SessionImage): ParsedEvent[] {
  const table = image.tables.transcript_events;
  const known = table && parsed.get(table);
  if (known) return known;
  const events = eventRows(image).map((row: EventRow) => {
    const event: ParsedEvent = { seq: row.seq, createdAt: row.createdAt ?? 0 };
    if ("text" in row.event) {
      try {
        const value = obj(JSON.parse(row.event.text.toString("utf8")));
        if (value) event.value = value;
      } catch {
        // torn: no identity can be derived from it
      }
    }
    return event;
  });
  if (table) parsed.set(table, events);
  return events;
}

/** Column values of a derived row, by name; the table's other columns keep what the stored row had, else NULL. */
type Values = Record<string, Cell>;

function rowOf(table: TableRows, values: Values, stored?: readonly Cell[]): Cell[] {
  return table.columns.map((column, i) => values[column] ?? stored?.[i] ?? { t: "null" });
}

const text = (s: string | undefined): Cell => (s === undefined ? { t: "null" } : textCell(s));

/**
 * The identity rows of the events: the stored row where it agrees, a new one where it does not or is missing. An
 * idempotency key is unique in a session: when several events carry one, it stays with the event whose stored row
 * holds it (the client moves it to a newer copy of a message), else with the first to carry it.
 */
function identities(image: SessionImage, events: readonly ParsedEvent[]): Cell[][] | undefined {
  const table = image.tables.transcript_event_identities;
  if (!table) return undefined;
  const storedBySeq = new Map(table.rows.map((row) => [cellNumber(columnCell(table, row, "seq")), row] as const));
  const present = new Set(events.flatMap((e) => str(e.value?.id)?.trim() || []));
  const owner = new Map<string, string>();
  for (const row of table.rows) {
    const key = cellBytes(columnCell(table, row, "message_idempotency_key"))?.toString("utf8");
    const id = cellBytes(columnCell(table, row, "event_id"))?.toString("utf8");
    if (key !== undefined && id !== undefined && present.has(id)) owner.set(key, id);
  }
  const seen = new Set<string>();
  const rows: Cell[][] = [];
  for (const event of events) {
    const stored = storedBySeq.get(event.seq);
    const id = str(event.value?.id)?.trim();
    if (event.value === undefined || !id) {
      // An event that cannot be read keeps what the client derived from it when it could.
      if (stored) rows.push(stored);
      continue;
    }
    if (seen.has(id)) continue;
    seen.add(id);
    const message = obj(event.value.message);
    let key = event.value.message !== undefined ? str(message?.idempotencyKey)?.trim() || undefined : undefined;
    if (key !== undefined) {
      if (!owner.has(key)) owner.set(key, id);
      if (owner.get(key) !== id) key = undefined;
    }
    const values: Values = {
      session_id: textCell(image.openclawSession),
      event_id: textCell(id),
      seq: integerCell(event.seq),
      event_type: text(str(event.value.type)),
      parent_id: text(str(event.value.parentId)),
      message_idempotency_key: text(key),
      created_at: integerCell(event.createdAt),
    };
    rows.push(rowOf(table, values, stored));
  }
  return rows;
}

/** The events on the client's active branch (active-path.ts), and the id its next append takes as parent. */
function activePath(events: readonly ParsedEvent[]): { path: ParsedEvent[]; appendParentId: string | null } {
  const branch = activeBranch(events.map((e) => e.value));
  return { path: branch.indexes.map((i) => events[i]!), appendParentId: branch.appendParentId };
}

/**
 * The active path's rows, numbered along it: every event holding a `message` takes the next message position, and is
 * left out of the context only when it says so (`excludeFromContext`), as the client projects them.
 */
function activeRows(image: SessionImage, path: readonly ParsedEvent[]): Cell[][] | undefined {
  const table = image.tables.session_transcript_active_events;
  if (!table) return undefined;
  let messages = 0;
  return path.map((event, position) => {
    const message = event.value?.message;
    const values: Values = {
      session_id: textCell(image.openclawSession),
      active_position: integerCell(position),
      event_seq: integerCell(event.seq),
      message_position: message !== undefined ? integerCell(messages++) : { t: "null" },
      context_eligible: integerCell(obj(message)?.excludeFromContext === true ? 0 : 1),
    };
    return rowOf(table, values);
  });
}

function indexStateRows(
  image: SessionImage,
  events: readonly ParsedEvent[],
  active: readonly ParsedEvent[],
  leafId: string | null,
  now: number,
): Cell[][] | undefined {
  const table = image.tables.session_transcript_index_state;
  if (!table) return undefined;
  const stored = table.rows[0];
  const values: Values = {
    session_id: textCell(image.openclawSession),
    indexed_seq: integerCell(events.at(-1)?.seq ?? 0),
    leaf_event_id: text(leafId ?? undefined),
    needs_rebuild: integerCell(0),
    active_event_count: integerCell(active.length),
    active_message_count: integerCell(active.filter((e) => e.value?.message !== undefined).length),
  };
  const row = rowOf(table, { ...values, updated_at: stored ? columnCell(table, stored, "updated_at") : integerCell(now) }, stored);
  // Its time moves only when what it says does.
  if (stored && !sameCells(row, stored)) return [rowOf(table, { ...values, updated_at: integerCell(now) }, stored)];
  return [row];
}

/** The searchable text of a message event, as the client indexes it (`readMessageText`): user and assistant text only. */
function searchText(value: Record<string, unknown> | undefined): { id: string; role: string; text: string } | undefined {
  const message = obj(value?.message);
  const id = str(value?.id)?.trim();
  const role = str(message?.role);
  if (value?.type !== "message" || !id || (role !== "user" && role !== "assistant")) return undefined;
  let text: string | undefined;
  if (typeof message!.content === "string") text = message!.content.trim();
  else if (typeof message!.text === "string") text = message!.text.trim();
  else if (Array.isArray(message!.content)) {
    const parts = message!.content.flatMap((b) => {
      const block = obj(b);
      const kind = block?.type;
      return (kind === "text" || kind === "input_text" || kind === "output_text") && typeof block?.text === "string" && block.text.trim() ? [block.text] : [];
    });
    text = parts.join("\n");
  }
  return text ? { id, role, text } : undefined;
}

/**
 * The search index of the branch: one row per user or assistant text on it. A stored row that says the same keeps its
 * id; a new one takes the next id of the database (`nextId`), as the client's insert would.
 */
function searchRows(image: SessionImage, path: readonly ParsedEvent[], nextId: number | undefined): { rows: Cell[][]; texts: Cell[][] } | undefined {
  const rowsTable = image.tables.session_transcript_fts_rows;
  const textTable = image.tables.session_transcript_fts;
  if (!rowsTable || !textTable) return undefined;
  const storedText = new Map(textTable.rows.map((row) => [JSON.stringify(row.slice(1)), cellNumber(row[0]!)] as const));
  const used = new Set<number>();
  let next = nextId ?? 1 + Math.max(0, ...rowsTable.rows.map((row) => cellNumber(columnCell(rowsTable, row, "id")) ?? 0));
  const rows: Cell[][] = [];
  const texts: Cell[][] = [];
  for (const event of path) {
    const entry = searchText(event.value);
    if (!entry) continue;
    const stamp = timeOf(event.value?.timestamp) ?? event.createdAt;
    const values: Values = {
      text: textCell(entry.text),
      session_id: textCell(image.openclawSession),
      message_id: textCell(entry.id),
      role: textCell(entry.role),
      // The client binds it as a JavaScript number, which node:sqlite stores as REAL in the untyped FTS5 column.
      timestamp: { t: "real", v: stamp },
    };
    const content = textTable.columns.slice(1).map((c) => values[c] ?? { t: "null" as const });
    const kept = storedText.get(JSON.stringify(content));
    const id = kept !== undefined && !used.has(kept) ? kept : next++;
    used.add(id);
    texts.push([integerCell(id), ...content]);
    rows.push(rowOf(rowsTable, { id: integerCell(id), session_id: textCell(image.openclawSession), message_id: textCell(entry.id) }));
  }
  const byId = (a: Cell[], b: Cell[]) => (cellNumber(a[0]!) ?? 0) - (cellNumber(b[0]!) ?? 0);
  return { rows: rows.sort(byId), texts: texts.sort(byId) };
}

/**
 * What the derived tables hold for `image`'s events, as rows; none for a table the database does not have.
 * `withSearch`: the search index too (a write derives it; a check does not judge it: it only serves the client's search).
 */
function derived(image: SessionImage, now: number, nextSearchRowId?: number, withSearch = true): Partial<Record<SessionTable, Cell[][]>> {
  const events = parsedEvents(image);
  const { path, appendParentId } = activePath(events);
  const shown = path.filter((e) => projected(e.value));
  const out: Partial<Record<SessionTable, Cell[][]>> = {};
  const ids = identities(image, events);
  if (ids) out.transcript_event_identities = ids;
  const active = activeRows(image, shown);
  if (active) out.session_transcript_active_events = active;
  const state = indexStateRows(image, events, shown, appendParentId, now);
  if (state && image.tables.session_transcript_index_state?.rows.length) out.session_transcript_index_state = state;
  const search = withSearch ? searchRows(image, path, nextSearchRowId) : undefined;
  if (search) {
    out.session_transcript_fts_rows = search.rows;
    out.session_transcript_fts = search.texts;
  }
  return out;
}

/**
 * `after` with what the client derives from its events derived again. When the events changed, also what the client
 * does after a rewrite of its own: a new `generation` (readers key caches on it) and a later `transcript_updated_at`.
 */
export function deriveBookkeeping(before: SessionImage, after: SessionImage, now: number, nextSearchRowId?: number): SessionImage {
  const tables = { ...after.tables };
  tables.transcript_events = withTrueLengths(after.tables.transcript_events);
  const image = { ...after, tables };
  for (const [name, rows] of Object.entries(derived(image, now, nextSearchRowId)) as [SessionTable, Cell[][]][]) {
    const table = after.tables[name]!;
    tables[name] = { columns: table.columns, rows: sortedLike(name, table, rows) };
  }
  const window = missingWindow(image);
  if (window) tables.session_windows = window;
  if (after.danglingKeys?.length) tables.session_nodes = repointed(image, after.danglingKeys);
  if (!sameRows(before.tables.transcript_events?.rows, tables.transcript_events?.rows)) {
    const watermark = tables.transcript_rewrite_watermarks;
    if (watermark?.rows[0]) {
      tables.transcript_rewrite_watermarks = withValues(watermark, { generation: textCell(randomUUID().replace(/-/g, "")), updated_at: integerCell(now) });
    }
    const window = tables.session_windows;
    if (window?.rows[0]) {
      const [row] = window.rows;
      const last = Math.max(
        cellNumber(columnCell(window, row!, "transcript_updated_at")) ?? 0,
        cellNumber(columnCell(window, row!, "transcript_observed_at")) ?? 0,
      );
      tables.session_windows = withValues(window, { transcript_updated_at: integerCell(Math.max(now, last + 1)) });
    }
  }
  return { openclawSession: after.openclawSession, tables };
}

/** The key a node points at this session by: what a window of it must name. */
function keyPointingHere(image: SessionImage): string | undefined {
  const nodes = image.tables.session_nodes;
  const row = nodes?.rows.find((r) => cellBytes(columnCell(nodes, r, "current_session_id"))?.toString("utf8") === image.openclawSession);
  return row ? cellBytes(columnCell(nodes!, row, "session_key"))?.toString("utf8") : undefined;
}

/**
 * The window of a session whose events have none, as the client makes it when it appends the first event
 * (`ensureTranscriptSessionRoot`): its key, scope `conversation`, no reason, created and updated at its events' times.
 */
function missingWindow(image: SessionImage): TableRows | undefined {
  const windows = image.tables.session_windows;
  const events = eventRows(image);
  if (!windows || windows.rows.length > 0 || events.length === 0) return undefined;
  const key = keyPointingHere(image);
  if (key === undefined) return undefined;
  const values: Values = {
    session_id: textCell(image.openclawSession),
    session_key: textCell(key),
    session_scope: textCell("conversation"),
    created_at: integerCell(events[0]!.createdAt ?? 0),
    updated_at: integerCell(events.at(-1)!.createdAt ?? 0),
    session_entry_provenance: integerCell(0),
    acp_owned: integerCell(0),
  };
  return { columns: windows.columns, rows: [rowOf(windows, values)] };
}

/**
 * The nodes of `keys` pointed back at this session, their entry naming it, and valid: a pointer repair is what the
 * client's own doctor writes for a key whose session is gone (docs/research/openclaw-sqlite.md §5).
 */
function repointed(image: SessionImage, keys: readonly string[]): TableRows {
  const nodes = image.tables.session_nodes!;
  const rows = nodes.rows.map((row) => {
    const key = cellBytes(columnCell(nodes, row, "session_key"))?.toString("utf8");
    if (key === undefined || !keys.includes(key)) return row;
    const values: Values = { current_session_id: textCell(image.openclawSession), entry_valid: integerCell(1) };
    const entry = entryNaming(cellBytes(columnCell(nodes, row, "entry_json")), image.openclawSession);
    if (entry !== undefined) values.entry_json = textCell(entry);
    return rowOf(nodes, values, row);
  });
  return { columns: nodes.columns, rows };
}

/** A node's entry JSON with its `sessionId` set to `id` (undefined when it does not parse as an object). */
function entryNaming(bytes: Buffer | null, id: string): string | undefined {
  try {
    const entry = obj(JSON.parse(bytes?.toString("utf8") ?? ""));
    if (!entry) return undefined;
    entry.sessionId = id;
    return JSON.stringify(entry);
  } catch {
    return undefined;
  }
}

/** A one-row table with some columns set. */
function withValues(table: TableRows, values: Values): TableRows {
  return { columns: table.columns, rows: [table.columns.map((c, i) => values[c] ?? table.rows[0]![i]!)] };
}

/** Plain rows whose `event_utf8_bytes` is not their length get their length (the client writes it so). */
function withTrueLengths(table: TableRows | undefined): TableRows | undefined {
  if (!table) return undefined;
  const json = table.columns.indexOf("event_json");
  const length = table.columns.indexOf("event_utf8_bytes");
  if (json < 0 || length < 0) return table;
  const rows = table.rows.map((row) => {
    const bytes = cellBytes(row[json]!);
    if (bytes === null || cellNumber(row[length]!) === bytes.length) return row;
    return row.map((cell, i) => (i === length ? integerCell(bytes.length) : cell));
  });
  return { columns: table.columns, rows };
}

/** Rows in the order a read of the table gives them (session-rows.ts SESSION_TABLES). */
function sortedLike(name: SessionTable, table: TableRows, rows: Cell[][]): Cell[][] {
  if (name !== "transcript_event_identities") return rows;
  // Read ORDER BY seq, event_id.
  const seq = (row: readonly Cell[]) => cellNumber(columnCell(table, row, "seq")) ?? 0;
  return [...rows].sort((a, b) => seq(a) - seq(b));
}

/** One way a stored session's bookkeeping disagrees with its events. */
export interface BookkeepingDefect {
  /** The event row it is about (0: the session as a whole). */
  seq: number;
  detail: string;
  /** False when recover cannot derive what is missing. */
  fixable?: false;
}

/** Where the stored bookkeeping of `image` disagrees with its events (what `deriveBookkeeping` would change). */
export function bookkeepingDefects(image: SessionImage): BookkeepingDefect[] {
  const defects: BookkeepingDefect[] = [];
  for (const row of eventRows(image)) {
    if ("text" in row.event && row.utf8Bytes !== undefined && row.utf8Bytes !== row.event.text.length) {
      defects.push({ seq: row.seq, detail: `event_utf8_bytes says ${row.utf8Bytes}, but the event is ${row.event.text.length} bytes` });
    }
  }
  const expected = derived(image, 0, undefined, false);
  const ids = image.tables.transcript_event_identities;
  if (
    ids &&
    expected.transcript_event_identities &&
    !sameRows(sortedLike("transcript_event_identities", ids, ids.rows), expected.transcript_event_identities)
  ) {
    const storedBySeq = new Map(ids.rows.map((row) => [cellNumber(columnCell(ids, row, "seq")), row] as const));
    for (const row of expected.transcript_event_identities) {
      const seq = cellNumber(columnCell(ids, row, "seq")) ?? 0;
      const stored = storedBySeq.get(seq);
      if (!stored || !sameCells(stored, row)) {
        defects.push({ seq, detail: stored ? "its identity row (id, type, parent) disagrees with the event" : "it has no identity row" });
      }
    }
  }
  const windows = image.tables.session_windows;
  if (windows && windows.rows.length === 0 && (image.tables.transcript_events?.rows.length ?? 0) > 0) {
    const key = keyPointingHere(image);
    defects.push({
      seq: 0,
      detail: `the session has no session_windows row: every run of this agent fails SQLite's foreign_key_check${key === undefined ? "; no session key points at it, so recover cannot make one" : ""}`,
      ...(key === undefined ? { fixable: false } : {}),
    });
  }
  for (const key of image.danglingKeys ?? []) {
    defects.push({ seq: 0, detail: `session key ${key} points at a session with no rows; this session's window names that key` });
  }
  const active = image.tables.session_transcript_active_events;
  // An event that cannot be read has no place recover can derive: unreadable-record reports it, its repair derives the path.
  const unreadable = parsedEvents(image).some((event) => event.value === undefined);
  if (active && !unreadable && expected.session_transcript_active_events && !sameRows(active.rows, expected.session_transcript_active_events)) {
    defects.push({ seq: 0, detail: "the active path the client keeps (session_transcript_active_events) is not the chain of its events" });
  }
  return defects;
}
