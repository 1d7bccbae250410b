/**
 * What a trim is asked to do and what it came to, shared by `context trim` and by `session repair` answering a size
 * error in the same transaction: the calibrated budget, the summary, and the one sentence that says what would fit
 * when the part kept intact is itself too large.
 */
import type { SessionPlan } from "../plan/planner.js";
import type { SessionView } from "../model/session-view.js";
import { blockTokens } from "../model/tokens.js";
import { DEFAULT_RULE_OPTIONS, type TrimOptions } from "../rules/rule.js";
import { requestBytes, tokensOf } from "../rules/trim/budget.js";
import { STRATEGIES, TRIM_RULES } from "../rules/trim/index.js";
import { INTACT_STEPS, layoutOf, recordKey } from "../rules/trim/layout.js";
import type { TrimSummary } from "./reporters/change-report.js";
import { formatCount } from "../model/format-count.js";

export const DEFAULT_LIMIT = 200_000;
export const DEFAULT_TARGET = 0.8;
export const DEFAULT_KEEP_TURNS = 4;
/** Anthropic's request limit is 32 MB; aim under it with room for the system prompt and tool definitions. */
export const DEFAULT_MAX_BYTES = 30_000_000;

/**
 * More than this many tokens between an error's count and our estimate of the messages is not the system prompt and
 * tools (Claude Code sends about 25,000, opencode about 8,000): the error is of another request (pasted from another
 * session, or from before a trim), and its count is not used.
 */
const MAX_OVERHEAD = 100_000;
/** A stored count further from our estimate than this describes another request. */
const MIN_FACTOR = 0.5;
const MAX_FACTOR = 2.5;

/**
 * The byte budget a 413 states: Claude Code stops at `Request too large (max 20MB)` before the API's 32 MB, so its
 * own maximum binds (with the same room the default leaves); otherwise the default.
 */
export function byteBudgetOf(errorText: string | undefined): number {
  const max = /max(?:imum)?[^\d]{0,20}(\d+(?:\.\d+)?) ?MB/i.exec(errorText ?? "")?.[1];
  if (max === undefined) return DEFAULT_MAX_BYTES;
  return Math.min(DEFAULT_MAX_BYTES, Math.floor(Number(max) * 1_000_000 * 0.9));
}

export interface Calibration {
  factor: number;
  /** The size a provider error counted, when the calibration came from one. */
  counted?: number;
  /** Tokens outside the messages (system prompt, tools) that a stated count showed: in every request, never trimmed. */
  overhead?: number;
  method: string;
}

/**
 * How far our estimate is from what the provider counted: the prompt size the agent stored for its latest reply
 * (model/session-view.ts `measuredPrompt`), against our estimate of everything sent up to and including that reply.
 */
export function calibrate(view: SessionView): Calibration {
  const measured = view.measuredPrompt;
  if (measured) {
    let estimate = 0;
    let through = -1;
    const blocks = view.conversation.messages.flatMap((m) => m.blocks);
    blocks.forEach((b, i) => {
      if ((b.source.kind === "message" ? b.source.id : b.source.messageId) === measured.messageId) through = i;
    });
    for (let i = 0; i <= through; i++) estimate += blockTokens(blocks[i]!);
    if (estimate > 0) {
      const raw = measured.tokens / estimate;
      const off = `${((raw - 1) * 100).toFixed(1)}% off`;
      const there = `the ${formatCount(measured.tokens)} prompt tokens ${measured.source} for message ${measured.messageId} (our estimate there: ${formatCount(estimate)}, ${off})`;
      // More than a factor 2 apart, the count is not of this history (edited or compacted since): trust neither.
      if (raw < MIN_FACTOR || raw > MAX_FACTOR)
        return { factor: 1, method: `characters / 4, not calibrated: ${there} is too far apart to be the same request` };
      return { factor: raw, method: `characters / 4, calibrated ×${raw.toFixed(2)} against ${there}` };
    }
  }
  return { factor: 1, method: "characters / 4 (no stored token counts to calibrate against)" };
}

/**
 * The size a provider error states for the request it refused (`prompt is too long: 14042 tokens > 13963 maximum`)
 * is the truth for this request: our estimate of the messages (characters / 4) plus what is sent outside them
 * (system prompt, tool definitions), which a trim cannot shrink. So the difference is that overhead, counted once,
 * and every saving is a saving of message tokens (a factor would credit each saving with the overhead's share too).
 * When our estimate is already above the count, the estimate is scaled down to it instead.
 */
export function calibrateToCount(view: SessionView, counted: number, where: string): Calibration {
  const estimate = view.estimatedTokens;
  const at = `the ${formatCount(counted)} tokens ${where} (our estimate of the messages: ${formatCount(estimate)})`;
  if (estimate <= 0) return { factor: 1, method: `characters / 4 (no messages to measure against ${at})` };
  if (counted - estimate > MAX_OVERHEAD) {
    const usual = calibrate(view);
    return { ...usual, method: `${usual.method}; not ${at}: too far above this history to be its request` };
  }
  if (counted >= estimate)
    return {
      factor: 1,
      overhead: counted - estimate,
      counted,
      method: `characters / 4, plus ${formatCount(counted - estimate)} tokens sent outside the messages (system prompt, tools): ${at}`,
    };
  return { factor: counted / estimate, counted, method: `characters / 4, calibrated ×${(counted / estimate).toFixed(2)} against ${at}` };
}

