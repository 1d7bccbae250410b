/**
 * A rule is a pure detector with a stable id (ESLint style): it reads a SessionView and reports findings; it
 * never touches disk. The engine stamps each report with the rule's id, severity and session.
 */
import type { SessionView } from "../model/session-view.js";
import type { Edit, FixContext } from "../plan/fix-context.js";
import type { LineEdit, TranscriptFixContext } from "../plan/transcript-fix-context.js";

export type Severity = "error" | "warning";

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
}

/** What `context trim` asks of its rules (src/rules/trim): the budget and what must be kept. */
export interface TrimOptions {
  /** Tokens the request must fit under (target × limit), counted as the calibrated estimate counts them. */
  targetTokens: number;
  /** Stored truth per estimated token (opencode's real prompt counts ÷ our estimate), applied to every estimate. */
  calibration: number;
  /** A byte budget instead (HTTP 413): trim until the serialised request fits. */
  maxBytes?: number;
  /** The last turns are never touched. */
  keepTurns: number;
  maxOutputChars: number;
  /** Strategies the user allowed. */
  strategies: ReadonlySet<string>;
}

export const DEFAULT_RULE_OPTIONS: Omit<RuleOptions, "now"> = {
  maxOutputChars: 50_000,
  contextLimit: 200_000,
  liveWindowMs: 10 * 60_000,
};

/** What a rule reports; the engine adds rule id, severity, session id and fixability. */
export interface Report {
  message: string;
  /** A finding milder than the rule's usual one (a line kept verbatim that recover does not know). */
  severity?: Severity;
  /** Trim rules: what fixing this finding takes off the request (estimated tokens, and UTF-8 bytes). */
  saves?: { tokens: number; bytes: number };
  messageId?: string;
  partId?: string;
  path?: string;
  line?: number;
}

export interface Finding extends Report {
  rule: string;
  severity: Severity;
  sessionId: string;
  fixable: boolean;
}

export interface Rule {
  id: string;
  severity: Severity;
  description: string;
  /** How it is fixed: `repair` (session repair), `trim` (context trim), or not at all. */
  fix: "repair" | "trim" | "none";
  /** `earlier`: what the rules before this one in the registry reported, for rules that only fill gaps. */
  check(view: SessionView, options: RuleOptions, earlier: readonly Finding[]): Report[];
  /**
   * The fix for one of this rule's findings, as data: record edits the planner applies (ESLint's `fix`). Runs on a
   * full load. An empty list means this finding has no safe automatic fix and is reported as left alone.
   */
  repair?(finding: Finding, context: FixContext): Edit[];
  /** The same fix for a JSONL transcript (Claude Code, openclaw): line edits. */
  repairTranscript?(finding: Finding, context: TranscriptFixContext): LineEdit[];
  /** Fixed only when asked for by name (`--rule`): the fix removes content the session may still need. */
  repairOnRequest?: true;
  /** Its fixes read and write only their own record, so several may land in one message in one planning pass. */
  independentFixes?: true;
}
