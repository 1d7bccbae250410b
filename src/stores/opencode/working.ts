/**
 * How opencode's records live in the planner's working copy (model/fixing.ts's RecordFamily). A changed record is
 * re-encoded with the store's own codec and rebuilt from those bytes, so each planning pass sees exactly what the
 * store will read after the write; an unchanged one is the record as loaded.
 */
import { RecoverError } from "../../errors.js";
import { keyOf, type RecordChange } from "../../model/change.js";
import type { Edit, Json, StoredRecord } from "../../model/edit.js";
import type { DraftEntry, LoadedRecords, NewRecord, RecordFamily, StoreFixing } from "../../model/fixing.js";
import { validateMessageInfo, validatePart, validateSessionInfo } from "../../model/opencode.js";
import type { MessageRecord, PartRecord, SessionRecords } from "../../model/opencode-records.js";
import type { RecordRef } from "../../model/record.js";
import type { RuleOptions } from "../../model/rule-options.js";
import type { SessionView } from "../../model/session-view.js";
import { isTranscript } from "../../model/transcript.js";
import type { OpencodeCodec } from "../store.js";
import { OpencodeFixContext } from "./fixing.js";
import { unwrappedIdTime } from "./ids.js";
import { assembleSession, messageFromBytes, partFromBytes } from "./record-builder.js";

type OpencodeRecord = MessageRecord | PartRecord;

const lossy = new TextDecoder("utf-8", { fatal: false });

/** Messages and parts are named apart: an id is only unique within its kind. */
const entryId = (kind: string, id: string) => `${kind}:${id}`;

/** Edits name opencode's own records (a fix context of this store made them). */
function own(record: StoredRecord): OpencodeRecord {
  if (record.ref.kind === "line") throw new Error("an opencode edit names a transcript line");
  return record as OpencodeRecord;
}

/** The message an opencode insert adds its part to. */
function inserting(edit: Edit & { op: "insert" }): MessageRecord {
  if (!edit.into) throw new Error("an opencode part is inserted into a message");
  return edit.into;
}

/** How an opencode store (SQLite or the JSON tree, told apart by its codec) fixes its sessions. */
export function opencodeFixing(codec: OpencodeCodec): StoreFixing {
  return {
    family(loaded: LoadedRecords) {
      if (isTranscript(loaded)) throw new RecoverError("internal", "an opencode store was handed a transcript to fix");
      return new OpencodeRecords(loaded, codec);
    },
  };
}

export class OpencodeRecords implements RecordFamily {
  private readonly rebuilt = new WeakMap<Json, OpencodeRecord>();

  constructor(
    private readonly loaded: SessionRecords,
    private readonly codec: OpencodeCodec,
  ) {}

  /** Each message followed by its parts, then the orphaned parts; new parts go last (assembly sorts them in). */
  records(): StoredRecord[] {
    return [...this.loaded.messages.flatMap((m): OpencodeRecord[] => [m, ...m.parts]), ...this.loaded.orphanParts];
  }

  idOf(record: StoredRecord): string {
    return entryId(record.ref.kind, record.ref.id);
  }

  place(edit: Edit & { op: "insert" }): NewRecord {
    if (!edit.into) return this.placeSession(edit);
    const messageId = inserting(edit).ref.id;
    const ref: RecordRef = { kind: "part", id: edit.id, sessionId: this.loaded.summary.id, messageId };
    const path = this.codec.partPath(messageId, edit.id);
    if (path !== undefined) ref.path = path;
    return { id: entryId("part", edit.id), value: this.codec.stored({ id: edit.id, sessionId: ref.sessionId, messageId }, edit.value), ref, key: keyOf(ref) };
  }

  /** A recreated session record (fixing.ts recreateSession): only for a session that has none. */
  private placeSession(edit: Edit & { op: "insert" }): NewRecord {
    const id = this.loaded.summary.id;
    if (edit.id !== id || !this.loaded.missingSessionRecord) throw new Error(`an opencode insert of ${edit.id} names no message to go into`);
    const { value, path } = this.codec.session(edit.value);
    const ref: RecordRef = { kind: "session", id, sessionId: id, ...(path !== undefined ? { path } : {}) };
    return { id: entryId("session", id), value, ref, key: keyOf(ref) };
  }

  /** Its own record, and (unless its fix reads nothing else) its message. */
  claims(edit: Edit, ownRecordOnly: boolean): string[] {
    if (edit.op === "discard-file" || edit.op === "set-index")
      throw new RecoverError("internal", "an opencode session has no file or index beside its records");
    if (edit.op === "insert" && !edit.into) return [entryId("session", edit.id)];
    if (edit.op === "insert") return [entryId("part", edit.id), entryId("message", inserting(edit).ref.id)];
    const ref = edit.target.ref;
    return ref.messageId !== undefined && !ownRecordOnly ? [entryId(ref.kind, ref.id), entryId("message", ref.messageId)] : [entryId(ref.kind, ref.id)];
  }

