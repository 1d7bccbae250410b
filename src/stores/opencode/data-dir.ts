/**
 * opencode's data dir, shared by its two store adapters: where opencode itself looks (`OPENCODE_DB`,
 * `$XDG_DATA_HOME/opencode`, `~/.local/share/opencode`), and which of its stores a path holds — `opencode.db`
 * (≥1.2) or the legacy JSON tree (`storage/`), the database first when both are there.
 */
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { basename, isAbsolute, join } from "node:path";
import { RecoverError } from "../../errors.js";
import type { PathProbe, WhatIsHere } from "../adapter.js";
import { assertReadableDir, hasSqliteHeader, statOrThrow } from "../probe.js";
import type { HiddenSessions, SessionStore } from "../store.js";
import { OpencodeJsonStore } from "./json-store.js";
import { type DatabaseChoice, databaseFromLog, databaseSessionIds, databasesIn, hiddenSessionNotices, treeSessionIds } from "./siblings.js";
import { OpencodeSqliteStore } from "./sqlite-store.js";

type OpencodeFormat = "opencode-sqlite" | "opencode-json";

/** opencode's own search order (reference opencode.md §3.1, §7). */
export function defaultDataDir(env: NodeJS.ProcessEnv): string {
  const dataDir = join(env.XDG_DATA_HOME || join(env.HOME || homedir(), ".local", "share"), "opencode");
  const db = env.OPENCODE_DB;
  if (db && db !== ":memory:") return isAbsolute(db) ? db : join(dataDir, db);
  if (existsSync(dataDir)) return dataDir;
  throw new RecoverError("store-not-found", `no opencode store found (looked in ${dataDir}); pass --store <path>`);
}

/** A data dir holding opencode.db. */
export function holdsDatabase(probe: PathProbe): boolean {
  return probe.kind === "folder" && probe.entries.includes("opencode.db");
}

/** (A copy of) a storage/ folder, or a data dir holding one. */
export function holdsJsonTree(probe: PathProbe): boolean {
  return probe.kind === "folder" && (isStorageTree(probe.path) || (basename(probe.path) !== "storage" && isStorageTree(join(probe.path, "storage"))));
}

/**
 * The opencode store at `target`: `format` when forced, else the database when there is one, else the JSON tree.
 * Anything else is refused here, with a sentence saying what was looked for (`discovered`: in opencode's data dir).
 */
export function openDataDir(target: string, format: OpencodeFormat | undefined, discovered: boolean, here?: WhatIsHere): SessionStore {
  const stat = statOrThrow(target);
  if (stat.isFile()) {
    if (format === "opencode-json") throw new RecoverError("not-a-store", `${target} is a file; --format opencode-json wants a storage/ folder`);
    if (!hasSqliteHeader(target)) {
      // Not forced: no adapter claimed the file either, so it is no transcript of any agent's.
      const what = format === undefined ? "is not a store recover knows: neither a SQLite database nor an agent's transcript" : "is not a SQLite database";
      throw new RecoverError("not-a-store", `${target} ${what}${stat.size === 0 ? " (empty file)" : ""}`);
    }
    return new OpencodeSqliteStore(target);
  }
  if (!stat.isDirectory()) throw new RecoverError("not-a-store", `${target} is neither a file nor a directory`);
  assertReadableDir(target);

  const storage = findStorageDir(target);
  const databases = format === "opencode-json" ? [] : databasesIn(target);
  const chosen = chooseDatabase(target, databases);
  const db = chosen?.path ?? join(target, "opencode.db");
  const hasDb = existsSync(db);
  if (format === "opencode-json" || (!hasDb && format === undefined && storage)) {
    if (!storage) throw new RecoverError("not-a-store", `no opencode JSON storage (session/, message/, part/) in ${target}`);
    return new OpencodeJsonStore(storage);
  }
  if (hasDb) {
    const notices = storage
      ? [`a legacy JSON tree also exists at ${storage} (opencode ≤1.1 data, frozen since the move to SQLite); read it with --format opencode-json`]
      : [];
    if (!hasSqliteHeader(db)) throw new RecoverError("not-a-store", `${db} is not a SQLite database`);
    const store = new OpencodeSqliteStore(db, notices);
    const others = databases.filter((path) => path !== db).map((path) => ({ path, ids: databaseSessionIds(path) }));
    if (storage) others.push({ path: storage, ids: treeSessionIds(storage) });
    if (others.length > 0) {
      if (databases.length > 1 && chosen) store.info.notices.push(`opencode reads ${basename(db)} here (${chosen.because}); --store <file> reads another`);
      const used = databaseSessionIds(db) ?? new Set<string>();
      store.info.notices.push(...hiddenSessionNotices(db, used, others));
      store.hiddenSessions = () => hiddenSessions(others, used);
    }
    return store;
  }
  if (databases.length > 1) throw severalDatabases(target, databases);
  if (format === undefined && !discovered && here) {
    // Not forced, and no adapter claimed the folder the user named: say what is there, not what opencode missed (an
    // empty Codex home is no "opencode store" either way).
    const what = here.description.includes("store recover knows") ? here.description : `${here.description}, not a store recover knows`;
    throw new RecoverError("not-a-store", `${target} is ${what}; --format <format> says what one format expects`);
  }
  const where = discovered ? `${target} (opencode's data dir)` : target;
  throw new RecoverError("not-a-store", `not an opencode store: ${where} holds neither opencode.db nor a storage/ folder`);
}

