/**
 * Where recover keeps its own state: backups, store locks and the journal of transactions in flight.
 * `$XDG_STATE_HOME/recover` (default `~/.local/state/recover`); backups can be sent elsewhere with --backup-dir.
 */
import { homedir } from "node:os";
import { join, resolve } from "node:path";

export function stateDir(env: NodeJS.ProcessEnv): string {
  return join(env.XDG_STATE_HOME || join(env.HOME || homedir(), ".local", "state"), "recover");
}

export function backupRoot(backupDir: string | undefined, env: NodeJS.ProcessEnv): string {
  return backupDir !== undefined ? resolve(backupDir) : backupsIn(stateDir(env));
}

/** Backups go under the state dir unless --backup-dir sends them elsewhere. */
export function backupsIn(state: string): string {
  return join(state, "backups");
}
