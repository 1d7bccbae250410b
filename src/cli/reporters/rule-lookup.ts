import { RULES } from "../../rules/index.js";
import type { Rule } from "../../rules/rule.js";

export const RULE_BY_ID: ReadonlyMap<string, Rule> = new Map(RULES.map((r) => [r.id, r]));

/** The command (its words after `recover`) that fixes a rule's findings (in one session, when given), or null. */
export function fixedBy(rule: Rule | undefined, sessionId = ""): string[] | null {
  const target = sessionId ? [sessionId] : [];
  if (rule?.fixedBy === "trim") return ["context", "trim", ...target];
  if (rule?.fixedBy !== "repair") return null;
  // A rule fixed only on request has to be named; the others are all fixed by a plain repair.
  return rule.repairOnRequest || sessionId ? ["session", "repair", ...target, "--rule", rule.id] : ["session", "repair"];
}
