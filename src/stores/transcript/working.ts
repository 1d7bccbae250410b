/**
 * A transcript being fixed in memory. Every line keeps a stable id across planning passes (its id at load; new
 * lines their own uuid), a changed line is re-read from the bytes it will be written as, and lines no fix touched
 * keep their exact bytes. What differs from the loaded file at the end is the plan: line changes to show, and the
 * one file image the writer puts in place.
 */
import type { FileImage, RecordChange, RecordKey } from "../../model/change.js";
import type { Edit, Json } from "../../model/edit.js";
import type { SessionDraft } from "../../model/fixing.js";
import type { RuleOptions } from "../../model/rule-options.js";
import type { SessionView } from "../../model/session-view.js";
import type { TranscriptLine, TranscriptRecords } from "../../model/transcript.js";
import { lineRecord, recordsOf } from "./assemble.js";
import { TranscriptFixContext } from "./fixing.js";

interface Entry {
  id: string;
  original?: TranscriptLine;
  /** undefined: as loaded; null: deleted; otherwise the records the line holds now (a split may hold several). */
  values?: Json[] | null;
  rules: string[];
  reasons: string[];
}

const lossy = new TextDecoder("utf-8", { fatal: false });

/** The line a new transcript record follows (a fix context of this store names it). */
function anchorOf(edit: Edit & { op: "insert" }): TranscriptLine {
  if (!edit.after) throw new Error("a new transcript line follows a line");
  return edit.after;
}

export class WorkingTranscript implements SessionDraft {
  private readonly order: Entry[];
  private readonly byId = new Map<string, Entry>();

  constructor(private readonly loaded: TranscriptRecords) {
    this.order = loaded.lines.map((line) => ({ id: line.ref.id, original: line, rules: [], reasons: [] }));
    for (const entry of this.order) this.byId.set(entry.id, entry);
  }

  context(view: SessionView, options: RuleOptions): TranscriptFixContext {
    if (!view.transcript) throw new Error("a transcript's view holds its history");
    return new TranscriptFixContext(view.transcript, view, options.now, options);
  }

  /** The ids an edit claims in a planning pass: one fix per line per pass. */
  claims(edit: Edit): string[] {
    return edit.op === "insert" ? [anchorOf(edit).ref.id, edit.id] : [edit.target.ref.id];
  }

  apply(edits: readonly Edit[], rule: string): void {
    for (const edit of edits) {
      let entry: Entry;
      if (edit.op === "insert") {
        const after = anchorOf(edit);
        const anchor = this.byId.get(after.ref.id);
        if (!anchor) throw new Error(`no line ${after.ref.id} to insert after`);
        entry = { id: edit.id, values: [edit.value], rules: [], reasons: [] };
        this.order.splice(this.order.indexOf(anchor) + 1, 0, entry);
        this.byId.set(entry.id, entry);
      } else {
        const found = this.byId.get(edit.target.ref.id);
        if (!found) throw new Error(`no line ${edit.target.ref.id}`);
        entry = found;
        entry.values = edit.op === "delete" ? null : [...(edit.preceding ?? []), edit.value];
      }
      if (!entry.rules.includes(rule)) entry.rules.push(rule);
      entry.reasons.push(edit.reason);
    }
  }

  /** The transcript as it stands after every edit so far, read line by line as a load of the written file reads it. */
  records(): TranscriptRecords {
    const file = { path: this.loaded.sessionRef.path ?? "", sessionId: this.loaded.summary.id, dialect: this.loaded.dialect, mtime: this.loaded.lastActivity };
    const lines: TranscriptLine[] = [];
    for (const entry of this.order) {
      if (entry.values === null) continue;
      if (entry.values === undefined) {
        const original = entry.original!;
        lines.push({ ...original, ref: { ...original.ref, line: lines.length + 1 } });
        continue;
      }
      entry.values.forEach((value, k) => {
        const line = lineRecord(this.encode(entry, value), lines.length + 1, file);
        line.ref.id = k === entry.values!.length - 1 ? entry.id : `${entry.id}.${k}`;
        lines.push(line);
      });
    }
    return recordsOf(lines, this.endsWithNewline(), file, undefined, { keepIds: true });
  }

  private encode(entry: Entry, value: Json): Buffer {
    const json = Buffer.from(JSON.stringify(value));
    // A CRLF file keeps its line ends, on changed lines and new ones alike.
    const crlf = entry.original ? entry.original.raw.at(-1) === 0x0d : this.loaded.lines[0]?.raw.at(-1) === 0x0d;
    return crlf ? Buffer.concat([json, Buffer.from("\r")]) : json;
  }

  private endsWithNewline(): boolean {
    const last = [...this.order].reverse().find((e) => e.values !== null);
    return this.loaded.endsWithNewline || last?.values !== undefined || last !== this.order.at(-1);
  }

  /** The file's bytes after the plan. */
  bytes(): Buffer {
    const chunks: Buffer[] = [];
    const newline = Buffer.from("\n");
    for (const entry of this.order) {
      if (entry.values === null) continue;
      if (entry.values === undefined) chunks.push(entry.original!.raw, newline);
      else for (const value of entry.values) chunks.push(this.encode(entry, value), newline);
    }
    if (!this.endsWithNewline() && chunks.length > 0) chunks.pop();
    return Buffer.concat(chunks);
  }

  /** Every line that ends up different, in file order, and the file image when anything changed. */
  outcome(): { changes: RecordChange[]; files: FileImage[] } {
    const changes: RecordChange[] = [];
    for (const entry of this.order) {
      const change = this.changeOf(entry);
      if (change) changes.push(change);
    }
    if (changes.length === 0) return { changes, files: [] };
    const ref = this.loaded.sessionRef;
    const key: RecordKey = { record: "file", id: ref.id, sessionId: ref.sessionId, ...(ref.path !== undefined ? { path: ref.path } : {}) };
    return { changes, files: [{ key, before: this.loaded.bytes ?? Buffer.alloc(0), after: this.bytes() }] };
  }

  private changeOf(entry: Entry): RecordChange | undefined {
    if (entry.values === undefined) return undefined;
    const original = entry.original;
    const ref = original?.ref ?? this.loaded.sessionRef;
    const key: RecordKey = { record: "line", id: entry.id, sessionId: ref.sessionId, ...(ref.path !== undefined ? { path: ref.path } : {}) };
    const base = { key, rules: entry.rules, reasons: entry.reasons };
    const after = entry.values?.at(-1);
    if (!original) return after ? { op: "insert", ...base, after } : undefined;
    if (entry.values !== null && entry.values.length === 1 && this.encode(entry, entry.values[0]!).equals(original.raw)) return undefined;
    const before: Pick<RecordChange, "before" | "beforeText" | "beforeBytes"> = { beforeBytes: original.raw };
    if (original.value && !original.problem) before.before = original.value;
    else before.beforeText = lossy.decode(original.raw);
    if (!after) return { op: "delete", ...base, ...before };
    return { op: "update", ...base, ...before, after };
  }
}
