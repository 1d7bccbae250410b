/**
 * Find the pokeralph project the user means: `--repo <dir>` (the repository root, or its `.pokeralph/` folder),
 * else the first `.pokeralph/` upward from the cwd (as git finds `.git`). Also the only place that turns a task
 * id from the user into a battle folder: ids end up in paths and, later, git refs, so anything that could walk out
 * of `battles/` is refused before it is used. Every failure is a RecoverError (exit 2, one line).
 */
import { readdirSync, statSync, type Dirent, type Stats } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { RecoverError, fsError } from "../../errors.js";
import { assertSafeId } from "../session-id.js";

export const POKERALPH_DIR = ".pokeralph";

export interface PokeralphRepo {
  /** The repository root: the folder holding `.pokeralph/` (pokeralph's working dir, where git runs). */
  root: string;
  /** `<root>/.pokeralph` */
  dir: string;
  /** `<root>/.pokeralph/battles` (may not exist yet: no battle has run). */
  battlesDir: string;
}

export interface FindOptions {
  /** `--repo`: the repository root or its `.pokeralph/` folder; no upward search. */
  repo?: string;
  /** Where the upward search starts, and what a relative `repo` is relative to: the CLI passes its run's cwd. */
  cwd: string;
}

export function findPokeralph(options: FindOptions): PokeralphRepo {
  if (options.repo !== undefined) return atRepo(resolve(options.cwd, options.repo));
  const start = resolve(options.cwd);
  for (let dir = start; ; dir = dirname(dir)) {
    const candidate = join(dir, POKERALPH_DIR);
    const stat = statIfExists(candidate);
    if (stat?.isDirectory()) return located(dir);
    if (dirname(dir) === dir) break;
  }
  throw new RecoverError(
    "store-not-found",
    `no ${POKERALPH_DIR}/ found in ${start} or any parent directory; run inside a pokeralph repository or pass --repo <dir>`,
  );
}

function atRepo(target: string): PokeralphRepo {
  const stat = statIfExists(target);
  if (!stat) throw new RecoverError("store-not-found", `no such directory: ${target}`);
  if (!stat.isDirectory()) throw new RecoverError("not-a-store", `--repo wants a directory, ${target} is a file`);
  // `--repo path/to/.pokeralph` means its parent: accept it rather than make the user strip it.
  if (basename(target) === POKERALPH_DIR) return located(dirname(target));
  const inner = statIfExists(join(target, POKERALPH_DIR));
  if (!inner) throw new RecoverError("store-not-found", `no ${POKERALPH_DIR}/ in ${target}: not a pokeralph repository (pokeralph creates it on first run)`);
  if (!inner.isDirectory()) throw new RecoverError("not-a-store", `${join(target, POKERALPH_DIR)} is not a directory`);
  return located(target);
}

function located(root: string): PokeralphRepo {
  const dir = join(root, POKERALPH_DIR);
  return { root, dir, battlesDir: join(dir, "battles") };
}

function statIfExists(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw fsError(error, path) ?? error;
  }
}

/** A task id from the user (or a folder name we are about to build paths from): never `/`, `\`, `..` or NUL. */
export function assertSafeTaskId(id: string): void {
  assertSafeId(id, "task id");
}

export function battleDir(repo: PokeralphRepo, taskId: string): string {
  assertSafeTaskId(taskId);
  return join(repo.battlesDir, taskId);
}

/** The task ids that have a battle folder, sorted (pokeralph's ids sort by their NNN prefix). */
export function listBattleIds(repo: PokeralphRepo): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(repo.battlesDir, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return [];
    throw fsError(error, repo.battlesDir) ?? error;
  }
  return entries
    .filter((e) => e.isDirectory() && !e.name.startsWith("."))
    .map((e) => e.name)
    .sort();
}

/**
 * The battle a user names: its exact task id or a unique prefix (`002` for `002-auth-system`), as session ids
 * accept prefixes. An unknown id lists what exists.
 */
export function resolveTaskId(repo: PokeralphRepo, wanted: string): string {
  assertSafeTaskId(wanted);
  const known = listBattleIds(repo);
  if (known.includes(wanted)) return wanted;
  const matches = known.filter((id) => id.startsWith(wanted));
  if (matches.length === 1) return matches[0]!;
  if (matches.length > 1) {
    throw new RecoverError(
      "usage",
      `task id prefix ${wanted} matches ${matches.length} battles (${matches.slice(0, 5).join(", ")}${matches.length > 5 ? ", …" : ""}); give more characters`,
    );
  }
  const shown = known.length === 0 ? "no battle has run yet" : `battles: ${known.slice(0, 8).join(", ")}${known.length > 8 ? ", …" : ""}`;
  throw new RecoverError("usage", `no battle for task ${wanted} in ${repo.battlesDir} (${shown})`);
}
