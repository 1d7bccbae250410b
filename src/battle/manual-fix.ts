/**
 * `battle fix` (the spec's manual-fix session, without its file watcher): what changed in the working tree since
 * the battle's latest checkpoint, as a list and a diff. The tree is captured through a temporary index (the
 * checkpoint code's own capture: tracked + untracked-not-ignored files, the user's index untouched) and compared
 * with the checkpoint's commit; `.pokeralph/` is left out.
 */
import { simpleGit } from "simple-git";
import { captureWorktree, isStatePath, openRepo, resolveCommit } from "../checkpoint/git-snapshot.js";
import { listCheckpoints, type ListedCheckpoint } from "../checkpoint/list.js";
import type { ManualChange } from "./resume.js";

export interface ManualFixState {
  /** The checkpoint compared with; null: none exists, HEAD was used. */
  checkpoint: ListedCheckpoint | null;
  base: string;
  changes: ManualChange[];
  diff: string;
  notices: string[];
}

/** The newest usable checkpoint: highest iteration, then latest time. */
export function latestCheckpoint(checkpoints: readonly ListedCheckpoint[]): ListedCheckpoint | null {
  const usable = checkpoints.filter((c) => !c.missing);
  usable.sort((a, b) => a.afterIteration - b.afterIteration || a.time.localeCompare(b.time));
  return usable.at(-1) ?? null;
}

export async function changesSinceCheckpoint(root: string, taskId: string): Promise<ManualFixState> {
  const repo = await openRepo(root);
  const notices = [...repo.notices];
  const listing = await listCheckpoints(root, taskId);
  notices.push(...listing.notices);
  const checkpoint = latestCheckpoint(listing.checkpoints);
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
