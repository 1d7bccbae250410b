/**
 * What the CLI adds to the write recipe (txn/store-transaction.ts): where recover's state and backups are (from
 * the environment and --backup-dir), and the confirmation rules (a person at a terminal is asked; anyone else
 * must say --yes).
 */
import { RecoverError } from "../errors.js";
import type { SessionStore } from "../stores/store.js";
import { backupRoot, stateDir } from "../txn/state-dir.js";
import { settleOnRead, withStoreTransaction, type OpenTransaction, type TransactionOptions } from "../txn/store-transaction.js";
import type { GlobalOptions, Io } from "./io.js";

/** Any command on a store first settles a transaction a crash left unfinished (see settleOnRead). */
export function settleJournal(store: SessionStore, env: NodeJS.ProcessEnv, resolving?: string): void {
  settleOnRead(store, stateDir(env), resolving);
}

/** The store locked, its journal settled, a writer open: `work` plans and commits (txn/store-transaction.ts). */
export function withWriter<T>(
  store: SessionStore,
  options: GlobalOptions & Pick<TransactionOptions, "resolving">,
  io: Pick<Io, "env" | "cwd">,
  work: (tx: OpenTransaction) => Promise<T>,
): Promise<T> {
  const { resolving } = options;
  return withStoreTransaction(store, work, { stateDir: stateDir(io.env), backupRoot: runBackupRoot(options, io), ...(resolving ? { resolving } : {}) });
}

/** Where backups go for this run: --backup-dir (relative to the run's cwd), else under the state dir. */
export function runBackupRoot(options: GlobalOptions, io: Pick<Io, "env" | "cwd">): string {
  return backupRoot(options.backupDir, io.env, io.cwd);
}

/**
 * A person at a terminal is asked; a script must have said --yes; --json never prompts. A run asked to end (SIGTERM,
 * SIGHUP) stops here, whatever the answer: nothing is written after the signal.
 */
export async function confirmChange(io: Io, options: GlobalOptions, what: string): Promise<void> {
  io.throwIfEnded();
  if (options.yes) return;
  if (!io.interactive) {
    throw new RecoverError("needs-confirmation", `refusing to change ${what} without --yes (no terminal to ask; nothing was changed)`);
  }
  const confirmed = await io.confirm(`Change ${what}?`);
  io.throwIfEnded();
  if (!confirmed) throw new RecoverError("not-confirmed", "not confirmed; nothing was changed");
}