/** The database opencode reads in a data dir (see chooseDatabase); refused when that is not clear or there is none. */
export function databaseIn(dataDir: string): string {
  const databases = databasesIn(dataDir);
  const chosen = chooseDatabase(dataDir, databases);
  if (chosen) return chosen.path;
  if (databases.length === 0) throw new RecoverError("not-a-store", `${dataDir} holds no opencode database (opencode*.db)`);
  throw severalDatabases(dataDir, databases);
}

function severalDatabases(dataDir: string, databases: readonly string[]): RecoverError {
  return new RecoverError(
    "not-a-store",
    `${dataDir} holds ${databases.length} opencode databases (${databases.map((d) => basename(d)).join(", ")}) and no log of opencode saying which it reads: pass --store <one of them>`,
  );
}

/** The summaries of the sessions each other store holds and the one opencode reads lacks (read-only). */
function hiddenSessions(others: readonly { path: string; ids: Set<string> | undefined }[], used: ReadonlySet<string>): HiddenSessions[] {
  const found: HiddenSessions[] = [];
  for (const other of others) {
    if (!other.ids || [...other.ids].every((id) => used.has(id))) continue;
    const store = other.path.endsWith(".db") ? new OpencodeSqliteStore(other.path) : new OpencodeJsonStore(other.path);
    try {
      found.push({ store: other.path, sessions: store.listSessions().filter((s) => !used.has(s.id)) });
    } finally {
      store.close();
    }
  }
  return found;
}

/**
 * The database opencode reads in a data dir: the one its newest log says it opened; else `opencode.db` (what its
 * latest, beta and prod builds read); else the only one there. Undefined when that leaves a choice to the user.
 */
function chooseDatabase(dataDir: string, databases: readonly string[]): DatabaseChoice | undefined {
  if (databases.length === 0) return undefined;
  const logged = databaseFromLog(dataDir);
  if (logged && databases.includes(logged.path)) return logged;
  const standard = join(dataDir, "opencode.db");
  if (databases.includes(standard)) return { path: standard, because: "no log of opencode says otherwise; its latest, beta and prod builds read opencode.db" };
  if (databases.length === 1) return { path: databases[0]!, because: "the only database here" };
  return undefined;
}

/** `<dir>/storage` of a data dir, or the dir itself when it is (a copy of) a storage folder. */
export function findStorageDir(dir: string): string | undefined {
  if (basename(dir) !== "storage" && isStorageTree(join(dir, "storage"))) return join(dir, "storage");
  if (isStorageTree(dir)) return dir;
  return undefined;
}

/** opencode's JSON tree keeps one folder per record kind. */
function isStorageTree(dir: string): boolean {
  return ["session", "message", "part"].some((sub) => existsSync(join(dir, sub)));
}