  /** Every record of a message another session files too: its parts are that session's as much as this one's. */
  untouchable(): string[] {
    const shared = this.loaded.sharedMessages ?? {};
    return this.loaded.messages
      .filter((m) => shared[m.ref.id] !== undefined)
      .flatMap((m) => [entryId("message", m.ref.id), ...m.parts.map((p) => entryId("part", p.ref.id))]);
  }

  /** Assembled exactly as a store load assembles it. */
  assemble(entries: readonly DraftEntry[]): SessionRecords {
    const messages: MessageRecord[] = [];
    const parts: PartRecord[] = [];
    let recreated: Json | undefined;
    for (const entry of entries) {
      if (entry.values === null) continue;
      if (entry.added?.ref.kind === "session") {
        recreated = entry.values?.[0];
        continue;
      }
      const record = entry.values === undefined ? own(entry.original!) : this.rebuild(entry, entry.values[0]!);
      if (record.ref.kind === "message") messages.push({ ...(record as MessageRecord), parts: [] });
      else parts.push(record as PartRecord);
    }
    const l = this.loaded;
    const summary = recreated ? { ...l.summary, title: String(recreated.title), directory: String(recreated.directory) } : l.summary;
    const records = assembleSession(summary, l.sessionRef, messages, parts, l.lastActivity, {
      ...(l.problem ? { problem: l.problem } : {}),
      ...(l.missingSessionRecord && !recreated ? { missing: true } : {}),
    });
    if (l.info) records.info = l.info;
    if (l.home && records.missingSessionRecord) records.home = l.home;
    if (l.sharedMessages) records.sharedMessages = l.sharedMessages;
    return records;
  }

  /**
   * The record a fixed value reads back as. A value is a new object whenever a fix changes it, so one built in an
   * earlier pass is reused: a trim that changes thousands of parts re-encodes each once, not once per pass.
   */
  private rebuild(entry: DraftEntry, value: Json): OpencodeRecord {
    const built = this.rebuilt.get(value);
    if (built) return built;
    const ref = entry.original?.ref ?? entry.added!.ref;
    const bytes = this.codec.encode(value);
    const record =
      ref.kind === "message"
        ? messageFromBytes(ref, bytes, (entry.original as MessageRecord | undefined)?.created ?? 0, true)
        : partFromBytes(ref, bytes, true);
    this.rebuilt.set(value, record);
    return record;
  }

  context(view: SessionView, options: RuleOptions): OpencodeFixContext {
    return new OpencodeFixContext(view.opencode ?? this.loaded, view, options.now, this.codec, options);
  }

  change(entry: DraftEntry): RecordChange | undefined {
    const value = entry.values === null ? null : entry.values?.[0];
    const base = { rules: entry.rules, reasons: entry.reasons };
    if (!entry.original) return value && entry.added ? { op: "insert", key: entry.added.key, ...base, after: value } : undefined;
    const original = own(entry.original);
    const key = keyOf(original.ref);
    if (value === undefined) return undefined;
    const before = describeBefore(original);
    if (value === null) return { op: "delete", key, ...base, ...before };
    if (original.raw && this.codec.encode(value).equals(original.raw)) return undefined;
    return { op: "update", key, ...base, ...before, after: value };
  }

  /** In session order (deleted records where they were); every written record must pass its own schema. */
  outcome(_entries: readonly DraftEntry[], changes: RecordChange[]): { changes: RecordChange[] } {
    const messageIndex = new Map(this.loaded.messages.map((m, i) => [m.ref.id, i]));
    const position = (change: RecordChange): [number, number, string] => {
      const key = change.key;
      const index = messageIndex.get(key.record === "message" ? key.id : (key.messageId ?? "")) ?? Number.MAX_SAFE_INTEGER;
      if (key.record === "session") return [-1, 0, key.id];
      if (key.record === "message") return [index, -Infinity, key.id];
      const created = this.loaded.messages[index]?.created ?? 0;
      return [index, unwrappedIdTime(key.id, created) ?? 0, key.id];
    };
    const compare = (a: [number, number, string], b: [number, number, string]) => a[0] - b[0] || a[1] - b[1] || (a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0);
    const sorted = changes
      .map((change) => ({ change, at: position(change) }))
      .sort((a, b) => compare(a.at, b.at))
      .map((c) => c.change);
    assertValid(sorted);
    return { changes: sorted };
  }
}

function describeBefore(original: OpencodeRecord): Pick<RecordChange, "before" | "beforeText" | "beforeBytes"> {
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
    const record = change.key.record;
    const result =
      record === "session" ? validateSessionInfo(change.after) : record === "message" ? validateMessageInfo(change.after) : validatePart(change.after);
    if (!result.success) {
      const issue = result.error.issues[0];
      throw new RecoverError(
        "fix-failed",
        `a fix (${change.rules.join(", ")}) would write an invalid ${change.key.record} ${change.key.id} (${issue?.path.join(".") || "record"}: ${issue?.message}); nothing was changed (please report this)`,
      );
    }
  }
}
