/**
 * `battle rollback --undo`: put back, in one step, everything the battle's latest rollback changed: the project's
 * files, history.json and checkpoints.json. A rollback is one transaction of the battle's store (rollback.ts), so
 * its backup holds all of it; undoing it is that backup restored (txn/restore.ts), after the same safety
 * checkpoint a rollback takes, under the same locks. Files changed since the rollback are refused (exit 3) unless
 * forced, and then backed up first, as `session restore` does.
 */
import { dirname, relative } from "node:path";
import { RecoverError } from "../errors.js";
import type { ImageTarget } from "../stores/store.js";
import { BattleFilesStore } from "../stores/pokeralph/battle-store.js";
import { assertTaskId, battlePaths } from "../stores/pokeralph/battle-files.js";
import { listBackups, type Backup } from "../txn/backup-store.js";
import { commitRestore, planRestore } from "../txn/restore.js";
import { withStoreTransaction } from "../txn/store-transaction.js";
import { restoreTargets } from "../txn/targets.js";
import { openRepo, removeEmptyParents } from "../checkpoint/git-snapshot.js";
import { sidecarLockKey } from "../checkpoint/sidecar.js";
import { takeSafetyCheckpoint } from "./rollback.js";

export const ROLLBACK_RULE = "battle-rollback";

export interface UndoPlan {
  taskId: string;
  project: string;
  /** The repository's work tree (the project's files are named relative to it). */
  root: string;
  /** The rollback being undone. */
  rollback: Backup;
  /** What the undo writes: every record back to its state before the rollback. */
  targets: ImageTarget[];
  /** Records changed after the rollback (restoring them would undo those changes too). */
  conflicts: string[];
  notices: string[];
}

/** The battle's newest rollback that no restore has undone yet. */
function latestRollback(backupRoot: string, taskId: string, battleDir: string): Backup | null {
  const backups = listBackups(backupRoot);
  const undone = new Set(backups.filter((b) => b.manifest.kind === "restore" && b.manifest.state === "done").map((b) => b.manifest.restoreOf));
  const rollbacks = backups.filter(
    (b) =>
      b.manifest.state === "done" &&
      b.manifest.store.format === "pokeralph-battle" &&
      b.manifest.store.path === battleDir &&
      b.manifest.sessions.includes(taskId) &&
      b.manifest.changes.some((c) => c.rules.includes(ROLLBACK_RULE)),
  );
  return rollbacks.filter((b) => !undone.has(b.manifest.id)).at(-1) ?? null;
}

export async function planUndo(project: string, taskId: string, backupRoot: string): Promise<UndoPlan> {
  assertTaskId(taskId);
  const paths = battlePaths(project, taskId);
  const repo = await openRepo(project);
  const rollback = latestRollback(backupRoot, taskId, paths.battle);
  if (rollback === null) {
    throw new RecoverError("backup-not-found", `no rollback of ${taskId} to undo (none in ${backupRoot} that was not undone already); nothing was changed`);
  }
  const { targets, conflicts } = restoreTargets(rollback, new BattleFilesStore(paths.battle).openWriter());
  return { taskId, project, root: repo.root, rollback, targets, conflicts: conflicts.map((k) => k.id), notices: [...repo.notices] };
}

export interface UndoOutcome {
  safety: { ref: string; commit: string };
  /** The undo's own backup: `session restore <its id>` redoes the rollback. */
  backup: Backup;
  targets: ImageTarget[];
}

export async function applyUndo(plan: UndoPlan, options: { stateDir: string; backupRoot: string; force?: boolean; now?: Date }): Promise<UndoOutcome> {
  const paths = battlePaths(plan.project, plan.taskId);
  const transaction = { stateDir: options.stateDir, backupRoot: options.backupRoot, refuseUnwritable: false, alsoLock: [sidecarLockKey(paths.sidecar)] };
  const backupsOfRollback = dirname(plan.rollback.dir);
  return withStoreTransaction(
    new BattleFilesStore(paths.battle),
    async (tx): Promise<UndoOutcome> => {
      // Planned again under the lock (the plan shown may be stale), refused before anything is written.
      const planned = planRestore(tx, backupsOfRollback, plan.rollback.manifest.id, { ...(options.force ? { force: true } : {}) });
      const repo = await openRepo(plan.project);
      const safety = await takeSafetyCheckpoint(repo, plan.taskId, `before undoing rollback ${plan.rollback.manifest.id}`, options.now ?? new Date());
      const backup = commitRestore(tx, planned);
      for (const t of planned.targets) if (!t.after.exists && t.key.path !== undefined) removeEmptyParents(plan.root, relative(plan.root, t.key.path));
      return { safety, backup, targets: planned.targets };
    },
    transaction,
  );
}
