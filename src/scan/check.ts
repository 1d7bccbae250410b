/**
 * The rule engine: run every selected rule over one session view and return its findings in session order
 * (session-level first, then by message and part position, orphans last).
 */
import type { SessionView } from "../model/session-view.js";
import { type Finding, type Rule, type RuleOptions, ruleApplies } from "../rules/rule.js";

export function checkSession(view: SessionView, rules: readonly Rule[], options: RuleOptions): Finding[] {
  const findings: Finding[] = [];
  for (const rule of rules) {
    if (!ruleApplies(rule, view)) continue;
    for (const report of rule.check(view, options, findings)) {
      findings.push({ rule: rule.id, sessionId: view.summary.id, fixable: rule.fixedBy !== "none", ...report, severity: report.severity ?? rule.severity });
    }
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

function positions(view: SessionView): Map<string, number> {
  const map = new Map<string, number>();
  let n = 0;
  for (const message of view.opencode?.messages ?? []) {
    map.set(message.ref.id, n++);
    for (const part of message.parts) map.set(part.ref.id, n++);
  }
  // Transcript findings name a line (and a block in it): file order.
  for (const line of view.transcript?.records.lines ?? []) map.set(line.ref.id, n++);
  return map;
}
