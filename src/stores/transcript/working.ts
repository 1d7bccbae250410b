/**
 * How a JSONL transcript's lines live in the planner's working copy (model/fixing.ts's RecordFamily). Every line
 * keeps a stable id across planning passes (its id at load; new lines their own uuid), a changed line is re-read from
 * the bytes it will be written as, and lines no fix touched keep their exact bytes. What differs from the loaded file
 * at the end is the plan: line changes to show, and the one file image the writer puts in place.
 */
import { basename } from "node:path";
import { RecoverError } from "../../errors.js";
import type { FileImage, RecordChange, RecordKey } from "../../model/change.js";
import type { Edit, Json, StoredRecord } from "../../model/edit.js";
import {
  besideKey,
  indexRowKey,
  type Beside,
  type DraftEntry,
  type LoadedRecords,
  type NewRecord,
  type RecordFamily,
  type StoreFixing,
} from "../../model/fixing.js";
import type { RuleOptions } from "../../model/rule-options.js";
import type { SessionView } from "../../model/session-view.js";
import { isTranscript, type TranscriptLine, type TranscriptRecords } from "../../model/transcript.js";
import { lineRecord, recordsOf } from "./assemble.js";
import { TranscriptFixContext } from "./fixing.js";
import { formatNamed } from "./format.js";
import { indexImage } from "./layout.js";

const lossy = new TextDecoder("utf-8", { fatal: false });

/** What a fix that discards the file claims, with every line: no other fix of its pass edits a file that goes. */
const FILE_CLAIM = "\u0000file";

/** The line a new transcript record follows (a fix context of this store names it). */
function anchorOf(edit: Edit & { op: "insert" }): TranscriptLine {
  if (!edit.after) throw new Error("a new transcript line follows a line");
  return edit.after;
}

/** How a transcript store fixes its sessions: its lines are its bytes, so it needs no codec. */
export const transcriptFixing: StoreFixing = {
  family(loaded: LoadedRecords) {
    if (!isTranscript(loaded)) throw new RecoverError("internal", "a transcript store was handed opencode records to fix");
    return new TranscriptLines(loaded);
  },
};

export class TranscriptLines implements RecordFamily {
  private readonly reread = new WeakMap<Json, TranscriptLine>();

  constructor(private readonly loaded: TranscriptRecords) {}

  records(): StoredRecord[] {
    return this.loaded.lines;
  }

  idOf(record: StoredRecord): string {
    return record.ref.id;
  }

  place(edit: Edit & { op: "insert" }): NewRecord {
    const ref = this.loaded.sessionRef;
    const key: RecordKey = { record: "line", id: edit.id, sessionId: ref.sessionId, ...(ref.path !== undefined ? { path: ref.path } : {}) };
    return {
      id: edit.id,
      after: anchorOf(edit).ref.id,
      value: edit.value,
      ref: { kind: "line", id: edit.id, sessionId: ref.sessionId, ...(ref.path !== undefined ? { path: ref.path } : {}) },
      key,
    };
  }

  /** One fix per line per pass. */
  claims(edit: Edit): string[] {
    if (edit.op === "discard-file" && edit.path === undefined) return [FILE_CLAIM, ...this.loaded.lines.map((l) => l.ref.id)];
    if (edit.op === "discard-file" || edit.op === "set-index") return [`${FILE_CLAIM}${besideKey(edit)}`];
    return edit.op === "insert" ? [anchorOf(edit).ref.id, edit.id] : [edit.target.ref.id];
  }

  /**
   * Read line by line as a load of the written file reads it; a discarded file reads as no lines at all, a
   * discarded companion is no longer there, and a line whose index row is set has no stale bookkeeping left.
   */
  assemble(entries: readonly DraftEntry[], beside: readonly Beside[] = []): TranscriptRecords {
    const file = { path: this.loaded.sessionRef.path ?? "", sessionId: this.loaded.summary.id, dialect: this.loaded.dialect, mtime: this.loaded.lastActivity };
    const discarded = beside.flatMap(({ edit }) => (edit.op === "discard-file" ? [edit.path] : []));
    if (discarded.includes(undefined)) return { ...recordsOf([], false, file, undefined, { keepIds: true }), discarded: true };
    const companions = this.loaded.companions?.filter((c) => !discarded.includes(c.path));
    const assembled = this.lines(entries, file);
    const indexed = new Set(beside.flatMap(({ edit }) => (edit.op === "set-index" ? [indexRowKey(edit.row)] : [])));
    if (indexed.size > 0) {
      for (const [k, line] of assembled.lines.entries()) {
        const row = line.stale?.index;
        if (row && indexed.has(indexRowKey(row))) {
          const { stale: _, ...rest } = line;
          assembled.lines[k] = rest;
        }
      }
    }
    return companions?.length ? { ...assembled, companions } : assembled;
  }

  private lines(entries: readonly DraftEntry[], file: Parameters<typeof recordsOf>[2]): TranscriptRecords {
    const lines: TranscriptLine[] = [];
    for (const entry of entries) {
      if (entry.values === null) continue;
      if (entry.values === undefined) {
        const original = entry.original as TranscriptLine;
        lines.push({ ...original, ref: { ...original.ref, line: lines.length + 1 } });
        continue;
      }
      entry.values.forEach((value, k) => {
        // A value is a new object whenever a fix changes it: one read back in an earlier pass is reused, placed anew.
        let read = this.reread.get(value);
        if (!read) {
          read = lineRecord(this.encode(entry, value), lines.length + 1, file);
          this.reread.set(value, read);
        }
        const id = k === entry.values!.length - 1 ? entry.id : `${entry.id}.${k}`;
        lines.push({ ...read, ref: { ...read.ref, id, line: lines.length + 1 } });
      });
    }
    return recordsOf(lines, this.endsWithNewline(entries), file, undefined, { keepIds: true });
  }

