/**
 * What every trim strategy shares: how far over budget the request is after the strategies before it, where a
 * strategy may take from (older turns first, then the running turn, never the intact part), and picking candidates
 * only as far as needed. A strategy states its candidates; `trimRule` makes it a rule of the one pipeline.
 */
import type { Block } from "../../model/conversation.js";
import type { SessionView } from "../../model/session-view.js";
import { CHARS_PER_TOKEN, blockTokens, conversationBytes } from "../../model/tokens.js";
import type { Edit } from "../../model/edit.js";
import type { FixContext } from "../../model/fix-context.js";
import type { Finding, Report, Rule, RuleOptions, TrimOptions } from "../rule.js";
import { cachedLayout, regionOf, type Layout, type Region } from "./layout.js";

/** UTF-8 bytes of the request as sent: what a byte budget counts. */
export function requestBytes(view: SessionView): number {
  return conversationBytes(view.conversation);
}

/**
 * Bytes of the media the client leaves out of this request by itself (Claude Code's media budget): a byte budget
 * counts them too, since they come back into the request once a trim leaves the history under the client's budget
 * (a 413 at 35 MB of media is answered by 30 MB of media in all, not by 30 MB of what is sent now).
 */
export function withheldBytes(view: SessionView): number {
  return (view.conversation.withheld ?? []).reduce((n, w) => n + (w.item ? w.item.chars : w.block.chars), 0);
}

export interface Deficit {
  tokens: number;
  bytes: number;
}

/** How much is still to go once the findings of the strategies before this one are fixed. */
export function deficit(view: SessionView, trim: TrimOptions, earlier: readonly Finding[], trimRuleIds: ReadonlySet<string>): Deficit {
  let tokens = view.estimatedTokens * trim.calibration + (trim.overhead ?? 0) - trim.targetTokens;
  let bytes = trim.maxBytes !== undefined ? requestBytes(view) + withheldBytes(view) - trim.maxBytes : 0;
  for (const f of earlier) {
    if (!f.saves || !trimRuleIds.has(f.rule)) continue;
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
  /** The record the fix writes (layout.ts recordKey): where it is decides whether it may be taken now. */
  key: string;
  /** The step it belongs to: in the running turn, the oldest step goes first. */
  step: number;
  report: Omit<Report, "saves">;
  saves: { tokens: number; bytes: number };
  /** Taken whatever the budget: the request breaks a hard limit of the API while it is there (an image rule). */
  required?: true;
  /**
   * Taken from the intact part too: the API refuses it by itself (a document over the request limit), so keeping the
   * latest prompt byte-identical would keep every request of the session refused.
   */
  unsendable?: true;
}

/** Take the required candidates, then the others in the order given until the deficit is covered. */
export function asFarAsNeeded(candidates: readonly Candidate[], d: Deficit, calibration: number): Report[] {
  const reports: Report[] = [];
  let tokens = d.tokens;
  let bytes = d.bytes;
  const take = (c: Candidate) => {
    reports.push({ ...c.report, saves: c.saves });
    tokens -= c.saves.tokens * calibration;
    bytes -= c.saves.bytes;
  };
  for (const c of candidates) if (c.required) take(c);
  for (const c of candidates) {
    if (tokens <= 0 && bytes <= 0) break;
    if (c.required || (c.saves.tokens <= 0 && c.saves.bytes <= 0)) continue;
    take(c);
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

/** What a strategy sees: the session laid out in turns and steps, the budget, and the region it may take from. */
export interface StrategyInput {
  view: SessionView;
  layout: Layout;
  trim: TrimOptions;
  options: RuleOptions;
  region: Region;
}

/** A trim strategy: its candidates (in its own order of preference) and its fix, which only states an intent. */
export interface TrimStrategy {
  /** The rule id findings carry. */
  id: string;
  /** The `--strategy` name. */
  name: string;
  description: string;
  /** Fixes that write only their own record, so several may land in one message in one pass. */
  independent: boolean;
  candidates(input: StrategyInput): Candidate[];
  fix(finding: Finding, context: FixContext): Edit[];
}

function layoutFor(view: SessionView, trim: TrimOptions): Layout {
  return cachedLayout(view.conversation, trim.keepTurns, trim.keepSteps);
}

/**
 * Candidates of a strategy that may be taken in a region, in the order they go. Once the running turn is reached,
 * what a strategy held back in older turns by its own rule (prune's newest 40,000 tokens, purge's last 4 turns) goes
 * first, oldest first, then the running turn's, oldest step first.
 */
function within(strategy: TrimStrategy, input: StrategyInput): Candidate[] {
  const found: { candidate: Candidate; older: boolean }[] = [];
  for (const candidate of strategy.candidates(input)) {
    const region = regionOf(input.layout, candidate.key);
    if (region === "intact" && !candidate.unsendable) continue;
    if (input.region !== "running" && region !== "older" && !candidate.required) continue;
    if (input.region === "running" && region === "running") candidate.report.runningTurn = true;
    found.push({ candidate, older: region === "older" });
  }
  if (input.region === "running") found.sort((a, b) => Number(b.older) - Number(a.older) || a.candidate.step - b.candidate.step);
  return found.map((f) => f.candidate);
}

/**
 * The strategies, in order, as rules of the one pipeline: each reports only while the request is over budget, only
 * once the strategies before it have nothing left in this pass, and only from older turns while any allowed strategy
 * still has something there; then from the running turn, oldest step first; never from the intact part.
 */
export function trimRules(strategies: readonly TrimStrategy[]): Rule[] {
  const ids = new Set(strategies.map((s) => s.id));
  const regions = new WeakMap<SessionView, Region>();
  const regionFor = (view: SessionView, options: RuleOptions, trim: TrimOptions, layout: Layout): Region => {
    let region = regions.get(view);
    if (!region) {
      const older: StrategyInput = { view, layout, trim, options, region: "older" };
      const left = strategies.some((s) => trim.strategies.has(s.name) && within(s, older).some((c) => c.saves.tokens > 0 || c.saves.bytes > 0));
      region = left ? "older" : "running";
      regions.set(view, region);
    }
    return region;
  };
  return strategies.map(
    (strategy): Rule => ({
      id: strategy.id,
      severity: "warning",
      description: strategy.description,
      fixedBy: "trim",
      ...(strategy.independent ? { independentFixes: true as const } : {}),
      fillsGaps: true,
      check(view, options, earlier) {
        const trim = options.trim;
        if (!trim?.strategies.has(strategy.name)) return [];
        // Strictly in order: while an earlier strategy still has work in this pass, wait for the next pass, which
        // sees its result (a truncated output can still be pruned; a turn is dropped only when nothing milder is left).
        if (earlier.some((f) => ids.has(f.rule))) return [];
        const d = deficit(view, trim, earlier, ids);
        const layout = layoutFor(view, trim);
        const over = isOver(d);
        const region = over ? regionFor(view, options, trim, layout) : "older";
        const found = within(strategy, { view, layout, trim, options, region });
        return asFarAsNeeded(over ? found : found.filter((c) => c.required), d, trim.calibration);
      },
      fix: (finding, context) => strategy.fix(finding, context),
    }),
  );
}

/** What clearing a tool output saves: its text gives way to a short placeholder. */
export function clearedSaves(output: string | undefined, outputChars: number, placeholder: string): { tokens: number; bytes: number } {
  const chars = Math.max(0, outputChars - placeholder.length);
  const bytes = Math.max(0, (output !== undefined ? Buffer.byteLength(output) : outputChars) - placeholder.length);
  return { tokens: tokensOf(chars), bytes };
}
