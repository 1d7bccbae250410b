/**
 * A session image after a plan: the planner hands the writer the session's transcript as it must read afterwards
 * (one line per event); this turns it into rows as the client itself keeps them (docs/research/openclaw-sqlite.md):
 *
 * - an event the plan did not change keeps its row, cell for cell (a zstd row stays one);
 * - a changed or new event is a plain `event_json` row (`event_zstd` and `navigation_json` NULL,
 *   `event_utf8_bytes` its length), as the client writes every event it appends;
 * - rows stay in chain order, numbered as the client numbers a rewritten suffix: unchanged up to the first change,
 *   densely from there (the client reads a session in `seq` order and takes the last event as its leaf);
 * - what the client derives from the events (identities, the active path, the index state, the window's times, the
 *   session key's pointer) is derived again from the events, so it agrees with them whatever the plan changed.
 */
import { diffArrays } from "diff";
import type { Cell } from "../sqlite/row.js";
import { integerCell, textCell } from "../sqlite/row.js";
import { splitLines } from "../transcript/read-lines.js";
import { deriveBookkeeping } from "./bookkeeping.js";
import { cellNumber, columnCell, eventRows, lineOfRow, type SessionImage, type TableRows } from "./session-rows.js";

/** An event of the session after the plan: its row before (if it had one), and its new text when it changed. */
interface PlannedEvent {
  before?: Cell[];
  text?: Buffer;
}

/** `nextSearchRowId`: the id a new search-index row takes (the database's next one). */
export function rewriteSession(before: SessionImage, transcript: Buffer, now: number, nextSearchRowId?: number): SessionImage {
  const events = before.tables.transcript_events;
  if (!events) throw new Error(`session ${before.openclawSession} has no transcript_events table to write`);
  const planned = alignEvents(before, transcript);
  // The client rewrites a session as a suffix: rows up to the first change keep their seq, the rest are numbered on
  // from there, densely (replaceSqliteTranscriptSuffixInTransaction).
  const firstChange = planned.findIndex((event, i) => event.text !== undefined || event.before !== events.rows[i]);
  const start = firstChange > 0 ? (cellNumber(columnCell(events, events.rows[firstChange - 1]!, "seq")) ?? firstChange - 1) + 1 : 0;
  const rows = planned.map((event, i) => {
    const kept = firstChange < 0 || i < firstChange ? cellNumber(columnCell(events, event.before!, "seq")) : undefined;
    return eventRow(events, before.openclawSession, kept ?? start + (i - Math.max(firstChange, 0)), event, now);
  });
  const after: SessionImage = { ...before, tables: { ...before.tables, transcript_events: { columns: events.columns, rows } } };
  return deriveBookkeeping(before, after, now, nextSearchRowId);
}

/**
 * Each line of the new transcript with the row it comes from: unchanged lines are matched to their rows in order
 * (a longest common subsequence, as a diff finds it); a changed line takes the place of the row it replaces, one for
 * one; lines beyond that are new events, rows beyond it are deleted.
 */
function alignEvents(before: SessionImage, transcript: Buffer): PlannedEvent[] {
  const rows = before.tables.transcript_events!.rows;
  const beforeLines = eventRows(before).map((row) => lineOfRow(row).toString("latin1"));
  const afterLines = splitLines(transcript).lines.map((line) => line.toString("latin1"));
  const planned: PlannedEvent[] = [];
  let at = 0;
  let removed: Cell[][] = [];
  for (const part of diffArrays(beforeLines, afterLines)) {
    if (part.removed) {
      removed = rows.slice(at, at + part.value.length);
      at += part.value.length;
      continue;
    }
    if (part.added) {
      part.value.forEach((line, k) => {
        const replaced = removed[k];
        planned.push({ ...(replaced ? { before: replaced } : {}), text: Buffer.from(line, "latin1") });
      });
      removed = [];
      continue;
    }
    removed = [];
    for (let k = 0; k < part.value.length; k++) planned.push({ before: rows[at++]! });
  }
  return planned;
}

/** A row of `transcript_events`: the one it was, moved to `seq`; with new text, a plain `event_json` row. */
function eventRow(table: TableRows, sessionId: string, seq: number, event: PlannedEvent, now: number): Cell[] {
  const old = event.before;
  return table.columns.map((column, i): Cell => {
    if (column === "seq") return integerCell(seq);
    if (event.text === undefined && old) return old[i]!;
    switch (column) {
      case "session_id":
        return textCell(sessionId);
      case "event_json":
        return { t: "text", v: event.text!.toString("base64") };
      case "event_utf8_bytes":
        return integerCell(event.text!.length);
      case "created_at":
        return old ? old[i]! : integerCell(now);
      default:
        // event_zstd, navigation_json: a plain row has neither.
        return { t: "null" };
    }
  });
}
