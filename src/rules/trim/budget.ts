/**
 * What every trim strategy shares: how far over budget the request is after the strategies before it, which
 * messages are never touched (the last turns), and picking candidates only as far as needed.
 */
import type { Block } from "../../model/conversation.js";
import type { MessageRecord } from "../../model/opencode-records.js";
import type { SessionView } from "../../model/session-view.js";
import { CHARS_PER_TOKEN, blockTokens, conversationBytes } from "../../model/tokens.js";
import { isObject, type Edit } from "../../model/edit.js";
import type { RecordFixContext } from "../../model/fix-context.js";
import type { Finding, Report, RuleOptions, TrimOptions } from "../rule.js";
import { transcriptTurns } from "./transcript-outputs.js";

export const TRIM_RULE_IDS = new Set(["drop-images", "truncate-outputs", "prune-old-outputs", "dedupe-outputs", "purge-errors", "drop-oldest-turns"]);

/** UTF-8 bytes of the request as sent: what a byte budget counts. */
export function requestBytes(view: SessionView): number {
  return conversationBytes(view.conversation);
}

export interface Deficit {
  tokens: number;
  bytes: number;
}

/** How much is still to go once the findings of the strategies before this one are fixed. */
export function deficit(view: SessionView, trim: TrimOptions, earlier: readonly Finding[]): Deficit {
  let tokens = view.estimatedTokens * trim.calibration - trim.targetTokens;
  let bytes = trim.maxBytes !== undefined ? requestBytes(view) - trim.maxBytes : 0;
  for (const f of earlier) {
    if (!f.saves || !TRIM_RULE_IDS.has(f.rule)) continue;
    tokens -= f.saves.tokens * trim.calibration;
    bytes -= f.saves.bytes;
  }
  // A byte budget is the one that binds when it is given (a 413 says nothing about tokens).
  return trim.maxBytes !== undefined ? { tokens: 0, bytes } : { tokens, bytes: 0 };
}

export function isOver(d: Deficit): boolean {
  return d.tokens > 0 || d.bytes > 0;
}

export interface Candidate {
  report: Omit<Report, "saves">;
  saves: { tokens: number; bytes: number };
}

/** Take candidates in the order given until the deficit is covered. */
export function asFarAsNeeded(candidates: readonly Candidate[], d: Deficit, calibration: number): Report[] {
  const reports: Report[] = [];
  let tokens = d.tokens;
  let bytes = d.bytes;
  for (const c of candidates) {
    if (tokens <= 0 && bytes <= 0) break;
    if (c.saves.tokens <= 0 && c.saves.bytes <= 0) continue;
    reports.push({ ...c.report, saves: c.saves });
    tokens -= c.saves.tokens * calibration;
    bytes -= c.saves.bytes;
  }
  return reports;
}

/** Token estimate of some characters, as blockTokens counts them. */
export function tokensOf(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

export function blocksTokens(blocks: readonly Block[]): number {
  return blocks.reduce((n, b) => n + blockTokens(b), 0);
}

/**
 * Stored messages in turns: a turn starts at a user message and holds the assistant messages that answer it.
 * The first turn (the task as first stated) and the last `keep` turns are protected.
 */
export function turns(messages: readonly MessageRecord[]): MessageRecord[][] {
  const out: MessageRecord[][] = [];
  for (const message of messages) {
    if (message.info?.role === "user" || out.length === 0) out.push([message]);
    else out.at(-1)!.push(message);
  }
  return out;
}

export function protectedMessageIds(view: SessionView, keepTurns: number): Set<string> {
  if (view.transcript) {
    const all = transcriptTurns(view.transcript);
    return new Set(all.slice(Math.max(0, all.length - keepTurns)).flat());
  }
  const all = turns(view.opencode?.messages ?? []);
  const kept = all.slice(Math.max(0, all.length - keepTurns));
  return new Set(kept.flat().map((m) => m.ref.id));
}

/** The stored messages whose content is sent (after the last finished compaction, not skipped). */
export function sentMessageIds(view: SessionView): Set<string> {
  return new Set(view.conversation.messages.flatMap((m) => m.sourceMessageIds));
}

export interface TrimPass {
  trim: TrimOptions;
  deficit: Deficit;
  /** Messages of the last turns, never touched. */
  keep: Set<string>;
  /** Messages whose content is sent. */
  sent: Set<string>;
  /** Parts an earlier strategy already took this pass. */
  taken: Set<string | undefined>;
}

/** The start of every strategy's check: nothing to do unless it is allowed and the request is still over budget. */
export function trimPass(strategy: string, view: SessionView, options: RuleOptions, earlier: readonly Finding[], keepAtLeast = 0): TrimPass | undefined {
  const trim = options.trim;
  if (!trim?.strategies.has(strategy)) return undefined;
  // Strictly in order: while an earlier strategy still has work in this pass, wait for the next pass, which sees
  // its result (a truncated output can still be pruned; a turn is dropped only when nothing milder is left).
  if (earlier.some((f) => TRIM_RULE_IDS.has(f.rule))) return undefined;
  const d = deficit(view, trim, earlier);
  if (!isOver(d)) return undefined;
  return {
    trim,
    deficit: d,
    keep: protectedMessageIds(view, Math.max(keepAtLeast, trim.keepTurns)),
    sent: sentMessageIds(view),
    taken: new Set(earlier.map((f) => f.partId)),
  };
}

/** opencode's own way to stop sending an output: mark it compacted; the output itself stays on disk. */
export function markCompacted(finding: Finding, context: RecordFixContext, reason: string): Edit[] {
  const part = context.part(finding.partId);
  if (!part) return [];
  return context.update(part, reason, (value) => {
    const state = value.state;
    if (isObject(state) && isObject(state.time)) state.time.compacted = context.now;
  });
}

/** What clearing a tool output saves: its text gives way to a short placeholder. */
export function clearedSaves(output: string | undefined, outputChars: number, placeholder: string): { tokens: number; bytes: number } {
  const chars = Math.max(0, outputChars - placeholder.length);
  const bytes = Math.max(0, (output !== undefined ? Buffer.byteLength(output) : outputChars) - placeholder.length);
  return { tokens: tokensOf(chars), bytes };
}
