/**
 * opencode's fix context: how a rule's intent becomes edits of opencode's message and part records. The agent's own
 * conventions live here: its placeholder text, the ids it mints for parts, how a turn is taken out as a whole.
 */
import { copyJson, isObject, type Edit, type Json } from "../../model/edit.js";
import type { BlockAt, RecordFixContext } from "../../model/fix-context.js";
import type { MessageRecord, PartRecord, SessionRecords } from "../../model/opencode-records.js";
import type { RuleOptions } from "../../model/rule-options.js";
import type { SessionView } from "../../model/session-view.js";
import type { OpencodeCodec } from "../store.js";
import { freshCallId } from "./call-id.js";
import { idAfter } from "./ids.js";
import { INTERRUPTED_PLACEHOLDER } from "./placeholders.js";
import { recreatedSession } from "./recreate-session.js";
import { cleanCorruptedRecord, salvageMessage, salvagePart } from "./salvage.js";

type StoredRecord = MessageRecord | PartRecord;

export { CORRUPTED_OUTPUT_PLACEHOLDER, INTERRUPTED_PLACEHOLDER } from "./placeholders.js";

export class OpencodeFixContext implements RecordFixContext {
  readonly kind = "records";
  readonly placeholderText = INTERRUPTED_PLACEHOLDER;
  private readonly messagesById = new Map<string, MessageRecord>();
  private readonly partsById = new Map<string, PartRecord>();

  constructor(
    readonly session: SessionRecords,
    readonly view: SessionView,
    readonly now: number,
    private readonly codec: OpencodeCodec,
    readonly options: RuleOptions,
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

  owner(part: PartRecord): MessageRecord | undefined {
    return this.message(part.ref.messageId);
  }

  update(target: StoredRecord, reason: string, mutate: (value: Json) => void): Edit[] {
    if (!target.original) return [];
    const value = copyJson(target.original);
    mutate(value);
    return [{ op: "update", target, value, reason }];
  }

  replace(target: StoredRecord, data: Json, reason: string): Edit[] {
    const ref = target.ref;
    const ids = { id: ref.id, sessionId: ref.sessionId, ...(ref.kind === "part" && ref.messageId !== undefined ? { messageId: ref.messageId } : {}) };
    return [{ op: "update", target, value: this.codec.stored(ids, data), reason }];
  }

  delete(target: StoredRecord, reason: string): Edit[] {
    return [{ op: "delete", target, reason }];
  }

  /** SQLite would cascade the parts; the plan lists each one. */
  deleteMessage(message: MessageRecord, reason: string): Edit[] {
    return [...message.parts.map((part): Edit => ({ op: "delete", target: part, reason })), { op: "delete", target: message, reason }];
  }

  insertPart(message: MessageRecord, data: Json, reason: string, after?: PartRecord): Edit[] {
    const parts = message.parts;
    const index = after ? parts.indexOf(after) : parts.length - 1;
    const previous = index >= 0 ? parts[index]?.ref.id : undefined;
    const next = parts[index + 1]?.ref.id;
    const id = idAfter("prt", previous, next, message.created);
    return [{ op: "insert", into: message, id, value: data, reason }];
  }

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

  /** In the latest tool-use turn a reasoning part may not go alone: that turn is taken out whole, the model redoes the step. */
  removeReasoning(part: PartRecord, reason: string): Edit[] {
    const owner = this.owner(part);
    const turn = owner ? this.latestToolTurn(owner.ref.id) : undefined;
    if (turn) {
      const why = `${reason}; it is in the latest tool-use turn, whose thinking the API forbids changing, so the whole turn is taken out (kept in the backup) and the model redoes the step`;
      return turn.flatMap((message) => this.deleteMessage(message, why));
    }
    return this.delete(part, `${reason} (kept verbatim in the backup)`);
  }

  stripCorruption(part: PartRecord, reason: string): Edit[] {
    return cleanCorruptedRecord(part, this, reason);
  }

  salvagePart(part: PartRecord): Edit[] {
    return salvagePart(part, this);
  }

  salvageMessage(message: MessageRecord): Edit[] {
    return salvageMessage(message, this);
  }

  /** An insert with no message to go into: the session's own record (working.ts places it). */
  recreateSession(): Edit[] {
    const session = recreatedSession(this.session);
    const home = this.session.home;
    if (!session || !home) return [];
    const { value } = this.codec.session(session);
    const reason = `recreated the missing session record from its ${this.session.messages.length} messages (project ${home.projectID}: ${home.found}), so opencode lists it again`;
    return [{ op: "insert", id: this.session.summary.id, value, reason }];
  }

  freshCallId(old: string | undefined): string {
    return freshCallId(old);
  }

  /** A completed call's output, or a failed call's error text: where opencode keeps what it sends as the result. */
  rewriteResult(at: BlockAt, rewrite: (text: string) => string, reason: string): Edit[] {
    return this.updateState(at, reason, (state) => {
      if (state.status === "completed" && typeof state.output === "string") state.output = rewrite(state.output);
      else if (state.status === "error" && typeof state.error === "string") state.error = rewrite(state.error);
    });
  }

  /** opencode's own prune: the output stays on disk and is sent as "[Old tool result content cleared]". */
  clearResult(at: BlockAt, reason: string): Edit[] {
    return this.updateState(at, reason, (state) => {
      if (isObject(state.time)) state.time.compacted = this.now;
    });
  }

  emptyInput(at: BlockAt, reason: string): Edit[] {
    return this.updateState(at, reason, (state) => {
      state.input = {};
    });
  }

  /** A user's file part becomes a synthetic text part in its place (the message keeps its other content). */
  replaceMedia(at: BlockAt, note: string, reason: string): Edit[] {
    const part = this.part(at.partId);
    if (part?.part?.type !== "file") return [];
    return this.replace(part, { type: "text", text: note, synthetic: true }, reason);
  }

  dropThinking(at: BlockAt, reason: string): Edit[] {
    const part = this.part(at.partId);
    return part?.part?.type === "reasoning" ? this.delete(part, reason) : [];
  }

  deleteMessages(ids: readonly string[], reason: string): Edit[] {
    return ids.flatMap((id) => {
      const message = this.message(id);
      return message ? this.deleteMessage(message, reason) : [];
    });
  }

  private updateState(at: BlockAt, reason: string, mutate: (state: Json) => void): Edit[] {
    const part = this.part(at.partId);
    if (part?.part?.type !== "tool") return [];
    return this.update(part, reason, (value) => {
      if (isObject(value.state)) mutate(value.state);
    });
  }
}
