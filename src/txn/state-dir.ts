/**
 * Where recover keeps its own state: backups, store locks and the journal of transactions in flight.
 * `$XDG_STATE_HOME/recover` (default `~/.local/state/recover`); backups can be sent elsewhere with --backup-dir.
 */
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";

/**
 * A relative `$XDG_STATE_HOME` is ignored, as the XDG Base Directory spec asks: taken as it is, a repair's backup
 * would land under the folder the repair ran in, and `session restore` run from anywhere else would not find it.
 */
export function stateDir(env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_STATE_HOME;
  return join(xdg && isAbsolute(xdg) ? xdg : join(env.HOME || homedir(), ".local", "state"), "recover");
}

/** --backup-dir, relative to the run's folder (`cwd`, never the process's), else the backups under the state dir. */
export function backupRoot(backupDir: string | undefined, env: NodeJS.ProcessEnv, cwd: string): string {
  return backupDir !== undefined ? resolve(cwd, backupDir) : backupsIn(stateDir(env));
}

/** Backups go under the state dir unless --backup-dir sends them elsewhere. */
export function backupsIn(state: string): string {
  return join(state, "backups");
}
