/**
 * Load what pokeralph keeps on disk: the project files (`config.json`, `prd.json`) and, per battle,
 * `history.json`, `progress.json`, the iteration logs and the leftovers of an interrupted write (`*.json.lock`,
 * `*.json.tmp.*`, `.patch-temp-*`). Nothing here throws for a damaged file: each file carries its state and the
 * reason, so a report covers every battle and later commands decide what they can work with. Read-only.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { battleDir, listBattleIds, type PokeralphRepo } from "./discover.js";
import { readFile, relPath, type LoadedFile } from "./read-file.js";
import { Battle, Config, Prd, Progress } from "./schemas.js";

/** A file a crashed write left behind (reference §1.2: FileManager's lock + temp-file write, patch restore). */
export interface Artefact {
  kind: "lock" | "tmp" | "patch-temp";
  path: string;
  relPath: string;
  /** The file it belonged to (`history.json` for `history.json.lock`); none for `.patch-temp-*`. */
  target?: string;
  mtimeMs: number;
  /** A lock's content is `<pid>-<epochMs>-<random>`: who took it, and when. */
  holder?: { pid: number; at: number };
}

export interface IterationLog {
  number: number;
  /** `logs/iteration-<n>.txt`, what pokeralph's code writes. */
  txt?: string;
  /** `logs/iteration-<n>.log`, the name the spec gives (never written by v0.2.0). */
  log?: string;
}

export interface LoadedProject {
  repo: PokeralphRepo;
  config: LoadedFile<Config>;
  prd: LoadedFile<Prd>;
  /** Leftovers in `.pokeralph/` itself (config/prd writes, patch restores). */
  artefacts: Artefact[];
}

export interface LoadedBattle {
  /** The folder name under `battles/`: the id pokeralph loads the battle by. */
  taskId: string;
  dir: string;
  relDir: string;
  history: LoadedFile<Battle>;
  progress: LoadedFile<Progress>;
  /** By iteration number. */
  logs: Map<number, IterationLog>;
  artefacts: Artefact[];
}

export function loadProject(repo: PokeralphRepo): LoadedProject {
  return {
    repo,
    config: readFile(repo.root, join(repo.dir, "config.json"), Config),
    prd: readFile(repo.root, join(repo.dir, "prd.json"), Prd),
    artefacts: findArtefacts(repo.root, repo.dir),
  };
}

/** One battle by task id (checked: an id from a user never walks out of `battles/`). */
export function loadBattle(repo: PokeralphRepo, taskId: string): LoadedBattle {
  return loadAt(repo, taskId, battleDir(repo, taskId));
}

/**
 * Every battle (or just `taskIds`), in task id order. Listed folder names are used as they are: readdir never
 * yields `/`, `.` or `..`, and an odd name (`002-auth..v2`) is reported (task-not-in-prd), not a reason to stop.
 */
export function loadBattles(repo: PokeralphRepo, taskIds?: readonly string[]): LoadedBattle[] {
  if (taskIds) return taskIds.map((id) => loadBattle(repo, id));
  return listBattleIds(repo).map((id) => loadAt(repo, id, join(repo.battlesDir, id)));
}

function loadAt(repo: PokeralphRepo, taskId: string, dir: string): LoadedBattle {
  return {
    taskId,
    dir,
    relDir: relPath(repo.root, dir),
    history: readFile(repo.root, join(dir, "history.json"), Battle),
    progress: readFile(repo.root, join(dir, "progress.json"), Progress),
    logs: findLogs(join(dir, "logs")),
    artefacts: findArtefacts(repo.root, dir),
  };
}

const LOG_NAME = /^iteration-(\d+)\.(txt|log)$/;

function findLogs(dir: string): Map<number, IterationLog> {
  const logs = new Map<number, IterationLog>();
  for (const name of listNames(dir)) {
    const match = LOG_NAME.exec(name);
    if (!match) continue;
    const number = Number(match[1]);
    const entry = logs.get(number) ?? { number };
    entry[match[2] as "txt" | "log"] = join(dir, name);
    logs.set(number, entry);
  }
  return logs;
}

function findArtefacts(root: string, dir: string): Artefact[] {
  const found: Artefact[] = [];
  for (const name of listNames(dir)) {
    const kind = name.endsWith(".json.lock") ? "lock" : /\.json\.tmp\./.test(name) ? "tmp" : name.startsWith(".patch-temp-") ? "patch-temp" : undefined;
    if (!kind) continue;
    const path = join(dir, name);
    let mtimeMs: number;
    try {
      const stat = statSync(path);
      if (!stat.isFile()) continue;
      mtimeMs = stat.mtimeMs;
    } catch {
      continue; // removed while we looked: its owner finished
    }
    const target = kind === "lock" ? name.slice(0, -".lock".length) : kind === "tmp" ? name.slice(0, name.indexOf(".json.tmp.") + ".json".length) : undefined;
    const holder = kind === "lock" ? lockHolder(path) : undefined;
    found.push({ kind, path, relPath: relPath(root, path), ...(target ? { target } : {}), mtimeMs, ...(holder ? { holder } : {}) });
  }
  return found;
}

function lockHolder(path: string): Artefact["holder"] {
  try {
    const match = /^(\d+)-(\d+)-/.exec(readFileSync(path, "utf8").trim());
    return match ? { pid: Number(match[1]), at: Number(match[2]) } : undefined;
  } catch {
    return undefined;
  }
}

/** Entry names, sorted; a folder that is not there (or not readable) has none. */
function listNames(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}
