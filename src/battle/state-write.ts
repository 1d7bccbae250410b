/**
 * Changing a battle's state files goes through the same discipline as a session repair: the before-image is backed
 * up (fsynced) and the write is one journalled transaction, so `recover session restore <backup-id>` undoes it.
 */
import { relative } from "node:path";
import type { ImageTarget } from "../stores/store.js";
import { FileWriter, NEW_FILE_MODE } from "../stores/file-writer.js";
import { recoverJournal } from "../txn/journal.js";
import { lockStore } from "../txn/lock.js";
import { backupRoot as defaultBackupRoot, stateDir as defaultStateDir } from "../txn/state-dir.js";
import { changesOfTargets } from "../txn/targets.js";
import { runTransaction } from "../txn/transaction.js";
import type { Backup } from "../txn/backup-store.js";

export interface StateWrite {
  root: string;
  battleDir: string;
  taskId: string;
  files: { path: string; text: string }[];
  /** Names the change in the backup manifest. */
  rule: string;
  stateDir?: string;
  backupRoot?: string;
}

export function writeBattleState(write: StateWrite): Backup | null {
  const state = write.stateDir ?? defaultStateDir();
  const lock = lockStore(state, write.battleDir);
  try {
    const writer = new FileWriter({ format: "pokeralph-battle", path: write.battleDir, notices: [] });
    recoverJournal(state, writer);
    const targets: ImageTarget[] = [];
    for (const file of write.files) {
      const key = { record: "file" as const, id: relative(write.root, file.path), sessionId: write.taskId, path: file.path };
      const before = writer.read(key);
      if (before.exists && before.bytes.toString("utf8") === file.text) continue;
      targets.push({ key, before, after: { exists: true, bytes: Buffer.from(file.text), mode: before.exists ? (before.mode ?? NEW_FILE_MODE) : NEW_FILE_MODE } });
    }
    if (targets.length === 0) return null;
    return runTransaction({
      kind: "repair",
      writer,
      backupRoot: write.backupRoot ?? defaultBackupRoot(undefined),
      stateDir: state,
      sessions: [write.taskId],
      changes: changesOfTargets(targets, write.rule),
      targets,
      now: Date.now(),
    });
  } finally {
    lock.release();
  }
}