  context(view: SessionView, options: RuleOptions): TranscriptFixContext {
    if (!view.transcript) throw new Error("a transcript's view holds its history");
    return new TranscriptFixContext(view.transcript, view, options.now, options, formatNamed(this.loaded.dialect));
  }

  /** The file is one document (oneDocument): written whole in its layout, ending as it ended. */
  private wholeDocument(): boolean {
    return formatNamed(this.loaded.dialect).dialect.oneDocument?.(this.loaded.sessionRef.path ?? "") === true;
  }

  private encode(entry: DraftEntry, value: Json): Buffer {
    const json = Buffer.from(this.wholeDocument() ? JSON.stringify(value, null, 2) : JSON.stringify(value));
    // A CRLF file keeps its line ends, on changed lines and new ones alike.
    const original = entry.original as TranscriptLine | undefined;
    const crlf = original ? original.raw.at(-1) === 0x0d : this.loaded.lines[0]?.raw.at(-1) === 0x0d;
    return crlf ? Buffer.concat([json, Buffer.from("\r")]) : json;
  }

  private endsWithNewline(entries: readonly DraftEntry[]): boolean {
    if (this.wholeDocument()) return this.loaded.endsWithNewline;
    const last = [...entries].reverse().find((e) => e.values !== null);
    return this.loaded.endsWithNewline || last?.values !== undefined || last !== entries.at(-1);
  }

  /** The file's bytes after the plan. */
  private bytes(entries: readonly DraftEntry[]): Buffer {
    const chunks: Buffer[] = [];
    const newline = Buffer.from("\n");
    for (const entry of entries) {
      if (entry.values === null) continue;
      if (entry.values === undefined) chunks.push((entry.original as TranscriptLine).raw, newline);
      else for (const value of entry.values) chunks.push(this.encode(entry, value), newline);
    }
    if (!this.endsWithNewline(entries) && chunks.length > 0) chunks.pop();
    return Buffer.concat(chunks);
  }

  /**
   * Every line that ends up different, in file order, and the file image when anything changed. A discarded file is
   * one change: the file goes, whatever its lines were.
   */
  outcome(entries: readonly DraftEntry[], changes: RecordChange[], beside: readonly Beside[] = []): { changes: RecordChange[]; files: FileImage[] } {
    const ref = this.loaded.sessionRef;
    const keyOf = (record: "file" | "index", path: string | undefined, id: string): RecordKey => ({
      record,
      id,
      sessionId: ref.sessionId,
      ...(path !== undefined ? { path } : {}),
    });
    const own = this.loaded.bytes ?? Buffer.alloc(0);
    const gone = (key: RecordKey, before: Buffer, { rules, reasons }: Beside): { change: RecordChange; file: FileImage } => ({
      change: { op: "delete", key, beforeBytes: before, beforeText: lossy.decode(before), rules, reasons },
      file: { key, before, after: null },
    });
    const ownGone = beside.find(({ edit }) => edit.op === "discard-file" && edit.path === undefined);
    if (ownGone) {
      const { change, file } = gone(keyOf("file", ref.path, ref.id), own, ownGone);
      return { changes: [change], files: [file] };
    }
    const out: { changes: RecordChange[]; files: FileImage[] } = {
      changes: [...changes],
      files: changes.length > 0 ? [{ key: keyOf("file", ref.path, ref.id), before: own, after: this.bytes(entries) }] : [],
    };
    for (const b of beside) {
      const { edit, rules, reasons } = b;
      if (edit.op === "set-index") {
        // The row as its writer reads and writes it: the columns recover sets, as JSON (TranscriptWriter).
        const key = keyOf("index", edit.row.path, edit.row.id);
        const [before, after] = [indexImage(edit.row.before), indexImage(edit.row.after)];
        out.changes.push({ op: "update", key, before: edit.row.before, beforeBytes: before, after: edit.row.after, rules, reasons });
        out.files.push({ key, before, after });
        continue;
      }
      const companion = this.loaded.companions?.find((c) => c.path === edit.path);
      if (!companion) throw new RecoverError("internal", `no file ${edit.path} of session ${ref.sessionId} to discard`);
      const { change, file } = gone(keyOf("file", companion.path, basename(companion.path)), companion.bytes, b);
      out.changes.push(change);
      out.files.push(file);
    }
    return out;
  }

  change(entry: DraftEntry): RecordChange | undefined {
    if (entry.values === undefined) return undefined;
    const original = entry.original as TranscriptLine | undefined;
    const ref = original?.ref ?? this.loaded.sessionRef;
    const key: RecordKey = { record: "line", id: entry.id, sessionId: ref.sessionId, ...(ref.path !== undefined ? { path: ref.path } : {}) };
    const base = { key, rules: entry.rules, reasons: entry.reasons };
    const after = entry.values?.at(-1);
    if (!original) return after ? { op: "insert", ...base, after } : undefined;
    // A line whose bookkeeping is stale is written even unchanged: that is its fix (TranscriptLine.stale).
    const same = entry.values !== null && entry.values.length === 1 && this.encode(entry, entry.values[0]!).equals(original.raw);
    if (same && original.stale === undefined) return undefined;
    const before: Pick<RecordChange, "before" | "beforeText" | "beforeBytes"> = { beforeBytes: original.raw };
    if (original.value && !original.problem) before.before = original.value;
    else before.beforeText = lossy.decode(original.raw);
    if (!after) return { op: "delete", ...base, ...before };
    return { op: "update", ...base, ...before, after };
  }
}
