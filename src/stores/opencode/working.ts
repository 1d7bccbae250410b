/**
 * An opencode session being fixed in memory (the planner's working copy of it, model/fixing.ts's SessionDraft). Edits replace records by re-encoding the stored object with the store's own
 * codec and rebuilding the record from those bytes, so each planning pass sees exactly what the store will read
 * after the write. What differs from the loaded session at the end is the plan.
 */
import { RecoverError } from "../../errors.js";
import { keyOf, type RecordChange, type RecordKey } from "../../model/change.js";
import type { Edit, Json } from "../../model/edit.js";
import type { SessionDraft } from "../../model/fixing.js";
import { MessageInfo, validatePart } from "../../model/opencode.js";
import type { MessageRecord, PartRecord, SessionRecords } from "../../model/opencode-records.js";
import type { RecordRef } from "../../model/record.js";
import type { RuleOptions } from "../../model/rule-options.js";
import type { SessionView } from "../../model/session-view.js";
import type { RecordCodec } from "../store.js";
import { OpencodeFixContext } from "./fixing.js";
import { unwrappedIdTime } from "./ids.js";
import { assembleSession, messageFromBytes, partFromBytes } from "./record-builder.js";

type StoredRecord = MessageRecord | PartRecord;

interface Entry {
  key: RecordKey;
  ref: RecordRef;
  original?: StoredRecord;
  /** undefined: as loaded; null: deleted; an object: the stored object now. */
  value?: Json | null;
  /** The record built from `value`, for the next pass. */
  rebuilt?: StoredRecord;
  rules: string[];
  reasons: string[];
}

const lossy = new TextDecoder("utf-8", { fatal: false });

const entryId = (kind: string, id: string) => `${kind}:${id}`;

/** The records an edit claims in a planning pass: its own, and (unless its fix reads nothing else) its message. */
function editTargets(edit: Edit, ownRecordOnly: boolean): string[] {
  if (edit.op === "insert") return [entryId("part", edit.id), entryId("message", inserting(edit).ref.id)];
  const ref = edit.target.ref;
  return ref.messageId !== undefined && !ownRecordOnly ? [entryId(ref.kind, ref.id), entryId("message", ref.messageId)] : [entryId(ref.kind, ref.id)];
}

/** The message an opencode insert adds its part to. */
function inserting(edit: Edit & { op: "insert" }): MessageRecord {
  if (!edit.into) throw new Error("an opencode part is inserted into a message");
  return edit.into;
}

/** Edits name opencode's own records (a fix context of this store made them). */
function ownRecord(record: Edit & { op: "update" | "delete" }): StoredRecord {
  const target = record.target;
  if (target.ref.kind === "line") throw new Error("an opencode edit names a transcript line");
  return target as StoredRecord;
}

export class WorkingSession implements SessionDraft {
  private readonly entries = new Map<string, Entry>();
  /** Inserted parts in the order they were made. */
  private readonly inserted: string[] = [];

  private readonly loadedById = new Map<string, StoredRecord>();

  constructor(
    private readonly loaded: SessionRecords,
    private readonly codec: RecordCodec,
  ) {
    for (const message of loaded.messages) {
      this.loadedById.set(entryId("message", message.ref.id), message);
      for (const part of message.parts) this.loadedById.set(entryId("part", part.ref.id), part);
    }
    for (const part of loaded.orphanParts) this.loadedById.set(entryId("part", part.ref.id), part);
  }

  private entryFor(record: StoredRecord): Entry {
    const id = entryId(record.ref.kind, record.ref.id);
    let entry = this.entries.get(id);
    if (!entry) {
      const original = this.findLoaded(record);
      entry = { key: keyOf(record.ref), ref: record.ref, rules: [], reasons: [], ...(original ? { original } : {}) };
      this.entries.set(id, entry);
    }
    return entry;
  }

  /** The record as loaded from disk (a rebuilt record stands for it in later passes). */
  private findLoaded(record: StoredRecord): StoredRecord | undefined {
    return this.loadedById.get(entryId(record.ref.kind, record.ref.id));
  }

  apply(edits: readonly Edit[], rule: string): void {
    for (const edit of edits) {
      let entry: Entry;
      if (edit.op === "insert") {
        const messageId = inserting(edit).ref.id;
        const ref: RecordRef = { kind: "part", id: edit.id, sessionId: this.loaded.summary.id, messageId };
        const path = this.codec.partPath(messageId, edit.id);
        if (path !== undefined) ref.path = path;
        entry = { key: keyOf(ref), ref, rules: [], reasons: [] };
        this.entries.set(entryId("part", edit.id), entry);
        this.inserted.push(edit.id);
        entry.value = this.codec.stored({ id: edit.id, sessionId: ref.sessionId, messageId }, edit.value);
      } else {
        entry = this.entryFor(ownRecord(edit));
        entry.value = edit.op === "delete" ? null : edit.value;
      }
      entry.rebuilt = entry.value ? this.rebuild(entry, entry.value) : undefined;
      if (!entry.rules.includes(rule)) entry.rules.push(rule);
      entry.reasons.push(edit.reason);
    }
  }

