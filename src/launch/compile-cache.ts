/**
 * Loads the CLI bundle (dist/main.cjs) as Node loads a CommonJS module, but compiled through V8's code cache, kept in
 * the user's cache folder. Compiling the bundle was most of a small run's CPU time: on Node 20 a scan of one session
 * cost about 2.2× `node -e 0` without the cache, 1.7× with it (docs/performance.md). Node 22 has this built in
 * (`module.enableCompileCache`); Node 20, which recover supports, has only the V8 primitive it is made of: a
 * `vm.Script` takes the bytes of an earlier compilation (`cachedData`) and says whether V8 accepted them.
 *
 * A cache only ever saves time: a missing, stale or corrupt one is compiled past (V8 rejects what another V8 version,
 * other flags or another source made), and a cache that cannot be written (no space, a read-only home) is not. It
 * is named by the bundle's build id (dist/main.cjs.id, a hash of its bytes), because V8 recognises its source by
 * length alone: a cache of another build of the same length would otherwise run that build's code. It is written
 * once per build, Node version and architecture, after the first run, with everything that run compiled; the newest
 * few are kept.
 *
 * V8 runs what a cache holds without checking it against the source, so a cache is read only when it is the user's
 * own and nobody else may write it (a `$XDG_CACHE_HOME` pointed at a shared folder must not let another user plant
 * code), and written only into a folder made for the user alone.
 *
 * Built as dist/launch.cjs on its own (it loads the bundle, so it cannot be in it); imports nothing of recover's.
 */
import { closeSync, fstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, isAbsolute, join } from "node:path";
import { Script } from "node:vm";

/** The bundle's code runs inside this, on lines of their own: its line numbers stay the file's (lineOffset -1). */
export const WRAPPER_HEAD = "(function (exports, require, module, __filename, __dirname) {\n";
const WRAPPER_TAIL = "\n})";

export interface LoadedBundle {
  /** The bundle's `module.exports`. */
  exports: unknown;
  /** What the cache did: `used` (V8 took it), `missing` (none, or V8 rejected it: `save()` writes one), `off`. */
  cache: "used" | "missing" | "off";
  /** After the run: writes the code it compiled when there was no usable cache. Never throws. */
  save(): void;
}

/**
 * Where the caches are: `$XDG_CACHE_HOME/recover`, else `~/.cache/recover`; none when `NODE_DISABLE_COMPILE_CACHE`
 * is set (Node's own switch for its compile cache) or there is no home. A relative `$XDG_CACHE_HOME` is ignored, as
 * the XDG Base Directory spec asks: it would put a cache folder in whatever folder the command ran in.
 */
export function cacheDirIn(env: NodeJS.ProcessEnv): string | undefined {
  if (env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  const xdg = env.XDG_CACHE_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : env.HOME ? join(env.HOME, ".cache") : undefined;
  return base === undefined ? undefined : join(base, "recover");
}

export function loadBundle(bundle: string, cacheDir: string | undefined): LoadedBundle {
  const source = readFileSync(bundle, "utf8");
  const name = basename(bundle);
  const file =
    cacheDir === undefined ? undefined : join(cacheDir, `${name}-${readFileSync(`${bundle}.id`, "utf8").trim()}-${process.version}-${process.arch}.v8cache`);
  const cachedData = file === undefined ? undefined : readIfOwn(file);
  const script = new Script(WRAPPER_HEAD + source + WRAPPER_TAIL, { filename: bundle, lineOffset: -1, ...(cachedData ? { cachedData } : {}) });
  const used = cachedData !== undefined && script.cachedDataRejected !== true;
  const module = { exports: {} as unknown };
  (script.runInThisContext() as (...args: unknown[]) => void).call(module.exports, module.exports, createRequire(bundle), module, bundle, dirname(bundle));
  return {
    exports: module.exports,
    cache: file === undefined ? "off" : used ? "used" : "missing",
    save() {
      if (file === undefined || used) return;
      const temp = `${file}.${process.pid}.tmp`;
      let fd: number | undefined;
      try {
        mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
        // Opened before the cache is made: where it cannot be written, making it would be time thrown away.
        fd = openSync(temp, "wx", 0o600);
        const data = script.createCachedData();
        for (let at = 0; at < data.length; ) at += writeSync(fd, data, at);
        closeSync(fd);
        fd = undefined;
        // Whole or not at all: a concurrent run reads the old file or this one, never half of it.
        renameSync(temp, file);
        pruneCaches(dirname(file), name);
      } catch {
        try {
          if (fd !== undefined) closeSync(fd);
          rmSync(temp, { force: true });
        } catch {
          // Nothing more to do: the run itself went well.
        }
      }
    },
  };
}

/** How many caches of one bundle are kept: a build, the one before, a copy run with npx, another Node version. */
export const CACHES_KEPT = 4;

/**
 * Keeps the newest CACHES_KEPT caches of the bundle: older builds' are never read again, but two installed versions
 * (or two Node versions) used in turn must not throw each other's out, or each run would compile everything again.
 * A temp file a run killed while writing left behind goes once it is a minute old (a younger one may be in use).
 */
function pruneCaches(cacheDir: string, name: string): void {
  const now = Date.now();
  const caches: { path: string; mtimeMs: number }[] = [];
  for (const entry of readdirSync(cacheDir)) {
    if (!entry.startsWith(`${name}-`)) continue;
    const path = join(cacheDir, entry);
    const { mtimeMs } = statSync(path);
    if (entry.endsWith(".v8cache")) caches.push({ path, mtimeMs });
    else if (entry.endsWith(".tmp") && now - mtimeMs > 60_000) rmSync(path, { force: true });
  }
  caches.sort((a, b) => b.mtimeMs - a.mtimeMs);
  for (const old of caches.slice(CACHES_KEPT)) rmSync(old.path, { force: true });
}

/** The cache's bytes, when it is there, is a file, is the user's own and nobody else may write to it. */
function readIfOwn(file: string): Buffer | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, "r");
    // Checked on the open file, not the path: what is read is what was checked.
    const stat = fstatSync(fd);
    const uid = process.getuid?.();
    if (!stat.isFile() || (uid !== undefined && stat.uid !== uid) || (stat.mode & 0o022) !== 0) return undefined;
    return readFileSync(fd);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
