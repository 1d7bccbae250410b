/**
 * The trim strategies, in the order `context trim` applies them: each only as far as the budget still needs after
 * the ones before it. They are rules like the scan's (findings with a fix), run by context trim only.
 */
import type { Rule } from "../rule.js";
import { dedupeOutputs } from "./dedupe-outputs.js";
import { dropImages } from "./drop-images.js";
import { dropOldestTurns } from "./drop-oldest-turns.js";
import { pruneOldOutputs } from "./prune-old-outputs.js";
import { purgeErrors } from "./purge-errors.js";
import { truncateOutputs } from "./truncate-outputs.js";

/** Images first: under a byte budget (a 413) they are the largest items, and only that budget counts them in full. */
export const TRIM_RULES: readonly Rule[] = [dropImages, truncateOutputs, pruneOldOutputs, dedupeOutputs, purgeErrors, dropOldestTurns];

/** `--strategy` names (dedupe covers dedupe-outputs). */
export const STRATEGIES = ["drop-images", "truncate-outputs", "prune-old-outputs", "dedupe", "purge-errors", "drop-oldest-turns"] as const;