  private rebuild(entry: Entry, value: Json): StoredRecord {
    const bytes = this.codec.encode(value);
    if (entry.ref.kind === "message") return messageFromBytes(entry.ref, bytes, (entry.original as MessageRecord | undefined)?.created ?? 0, true);
    return partFromBytes(entry.ref, bytes, true);
  }

  /** The session as it stands after every edit so far, assembled exactly as a store load assembles it. */
  records(): SessionRecords {
    const current = (record: StoredRecord): StoredRecord | undefined => {
      const entry = this.entries.get(entryId(record.ref.kind, record.ref.id));
      if (!entry || entry.value === undefined) return record;
      return entry.rebuilt;
    };
    const messages: MessageRecord[] = [];
    const parts: PartRecord[] = [];
    for (const message of this.loaded.messages) {
      const now = current(message) as MessageRecord | undefined;
      if (now) messages.push({ ...now, parts: [] });
      for (const part of message.parts) {
        const p = current(part) as PartRecord | undefined;
        if (p) parts.push(p);
      }
    }
    for (const part of this.loaded.orphanParts) {
      const p = current(part) as PartRecord | undefined;
      if (p) parts.push(p);
    }
    for (const id of this.inserted) {
      const rebuilt = this.entries.get(entryId("part", id))?.rebuilt as PartRecord | undefined;
      if (rebuilt) parts.push(rebuilt);
    }
    const l = this.loaded;
    const records = assembleSession(l.summary, l.sessionRef, messages, parts, l.lastActivity, {
      ...(l.problem ? { problem: l.problem } : {}),
      ...(l.missingSessionRecord ? { missing: true } : {}),
    });
    if (l.info) records.info = l.info;
    return records;
  }

  context(view: SessionView, options: RuleOptions): OpencodeFixContext {
    return new OpencodeFixContext(view.opencode ?? this.records(), view, options.now, this.codec, options);
  }

  claims(edit: Edit, ownRecordOnly: boolean): string[] {
    return editTargets(edit, ownRecordOnly);
  }

  outcome(): { changes: RecordChange[] } {
    const changes = this.changes();
    assertValid(changes);
    return { changes };
  }

  /** Every record that ends up different from the loaded one, in session order (deleted ones where they were). */
  changes(): RecordChange[] {
    const messageIndex = new Map(this.loaded.messages.map((m, i) => [m.ref.id, i]));
    const position = (entry: Entry): [number, number, string] => {
      const ref = entry.ref;
      const index = messageIndex.get(ref.kind === "message" ? ref.id : (ref.messageId ?? "")) ?? Number.MAX_SAFE_INTEGER;
      if (ref.kind === "message") return [index, -Infinity, ref.id];
      const created = this.loaded.messages[index]?.created ?? 0;
      return [index, unwrappedIdTime(ref.id, created) ?? 0, ref.id];
    };
    const changes: { change: RecordChange; at: [number, number, string] }[] = [];
    for (const entry of this.entries.values()) {
      const change = this.changeOf(entry);
      if (change) changes.push({ change, at: position(entry) });
    }
    const compare = (a: [number, number, string], b: [number, number, string]) => a[0] - b[0] || a[1] - b[1] || (a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0);
    return changes.sort((a, b) => compare(a.at, b.at)).map((c) => c.change);
  }

  private changeOf(entry: Entry): RecordChange | undefined {
    const original = entry.original;
    const base = { key: entry.key, rules: entry.rules, reasons: entry.reasons };
    if (!original) return entry.value ? { op: "insert", ...base, after: entry.value } : undefined;
    const before = describeBefore(original);
    if (entry.value === undefined) return undefined;
    if (entry.value === null) return { op: "delete", ...base, ...before };
    if (original.raw && this.codec.encode(entry.value).equals(original.raw)) return undefined;
    return { op: "update", ...base, ...before, after: entry.value };
  }
}

function describeBefore(original: StoredRecord): Pick<RecordChange, "before" | "beforeText" | "beforeBytes"> {
  const described: Pick<RecordChange, "before" | "beforeText" | "beforeBytes"> = {};
  if (original.raw) described.beforeBytes = original.raw;
  if (original.original) described.before = original.original;
  else if (original.raw) described.beforeText = lossy.decode(original.raw);
  return described;
}

/** A fix that writes a record its own schema rejects is a bug: stop before anything is written. */
function assertValid(changes: readonly RecordChange[]): void {
  for (const change of changes) {
    if (!change.after) continue;
    const result = change.key.record === "message" ? MessageInfo.safeParse(change.after) : validatePart(change.after);
    if (!result.success) {
      const issue = result.error.issues[0];
      throw new RecoverError(
        "fix-failed",
        `a fix (${change.rules.join(", ")}) would write an invalid ${change.key.record} ${change.key.id} (${issue?.path.join(".") || "record"}: ${issue?.message}); nothing was changed (please report this)`,
        1,
      );
    }
  }
}
