/**
 * `--rule a,b`: the rules named, each of which must exist. Shared by scan and repair, so an unknown id is refused the
 * same way, with a command to list the ids that does work when pasted.
 */
import { RecoverError } from "../errors.js";
import { RULES } from "../rules/index.js";
import type { Rule } from "../rules/rule.js";

export function namedRules(list: string): Rule[] {
  const wanted = list
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = wanted.filter((id) => !RULES.some((r) => r.id === id));
  if (unknown.length > 0) throw new RecoverError("usage", `unknown rule ${unknown.join(", ")}`, { words: ["rules"], why: "to list them" });
  return RULES.filter((r) => wanted.includes(r.id));
}
