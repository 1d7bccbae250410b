/**
 * A session image (session-rows.ts) as the transcript records the shared code reads: one line per event row. A row
 * that holds no readable event (a torn `event_json`, an `event_zstd` that fails its checksum) is an unreadable line
 * whose salvage is a placeholder keeping the row's place in the `parentId` chain: its `id` and `parentId` from the
 * identity row the client derived from it, else from what the torn text still says. Dropping it instead would cut
 * the chain there, and the client would lose every event before it.
 */
import type { TranscriptLine, TranscriptRecords } from "../../model/transcript.js";
import { lineRecord, recordsOf, type TranscriptFile } from "../transcript/assemble.js";
import { bookkeepingDefects, type BookkeepingDefect } from "./bookkeeping.js";
import { OPENCLAW_SQLITE } from "./format.js";
import { cellBytes, cellNumber, columnCell, eventRows, lineOfRow, type EventRow, type SessionImage } from "./session-rows.js";

/** The `customType` of a placeholder recover writes for an event it could not read (the client does not send custom entries). */
export const PLACEHOLDER_TYPE = "recover:unreadable-event";

/** `partial`: the image holds only some rows (a listing's head): its bookkeeping is not judged. */
export function sessionTranscript(image: SessionImage, dbPath: string, keepBytes: boolean, mtime: number, partial = false): TranscriptRecords {
  const file: TranscriptFile = { path: dbPath, sessionId: image.openclawSession, dialect: OPENCLAW_SQLITE, mtime };
  // Read only when a row needs a placeholder (most sessions have none).
  let identities: Map<number, Identity> | undefined;
  const rows = eventRows(image);
  const stale = partial ? new Map<number, BookkeepingDefect[]>() : staleBySeq(image);
  const raws: Buffer[] = [];
  const lines = rows.map((row, i) => {
    const raw = lineOfRow(row);
    raws.push(raw, NEWLINE);
    const line = lineRecord(raw, i + 1, file);
    // A row that holds no text says why in its own words, not as JSON that does not parse.
    if (!("text" in row.event)) line.problem = { kind: "unreadable", reason: "invalid-json", detail: row.event.problem };
    if (line.problem?.kind === "unreadable") {
      identities ??= identitiesBySeq(image);
      return withPlaceholder(line, row, identities.get(row.seq));
    }
    // What concerns the session as a whole is said at its first line (the header).
    const defects = stale.get(i === 0 ? -1 : row.seq) ?? [];
    if (i === 0) defects.push(...(stale.get(row.seq) ?? []));
    if (defects.length > 0) line.stale = { detail: defects.map((d) => d.detail).join("; "), fixable: defects.every((d) => d.fixable !== false) };
    return line;
  });
  const created = firstCreated(image);
  return recordsOf(lines, true, created === undefined ? file : { ...file, created }, keepBytes ? Buffer.concat(raws) : undefined);
}

const NEWLINE = Buffer.from("\n");

/** The bookkeeping defects by the seq of the row they concern; the session's own under -1. */
function staleBySeq(image: SessionImage): Map<number, BookkeepingDefect[]> {
  const found = new Map<number, BookkeepingDefect[]>();
  for (const defect of bookkeepingDefects(image)) {
    const at = defect.seq === 0 ? -1 : defect.seq;
    found.set(at, [...(found.get(at) ?? []), defect]);
  }
  return found;
}

interface Identity {
  id?: string;
  parent?: string | null;
  type?: string;
}

function identitiesBySeq(image: SessionImage): Map<number, Identity> {
  const table = image.tables.transcript_event_identities;
  const found = new Map<number, Identity>();
  for (const row of table?.rows ?? []) {
    const text = (column: string) => cellBytes(columnCell(table!, row, column))?.toString("utf8");
    const parent = columnCell(table!, row, "parent_id");
    found.set(cellNumber(columnCell(table!, row, "seq")) ?? -1, {
      ...(text("event_id") !== undefined ? { id: text("event_id") } : {}),
      parent: parent.t === "null" ? null : text("parent_id"),
      ...(text("event_type") !== undefined ? { type: text("event_type") } : {}),
    });
  }
  return found;
}

/** What a torn event's text still says of its id, parent and time. */
function fromTornText(raw: Buffer): Identity & { timestamp?: string } {
  const text = raw.toString("utf8");
  const id = /"id":"([^"\\]+)"/.exec(text)?.[1];
  const parent = /"parentId":(null|"([^"\\]+)")/.exec(text);
  const timestamp = /"timestamp":"([^"\\]+)"/.exec(text)?.[1];
  return {
    ...(id !== undefined ? { id } : {}),
    ...(parent ? { parent: parent[1] === "null" ? null : parent[2]! } : {}),
    ...(timestamp !== undefined ? { timestamp } : {}),
  };
}

function withPlaceholder(line: TranscriptLine, row: EventRow, identity: Identity | undefined): TranscriptLine {
  const torn = "text" in row.event ? fromTornText(line.raw) : {};
  const id = identity?.id ?? torn.id;
  // The header (seq 0) and an event whose id is lost cannot be stood in for: the salvage drops them, as for a file.
  if (id === undefined || row.seq === 0 || identity?.type === "session") return line;
  const parent = identity?.parent !== undefined ? identity.parent : (torn.parent ?? null);
  const problem = "text" in row.event ? `event_json is cut short (${line.problem?.detail ?? "unreadable"})` : row.event.problem;
  const placeholder = {
    type: "custom",
    customType: PLACEHOLDER_TYPE,
    data: { seq: row.seq, problem, ...(identity?.type !== undefined ? { eventType: identity.type } : {}) },
    id,
    parentId: parent,
    timestamp: torn.timestamp ?? new Date(row.createdAt ?? 0).toISOString(),
  };
  // The chain runs through it from the start, so the view and the fixes see the history the placeholder keeps.
  return { ...line, salvage: [placeholder], uuid: id, parent, role: "meta" };
}

function firstCreated(image: SessionImage): number | undefined {
  const table = image.tables.session_windows;
  const row = table?.rows[0];
  return table && row ? cellNumber(columnCell(table, row, "created_at")) : undefined;
}
