/**
 * The rule engine: run every selected rule over one session view and return its findings in session order
 * (session-level first, then by message and part position, orphans last).
 */
import { carried } from "../model/carried.js";
import type { SessionView } from "../model/session-view.js";
import { type Finding, type Rule, type RuleOptions, ruleApplies } from "../rules/rule.js";

export function checkSession(view: SessionView, rules: readonly Rule[], options: RuleOptions): Finding[] {
  const findings: Finding[] = [];
  const ran = runsOn(view, options);
  for (const rule of rules) {
    if (!ruleApplies(rule, view)) continue;
    const known = rule.fillsGaps ? undefined : ran.get(rule);
    if (known) {
      findings.push(...known);
      continue;
    }
    const own: Finding[] = [];
    for (const report of rule.check(view, options, findings)) {
      own.push({ rule: rule.id, sessionId: view.summary.id, fixable: rule.fixedBy !== "none", ...report, severity: report.severity ?? rule.severity });
    }
    if (!rule.fillsGaps) ran.set(rule, own);
    findings.push(...own);
  }
  // Most sessions have no finding or one: only build the position index when there is something to order.
  if (findings.length < 2) return findings;
  const position = positions(view);
  const key = (f: Finding) =>
    (f.partId !== undefined ? position.get(f.partId) : undefined) ??
    (f.messageId !== undefined ? position.get(f.messageId) : undefined) ??
    (f.messageId || f.partId ? Number.MAX_SAFE_INTEGER : -1);
  return findings
    .map((finding, index) => ({ finding, index, at: key(finding) }))
    .sort((a, b) => a.at - b.at || a.index - b.index)
    .map((x) => x.finding);
}

/**
 * Every option a rule reads. `satisfies` makes a new field of RuleOptions a compile error here until it is listed,
 * so two checks are never taken for the same when they differ in it.
 */
const RULE_OPTION_KEYS = Object.keys({
  now: true,
  maxOutputChars: true,
  contextLimit: true,
  liveWindowMs: true,
  trim: true,
  requested: true,
} satisfies Record<keyof RuleOptions, true>) as (keyof RuleOptions)[];

/**
 * What each rule found on a view, and where its records are, kept on the view itself. A rule is a pure function of
 * the view and its options, and a view is not changed once built, so a second check of the same view with the same
 * options reuses what a rule found: `session resume` checks the view it then hands the planner, whose first pass
 * checks it again, and the planner's last pass checks the view its judgement checks once more (each a full run of
 * the rules over every part). Rules that fill gaps (`fillsGaps`: they read what the rules before them found) always
 * run again. Kept per rule object, not id: the rule an error brings is made for that error and shares its id with
 * every other. Kept on the view (model/carried.ts).
 */
const CHECKED = Symbol("checked");

interface Checked {
  options?: RuleOptions;
  found?: Map<Rule, Finding[]>;
  positions?: Map<string, number>;
}

function checkedOf(view: SessionView): Checked {
  return carried(view, CHECKED, () => ({}));
}

function runsOn(view: SessionView, options: RuleOptions): Map<Rule, Finding[]> {
  const checked = checkedOf(view);
  const known = checked.options;
  if (checked.found && known && RULE_OPTION_KEYS.every((key) => known[key] === options[key])) return checked.found;
  checked.options = options;
  checked.found = new Map<Rule, Finding[]>();
  return checked.found;
}

/** Each view's record positions, built once: every check of a view with findings to order needs them. */
function positions(view: SessionView): Map<string, number> {
  const checked = checkedOf(view);
  if (checked.positions) return checked.positions;
  const map = new Map<string, number>();
  checked.positions = map;
  let n = 0;
  for (const message of view.opencode?.messages ?? []) {
    map.set(message.ref.id, n++);
    for (const part of message.parts) map.set(part.ref.id, n++);
  }
  // Transcript findings name a line (and a block in it): file order.
  for (const line of view.transcript?.records.lines ?? []) map.set(line.ref.id, n++);
  return map;
}
