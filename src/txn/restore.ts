/**
 * `session restore`: put back what a transaction changed, from its backup. A restore is itself a transaction (its
 * own backup holds what it overwrote), so it is undoable like a repair. The command parses options and prints;
 * what may be restored, and how, is decided here.
 */
import { RecoverError } from "../errors.js";
import type { ChangeSummary } from "../model/change.js";
import type { StoreInfo, ImageTarget } from "../stores/store.js";
import { assertSafeId } from "../stores/session-id.js";
import { readBackup, type Backup } from "./backup-store.js";
import type { Manifest } from "./manifest.js";
import type { OpenTransaction } from "./store-transaction.js";
import { changesOfTargets, restoreTargets } from "./targets.js";

/** The backup a restore names, checked before any store is opened: there, readable, holding the session asked for. */
export function readRestorable(root: string, id: string, onlySession: string | undefined): Manifest {
  const { manifest } = readBackup(root, id);
  if (onlySession !== undefined) {
    assertSafeId(onlySession);
    if (!manifest.sessions.includes(onlySession)) {
      throw new RecoverError("session-not-found", `backup ${id} holds no records of session ${onlySession} (it holds: ${manifest.sessions.join(", ")})`);
    }
  }
  return manifest;
}

/** A backup goes back only into a store of the format it was taken from (the same store, or a copy of it). */
export function refuseOtherFormat(manifest: Manifest, info: StoreInfo): void {
  if (info.format !== manifest.store.format) {
    throw new RecoverError("usage", `backup ${manifest.id} was taken from a store of format ${manifest.store.format}; ${info.path} is ${info.format}`);
  }
}

export interface PlannedRestore {
  backupId: string;
  targets: ImageTarget[];
  /** One per target, in the same order. */
  changes: ChangeSummary[];
  sessions: string[];
}

/**
 * What a restore would write, read under the store lock (settling an interrupted transaction may have changed the
 * backup's state). Records changed after the backup was taken are refused unless `force`: restoring them would
 * undo those later changes too (and with force, they are backed up first like everything else).
 */
export function planRestore(tx: Pick<OpenTransaction, "writer">, root: string, id: string, options: { session?: string; force?: boolean }): PlannedRestore {
  const backup = readBackup(root, id);
  const { targets, conflicts } = restoreTargets(backup, tx.writer, options.session);
  if (conflicts.length > 0 && !options.force) {
    const names = conflicts
      .slice(0, 5)
      .map((k) => `${k.record} ${k.id}`)
      .join(", ");
    throw new RecoverError(
      "restore-conflict",
      `${conflicts.length} record${conflicts.length === 1 ? "" : "s"} changed after backup ${id} was taken (${names}${conflicts.length > 5 ? ", …" : ""}); restoring would undo those later changes too. Pass --force to restore anyway (they are backed up first)`,
    );
  }
  return { backupId: id, targets, changes: changesOfTargets(targets, "restore"), sessions: [...new Set(targets.map((t) => t.key.sessionId))] };
}

/** Put the planned records back, in one transaction whose backup undoes the restore. */
export function commitRestore(tx: OpenTransaction, planned: PlannedRestore): Backup {
  tx.writer.checkIntegrity();
  return tx.commit({
    kind: "restore",
    restoreOf: planned.backupId,
    sessions: planned.sessions,
    changes: planned.changes,
    targets: planned.targets,
    now: Date.now(),
  });
}
