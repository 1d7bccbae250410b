/**
 * A JSONL transcript's fix context: how a rule's intent becomes line edits. The tree stays whole whatever a fix
 * does: a deleted line's children are relinked to its parent, a line inserted into the chain takes over its anchor's
 * children, and a summary that named a deleted leaf names its parent instead. What each agent writes in a situation
 * (an interrupted call's result, a blank prompt, its ids) is its format's AgentFixes (claude-fixes.ts, openclaw-fixes.ts).
 */
import { copyJson, type Edit, type Json } from "../../model/edit.js";
import type { BlockAt, LineFixContext } from "../../model/fix-context.js";
import type { RuleOptions } from "../../model/rule-options.js";
import type { SessionView, TranscriptHistory } from "../../model/session-view.js";
import { blockId, parseBlockId, type TranscriptLine } from "../../model/transcript.js";
import { freshCallId } from "../opencode/call-id.js";
import { type LineShape, MESSAGE_CONTENT_SHAPE } from "./content-shape.js";
import type { Dialect } from "./dialect.js";

export class TranscriptFixContext implements LineFixContext {
  readonly kind = "lines";
  readonly dialect: Dialect;
  private readonly agent: AgentFixes;
  /** Where this format's lines keep their blocks. */
  private readonly shape: LineShape;
  private readonly children = new Map<string, TranscriptLine[]>();
  private readonly summariesOf = new Map<string, TranscriptLine[]>();
  private fields?: Map<string, string | undefined>;

  constructor(
    readonly history: TranscriptHistory,
    readonly view: SessionView,
    readonly now: number,
    readonly options: RuleOptions,
    format: { dialect: Dialect; fixes: AgentFixes },
  ) {
    this.dialect = format.dialect;
    this.agent = format.fixes;
    this.shape = format.fixes.shape ?? MESSAGE_CONTENT_SHAPE;
    for (const line of history.records.lines) {
      if (typeof line.parent === "string") push(this.children, line.parent, line);
      const leaf = line.value?.type === "summary" ? line.value.leafUuid : undefined;
      if (typeof leaf === "string") push(this.summariesOf, leaf, line);
    }
  }

  line(id: string | undefined): TranscriptLine | undefined {
    return id === undefined ? undefined : this.history.byId.get(id);
  }

  block(finding: { messageId?: string; partId?: string }): { line: TranscriptLine; index: number } | undefined {
    const at = parseBlockId(finding.partId);
    const line = this.line(at?.lineId ?? finding.messageId);
    return line && at ? { line, index: at.index } : undefined;
  }

  childrenOf(line: TranscriptLine): TranscriptLine[] {
    return line.uuid === undefined ? [] : (this.children.get(line.uuid) ?? []);
  }

  update(target: TranscriptLine, reason: string, mutate: (value: Json) => void): Edit[] {
    if (!target.value) return [];
    const value = copyJson(target.value);
    mutate(value);
    return [{ op: "update", target, value, reason }];
  }

  relink(target: TranscriptLine, parent: string | null, reason: string): Edit[] {
    const field = this.dialect.parentField;
    return this.update(target, reason, (value) => {
      value[field] = parent;
    });
  }

  relinkOnto(target: TranscriptLine, parent: TranscriptLine | null, reason: string): Edit[] {
    if (parent === null || parent.uuid === undefined) return this.relink(target, null, reason);
    if (this.history.byUuid.get(parent.uuid) === parent) return this.relink(target, parent.uuid, reason);
    // A duplicated id: links by it reach the first line that holds it, so this line answers to none and may be renamed.
    const id = this.freshId();
    return [
      ...this.update(parent, `${reason}: the line it follows shared its id with an earlier line, so it gets one of its own (${id})`, (value) => {
        value[this.dialect.idField] = id;
      }),
      ...this.relink(target, id, reason),
    ];
  }

  deleteLine(target: TranscriptLine, reason: string): Edit[] {
    return this.deleteLines([target], reason);
  }

