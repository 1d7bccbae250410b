/**
 * What every command that changes a store shares: the store lock, settling a transaction a crash left unfinished,
 * the live-writer guard, and the confirmation rules (a person at a terminal is asked; anyone else must say --yes).
 */
import { resolve } from "node:path";
import { ExitCode, RecoverError } from "../errors.js";
import type { SessionStore, StoreWriter } from "../stores/store.js";
import { refuseUnwritableStore, whyUnwritable } from "../stores/writable.js";
import { hasJournal, recoverJournal } from "../txn/journal.js";
import { lockStore } from "../txn/lock.js";
import { backupRoot, stateDir } from "../txn/state-dir.js";
import type { GlobalOptions, Io } from "./io.js";

export interface WriteContext {
  writer: StoreWriter;
  state: string;
  backupRoot: string;
}

/**
 * Any command on a store first settles a transaction a crash left unfinished (as SQLite rolls back a hot journal
 * on open), unless another recover holds the store: then it is in flight, not unfinished. The outcome becomes a
 * notice on the store, which every reporter prints.
 */
export function settleJournal(store: SessionStore, env: NodeJS.ProcessEnv): void {
  const state = stateDir(env);
  if (!hasJournal(state, store.info.path)) return;
  const unwritable = whyUnwritable(store.info);
  if (unwritable) {
    store.info.notices.push(`an unfinished change of this store is in recover's journal, but ${unwritable}; it will be settled when the store can be written`);
    return;
  }
  let lock;
  try {
    lock = lockStore(state, store.info.path);
  } catch (error) {
    if (error instanceof RecoverError && error.code === "store-locked") {
      store.info.notices.push("another recover is changing this store right now; what you see may change when it finishes");
      return;
    }
    throw error;
  }
  try {
    const writer = store.openWriter();
    try {
      const outcome = recoverJournal(state, writer);
      if (outcome) store.info.notices.push(outcome);
    } finally {
      writer.close();
    }
  } finally {
    lock.release();
  }
}

export async function withWriter<T>(store: SessionStore, options: GlobalOptions, io: Pick<Io, "env" | "cwd">, work: (context: WriteContext) => Promise<T>): Promise<T> {
  // Before the lock, the writer, a question or a backup: a store that cannot be written is refused in one sentence.
  refuseUnwritableStore(store.info);
  const state = stateDir(io.env);
  const lock = lockStore(state, store.info.path);
  try {
    const writer = store.openWriter();
    try {
      const outcome = recoverJournal(state, writer);
      if (outcome) store.info.notices.push(outcome);
      return await work({ writer, state, backupRoot: runBackupRoot(options, io) });
    } finally {
      writer.close();
    }
  } finally {
    lock.release();
  }
}

/** Where backups go for this run: --backup-dir (relative to the run's cwd), else under the state dir. */
export function runBackupRoot(options: GlobalOptions, io: Pick<Io, "env" | "cwd">): string {
  return backupRoot(options.backupDir !== undefined ? resolve(io.cwd, options.backupDir) : undefined, io.env);
}

/** Another process holding the store open (a running opencode) would race our writes. */
export function refuseOpenStore(writer: StoreWriter, force: boolean | undefined): void {
  if (force) return;
  const openers = writer.openers();
  if (openers.length === 0) return;
  const who = openers.map((o) => `${o.name} (pid ${o.pid})`).join(", ");
  throw new RecoverError("live-writer", `${who} has ${writer.info.path} open; quit it first (writing under a running agent races its own writes), or pass --force`, ExitCode.refused);
}

/** A person at a terminal is asked; a script must have said --yes; --json never prompts. */
export async function confirmChange(io: Io, options: GlobalOptions, what: string): Promise<void> {
  if (options.yes) return;
  if (!io.interactive) {
    throw new RecoverError("needs-confirmation", `refusing to change ${what} without --yes (no terminal to ask; nothing was changed)`, ExitCode.usage);
  }
  if (!(await io.confirm(`Change ${what}?`))) throw new RecoverError("needs-confirmation", "not confirmed; nothing was changed", ExitCode.findings);
}