export interface TrimRequest {
  limit: number;
  target?: number;
  maxBytes?: number;
  keepTurns?: number;
  keepSteps?: number;
  maxOutputChars?: number;
  strategies?: ReadonlySet<string>;
  calibration: Calibration;
}

export function trimOptions(request: TrimRequest): TrimOptions {
  return {
    targetTokens: Math.floor(request.limit * (request.target ?? DEFAULT_TARGET)),
    calibration: request.calibration.factor,
    ...(request.calibration.overhead ? { overhead: request.calibration.overhead } : {}),
    keepTurns: request.keepTurns ?? DEFAULT_KEEP_TURNS,
    keepSteps: request.keepSteps ?? INTACT_STEPS,
    maxOutputChars: request.maxOutputChars ?? DEFAULT_RULE_OPTIONS.maxOutputChars,
    strategies: request.strategies ?? new Set(STRATEGIES),
    ...(request.maxBytes !== undefined ? { maxBytes: request.maxBytes } : {}),
  };
}

/** `command`: the trim command for this session as the user would type it, for the advice. */
export function trimSummary(view: SessionView, plan: SessionPlan, request: TrimRequest, trim: TrimOptions, command: string): TrimSummary {
  const factor = request.calibration.factor;
  const overhead = request.calibration.overhead ?? 0;
  const calibrated = (tokens: number) => Math.round(tokens * factor);
  const total = (tokens: number) => Math.round(tokens * factor + overhead);
  const byRule = (keep: (f: SessionPlan["fixed"][number]) => boolean) =>
    TRIM_RULES.map((rule) => ({ id: rule.id, found: plan.fixed.filter((f) => f.rule === rule.id && keep(f)) })).filter((s) => s.found.length > 0);
  const stillOver = trim.maxBytes !== undefined ? plan.after.bytes > trim.maxBytes : total(plan.after.estimatedTokens) > trim.targetTokens;
  const reached = byRule((f) => f.runningTurn === true).map((s) => ({ id: s.id, records: s.found.length }));
  const summary: TrimSummary = {
    tokens: {
      before: total(view.estimatedTokens),
      after: total(plan.after.estimatedTokens),
      limit: request.limit,
      target: trim.targetTokens,
      method: request.calibration.method,
    },
    ...(trim.maxBytes !== undefined ? { bytes: { before: requestBytes(view), after: plan.after.bytes, max: trim.maxBytes } } : {}),
    strategies: byRule(() => true).map((s) => ({
      id: s.id,
      records: s.found.length,
      tokens: calibrated(s.found.reduce((n, f) => n + (f.saves?.tokens ?? 0), 0)),
      bytes: s.found.reduce((n, f) => n + (f.saves?.bytes ?? 0), 0),
    })),
    stillOver,
    ...(reached.length > 0 ? { reached } : {}),
  };
  if (stillOver && trim.maxBytes === undefined) {
    const advice = intactAdvice(view, trim, factor, command, overhead);
    if (advice) summary.advice = advice;
  }
  return summary;
}

const OUTPUT_LADDER = [20_000, 10_000, 5_000, 2_000, 1_000];
const k = (tokens: number) => formatCount(Math.round(tokens));

/**
 * When the part no strategy may touch is itself over the target, say so and what would fit: the last steps given up
 * (`--keep-steps 0`) and their outputs truncated to the largest size that fits. None when the intact part fits.
 */
export function intactAdvice(view: SessionView, trim: TrimOptions, factor: number, command: string, overhead = 0): string | undefined {
  const keepSteps = trim.keepSteps ?? INTACT_STEPS;
  const layout = layoutOf(view.conversation, trim.keepTurns, keepSteps);
  const prompts = layoutOf(view.conversation, trim.keepTurns, 0);
  let intact = 0;
  let promptsOnly = 0;
  const steps: { text?: string; tokens: number }[] = [];
  for (const message of view.conversation.messages) {
    for (const block of message.blocks) {
      const key = recordKey(block.source);
      if (!layout.intact.has(key)) continue;
      const tokens = blockTokens(block);
      intact += tokens;
      if (prompts.intact.has(key)) promptsOnly += tokens;
      else steps.push({ ...(block.type === "tool_result" && block.text !== undefined ? { text: block.text } : {}), tokens });
    }
  }
  // What is sent however much is trimmed: the intact part, and what goes outside the messages (system, tools).
  const size = (tokens: number) => tokens * factor + overhead;
  if (size(intact) <= trim.targetTokens) return undefined;
  const what =
    keepSteps > 0 ? `the first and last user messages and the last ${keepSteps} step${keepSteps === 1 ? "" : "s"}` : "the first and last user messages";
  const outside = overhead > 0 ? ", with the system prompt and tools," : "";
  const head = `${what}${outside} alone are ${k(size(intact))} tokens, over the ${k(trim.targetTokens)} target`;
  if (size(promptsOnly) > trim.targetTokens || keepSteps === 0) return `${head}: no trim may touch them; start a new session with a shorter prompt`;
  for (const max of OUTPUT_LADDER) {
    const after = promptsOnly + steps.reduce((n, s) => n + (s.text !== undefined && s.text.length > max ? tokensOf(max) : s.tokens), 0);
    if (size(after) <= trim.targetTokens) return `${head}: \`${command} --keep-steps 0 --max-output-chars ${max}\` would bring them to ${k(size(after))}`;
  }
  return `${head}, even with their outputs truncated: only the prompts themselves fit; start a new session`;
}
