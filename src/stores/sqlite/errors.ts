/**
 * better-sqlite3's errors as the one-line errors a user reads (not a store, damaged, busy, read-only, unreadable).
 * The readers and writers of every SQLite store (opencode.db, openclaw-agent.sqlite) throw these; they live apart from
 * them so none imports another.
 */
import { type NextStep, RecoverError } from "../../errors.js";

/** The way on from a damaged database: `store salvage` reads what it still gives into a new one (the store flags name which). */
export const SALVAGE: NextStep = { words: ["store", "salvage"], why: "to read every row it still gives into a new database, leaving it as it is" };

export function corrupt(path: string, damage: string): RecoverError {
  return new RecoverError("store-corrupt", `${path} is damaged (PRAGMA quick_check: ${damage})`, SALVAGE);
}

export function sqliteError(error: unknown, path: string): Error {
  if (error instanceof RecoverError) return error;
  const code = (error as { code?: string }).code ?? "";
  const message = (error as Error).message ?? String(error);
  if (code === "SQLITE_NOTADB") return new RecoverError("not-a-store", `${path} is not a SQLite database`);
  if (code.startsWith("SQLITE_CORRUPT")) return corrupt(path, message);
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) {
    return new RecoverError("store-busy", `${path} is locked by another process (${message}); try again when its agent is idle`);
  }
  // Readers fall back to a copy when the folder cannot be written (sqlite/open.ts): this is a write refused.
  if (code.startsWith("SQLITE_READONLY")) return new RecoverError("store-read-only", `${path} cannot be written (${message}); nothing was changed`);
  if (code.startsWith("SQLITE_CANTOPEN") || code === "SQLITE_PERM") {
    return new RecoverError("store-unreadable", `cannot open ${path} (${message}); check that it exists and you may read it and its directory`);
  }
  if (code.startsWith("SQLITE_IOERR")) return new RecoverError("store-unreadable", `cannot read ${path}: ${message}`);
  return error instanceof Error ? error : new Error(message);
}

/** `work` on a database, its errors said as the one-line errors above. */
export function guarded<T>(path: string, work: () => T): T {
  try {
    return work();
  } catch (error) {
    throw sqliteError(error, path);
  }
}
