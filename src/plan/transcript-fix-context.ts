/**
 * What a rule's fix sees and produces for a JSONL transcript: line edits (data, never writes). The tree stays
 * whole whatever a fix does: a deleted line's children are relinked to its parent, a line inserted into the chain
 * takes over its anchor's children, and a summary that named a deleted leaf names its parent instead.
 */
import { randomBytes, randomUUID } from "node:crypto";
import type { SessionView, TranscriptHistory } from "../model/session-view.js";
import type { TranscriptLine } from "../model/transcript.js";
import { DEFAULT_RULE_OPTIONS, type RuleOptions } from "../rules/rule.js";
import { DIALECTS } from "../stores/transcript/assemble.js";
import type { Dialect } from "../stores/transcript/dialect.js";
import { isObject, type Json } from "./fix-context.js";

export type LineEdit =
  | { op: "update"; target: TranscriptLine; value: Json; reason: string }
  | { op: "delete"; target: TranscriptLine; reason: string }
  /** A new line right after `after` in file order. */
  | { op: "insert"; after: TranscriptLine; id: string; value: Json; reason: string }
  /** A damaged line replaced by the records recovered from it (none: the line goes). */
  | { op: "split"; target: TranscriptLine; values: Json[]; reason: string };

export class TranscriptFixContext {
  readonly dialect: Dialect;
  private readonly children = new Map<string, TranscriptLine[]>();
  private readonly summariesOf = new Map<string, TranscriptLine[]>();

  constructor(
    readonly history: TranscriptHistory,
    readonly view: SessionView,
    readonly now: number,
    readonly options: RuleOptions = { ...DEFAULT_RULE_OPTIONS, now },
  ) {
    this.dialect = DIALECTS[history.records.dialect];
    for (const line of history.records.lines) {
      if (typeof line.parent === "string") push(this.children, line.parent, line);
      const leaf = line.value?.type === "summary" ? line.value.leafUuid : undefined;
      if (typeof leaf === "string") push(this.summariesOf, leaf, line);
    }
  }

  line(id: string | undefined): TranscriptLine | undefined {
    return id === undefined ? undefined : this.history.byId.get(id);
  }

  childrenOf(line: TranscriptLine): TranscriptLine[] {
    return line.uuid === undefined ? [] : (this.children.get(line.uuid) ?? []);
  }

  /** An update built on a copy of the parsed line: the loaded record is never mutated. */
  update(target: TranscriptLine, reason: string, mutate: (value: Json) => void): LineEdit[] {
    if (!target.value) return [];
    const value = structuredClone(target.value);
    mutate(value);
    return [{ op: "update", target, value, reason }];
  }

  /** Point a line at another parent (null: it becomes a root). */
  relink(target: TranscriptLine, parent: string | null, reason: string): LineEdit[] {
    const field = this.dialect.parentField;
    return this.update(target, reason, (value) => {
      value[field] = parent;
    });
  }

  /** Delete a line; its children and the summaries naming it move to its parent, so no link dangles. */
  deleteLine(target: TranscriptLine, reason: string): LineEdit[] {
    return this.deleteLines([target], reason);
  }

  /**
   * Delete lines together (a whole turn): a surviving child of a deleted line, and a summary naming one, move to
   * the nearest ancestor that survives.
   */
  deleteLines(targets: readonly TranscriptLine[], reason: string): LineEdit[] {
    const gone = new Set(targets);
    const survivor = (line: TranscriptLine): string | null => {
      let parent = line.parent ?? null;
      for (let guard = 0; parent !== null && guard < 10_000; guard++) {
        const next = this.history.byUuid.get(parent);
        if (!next || !gone.has(next)) return parent;
        parent = next.parent ?? null;
      }
      return parent;
    };
    const edits: LineEdit[] = targets.map((target): LineEdit => ({ op: "delete", target, reason }));
    for (const target of targets) {
      const parent = survivor(target);
      for (const child of this.childrenOf(target)) {
        if (!gone.has(child)) edits.push(...this.relink(child, parent, `${reason}: relinked to the deleted line's parent`));
      }
      if (target.uuid === undefined || parent === null) continue;
      for (const summary of this.summariesOf.get(target.uuid) ?? []) {
        if (!gone.has(summary)) edits.push(...this.update(summary, `${reason}: the summary names the deleted line's parent`, (value) => (value.leafUuid = parent)));
      }
    }
    return edits;
  }

  /**
   * Remove a thinking block. In the latest tool-use turn the API forbids changing the thinking (and wants the turn to
   * open with it while thinking is on), so that turn goes whole, with the results that answer it: the model redoes
   * the step. Elsewhere the block alone goes. Thinking is never edited or made up.
   */
  removeThinking(target: TranscriptLine, index: number, reason: string): LineEdit[] {
    const turn = this.latestToolTurn(target);
    if (!turn) return this.dropBlock(target, index, `${reason} (kept verbatim in the backup)`);
    return this.deleteLines(turn, `${reason}; it is in the latest tool-use turn, whose thinking the API forbids changing, so the whole turn and its results are taken out (kept in the backup) and the model redoes the step`);
  }

  /** The lines of the last assistant message when it holds tool calls and `line` is one of them, with its results' lines. */
  private latestToolTurn(line: TranscriptLine): TranscriptLine[] | undefined {
    const messages = this.history.conversation.messages;
    let i = messages.length - 1;
    while (i >= 0 && messages[i]!.role === "user" && messages[i]!.blocks.every((b) => b.type === "tool_result")) i--;
    const last = messages[i];
    if (last?.role !== "assistant" || !last.blocks.some((b) => b.type === "tool_use") || !last.sourceMessageIds.includes(line.ref.id)) return undefined;
    const ids = messages.slice(i).flatMap((m) => m.sourceMessageIds);
    return ids.map((id) => this.line(id)).filter((l): l is TranscriptLine => l !== undefined);
  }

  /** Insert a record into the chain right after `anchor`: it takes over the anchor's children. */
  insertAfter(anchor: TranscriptLine, value: Json, reason: string): LineEdit[] {
    const id = value[this.dialect.idField];
    if (typeof id !== "string") throw new Error("an inserted transcript record needs its id");
    value[this.dialect.parentField] = anchor.uuid ?? null;
    const edits: LineEdit[] = [{ op: "insert", after: anchor, id, value, reason }];
    for (const child of this.childrenOf(anchor)) edits.push(...this.relink(child, id, `${reason}: follows the inserted line`));
    return edits;
  }

  /** A fresh id of the dialect's own kind (Claude Code: a UUID; pi: 8 hex digits). */
  freshId(): string {
    if (this.dialect.name === "claude") return randomUUID();
    for (;;) {
      const id = randomBytes(4).toString("hex");
      if (!this.history.byUuid.has(id)) return id;
    }
  }

  /**
   * Remove content block `index` of a message line. A line left with nothing to send goes (relinked); a pi
   * toolResult line is one block, so it goes whole.
   */
  dropBlock(target: TranscriptLine, index: number, reason: string): LineEdit[] {
    const content = contentOf(target.value);
    if (!Array.isArray(content) || content.length <= 1) return this.deleteLine(target, reason);
    return this.update(target, reason, (value) => {
      const copy = contentOf(value) as unknown[];
      copy.splice(index, 1);
    });
  }
}

/** The content array of a message line (Claude Code and pi both keep it at `message.content`). */
export function contentOf(value: Json | undefined): unknown {
  const message = value?.message;
  if (!isObject(message)) return undefined;
  // pi's toolResult: the message is the block.
  if (message.role === "toolResult") return undefined;
  return message.content;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
