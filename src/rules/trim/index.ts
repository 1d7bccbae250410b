/**
 * The trim strategies, in the order `context trim` applies them: each only as far as the budget still needs after
 * the ones before it, older turns before the running turn. They are rules like the scan's (findings with a fix),
 * run by context trim and by a repair answering a size error.
 */
import type { Rule } from "../rule.js";
import { trimRules, type TrimStrategy } from "./budget.js";
import { dedupeOutputs } from "./dedupe-outputs.js";
import { dropImages } from "./drop-images.js";
import { dropOldestTurns } from "./drop-oldest-turns.js";
import { pruneOldOutputs } from "./prune-old-outputs.js";
import { purgeErrors } from "./purge-errors.js";
import { stripOldThinking } from "./strip-old-thinking.js";
import { truncateOutputs } from "./truncate-outputs.js";

/** Images first: they break the API's hard limits, and under a byte budget they are the largest items. */
const STRATEGY_ORDER: readonly TrimStrategy[] = [dropImages, truncateOutputs, pruneOldOutputs, dedupeOutputs, purgeErrors, stripOldThinking, dropOldestTurns];

export const TRIM_RULES: readonly Rule[] = trimRules(STRATEGY_ORDER);

/** `--strategy` names (dedupe covers dedupe-outputs). */
export const STRATEGIES = STRATEGY_ORDER.map((s) => s.name);
