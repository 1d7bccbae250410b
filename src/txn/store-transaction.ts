/**
 * The write recipe, once, for every command that changes a store (session repair, context trim, session restore,
 * battle rollback and resume, checkpoint sidecars): refuse a store that cannot be written, take the store lock
 * (and any lock the caller names first), open a writer, settle a transaction a crash left unfinished, then let the
 * caller plan; `commit` backs up the before-images, journals, applies and marks the transaction done
 * (transaction.ts). Settling on read, which every command does before it looks at a store, lives here too.
 */
import { RecoverError } from "../errors.js";
import type { ChangeSummary } from "../model/change.js";
import type { ImageTarget, StoreInfo, StoreWriter } from "../stores/store.js";
import { refuseUnwritableStore, whyUnwritable } from "../stores/writable.js";
import type { Backup } from "./backup-store.js";
import { removeLeftovers } from "./leftovers.js";
import { hasJournal, recoverJournal, settleTakenOver } from "./journal.js";
import { lockInStateDir, lockStore, storeLockState, type HeldStoreLock, type StoreLock } from "./lock.js";
import type { Manifest } from "./manifest.js";
import { backupsIn } from "./state-dir.js";
import { runTransaction } from "./transaction.js";

/** What a transaction needs of a store: its identity and a writer on it. */
export interface WritableStore {
  readonly info: StoreInfo;
  openWriter(): StoreWriter;
}

export interface TransactionOptions {
  stateDir: string;
  backupRoot: string;
  /**
   * Refuse a store that cannot be written before anything else (a command's first sentence). Battle state files
   * leave it to `commit`, which checks the folders its targets are written into.
   */
  refuseUnwritable?: boolean;
  /** Locks taken before the store's own, in this order (the sidecar's, so no `checkpoint create` interleaves). */
  alsoLock?: readonly string[];
  /**
   * The id of an interrupted transaction's backup this command resolves itself (`session restore <id> --force`):
   * the journal entry for it is left for this command's own transaction to replace, not settled, since settling
   * refuses exactly the case the forced restore is for (records changed since the interruption). Should this
   * command's transaction fail or be cut short, the entry comes back (journal.ts), and the next command settles it.
   */
  resolving?: string;
}

/** One change of the store: what the backup manifest records, and the targets to apply. */
export interface WritePlan {
  kind: Manifest["kind"];
  sessions: string[];
  changes: ChangeSummary[];
  targets: ImageTarget[];
  /** When the change is made (the backup id's time); now by default. */
  now?: number;
  restoreOf?: string;
}

export interface OpenTransaction {
  writer: StoreWriter;
  stateDir: string;
  backupRoot: string;
  /** What settling an unfinished transaction did (also pushed to the store's notices), if anything. */
  settled: string | undefined;
  /** Back up, journal, apply, mark done: the store has the plan's targets, and the backup undoes them. */
  commit(plan: WritePlan): Backup;
}

/**
 * Run `plan` with the store locked, its journal settled and a writer open; released when `plan` returns (or its
 * promise settles). Sync in, sync out: a battle's state write needs no promise.
 */
