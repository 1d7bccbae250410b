/**
 * A data dir may hold several opencode stores: `opencode.db`, channel databases (`opencode-stable.db`,
 * `opencode-prod.db`, …) and the legacy JSON tree `storage/`. opencode reads one database, fixed when it was built
 * (its channel; `OPENCODE_DB` overrides it), and never shows what the others hold (anomalyco/opencode#2987,
 * #13654, #16885; docs/research/opencode-import.md §1). Offline, its own log says which one it opened last
 * (`service=db path=… opening database`); without a log, `opencode.db`. This says which sessions the other stores
 * hold that the one opencode reads lacks, read-only.
 */
import fg from "fast-glob";
import { closeSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { someOf } from "../../model/listing.js";
import { hasSqliteHeader } from "../probe.js";
import { openForReading } from "../sqlite/open.js";

export interface DatabaseChoice {
  path: string;
  /** Why this one: "opencode's log of <time>", or the default. */
  because: string;
}

/** Every opencode database in a data dir (SQLite files named opencode*.db), by name. */
export function databasesIn(dataDir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dataDir);
  } catch {
    return [];
  }
  return names
    .filter((name) => /^opencode.*\.db$/.test(name))
    .map((name) => join(dataDir, name))
    .filter((path) => hasSqliteHeader(path))
    .sort();
}

const OPENED = /service=db path=(\S+) opening database/g;
const TAIL_BYTES = 256 * 1024;

/** The database opencode opened last, as its newest log that says so names it; undefined without such a log. */
export function databaseFromLog(dataDir: string): DatabaseChoice | undefined {
  const logs = fg.sync("log/*.log", { cwd: dataDir, absolute: true, onlyFiles: true, suppressErrors: true });
  const newestFirst = logs.map((path) => ({ path, mtime: statSync(path).mtimeMs })).sort((a, b) => b.mtime - a.mtime);
  for (const log of newestFirst.slice(0, 10)) {
    const opened = [...tailOf(log.path).matchAll(OPENED)].at(-1)?.[1];
    if (opened !== undefined) return { path: resolve(dataDir, opened), because: `opencode's log ${basename(log.path)} says it opened it` };
  }
  return undefined;
}

function tailOf(path: string): string {
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    const size = statSync(path).size;
    const length = Math.min(size, TAIL_BYTES);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    return buffer.toString("utf8");
  } catch {
    return "";
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Session ids of a database, read-only; none when it cannot be read (it is then only named). */
export function databaseSessionIds(path: string): Set<string> | undefined {
  try {
    const connection = openForReading(path);
    try {
      return new Set(connection.db.prepare("SELECT id FROM session WHERE typeof(id) = 'text'").pluck().all() as string[]);
    } finally {
      connection.close();
    }
  } catch {
    return undefined;
  }
}

/** Session ids of a JSON tree (`storage/session/<project>/<id>.json`). */
export function treeSessionIds(storage: string): Set<string> {
  const files = fg.sync("session/*/*.json", { cwd: storage, onlyFiles: true, suppressErrors: true });
  return new Set(files.map((rel) => basename(rel, ".json")));
}

/** One sentence per other store holding sessions the chosen database lacks. */
export function hiddenSessionNotices(chosen: string, used: ReadonlySet<string>, others: { path: string; ids: Set<string> | undefined }[]): string[] {
  const notices: string[] = [];
  for (const other of others) {
    if (other.ids === undefined) {
      notices.push(`${other.path} could not be read: sessions it holds, if any, are not counted`);
      continue;
    }
    const missing = [...other.ids].filter((id) => !used.has(id)).sort();
    if (missing.length === 0) continue;
    notices.push(
      `${other.path} holds ${missing.length === 1 ? "a session" : `${missing.length} sessions`} that ${basename(chosen)} lacks (${someOf(missing)}): opencode does not show ${missing.length === 1 ? "it" : "them"}`,
    );
  }
  return notices;
}
