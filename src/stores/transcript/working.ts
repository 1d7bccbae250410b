/**
 * How a JSONL transcript's lines live in the planner's working copy (model/fixing.ts's RecordFamily). Every line
 * keeps a stable id across planning passes (its id at load; new lines their own uuid), a changed line is re-read from
 * the bytes it will be written as, and lines no fix touched keep their exact bytes. What differs from the loaded file
 * at the end is the plan: line changes to show, and the one file image the writer puts in place.
 */
import { RecoverError } from "../../errors.js";
import type { FileImage, RecordChange, RecordKey } from "../../model/change.js";
import type { Edit, Json, StoredRecord } from "../../model/edit.js";
import type { DraftEntry, LoadedRecords, NewRecord, RecordFamily, StoreFixing } from "../../model/fixing.js";
import type { RuleOptions } from "../../model/rule-options.js";
import type { SessionView } from "../../model/session-view.js";
import { isTranscript, type TranscriptLine, type TranscriptRecords } from "../../model/transcript.js";
import { lineRecord, recordsOf } from "./assemble.js";
import { TranscriptFixContext } from "./fixing.js";
import { formatNamed } from "./format.js";

const lossy = new TextDecoder("utf-8", { fatal: false });

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
    return edit.op === "insert" ? [anchorOf(edit).ref.id, edit.id] : [edit.target.ref.id];
  }

  /** Read line by line as a load of the written file reads it. */
  assemble(entries: readonly DraftEntry[]): TranscriptRecords {
    const file = { path: this.loaded.sessionRef.path ?? "", sessionId: this.loaded.summary.id, dialect: this.loaded.dialect, mtime: this.loaded.lastActivity };
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

  /** Every line that ends up different, in file order, and the file image when anything changed. */
  outcome(entries: readonly DraftEntry[], changes: RecordChange[]): { changes: RecordChange[]; files: FileImage[] } {
    if (changes.length === 0) return { changes, files: [] };
    const ref = this.loaded.sessionRef;
    const key: RecordKey = { record: "file", id: ref.id, sessionId: ref.sessionId, ...(ref.path !== undefined ? { path: ref.path } : {}) };
    return { changes, files: [{ key, before: this.loaded.bytes ?? Buffer.alloc(0), after: this.bytes(entries) }] };
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
