/**
 * What the rules (and the fixes they plan) run with: pinned time, limits, and what `context trim` asks for. Declared
 * in model/ because a store's fix context carries them to the rules' fixes.
 */
export interface RuleOptions {
  /** Epoch ms "now", so tests can pin time. */
  now: number;
  /** A tool output above this many characters is oversized. */
  maxOutputChars: number;
  /** The model's context window, in tokens. */
  contextLimit: number;
  /** An unfinished last assistant message updated within this window is a live turn, not damage. */
  liveWindowMs: number;
  /** Set by `context trim` only. */
  trim?: TrimOptions;
  /** The rules the user named (`--rule`): a rule may then report what it leaves alone unasked. */
  requested?: ReadonlySet<string>;
}

/** What `context trim` asks of its rules (src/rules/trim): the budget and what must be kept. */
export interface TrimOptions {
  /** Tokens the request must fit under (target × limit), counted as the calibrated estimate counts them. */
  targetTokens: number;
  /** Stored truth per estimated token (opencode's real prompt counts ÷ our estimate), applied to every estimate. */
  calibration: number;
  /**
   * Tokens of the request outside its messages (system prompt, tools), as a provider error counted them: they are in
   * every request and no trim takes from them. 0 when no error stated a count.
   */
  overhead?: number;
  /** A byte budget instead (HTTP 413): trim until the serialised request fits. */
  maxBytes?: number;
  /** The last turns: taken from only once every older turn has given what it can. */
  keepTurns: number;
  /** The last assistant steps (with their results) that stay byte-identical; 2 unless the user asks otherwise. */
  keepSteps?: number;
  maxOutputChars: number;
  /** Strategies the user allowed. */
  strategies: ReadonlySet<string>;
}

export const DEFAULT_RULE_OPTIONS: Omit<RuleOptions, "now"> = {
  maxOutputChars: 50_000,
  contextLimit: 200_000,
  liveWindowMs: 10 * 60_000,
};
