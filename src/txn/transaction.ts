/**
 * The transaction: back up every before-image and the manifest (fsynced), record the transaction in the journal,
 * then let the store apply the targets, then mark it done. A crash at any instant leaves either the old state or
 * the new one: SQLite through its own transaction, the JSON tree through the journal (journal.ts undoes a plan a
 * crash cut short). A restore is the same transaction with the backup's before-images as its targets.
 */
import { fsError, ownWriteError, RecoverError } from "../errors.js";
import type { ChangeSummary } from "../model/change.js";
import type { ImageTarget, StoreWriter } from "../stores/store.js";
import { TOOL } from "../model/tool.js";
import { refuseUnwritableStore } from "../stores/writable.js";
import { discardBackupDir, fingerprint, newBackupId, setState, verifyBackup, writeBackup, type Backup } from "./backup-store.js";
import { endJournal, journal, settle, undoOwnWrites, type JournalEntry } from "./journal.js";
import type { Manifest } from "./manifest.js";

export interface TransactionInput {
  kind: Manifest["kind"];
  writer: StoreWriter;
  backupRoot: string;
  stateDir: string;
  sessions: string[];
  changes: ChangeSummary[];
  targets: ImageTarget[];
  now: number;
  restoreOf?: string;
  /** Told the backup being applied (then undefined once settled), to record it with the store's lock. */
  onApplying?: (backupDir: string | undefined) => void;
  /** The journal entry of the unfinished transaction this one resolves: the store's entry again if this one fails. */
  replacesJournal?: JournalEntry;
}

/** The manifest a transaction's backup carries: what it changes, and each record's key and fingerprints. */
export function manifestOf(
  input: Pick<TransactionInput, "kind" | "sessions" | "changes" | "targets" | "now" | "restoreOf">,
  store: { format: string; path: string },
): Manifest {
  return {
    schemaVersion: 1,
    id: newBackupId(input.now),
    kind: input.kind,
    tool: { ...TOOL },
    createdAt: new Date(input.now).toISOString(),
    state: "planned",
    store: { format: store.format, path: store.path },
    sessions: input.sessions,
    ...(input.restoreOf !== undefined ? { restoreOf: input.restoreOf } : {}),
    changes: input.changes,
    images: input.targets.map((t) => ({
      key: t.key,
      before: fingerprint(t.before),
      after: fingerprint(t.after),
      ...(t.before.exists && t.before.mtimeMs !== undefined ? { mtimeMs: t.before.mtimeMs } : {}),
    })),
  };
}

export function runTransaction(input: TransactionInput): Backup {
  const { writer } = input;
  const manifest = manifestOf(input, writer.info);
  refuseUnwritableStore(writer.info, input.targets);
  const backup = writeBackup(
    input.backupRoot,
    manifest,
    input.targets.map((t) => t.before),
  );
  try {
    // The invariant every change rests on, checked once, here: a backup restore can read exists before the store moves.
    verifyBackup(backup);
  } catch (error) {
    discardBackupDir(backup.dir);
    throw error;
  }
  try {
    journal(input.stateDir, writer.info.path, backup, input.replacesJournal);
    setState(backup, "applying");
  } catch (error) {
    // The store is untouched: a backup of a transaction that never started would only be clutter.
    endJournal(input.stateDir, writer.info.path, input.replacesJournal);
    discardBackupDir(backup.dir);
    throw ownWriteError(error, `recover's journal in ${input.stateDir}`, (place) => `set XDG_STATE_HOME to ${place}`, "state-unwritable");
  }
  const applying = input.onApplying ?? (() => undefined);
  try {
    applying(backup.dir);
    writer.apply(input.targets);
  } catch (error) {
    // A store that changed under us (checked before anything is written, and again as each file is replaced) gets
    // back what this transaction wrote, and keeps the other writer's records; any other failure may come after
    // some files were replaced: undo whatever reached the store from the backup before reporting the error.
    if (error instanceof RecoverError && error.code === "store-changed") undoOwnWrites(backup, writer);
    else settle(backup, writer);
    endJournal(input.stateDir, writer.info.path, input.replacesJournal);
    applying(undefined);
    throw error;
  }
  try {
    setState(backup, "done");
  } catch (error) {
    // The store has its new state; the journal still points here, so the next command marks it done.
    const why = fsError(error, backup.dir)?.message ?? (error as Error).message;
    throw new RecoverError(
      "backup-unwritable",
      `the ${input.kind} was applied, but its backup ${backup.dir} could not be marked done (${why}); the next recover command on this store will finish that`,
    );
  }
  endJournal(input.stateDir, writer.info.path, input.replacesJournal);
  applying(undefined);
  return backup;
}
