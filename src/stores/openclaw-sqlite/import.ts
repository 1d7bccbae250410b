/**
 * `session import` into an openclaw database: a legacy transcript (`sessions/<id>.jsonl`, or one `openclaw doctor`
 * moved to `session-sqlite-import-archive/` without importing it) brought in as the session rows the 2026.9 client
 * keeps, so it reads it as its own (docs/research/openclaw-sqlite.md §6):
 *
 * - the session id is the one in the file's name (what `sessions.json` and doctor know it by); a header naming
 *   another id, which doctor refuses ("Primary transcript header does not match its original filename"), is made to
 *   name it; every other line is kept byte for byte, one event per line, `seq` from 0;
 * - its window names a session key: `--key`, else the key `sessions.json` gives it, else the agent's main key. A key
 *   that has a node keeps it: the session it continues now stays what it was, and the imported one is continued by
 *   its id (`openclaw agent --session-id <id>`); a key with none gets one pointing at the imported session;
 * - identities, the active path and the index state are derived as the client derives them (bookkeeping.ts).
 */
import { randomUUID } from "node:crypto";
import fg from "fast-glob";
import { readFileSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { RecoverError } from "../../errors.js";
import { ABSENT, summariseChange, type RecordKey } from "../../model/change.js";
import type { ImportPlan, ImportSourceBase } from "../import-plan.js";
import { type Cell, integerCell, textCell } from "../sqlite/row.js";
import type { ImageTarget } from "../store.js";
import { splitLines } from "../transcript/read-lines.js";
import { TranscriptStore } from "../transcript/transcript-store.js";
import { deriveBookkeeping } from "./bookkeeping.js";
import { encodeImage, SESSION_TABLES, type SessionImage, type TableRows } from "./session-rows.js";
import type { OpenclawSqliteWriter } from "./writer.js";

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
/** Legacy transcripts, and what doctor leaves in its import archive (`archive-tier.<id>.jsonl.imported-<ms>`). */
const PATTERNS = ["*.jsonl", "*.jsonl.imported-*"];
/** A run's trajectory sidecar (`<id>.trajectory.jsonl`) is a trace of the run, not its transcript. */
const NOT_TRANSCRIPTS = ["*.trajectory.jsonl", "*.trajectory.jsonl.*"];

interface LegacyFile {
  id: string;
  path: string;
  /** The id the source's transcript store knows it by (its file name). */
  storeId: string;
}

export interface LegacySource extends ImportSourceBase {
  /** The session key `sessions.json` beside the transcripts gives a session, and its entry there. */
  keyOf(id: string): { key: string; entry?: Record<string, unknown> } | undefined;
  bytes(id: string): Buffer;
}

/** The id a legacy file's name gives its session: the last UUID in it, else the name without `.jsonl`. */
function idOfFile(path: string): string {
  const name = basename(path);
  return name.match(UUID)?.at(-1)?.toLowerCase() ?? basename(name, ".jsonl");
}

/** `--from`: one legacy transcript, or a folder of them (`sessions/`, doctor's import archive). */
export function openLegacySource(from: string): LegacySource {
  const isFile = statSync(from).isFile();
  const dir = isFile ? dirname(from) : from;
  const paths = isFile ? [from] : fg.sync(PATTERNS, { cwd: dir, ignore: NOT_TRANSCRIPTS, absolute: true, onlyFiles: true, suppressErrors: true }).sort();
  if (paths.length === 0) throw new RecoverError("not-a-store", `--from ${from} holds no openclaw transcripts (${PATTERNS.join(", ")})`);
  const files = new Map<string, LegacyFile>();
  for (const path of paths) {
    const id = idOfFile(path);
    const other = files.get(id);
    if (other) throw new RecoverError("session-ambiguous", `session ${id} is in two files (${other.path} and ${path}); name one of them as --from`);
    files.set(id, { id, path, storeId: basename(path).endsWith(".jsonl") ? basename(path, ".jsonl") : basename(path) });
  }
  const store = new TranscriptStore(
    isFile ? { dialect: "openclaw", path: from, sources: [], file: from } : { dialect: "openclaw", path: dir, sources: [{ dir, patterns: PATTERNS }] },
  );
  const index = readIndex(join(dir, "sessions.json"));
  const fileOf = (id: string) => {
    const file = files.get(id);
    if (!file) throw new RecoverError("session-not-found", `no session ${id} in ${from}`);
    return file;
  };
  return {
    path: from,
    store,
    sessionIds: () => [...files.keys()],
    storeId: (id) => fileOf(id).storeId,
    bytes: (id) => readFileSync(fileOf(id).path),
    keyOf(id) {
      for (const [key, entry] of Object.entries(index)) {
        const named = typeof entry?.sessionId === "string" ? entry.sessionId : undefined;
        if (named === id) return { key, entry };
      }
      return undefined;
    },
    close: () => store.close(),
  };
}

function readIndex(path: string): Record<string, Record<string, unknown> | undefined> {
  try {
    return JSON.parse(readFileSync(path, "utf8")) as Record<string, Record<string, unknown>>;
  } catch {
    // No index (doctor moves it away), or a damaged one: sessions are still named by their files.
    return {};
  }
}

/** The session's lines as events: the header made to name `id` (or one made for it), the rest as they are. */
function eventsOf(bytes: Buffer, id: string, notes: string[]): Buffer[] {
  const lines = splitLines(bytes).lines.filter((line) => line.length > 0);
  let header: Record<string, unknown> | undefined;
  try {
    header = JSON.parse(lines[0]?.toString("utf8") ?? "") as Record<string, unknown>;
  } catch {
    header = undefined;
  }
  if (header?.type !== "session") {
    notes.push("it had no session header: one is made for it, as the client writes one (version 3)");
    return [Buffer.from(JSON.stringify({ type: "session", version: 3, id, timestamp: new Date(eventTime(lines[0]) ?? Date.now()).toISOString() })), ...lines];
  }
  if (header.id === id) return lines;
  notes.push(`its header named ${JSON.stringify(header.id)}, not the id of its file: it now names ${id} (what openclaw doctor refuses it for)`);
  return [Buffer.from(JSON.stringify({ ...header, id })), ...lines.slice(1)];
}

/** An event's own time, in ms (what the client stores as `created_at`). */
function eventTime(line: Buffer | undefined): number | undefined {
  try {
    const stamp = (JSON.parse(line?.toString("utf8") ?? "") as { timestamp?: unknown }).timestamp;
    const ms = typeof stamp === "number" ? stamp : typeof stamp === "string" ? Date.parse(stamp) : Number.NaN;
    return Number.isFinite(ms) ? ms : undefined;
  } catch {
    return undefined;
  }
}

export interface LegacyImportOptions {
  /** The session key its window names. */
  key?: string;
  now: number;
}

export function planLegacyImport(writer: OpenclawSqliteWriter, source: LegacySource, ids: readonly string[], options: LegacyImportOptions): ImportPlan {
  const plan: ImportPlan = { sessions: [], skipped: [], partial: [] };
  const agent = basename(dirname(dirname(writer.info.path)));
  for (const id of ids) {
    const key: RecordKey = { record: "file", id, sessionId: id, path: writer.info.path };
    if (writer.read(key).exists) {
      plan.skipped.push({ id, why: `already in ${writer.info.path}` });
      continue;
    }
    const notes: string[] = [];
    const events = eventsOf(source.bytes(id), id, notes);
    const indexed = source.keyOf(id);
    const sessionKey = options.key ?? indexed?.key ?? `agent:${agent}:main`;
    const image = importedImage(writer, id, events, sessionKey, indexed?.entry, options.now);
    const pointed = image.tables.session_nodes?.rows.length ? `, which now continues it` : ` (which goes on continuing the session it did)`;
    notes.push(`its session key is ${sessionKey}${pointed}`);
    const target: ImageTarget = { key, before: ABSENT, after: { exists: true, bytes: encodeImage(image) } };
    plan.sessions.push({ id, targets: [target], changes: [summariseChange({ op: "insert", key, rules: [], reasons: [] })], notes });
  }
  return plan;
}

function importedImage(
  writer: OpenclawSqliteWriter,
  id: string,
  events: readonly Buffer[],
  sessionKey: string,
  entry: Record<string, unknown> | undefined,
  now: number,
): SessionImage {
  const empty = (name: (typeof SESSION_TABLES)[number]["name"]): TableRows => ({ columns: writer.columnsOf(name), rows: [] });
  const tables: SessionImage["tables"] = {};
  for (const { name } of SESSION_TABLES) if (writer.holds(name)) tables[name] = empty(name);
  const row = (table: TableRows, values: Record<string, Cell>): Cell[] => table.columns.map((c) => values[c] ?? { t: "null" });
  const times = events.map((line) => eventTime(line) ?? now);
  const eventsTable = tables.transcript_events!;
  eventsTable.rows = events.map((line, seq) =>
    row(eventsTable, {
      session_id: textCell(id),
      seq: integerCell(seq),
      event_json: { t: "text", v: line.toString("base64") },
      created_at: integerCell(times[seq]!),
      event_utf8_bytes: integerCell(line.length),
    }),
  );
  const first = times[0] ?? now;
  const last = times.at(-1) ?? now;
  const windows = tables.session_windows!;
  windows.rows = [
    row(windows, {
      session_id: textCell(id),
      session_key: textCell(sessionKey),
      session_scope: textCell("conversation"),
      created_at: integerCell(first),
      updated_at: integerCell(last),
      transcript_updated_at: integerCell(now),
      session_entry_provenance: integerCell(0),
      acp_owned: integerCell(0),
    }),
  ];
  if (tables.transcript_rewrite_watermarks) {
    const marks = tables.transcript_rewrite_watermarks;
    marks.rows = [row(marks, { session_id: textCell(id), generation: textCell(randomUUID().replace(/-/g, "")), updated_at: integerCell(now) })];
  }
  if (tables.session_transcript_index_state) {
    const state = tables.session_transcript_index_state;
    state.rows = [row(state, { session_id: textCell(id), indexed_seq: integerCell(0), needs_rebuild: integerCell(0), updated_at: integerCell(now) })];
  }
  // A window names a key that exists: a key with no node gets one, pointing here, its entry the legacy one when
  // sessions.json had it (the client validates it: sessionId and updatedAt must agree with the row).
  if (tables.session_nodes && !writer.hasNode(sessionKey)) {
    const nodes = tables.session_nodes;
    const entryJson = { ...(entry ?? {}), sessionId: id, updatedAt: last };
    nodes.rows = [
      row(nodes, {
        session_key: textCell(sessionKey),
        current_session_id: textCell(id),
        entry_json: textCell(JSON.stringify(entryJson)),
        entry_valid: integerCell(1),
        updated_at: integerCell(last),
        created_at: integerCell(first),
      }),
    ];
  }
  const image: SessionImage = { openclawSession: id, tables };
  return deriveBookkeeping({ openclawSession: id, tables: {} }, image, now, writer.nextSearchRowId());
}
