/**
 * Opening a SQLite store (opencode.db, openclaw-agent.sqlite): the one place that calls better-sqlite3's constructor, so that the two ways opening fails
 * for reasons outside the database are told in words:
 *
 * - better-sqlite3's native module is missing (installed with scripts disabled) or built for another Node.js:
 *   say so and how to rebuild it, in the folder recover is installed in.
 * - A WAL database in a folder that cannot be written (a read-only filesystem, someone else's folder): a reader
 *   needs `<db>-shm` beside the db and SQLite cannot create it. SQLite's answer is the `immutable=1` URI
 *   parameter, but the SQLite bundled with better-sqlite3 is built with URIs off (SQLITE_USE_URI=0, and it opens
 *   without SQLITE_OPEN_URI), and `immutable` would ignore the -wal anyway. So the db and its -wal are copied into
 *   a private temp folder and read there: the same committed state SQLite would show, as of the copy.
 */
import type Database from "better-sqlite3";
import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { basename, dirname, join, sep } from "node:path";
import { RecoverError, errnoCode } from "../../errors.js";
import { packageRoot } from "../../model/tool.js";
import { writeBlock } from "../write-block.js";

// better-sqlite3's JavaScript costs every run start-up time: only a run that opens a SQLite file loads it.
const requireHere = createRequire(import.meta.url);

export function openDatabase(path: string, options: Database.Options): Database.Database {
  try {
    const Sqlite = requireHere("better-sqlite3") as typeof Database;
    return new Sqlite(path, options);
  } catch (error) {
    throw nativeModuleError(error) ?? error;
  }
}

/** better-sqlite3 loads its native module on the first open; these are the ways that fails. */
function nativeModuleError(error: unknown): RecoverError | undefined {
  const message = (error as Error)?.message ?? "";
  const missing = /Could not locate the bindings file/.test(message);
  const mismatched = /NODE_MODULE_VERSION|ERR_DLOPEN_FAILED|better_sqlite3\.node/.test(`${message} ${(error as { code?: string })?.code ?? ""}`);
  if (!missing && !mismatched) return undefined;
  const why = missing ? "is missing (installed with install scripts disabled?)" : `cannot be loaded by Node.js ${process.version} (${message.split("\n")[0]})`;
  return new RecoverError(
    "native-module-missing",
    `better-sqlite3's native module, which reads SQLite stores, ${why}; rebuild it: cd ${installFolder()} && npm rebuild better-sqlite3`,
  );
}

/** The folder whose node_modules holds better-sqlite3: where `npm rebuild` must run. */
function installFolder(): string {
  try {
    const entry = requireHere.resolve("better-sqlite3");
    const at = entry.lastIndexOf(`${sep}node_modules${sep}`);
    if (at > 0) return entry.slice(0, at);
  } catch {
    /* fall through: name the folder of recover itself */
  }
  return packageRoot();
}

/** A read-only connection, and what the store should tell the user about how it was made. */
export interface ReadConnection {
  db: Database.Database;
  notice?: string;
  /** The private copy it reads, removed by close(). */
  copy?: string;
  close(): void;
}

/** SQLite opens files lazily: the first read is where a -shm it cannot create shows. */
function probe(db: Database.Database): void {
  db.prepare("SELECT count(*) FROM sqlite_schema").pluck().get();
}

/** Read-only, in place when SQLite can; from a private copy when it cannot because the folder cannot be written. */
export function openForReading(dbPath: string): ReadConnection {
  const db = openDatabase(dbPath, { readonly: true, fileMustExist: true, timeout: 5000 });
  try {
    probe(db);
    return { db, close: () => db.close() };
  } catch (error) {
    db.close();
    const code = String((error as { code?: unknown }).code);
    const block = writeBlock(dirname(dbPath));
    if (!(code.startsWith("SQLITE_CANTOPEN") || code.startsWith("SQLITE_READONLY")) || !block) throw error;
    return openCopy(dbPath, `the folder of ${dbPath} cannot be written (${block})`);
  }
}

function openCopy(dbPath: string, unwritable: string): ReadConnection {
  const name = basename(dbPath);
  let copyDir: string | undefined;
  try {
    copyDir = mkdtempSync(join(tmpdir(), "recover-read-"));
    copyFileSync(dbPath, join(copyDir, name));
    // Committed transactions not yet checkpointed live in the -wal; the -shm is only an index SQLite rebuilds.
    if (existsSync(`${dbPath}-wal`)) copyFileSync(`${dbPath}-wal`, join(copyDir, `${name}-wal`));
  } catch (error) {
    if (copyDir) rmSync(copyDir, { recursive: true, force: true });
    const why = errnoCode(error) === "ENOSPC" ? "no space left on device" : (errnoCode(error) ?? (error as Error).message);
    throw new RecoverError(
      "store-unreadable",
      `${unwritable}, so SQLite cannot read ${dbPath} in place, and copying it to ${tmpdir()} failed (${why}); set TMPDIR to a folder with room, or copy the store yourself and pass --store <copy>`,
    );
  }
  const dir = copyDir;
  const remove = () => rmSync(dir, { recursive: true, force: true });
  let db: Database.Database;
  try {
    db = openDatabase(join(dir, name), { readonly: true, fileMustExist: true, timeout: 5000 });
    probe(db);
  } catch (error) {
    remove();
    throw error;
  }
  return {
    db,
    copy: join(dir, name),
    notice: `${unwritable}, so SQLite cannot create ${name}-shm beside this WAL database: it was read from a private copy made just now; writes made after that are not seen, and repairs are refused`,
    close: () => {
      db.close();
      remove();
    },
  };
}
