/**
 * A rule is a pure detector with a stable id (ESLint style): it reads a SessionView and reports findings; it
 * never touches disk. The engine stamps each report with the rule's id, severity and session.
 */
import type { Edit } from "../model/edit.js";
import type { FixContext } from "../model/fix-context.js";
import type { RuleOptions } from "../model/rule-options.js";
import type { ProviderApi, SessionView } from "../model/session-view.js";

export { DEFAULT_RULE_OPTIONS, type RuleOptions, type TrimOptions } from "../model/rule-options.js";

export type { Finding, Report, Severity } from "../model/finding.js";
import type { Finding, Report, Severity } from "../model/finding.js";

export interface Rule {
  id: string;
  severity: Severity;
  description: string;
  /** How it is fixed: `repair` (session repair), `trim` (context trim), or not at all. */
  fixedBy: "repair" | "trim" | "none";
  /** `earlier`: what the rules before this one in the registry reported, for rules that only fill gaps. */
  check(view: SessionView, options: RuleOptions, earlier: readonly Finding[]): Report[];
  /**
   * It reads `earlier`, so what it finds depends on which rules ran before it: the engine runs it on every check
   * instead of reusing what it found on the same view (scan/check.ts).
   */
  fillsGaps?: true;
  /**
   * The fix for one of this rule's findings, as data: record edits the planner applies (ESLint's `fix`). Runs on a
   * full load, whatever store holds the session: the context is the store's, and turns the rule's intent into edits
   * of its records. An empty list means this finding has no safe automatic fix here and is reported as left alone.
   */
  fix?(finding: Finding, context: FixContext): Edit[];
  /** Fixed only when asked for by name (`--rule`): the fix removes content the session may still need. */
  repairOnRequest?: true;
  /** Its fixes read and write only their own record, so several may land in one message in one planning pass. */
  independentFixes?: true;
  /** The APIs whose rules it states (absent: a defect whatever API the history goes to). */
  apis?: readonly ProviderApi[];
}

/** Whether `rule` judges a history sent to the API of `view`. */
export function ruleApplies(rule: Rule, view: SessionView): boolean {
  return rule.apis === undefined || rule.apis.includes(view.api ?? "anthropic");
}
