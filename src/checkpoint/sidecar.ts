/**
 * Changing a battle's `checkpoints.json` (the sidecar, stores/pokeralph/sidecar.ts): read, change and write under
 * its lock, as one transaction on the battle folder, like any other change recover makes to a store: the
 * before-image is backed up first, the write is atomic, and `recover session restore <backup-id>` undoes it.
 */
import { dirname, join, basename, relative, resolve } from "node:path";
import { realpathSync } from "node:fs";
import { RecoverError } from "../errors.js";
import { NEW_FILE_MODE } from "../stores/file-writer.js";
import { BattleFilesStore } from "../stores/pokeralph/battle-store.js";
import { readSidecar, SIDECAR_SCHEMA_VERSION, sidecarText, type Sidecar } from "../stores/pokeralph/sidecar.js";
import type { ImageTarget } from "../stores/store.js";
import { backupsIn } from "../txn/state-dir.js";
import { withStoreTransaction } from "../txn/store-transaction.js";
import { changesOfTargets } from "../txn/targets.js";

export interface SidecarChange {
  /** Names the change in the backup manifest (`checkpoint-create`, `checkpoint-prune`). */
  rule: string;
  stateDir: string;
  /** Where the before-image goes; the state dir's `backups/` by default. */
  backupRoot?: string;
}

/**
 * Read, change and write the sidecar under its lock, so two recovers cannot interleave and lose an entry. `change`
 * may be async (it takes the snapshot); it returns what the caller wants back, and mutates the sidecar in place.
 * The write is a transaction on the battle folder: the sidecar's before-image is backed up, so the change can be
 * undone (`recover session restore <backup-id>`); a sidecar left byte for byte as it was is not written.
 */
export async function updateSidecar<T>(path: string, taskId: string, change: (sidecar: Sidecar) => Promise<T> | T, how: SidecarChange): Promise<T> {
  const state = how.stateDir;
  const options = { stateDir: state, backupRoot: how.backupRoot ?? backupsIn(state), refuseUnwritable: false, alsoLock: [sidecarLockKey(path)] };
  return withStoreTransaction(
    new BattleFilesStore(dirname(path)),
    async (tx) => {
      const sidecar = readSidecar(path) ?? { schemaVersion: SIDECAR_SCHEMA_VERSION, taskId, checkpoints: [] };
      if (sidecar.taskId !== taskId) {
        throw new RecoverError("store-corrupt", `${path} records checkpoints of task ${sidecar.taskId}, not ${taskId}; nothing was changed`);
      }
      const result = await change(sidecar);
      // The record id, as a rollback names it: the path from the project (the folder holding .pokeralph/).
      const key = { record: "file" as const, id: relative(dirname(dirname(dirname(dirname(path)))), path), sessionId: taskId, path };
      const before = tx.writer.read(key);
      const bytes = Buffer.from(sidecarText(sidecar));
      if (!before.exists || !before.bytes.equals(bytes)) {
        const targets: ImageTarget[] = [{ key, before, after: { exists: true, bytes, mode: before.exists ? (before.mode ?? NEW_FILE_MODE) : NEW_FILE_MODE } }];
        tx.commit({ kind: "repair", sessions: [taskId], changes: changesOfTargets(targets, how.rule), targets });
      }
      return result;
    },
    options,
  );
}

/**
 * The lock is keyed by the sidecar's real path; before the first checkpoint the file (even its folder) may not
 * exist yet, so resolve the nearest existing ancestor instead, and every recover names the same lock either way.
 */
export function sidecarLockKey(path: string): string {
  const rest: string[] = [];
  for (let dir = resolve(path); ; dir = dirname(dir)) {
    try {
      return join(realpathSync(dir), ...rest);
    } catch {
      if (dirname(dir) === dir) return resolve(path);
      rest.unshift(basename(dir));
    }
  }
}