  /** A surviving child of a deleted line, and a summary naming one, move to the nearest ancestor that survives. */
  deleteLines(targets: readonly TranscriptLine[], reason: string): Edit[] {
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
    const edits: Edit[] = targets.map((target): Edit => ({ op: "delete", target, reason }));
    for (const target of targets) {
      const parent = survivor(target);
      for (const child of this.childrenOf(target)) {
        if (!gone.has(child)) edits.push(...this.relink(child, parent, `${reason}: relinked to the deleted line's parent`));
      }
      if (target.uuid === undefined || parent === null) continue;
      for (const summary of this.summariesOf.get(target.uuid) ?? []) {
        if (!gone.has(summary))
          edits.push(...this.update(summary, `${reason}: the summary names the deleted line's parent`, (value) => (value.leafUuid = parent)));
      }
    }
    return edits;
  }

  /** The recovered records take the line's place; its links are not followed (the line never parsed as one record). */
  split(target: TranscriptLine, values: Json[], reason: string): Edit[] {
    const last = values.at(-1);
    if (!last) return [{ op: "delete", target, reason }];
    return [{ op: "update", target, value: last, reason, ...(values.length > 1 ? { preceding: values.slice(0, -1) } : {}) }];
  }

  /**
   * In the latest tool-use turn the API forbids changing the thinking (and wants the turn to open with it while
   * thinking is on), so that turn goes whole, with the results that answer it: the model redoes the step. Elsewhere
   * the block alone goes. Thinking is never edited or made up.
   */
  removeThinking(target: TranscriptLine, index: number, reason: string): Edit[] {
    const turn = this.latestToolTurn(target);
    if (!turn) return this.dropBlock(target, index, `${reason} (kept verbatim in the backup)`);
    return this.deleteLines(
      turn,
      `${reason}; it is in the latest tool-use turn, whose thinking the API forbids changing, so the whole turn and its results are taken out (kept in the backup) and the model redoes the step`,
    );
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

  insertAfter(anchor: TranscriptLine, value: Json, reason: string, lineId?: string): Edit[] {
    // No links to keep: the new line's place in the file is its place in the history.
    if (this.dialect.linear) return [{ op: "insert", after: anchor, id: lineId ?? this.freshId(), value, reason }];
    const id = value[this.dialect.idField];
    if (typeof id !== "string") throw new Error("an inserted transcript record needs its id");
    value[this.dialect.parentField] = anchor.uuid ?? null;
    const edits: Edit[] = [{ op: "insert", after: anchor, id, value, reason }];
    for (const child of this.childrenOf(anchor)) edits.push(...this.relink(child, id, `${reason}: follows the inserted line`));
    return edits;
  }

  freshId(): string {
    return this.agent.freshId(this.history);
  }

  freshCallId(old: string | undefined): string {
    return this.agent.freshCallId?.(old) ?? freshCallId(old);
  }

  /** A pi toolResult line is one block, so it goes whole; so does a line whose block is its only one. */
  dropBlock(target: TranscriptLine, index: number, reason: string): Edit[] {
    if (this.agent.dropBlock) return this.agent.dropBlock(this, target, index, this.fieldOf(target, index), reason);
    const content = this.contentOf(target.value);
    if (!Array.isArray(content) || content.length <= 1) return this.deleteLine(target, reason);
    return this.update(target, reason, (value) => {
      const copy = this.contentOf(value) as unknown[];
      copy.splice(index, 1);
    });
  }

  /** Where block `index` of a line sits in the line's value, as its handle names it (`field`). */
  fieldOf(line: TranscriptLine, index: number): string | undefined {
    // Indexed once, on first use: a trim may edit thousands of blocks of one history.
    if (!this.fields) {
      this.fields = new Map();
      for (const entry of this.history.sent) for (const block of entry.blocks) this.fields.set(block.source.id, block.source.field);
    }
    return this.fields.get(blockId(line.ref.id, index));
  }

  private contentOf(value: Json | undefined): unknown[] | undefined {
    return value ? this.shape.content(value) : undefined;
  }

  closeInterruptedCall(line: TranscriptLine, index: number): Edit[] {
    const call = line.value ? this.shape.call(line.value, index, this.fieldOf(line, index)) : undefined;
    if (!line.value || !call) return [];
    return this.agent.closeInterruptedCall(this, line, index, call);
  }

  fillBlankPrompt(line: TranscriptLine): Edit[] {
    return this.agent.fillBlankPrompt?.(this, line) ?? [];
  }

  renameCall(call: BlockAt, result: BlockAt | undefined, id: string, reason: string): Edit[] {
    return [call, result].flatMap((at) => {
      const found = at ? this.block(at) : undefined;
      return found ? this.update(found.line, reason, (value) => this.shape.setCallId(value, found.index, id, this.fieldOf(found.line, found.index))) : [];
    });
  }

  rewriteResult(at: BlockAt, rewrite: (text: string) => string, reason: string): Edit[] {
    return this.editBlock(at, reason, (value, index, field) => this.shape.rewriteResult(value, index, rewrite, field));
  }

  /** Claude Code's own microcompaction clears an old result with this text; pi's transcripts get the same. */
  clearResult(at: BlockAt, reason: string): Edit[] {
    return this.rewriteResult(at, () => CLEARED_RESULT, reason);
  }

  emptyInput(at: BlockAt, reason: string): Edit[] {
    return this.editBlock(at, reason, (value, index, field) => this.shape.emptyInput(value, index, field));
  }

  replaceMedia(at: BlockAt, note: string, reason: string, item?: number): Edit[] {
    return this.editBlock(at, reason, (value, index, field) => this.shape.replaceMedia(value, index, note, item, field));
  }

  /** An update of the line holding the block at `at`, made by the format's shape. */
  private editBlock(at: BlockAt, reason: string, edit: (value: Json, index: number, field: string | undefined) => void): Edit[] {
    const found = this.block(at);
    if (!found) return [];
    const field = this.fieldOf(found.line, found.index);
    return this.update(found.line, reason, (value) => edit(value, found.index, field));
  }

  dropThinking(at: BlockAt, reason: string): Edit[] {
    const found = this.block(at);
    return found ? this.dropBlock(found.line, found.index, reason) : [];
  }

  deleteMessages(ids: readonly string[], reason: string): Edit[] {
    const lines = ids.map((id) => this.line(id)).filter((l): l is TranscriptLine => l !== undefined);
    return this.deleteLines(lines, reason);
  }

  /**
   * Where a result belongs: after the last line of the call's response (Claude Code writes one line per block) and
   * after the results already written for it, so the new line joins the chain where the agent would have put it.
   */
  resultAnchor(line: TranscriptLine): TranscriptLine {
    const chain = this.history.chain;
    let i = chain.indexOf(line);
    const response = this.dialect.responseId(line);
    while (i + 1 < chain.length) {
      const next = chain[i + 1]!;
      const sameResponse = response !== undefined && this.dialect.responseId(next) === response;
      if (!sameResponse && !isResultLine(next)) break;
      i++;
    }
    return chain[i] ?? line;
  }
}

/** What an agent writes itself in the situations a fix meets: each transcript format supplies its own (format.ts). */
export interface AgentFixes {
  freshId(history: TranscriptHistory): string;
  closeInterruptedCall(context: TranscriptFixContext, line: TranscriptLine, index: number, call: Json): Edit[];
  fillBlankPrompt?(context: TranscriptFixContext, line: TranscriptLine): Edit[];
  /** Where a line keeps its blocks, when not at `message.content` as Claude Code and pi keep them (content-shape.ts). */
  shape?: LineShape;
  /** Remove block `index` of a line (at `field` in its value), when the format's records are not one per line. */
  dropBlock?(context: TranscriptFixContext, line: TranscriptLine, index: number, field: string | undefined, reason: string): Edit[];
  /** A new call id as the agent's provider mints them, when an empty one gives no family to follow. */
  freshCallId?(old: string | undefined): string;
}

export function isResultLine(line: TranscriptLine): boolean {
  const message = line.value?.message as Json | undefined;
  if (message?.role === "toolResult") return true;
  return (
    line.value?.type === "user" &&
    Array.isArray(message?.content) &&
    message.content.length > 0 &&
    message.content.every((b) => (b as Json)?.type === "tool_result")
  );
}

/** Claude Code's microcompaction text for a cleared tool result. */
export const CLEARED_RESULT = "[Old tool result content cleared]";

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
