/**
 * What a rule's fix sees and produces. A fix reads full records (original objects and bytes) and returns edits:
 * data, never writes. The planner applies them in memory, re-runs the rules, and only the final difference
 * between the loaded and the fixed session becomes the plan.
 */
import type { MessageRecord, PartRecord, SessionRecords } from "../model/opencode-records.js";
import type { SessionView } from "../model/session-view.js";
import { idAfter } from "../stores/opencode/ids.js";
import type { RecordCodec } from "../stores/store.js";
import { DEFAULT_RULE_OPTIONS, type RuleOptions } from "../rules/rule.js";

export type Json = Record<string, unknown>;
export type StoredRecord = MessageRecord | PartRecord;

export type Edit =
  | { op: "update"; target: StoredRecord; value: Json; reason: string }
  | { op: "delete"; target: StoredRecord; reason: string }
  | { op: "insert"; message: MessageRecord; id: string; data: Json; reason: string };

/** The text opencode's own recovery tools put where content was lost (oh-my-opencode's placeholder). */
export const INTERRUPTED_PLACEHOLDER = "[user interrupted]";
/** What replaces tool output that could not be recovered. */
export const CORRUPTED_OUTPUT_PLACEHOLDER = "[Tool output corrupted - original truncated]";

export const isObject = (v: unknown): v is Json => v !== null && typeof v === "object" && !Array.isArray(v);

export class FixContext {
  private readonly messagesById = new Map<string, MessageRecord>();
  private readonly partsById = new Map<string, PartRecord>();

  constructor(
    readonly session: SessionRecords,
    readonly view: SessionView,
    /** Epoch ms written into the records a fix closes (time.end, time.completed). */
    readonly now: number,
    private readonly codec: RecordCodec,
    /** The options the rules ran with (a trim fix reads its budget here). */
    readonly options: RuleOptions = { ...DEFAULT_RULE_OPTIONS, now },
  ) {
    for (const message of session.messages) {
      this.messagesById.set(message.ref.id, message);
      for (const part of message.parts) this.partsById.set(part.ref.id, part);
    }
    for (const part of session.orphanParts) this.partsById.set(part.ref.id, part);
  }

  message(id: string | undefined): MessageRecord | undefined {
    return id === undefined ? undefined : this.messagesById.get(id);
  }

  part(id: string | undefined): PartRecord | undefined {
    return id === undefined ? undefined : this.partsById.get(id);
  }

  /** The message a part belongs to. */
  owner(part: PartRecord): MessageRecord | undefined {
    return this.message(part.ref.messageId);
  }

  /** An update built on a copy of the stored object: the loaded record itself is never mutated. */
  update(target: StoredRecord, reason: string, mutate: (value: Json) => void): Edit[] {
    if (!target.original) return [];
    const value = structuredClone(target.original);
    mutate(value);
    return [{ op: "update", target, value, reason }];
  }

  /** Replace a record's whole content (e.g. salvaged from damaged bytes); the ids go where this store keeps them. */
  replace(target: StoredRecord, data: Json, reason: string): Edit[] {
    const ref = target.ref;
    const ids = { id: ref.id, sessionId: ref.sessionId, ...(ref.kind === "part" && ref.messageId !== undefined ? { messageId: ref.messageId } : {}) };
    return [{ op: "update", target, value: this.codec.stored(ids, data), reason }];
  }

  delete(target: StoredRecord, reason: string): Edit[] {
    return [{ op: "delete", target, reason }];
  }

  /** A message and every part it holds (SQLite would cascade them; the plan lists each one). */
  deleteMessage(message: MessageRecord, reason: string): Edit[] {
    return [...message.parts.map((part): Edit => ({ op: "delete", target: part, reason })), { op: "delete", target: message, reason }];
  }

  /** A new part placed right after `after` (or at the end of the message), with an id that sorts there. */
  insertPart(message: MessageRecord, data: Json, reason: string, after?: PartRecord): Edit[] {
    const parts = message.parts;
    const index = after ? parts.indexOf(after) : parts.length - 1;
    const previous = index >= 0 ? parts[index]?.ref.id : undefined;
    const next = parts[index + 1]?.ref.id;
    const id = idAfter("prt", previous, next, message.created);
    return [{ op: "insert", message, id, data, reason }];
  }

  /** opencode's synthetic text part, as its recovery tools insert it where content was lost. */
  insertPlaceholder(message: MessageRecord, reason: string, after?: PartRecord): Edit[] {
    const data = { type: "text", text: INTERRUPTED_PLACEHOLDER, synthetic: true, time: { start: this.now, end: this.now } };
    return this.insertPart(message, data, reason, after);
  }

  /**
   * The stored assistant messages of the latest turn (everything after the last user prompt), when `messageId` is
   * one of them and that turn holds the last tool_use/tool_result set. While thinking is on, the API wants that
   * turn to start with its own signed thinking and forbids changing the thinking in it, so its reasoning cannot
   * be dropped alone: the turn goes as a whole.
   */
  latestToolTurn(messageId: string): MessageRecord[] | undefined {
    const sent = this.view.conversation.messages;
    let holdsTools = false;
    let turn: string[] = [];
    for (let i = sent.length - 1; i >= 0; i--) {
      const message = sent[i]!;
      if (message.role === "user" && message.blocks.some((b) => b.type !== "tool_result")) break;
      if (message.role !== "assistant") continue;
      if (message.blocks.some((b) => b.type === "tool_use")) holdsTools = true;
      turn = [...message.sourceMessageIds, ...turn];
    }
    if (!holdsTools || !turn.includes(messageId)) return undefined;
    return [...new Set(turn)].map((id) => this.message(id)).filter((m): m is MessageRecord => m !== undefined);
  }
}
