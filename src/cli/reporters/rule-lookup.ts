import { RULES } from "../../rules/index.js";
import type { Rule } from "../../rules/rule.js";

export const RULE_BY_ID: ReadonlyMap<string, Rule> = new Map(RULES.map((r) => [r.id, r]));

/** The command that fixes a rule's findings (in one session, when given), or null when nothing does. */
export function fixedBy(rule: Rule | undefined, sessionId = ""): string | null {
  const target = sessionId ? ` ${sessionId}` : "";
  if (rule?.fix === "trim") return `recover context trim${target}`;
  if (rule?.fix !== "repair") return null;
  // A rule fixed only on request has to be named; the others are all fixed by a plain repair.
  return rule.repairOnRequest || sessionId ? `recover session repair${target} --rule ${rule.id}` : "recover session repair";
}
