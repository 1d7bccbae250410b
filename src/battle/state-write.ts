/**
 * Changing a battle's state files goes through the same discipline as a session repair: the before-image is backed
 * up (fsynced) and the write is one journalled transaction, so `recover session restore <backup-id>` undoes it.
 */
import { relative } from "node:path";
import type { ImageTarget } from "../stores/store.js";
import { NEW_FILE_MODE } from "../stores/file-writer.js";
import { BattleFilesStore } from "../stores/pokeralph/battle-store.js";
import type { Backup } from "../txn/backup-store.js";
import { backupsIn } from "../txn/state-dir.js";
import { withStoreTransaction } from "../txn/store-transaction.js";
import { changesOfTargets } from "../txn/targets.js";

export interface StateWrite {
  root: string;
  battleDir: string;
  taskId: string;
  files: { path: string; text: string }[];
  /** Names the change in the backup manifest. */
  rule: string;
  stateDir: string;
  backupRoot?: string;
}

export function writeBattleState(write: StateWrite): Backup | null {
  const stateDir = write.stateDir;
  const backupRoot = write.backupRoot ?? backupsIn(stateDir);
  // The folders the files go into are checked by the transaction itself (a battle folder may not exist yet).
  return withStoreTransaction(
    new BattleFilesStore(write.battleDir),
    (tx) => {
      const targets: ImageTarget[] = [];
      for (const file of write.files) {
        const key = { record: "file" as const, id: relative(write.root, file.path), sessionId: write.taskId, path: file.path };
        const before = tx.writer.read(key);
        if (before.exists && before.bytes.toString("utf8") === file.text) continue;
        targets.push({
          key,
          before,
          after: { exists: true, bytes: Buffer.from(file.text), mode: before.exists ? (before.mode ?? NEW_FILE_MODE) : NEW_FILE_MODE },
        });
      }
      if (targets.length === 0) return null;
      return tx.commit({ kind: "repair", sessions: [write.taskId], changes: changesOfTargets(targets, write.rule), targets });
    },
    { stateDir, backupRoot, refuseUnwritable: false },
  );
}
