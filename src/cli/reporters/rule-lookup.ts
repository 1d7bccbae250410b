import { RULES } from "../../rules/index.js";
import type { Rule } from "../../rules/rule.js";

export const RULE_BY_ID: ReadonlyMap<string, Rule> = new Map(RULES.map((r) => [r.id, r]));
