/**
 * `battle fix` (the spec's manual-fix session, without its file watcher): what changed in the working tree since
 * the battle's latest state, as a list and a diff. The tree is captured through a temporary index (the
 * checkpoint code's own capture: tracked + untracked-not-ignored files, the user's index untouched) and compared
 * with the checkpoint's commit; `.pokeralph/` is left out.
 *
 * The latest state is the newest checkpoint of the battle as history.json has it now, unless a rollback came after
 * it: then it is the checkpoint the rollback went to. Never a safety checkpoint: that is the tree *before* a
 * rollback, and diffing against it would show the rollback itself as the user's fix.
 */
import { simpleGit } from "simple-git";
import { captureWorktree, isSafetyCheckpoint, isStatePath, openRepo, resolveCommit } from "../checkpoint/git-snapshot.js";
import { listCheckpoints, type ListedCheckpoint } from "../checkpoint/list.js";
import { battleId, battlePaths, readHistory } from "../stores/pokeralph/battle-files.js";
import { readRollbacks, readSidecar } from "../stores/pokeralph/sidecar.js";
import type { ManualChange } from "./resume.js";
import { lastRollback } from "./rollback.js";

export interface ManualFixState {
  /** The checkpoint compared with; null: none exists, HEAD was used. */
  checkpoint: ListedCheckpoint | null;
  base: string;
  changes: ManualChange[];
  diff: string;
  notices: string[];
}

export interface BattleNow {
  /** The last iteration history.json records (checkpoints after it were rolled back). */
  lastIteration?: number;
  battleId?: string;
}

/** The newest usable checkpoint of the battle as it is now: highest iteration, then latest time. */
export function latestCheckpoint(checkpoints: readonly ListedCheckpoint[], now: BattleNow = {}): ListedCheckpoint | null {
  const usable = checkpoints.filter(
    (c) =>
      !c.missing &&
      !isSafetyCheckpoint(c) &&
      (now.lastIteration === undefined || c.afterIteration <= now.lastIteration) &&
      (now.battleId === undefined || c.battleId === undefined || c.battleId === now.battleId),
  );
  usable.sort((a, b) => a.afterIteration - b.afterIteration || a.time.localeCompare(b.time));
  return usable.at(-1) ?? null;
}

export async function changesSinceCheckpoint(root: string, taskId: string): Promise<ManualFixState> {
  const repo = await openRepo(root);
  const notices = [...repo.notices];
  const listing = await listCheckpoints(root, taskId);
  notices.push(...listing.notices);
  const paths = battlePaths(root, taskId);
  const history = readHistory(paths.history).history;
  const now: BattleNow = history ? { lastIteration: Math.max(0, ...history.iterations.map((i) => i.number)), battleId: battleId(history) } : {};
  let checkpoint = latestCheckpoint(listing.checkpoints, now);
  const sidecar = readSidecar(paths.sidecar);
  readRollbacks(sidecar, paths.sidecar);
  const rollback = lastRollback(sidecar);
  if (rollback && (checkpoint === null || rollback.at > checkpoint.time)) {
    // Rolled back since: the tree was put at the rollback's target, and that is what the user's fix starts from.
    const { target } = rollback;
    const listed = listing.checkpoints.find((c) => c.id === target.checkpoint || c.ref === target.checkpoint);
    checkpoint = listed
      ? { ...listed, commit: target.commit }
      : {
          id: target.checkpoint,
          afterIteration: target.afterIteration,
          commit: target.commit,
          source: "recorded",
          time: rollback.at,
          description: `the checkpoint rolled back to on ${rollback.at}`,
          files: [],
          passed: null,
        };
  }
  let base = repo.head;
  if (checkpoint) base = (await resolveCommit(repo, checkpoint.commit)) ?? repo.head;
  else notices.push(`no checkpoint of ${taskId} found: comparing with HEAD`);

  const capture = await captureWorktree(repo);
  const git = simpleGit({ baseDir: repo.root });
  const status = await git.raw(["diff-tree", "-r", "--no-renames", "-z", "--name-status", base, capture.tree]);
  const parts = status.split("\0").filter((s) => s !== "");
  const changes: ManualChange[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const code = parts[i]!;
    const path = parts[i + 1]!;
    if (isStatePath(path)) continue;
    changes.push({ path, type: code.startsWith("A") ? "created" : code.startsWith("D") ? "deleted" : "modified" });
  }
  const diff =
    changes.length === 0 ? "" : await git.raw(["diff", "--no-color", "--no-renames", base, capture.tree, "--", ...changes.map((c) => `:(literal)${c.path}`)]);
  return { checkpoint, base, changes, diff, notices };
}