export function withStoreTransaction<T>(store: WritableStore, plan: (tx: OpenTransaction) => T, options: TransactionOptions): T {
  // Before the lock, the writer, a question or a backup: a store that cannot be written is refused in one sentence.
  if (options.refuseUnwritable !== false) refuseUnwritableStore(store.info);
  const locks: StoreLock[] = [];
  let writer: StoreWriter | undefined;
  const release = () => {
    try {
      writer?.close();
    } finally {
      for (const lock of locks.reverse()) lock.release();
    }
  };
  let result: T;
  try {
    for (const key of options.alsoLock ?? []) locks.push(lockInStateDir(options.stateDir, key));
    const storeLock: HeldStoreLock = lockStore(options.stateDir, store.info.path);
    locks.push(storeLock);
    writer = store.openWriter();
    const open = writer;
    // A dead recover's transaction first, whatever state dir it used (its lock named its backup), then our own.
    const dead = storeLock.tookOver;
    const settledDead = dead?.applying !== undefined ? settleTakenOver(dead.stateDir, dead.applying, open) : undefined;
    if (settledDead) store.info.notices.push(settledDead);
    const own = recoverJournal(options.stateDir, open, options.resolving);
    if (own.outcome) store.info.notices.push(own.outcome);
    const settled = own.outcome ?? settledDead;
    removeLeftovers(options.stateDir, options.backupRoot);
    const tx: OpenTransaction = {
      writer: open,
      stateDir: options.stateDir,
      backupRoot: options.backupRoot,
      settled,
      commit: (write) => {
        const backup = runTransaction({
          ...write,
          writer: open,
          backupRoot: options.backupRoot,
          stateDir: options.stateDir,
          now: write.now ?? Date.now(),
          onApplying: (dir) => storeLock.markApplying(dir),
          // Resolving an unfinished transaction: its entry comes back when this one ends (journal.ts).
          ...(own.resolving ? { replacesJournal: own.resolving } : {}),
        });
        if (own.resolving) settleResolved(store, options.stateDir, open);
        return backup;
      },
    };
    result = plan(tx);
  } catch (error) {
    release();
    throw error;
  }
  if (result instanceof Promise) return result.finally(release) as T;
  release();
  return result;
}

/**
 * The unfinished transaction a forced restore resolved, settled while the lock is still held: after a whole
 * restore of it nothing is left to undo and it is marked rolled back (so `session backups` no longer shows it in
 * flight, and pruning can take it); after a restore of some of its sessions, the rest of it is undone now. A record
 * of it someone else changed outside what was restored stays its journal entry, said as a notice.
 */
function settleResolved(store: WritableStore, stateDir: string, writer: StoreWriter): void {
  try {
    recoverJournal(stateDir, writer);
  } catch (error) {
    if (!(error instanceof RecoverError && error.code === "interrupted-transaction")) throw error;
    store.info.notices.push(error.message);
  }
}

/**
 * Any command on a store first settles a transaction a crash left unfinished (as SQLite rolls back a hot journal
 * on open), unless another recover holds the store: then it is in flight, not unfinished. The outcome becomes a
 * notice on the store, which every reporter prints.
 */
export function settleOnRead(store: WritableStore, state: string, resolving?: string): void {
  // Ours in the journal, or a dead recover's lock beside the store (from any state dir).
  if (!hasJournal(state, store.info.path) && storeLockState(store.info.path) !== "stale") return;
  const unwritable = whyUnwritable(store.info);
  if (unwritable) {
    store.info.notices.push(`an unfinished change of this store is in recover's journal, but ${unwritable}; it will be settled when the store can be written`);
    return;
  }
  try {
    // The recipe's own lock, writer and journal settling (its outcome becomes a notice), with nothing to commit.
    withStoreTransaction(store, () => undefined, {
      stateDir: state,
      backupRoot: backupsIn(state),
      refuseUnwritable: false,
      ...(resolving ? { resolving } : {}),
    });
  } catch (error) {
    // Only the lock says store-locked: another recover is in flight, so its journal is not unfinished.
    if (error instanceof RecoverError && error.code === "store-locked") {
      store.info.notices.push("another recover is changing this store right now; what you see may change when it finishes");
      return;
    }
    throw error;
  }
}

/**
 * Another process holding the store open (a running opencode) would race our writes. A guard the caller places:
 * repair refuses before it shows its plan, restore after (its plan is what the user came to read).
 */
export function refuseLiveWriter(writer: StoreWriter, force: boolean | undefined, askingAgent?: number): void {
  if (force) return;
  // The agent that asked for this write (its plugin, run inside it while it waits) holds the store open itself.
  const openers = writer.openers().filter((o) => o.pid !== askingAgent);
  if (openers.length === 0) return;
  const who = openers.map((o) => `${o.name} (pid ${o.pid})`).join(", ");
  throw new RecoverError(
    "live-writer",
    `${who} has ${writer.info.path} open; quit it first (writing under a running agent races its own writes), or pass --force`,
  );
}
