/**
 * `checkpoint prune`: the recovery spec's retention policy (SPECS/11-recovery.md, `cleanupCheckpoints`), applied
 * to the checkpoints recover recorded. Only recorded ones: an inferred checkpoint is one of the user's own commits,
 * never ours to drop. Removing one deletes its sidecar entry and its ref; the objects go at the next `git gc`.
 */
import { RecoverError } from "../errors.js";
import { battlePaths, type FeedbackResults } from "../stores/pokeralph/battle-files.js";
import { deleteRef, isSafetyCheckpoint, openRepo } from "./git-snapshot.js";
import { listCheckpoints, type CheckpointListing, type ListedCheckpoint } from "./list.js";
import { updateSidecar } from "./sidecar.js";

export const DAY_MS = 24 * 60 * 60 * 1000;

export interface RetentionPolicy {
  maxCheckpoints: number;
  maxAgeMs: number;
  keepFailed: boolean;
  keepSuccessful: boolean;
}

/** The spec's DEFAULT_RETENTION. */
export const DEFAULT_RETENTION: RetentionPolicy = { maxCheckpoints: 10, maxAgeMs: 7 * DAY_MS, keepFailed: true, keepSuccessful: true };

export interface Retainable {
  id: string;
  time: string;
  afterIteration?: number;
  feedback?: FeedbackResults;
}

/**
 * The spec's policy, step for step, newest first: the newest `maxCheckpoints` are kept whatever their age; past
 * those, one older than `maxAge` goes; a younger one stays if it failed and keepFailed, or passed and
 * keepSuccessful (`every` over no results counts as passed, as in the spec), and goes otherwise. So with the
 * default flags (both true) exactly the checkpoints beyond the newest 10 AND older than 7 days go: the keep flags
 * protect young checkpoints only, never old ones (the age test comes first).
 */
export function selectForRemoval<T extends Retainable>(checkpoints: T[], policy: RetentionPolicy, nowMs: number): T[] {
  const sorted = [...checkpoints].sort((a, b) => Date.parse(b.time) - Date.parse(a.time) || (b.afterIteration ?? 0) - (a.afterIteration ?? 0));
  const remove: T[] = [];
  for (const [i, checkpoint] of sorted.entries()) {
    if (i < policy.maxCheckpoints) continue;
    if (nowMs - Date.parse(checkpoint.time) > policy.maxAgeMs) {
      remove.push(checkpoint);
      continue;
    }
    const allPassed = Object.values(checkpoint.feedback ?? {}).every((r) => r.passed);
    if (!allPassed && policy.keepFailed) continue;
    if (allPassed && policy.keepSuccessful) continue;
    remove.push(checkpoint);
  }
  return remove;
}

export interface PrunePlan {
  listing: CheckpointListing;
  policy: RetentionPolicy;
  remove: ListedCheckpoint[];
  keep: ListedCheckpoint[];
  /** Selected by the policy but kept, because a rollback needs them, and why. */
  spared: { checkpoint: ListedCheckpoint; why: string }[];
  /** Inferred checkpoints: the user's commits, outside the policy. */
  inferred: number;
}

/**
 * What `battle rollback` cannot do without, so no retention policy removes it: the checkpoint before the battle (the
 * one `--full` goes back to: the newest recorded at iteration 0) and the newest checkpoint whose feedback loops all
 * passed (the last known-good state). Safety checkpoints are the undo of a rollback and follow the policy.
 */
export function rollbackNeeds(recorded: readonly ListedCheckpoint[]): Map<string, string> {
  const newest = (list: ListedCheckpoint[]) => list.sort((a, b) => a.time.localeCompare(b.time) || a.afterIteration - b.afterIteration).at(-1);
  const usable = recorded.filter((c) => !c.missing && !isSafetyCheckpoint(c));
  const needs = new Map<string, string>();
  const before = newest(usable.filter((c) => c.afterIteration === 0));
  if (before) needs.set(before.id, "the state before the battle (rollback --full)");
  const passing = newest(usable.filter((c) => c.passed === true));
  if (passing) needs.set(passing.id, needs.has(passing.id) ? `${needs.get(passing.id)}; the newest passing checkpoint` : "the newest passing checkpoint");
  return needs;
}

export async function planPrune(project: string, taskId: string, policy: RetentionPolicy = DEFAULT_RETENTION, nowMs = Date.now()): Promise<PrunePlan> {
  if (!(policy.maxCheckpoints >= 0) || !(policy.maxAgeMs >= 0)) throw new RecoverError("usage", "the retention policy needs a count and an age of at least 0");
  const listing = await listCheckpoints(project, taskId);
  const recorded = listing.checkpoints.filter((c) => c.source === "recorded");
  const needed = rollbackNeeds(recorded);
  const selected = selectForRemoval(recorded, policy, nowMs);
  const remove = selected.filter((c) => !needed.has(c.id));
  const removing = new Set(remove);
  return {
    listing,
    policy,
    remove,
    keep: recorded.filter((c) => !removing.has(c)),
    spared: selected
      .filter((c) => needed.has(c.id))
      .sort((a, b) => a.afterIteration - b.afterIteration)
      .map((checkpoint) => ({ checkpoint, why: needed.get(checkpoint.id)! })),
    inferred: listing.checkpoints.length - recorded.length,
  };
}

export interface PruneResult {
  removed: ListedCheckpoint[];
  /** Refs that no longer pointed at the checkpoint's commit (changed by someone else): left alone. */
  refsLeft: string[];
}

/**
 * Sidecar entries go first, refs second: a crash in between leaves refs without entries, which `list` shows as
 * ref-only checkpoints and the next prune removes, never entries whose commit nothing keeps alive.
 */
export async function applyPrune(project: string, plan: PrunePlan, stateDir: string, backupRoot?: string): Promise<PruneResult> {
  const { taskId } = plan.listing;
  if (plan.remove.length === 0) return { removed: [], refsLeft: [] };
  const repo = await openRepo(project, "read");
  const ids = new Set(plan.remove.map((c) => c.id));
  const paths = battlePaths(project, taskId);
  if (plan.remove.some((c) => c.via === "sidecar")) {
    await updateSidecar(
      paths.sidecar,
      taskId,
      (sidecar) => {
        sidecar.checkpoints = sidecar.checkpoints.filter((c) => !ids.has(c.id));
      },
      { rule: "checkpoint-prune", stateDir, ...(backupRoot !== undefined ? { backupRoot } : {}) },
    );
  }
  const refsLeft: string[] = [];
  for (const checkpoint of plan.remove) {
    if (checkpoint.ref === undefined || checkpoint.missing) continue;
    if (!(await deleteRef(repo, checkpoint.ref, checkpoint.commit))) refsLeft.push(checkpoint.ref);
  }
  return { removed: plan.remove, refsLeft };
}
