/**
 * The session as trim sees it, the same for every store because it is read off the request: turns (a user prompt
 * and the steps that answer it), steps (one assistant message of the request with the results of its calls), and
 * which records no strategy may touch. A record is named by its key: a part for opencode, a line for a transcript.
 */
import type { Block, Conversation, Handle, ToolResultBlock, ToolUseBlock } from "../../model/conversation.js";

/** The last steps, with their tool results, stay byte-identical whatever the budget (the model is mid-step there). */
export const INTACT_STEPS = 2;

export interface Step {
  /** Position in the request, oldest first. */
  index: number;
  turn: number;
  /** The assistant message's blocks, then the results answering its calls. */
  blocks: Block[];
}

export interface Turn {
  index: number;
  /** The user's own blocks (no tool results); empty for a history that opens with the assistant. */
  prompt: Block[];
  steps: Step[];
  /** Stored messages whose content is sent in this turn, in request order. */
  messageIds: string[];
}

export interface Layout {
  turns: Turn[];
  steps: Step[];
  /** Calls by id, for the strategies that read a result's call. */
  calls: ReadonlyMap<string, ToolUseBlock>;
  /** Records that stay byte-identical: the first prompt (the task), the last prompt, the last INTACT_STEPS steps. */
  intact: ReadonlySet<string>;
  /** Records of the last `--keep-turns` turns: taken from only once every older turn has given what it can. */
  kept: ReadonlySet<string>;
}

/** The stored record a block is written in: the part (opencode), the line (a transcript). */
export function recordKey(source: Handle): string {
  return source.kind === "line" ? (source.messageId ?? source.id) : source.id;
}

export function layoutOf(conversation: Conversation, keepTurns: number, intactSteps = INTACT_STEPS): Layout {
  const turns: Turn[] = [];
  const steps: Step[] = [];
  const calls = new Map<string, ToolUseBlock>();
  const stepOfCall = new Map<string, Step>();
  const startTurn = (prompt: Block[]): Turn => {
    const turn: Turn = { index: turns.length, prompt, steps: [], messageIds: [] };
    turns.push(turn);
    return turn;
  };
  for (const message of conversation.messages) {
    // A system turn (Claude Code's reminders on current models) belongs to the prompt it follows: it starts no turn.
    if (message.role === "system") {
      const turn = turns.at(-1);
      if (turn && turn.steps.length === 0) turn.prompt.push(...message.blocks);
      else startTurn([...message.blocks]);
      continue;
    }
    if (message.role === "assistant") {
      const turn = turns.at(-1) ?? startTurn([]);
      const step: Step = { index: steps.length, turn: turn.index, blocks: [...message.blocks] };
      for (const block of message.blocks) {
        if (block.type !== "tool_use") continue;
        calls.set(block.id, block);
        stepOfCall.set(block.id, step);
      }
      steps.push(step);
      turn.steps.push(step);
      continue;
    }
    const prompt: Block[] = [];
    for (const block of message.blocks) {
      if (block.type !== "tool_result") prompt.push(block);
      else (stepOfCall.get(block.toolUseId) ?? steps.at(-1))?.blocks.push(block);
    }
    if (prompt.length > 0) startTurn(prompt);
  }
  for (const turn of turns) turn.messageIds = storedIds([...turn.prompt, ...turn.steps.flatMap((s) => s.blocks)]);

  const intact = new Set<string>();
  const keep = (blocks: readonly Block[], into: Set<string>) => {
    for (const block of blocks) into.add(recordKey(block.source));
  };
  keep(turns[0]?.prompt ?? [], intact);
  keep(turns.at(-1)?.prompt ?? [], intact);
  for (const step of intactSteps > 0 ? steps.slice(-intactSteps) : []) keep(step.blocks, intact);
  const kept = new Set<string>();
  for (const turn of keepTurns > 0 ? turns.slice(-keepTurns) : []) {
    keep(turn.prompt, kept);
    for (const step of turn.steps) keep(step.blocks, kept);
  }
  return { turns, steps, calls, intact, kept };
}

/** Layouts are computed once per conversation and protection (the strategies of a pass and their fixes share one). */
const cache = new WeakMap<Conversation, Map<string, Layout>>();

export function cachedLayout(conversation: Conversation, keepTurns: number, intactSteps = INTACT_STEPS): Layout {
  let byKeep = cache.get(conversation);
  if (!byKeep) {
    byKeep = new Map();
    cache.set(conversation, byKeep);
  }
  const key = `${keepTurns}/${intactSteps}`;
  let layout = byKeep.get(key);
  if (!layout) {
    layout = layoutOf(conversation, keepTurns, intactSteps);
    byKeep.set(key, layout);
  }
  return layout;
}

/** The stored messages behind some blocks, each once, in order. */
function storedIds(blocks: readonly Block[]): string[] {
  const ids = new Set<string>();
  for (const block of blocks) {
    const id = block.source.kind === "message" ? block.source.id : block.source.messageId;
    if (id !== undefined) ids.add(id);
  }
  return [...ids];
}

/** Where a record is, for a strategy: never touched, taken from only after every older turn, or older. */
export type Region = "older" | "running";

export function regionOf(layout: Layout, key: string): Region | "intact" {
  if (layout.intact.has(key)) return "intact";
  return layout.kept.has(key) ? "running" : "older";
}

/** Every tool result of the request with its step, oldest first. */
export function resultsOf(layout: Layout): { block: ToolResultBlock; step: Step }[] {
  const found: { block: ToolResultBlock; step: Step }[] = [];
  for (const step of layout.steps) for (const block of step.blocks) if (block.type === "tool_result") found.push({ block, step });
  return found;
}
