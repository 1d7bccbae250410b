/**
 * Find the store the user means: `--store` (a data dir, a db file, or a `storage/` folder), else where opencode
 * itself looks (`OPENCODE_DB`, `$XDG_DATA_HOME/opencode`, `~/.local/share/opencode`). The format is detected
 * from what is there unless `--format` forces one. Claude Code and openclaw transcripts: see transcript/locate.ts.
 */
import { accessSync, constants, existsSync } from "node:fs";
import { homedir } from "node:os";
import { basename, isAbsolute, join, resolve } from "node:path";
import { RecoverError, fsError } from "../errors.js";
import { BattleFilesStore } from "./battle-files-store.js";
import { OpencodeJsonStore } from "./opencode/json-store.js";
import { OpencodeSqliteStore } from "./opencode/sqlite-store.js";
import { STORE_FORMATS, type SessionStore, type StoreFormat } from "./store.js";
import { defaultTranscriptRoot, transcriptRootAt } from "./transcript/locate.js";
import { TranscriptStore } from "./transcript/transcript-store.js";
import { assertFormatMatches, hasSqliteHeader, statOrThrow, whatIsAt } from "./what-is-here.js";

export interface StoreOptions {
  store?: string;
  format?: string;
  env?: NodeJS.ProcessEnv;
}

export function openStore(options: StoreOptions): SessionStore {
  // Reached only from a backup's manifest (`session restore`): battle files are restored, never scanned.
  if (options.format === "pokeralph-battle" && options.store !== undefined) {
    const dir = resolve(options.store);
    if (!statOrThrow(dir).isDirectory()) throw new RecoverError("not-a-store", `${dir} is not a battle folder`);
    return new BattleFilesStore(dir);
  }
  const format = parseFormat(options.format);
  const env = options.env ?? process.env;
  if (options.store === undefined && (format === "claude" || format === "openclaw")) return holdingSessions(new TranscriptStore(defaultTranscriptRoot(format, env)));
  const target = options.store !== undefined ? resolve(options.store) : defaultLocation(env);
  if (statOrThrow(target).isDirectory()) assertReadableDir(target);
  // What is on disk, read once: a forced format is checked against it before any adapter reads a byte.
  const here = whatIsAt(target);
  if (format !== undefined) assertFormatMatches(target, format, here);
  if (format !== "opencode-sqlite" && format !== "opencode-json") {
    const transcripts = transcriptRootAt(target, here);
    if (transcripts) return holdingSessions(new TranscriptStore(transcripts));
  }
  return openAt(target, format, options.store === undefined);
}

/**
 * A transcript store is nothing but its transcripts: one with none is not a store (exit 2), so a job pointed at
 * the wrong folder fails instead of going green on "no findings in 0 sessions". (An opencode database or JSON
 * tree is recognised by its own structure and may legitimately hold no session yet.)
 */
function holdingSessions(store: TranscriptStore): TranscriptStore {
  if (store.listSessionIds().length > 0) return store;
  const where = store.info.part ?? store.info.path;
  throw new RecoverError("not-a-store", `${where} holds no ${store.info.format === "claude" ? "Claude Code" : "openclaw"} transcripts`);
}

function parseFormat(format: string | undefined): StoreFormat | undefined {
  if (format === undefined) return undefined;
  if ((STORE_FORMATS as readonly string[]).includes(format)) return format as StoreFormat;
  throw new RecoverError("usage", `unknown --format ${JSON.stringify(format)} (expected one of: ${STORE_FORMATS.join(", ")})`);
}

/** opencode's own search order (reference opencode.md §3.1, §7). */
function defaultLocation(env: NodeJS.ProcessEnv): string {
  const dataDir = join(env.XDG_DATA_HOME || join(env.HOME || homedir(), ".local", "share"), "opencode");
  const db = env.OPENCODE_DB;
  if (db && db !== ":memory:") return isAbsolute(db) ? db : join(dataDir, db);
  if (existsSync(dataDir)) return dataDir;
  throw new RecoverError("store-not-found", `no opencode store found (looked in ${dataDir}); pass --store <path>`);
}

function openAt(target: string, format: StoreFormat | undefined, discovered: boolean): SessionStore {
  const stat = statOrThrow(target);
  if (stat.isFile()) {
    if (format === "opencode-json") throw new RecoverError("not-a-store", `${target} is a file; --format opencode-json wants a storage/ folder`);
    if (!hasSqliteHeader(target)) {
      throw new RecoverError("not-a-store", `${target} is not a SQLite database${stat.size === 0 ? " (empty file)" : ""}`);
    }
    return new OpencodeSqliteStore(target);
  }
  if (!stat.isDirectory()) throw new RecoverError("not-a-store", `${target} is neither a file nor a directory`);
  assertReadableDir(target);

  const db = join(target, "opencode.db");
  const storage = findStorageDir(target);
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
    return new OpencodeSqliteStore(db, notices);
  }
  const where = discovered ? `${target} (opencode's data dir)` : target;
  throw new RecoverError("not-a-store", `not an opencode store: ${where} holds neither opencode.db nor a storage/ folder`);
}

/** `<dir>/storage` of a data dir, or the dir itself when it is (a copy of) a storage folder. */
function findStorageDir(dir: string): string | undefined {
  const looksLikeStorage = (d: string) => ["session", "message", "part"].some((sub) => existsSync(join(d, sub)));
  if (basename(dir) !== "storage" && looksLikeStorage(join(dir, "storage"))) return join(dir, "storage");
  if (looksLikeStorage(dir)) return dir;
  return undefined;
}

/** An unreadable folder would otherwise look empty (existsSync says false inside it): say what is wrong. */
function assertReadableDir(dir: string): void {
  try {
    accessSync(dir, constants.R_OK | constants.X_OK);
  } catch (error) {
    throw fsError(error, dir) ?? error;
  }
}
