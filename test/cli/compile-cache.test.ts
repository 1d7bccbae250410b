// bin/recover compiles the bundle through V8's code cache (src/launch/compile-cache.ts). A cache only ever saves
// time: these check that it is written once and then used, and that a missing, corrupt, foreign or unwritable one
// changes nothing a run does.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CACHES_KEPT, cacheDirIn, loadBundle } from "../../src/launch/compile-cache.js";
import { BIN, childEnv, tempDir } from "./run.js";

/** A bundle of its own: a CommonJS file exporting what `body` computes, and its build id beside it. */
function bundleOf(dir: string, body: string, id: string): string {
  const file = path.join(dir, "main.cjs");
  // Enough code for V8 to cache a function it compiled lazily, as the real bundle's are.
  fs.writeFileSync(
    file,
    `"use strict";\nfunction compute(n) { let t = 0; for (let i = 0; i < n; i++) t += i; return t; }\nmodule.exports = { value: ${body}, sum: compute(10), dir: __dirname };\n`,
  );
  fs.writeFileSync(`${file}.id`, `${id}\n`);
  return file;
}

const cachesIn = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir).filter((name) => name.endsWith(".v8cache")) : []);

describe("the code cache of the bundle", () => {
  it("is written after the first run and used by the next", () => {
    const dir = tempDir();
    const bundle = bundleOf(dir, `"first"`, "aaaa");
    const cache = path.join(dir, "cache");
    const first = loadBundle(bundle, cache);
    expect(first.cache).toBe("missing");
    expect(first.exports).toEqual({ value: "first", sum: 45, dir });
    first.save();
    expect(cachesIn(cache)).toEqual([`main.cjs-aaaa-${process.version}-${process.arch}.v8cache`]);
    const second = loadBundle(bundle, cache);
    expect(second.cache).toBe("used");
    expect(second.exports).toEqual({ value: "first", sum: 45, dir });
    const written = fs.statSync(path.join(cache, cachesIn(cache)[0]!)).mtimeMs;
    second.save();
    expect(fs.statSync(path.join(cache, cachesIn(cache)[0]!)).mtimeMs).toBe(written);
  });

  it("a corrupt cache is compiled past and replaced", () => {
    const dir = tempDir();
    const bundle = bundleOf(dir, `"ok"`, "bbbb");
    const cache = path.join(dir, "cache");
    fs.mkdirSync(cache);
    const file = path.join(cache, `main.cjs-bbbb-${process.version}-${process.arch}.v8cache`);
    fs.writeFileSync(file, Buffer.alloc(4096, 7));
    const loaded = loadBundle(bundle, cache);
    expect(loaded.cache).toBe("missing");
    expect(loaded.exports).toMatchObject({ value: "ok" });
    loaded.save();
    expect(loadBundle(bundle, cache).cache).toBe("used");
  });

  it("never runs another build's code: the cache is the build's, of the same length or not", () => {
    const dir = tempDir();
    const cache = path.join(dir, "cache");
    loadBundle(bundleOf(dir, `"old"`, "1111"), cache).save();
    // Same length, other code: V8 would take this cache (it knows a source by its length); the build id keeps it out.
    const next = loadBundle(bundleOf(dir, `"new"`, "2222"), cache);
    expect(next.cache).toBe("missing");
    expect(next.exports).toMatchObject({ value: "new" });
    next.save();
    // Both stay: two installed versions used in turn must not throw each other's cache out.
    expect(cachesIn(cache).sort()).toEqual(["1111", "2222"].map((id) => `main.cjs-${id}-${process.version}-${process.arch}.v8cache`));
    expect(loadBundle(bundleOf(dir, `"old"`, "1111"), cache).cache).toBe("used");
  });

  it(`keeps the newest ${CACHES_KEPT} caches, and removes what a run killed while writing left`, () => {
    const dir = tempDir();
    const cache = path.join(dir, "cache");
    const ids = ["a1", "a2", "a3", "a4", "a5", "a6"];
    ids.forEach((id, i) => {
      loadBundle(bundleOf(dir, `"${id}"`, id), cache).save();
      const written = path.join(cache, `main.cjs-${id}-${process.version}-${process.arch}.v8cache`);
      fs.utimesSync(written, 1_700_000_000 + i, 1_700_000_000 + i);
    });
    const torn = path.join(cache, `main.cjs-a1-${process.version}-${process.arch}.v8cache.4242.tmp`);
    const writing = path.join(cache, `main.cjs-a2-${process.version}-${process.arch}.v8cache.4343.tmp`);
    fs.writeFileSync(torn, "half");
    fs.utimesSync(torn, 1_700_000_000, 1_700_000_000);
    fs.writeFileSync(writing, "half, being written now");
    loadBundle(bundleOf(dir, `"a7"`, "a7"), cache).save();
    expect(cachesIn(cache).sort()).toEqual(["a4", "a5", "a6", "a7"].map((id) => `main.cjs-${id}-${process.version}-${process.arch}.v8cache`));
    expect(fs.existsSync(torn)).toBe(false);
    expect(fs.existsSync(writing)).toBe(true);
  });

  it("is read only when it is the user's own and nobody else may write it", () => {
    const dir = tempDir();
    const bundle = bundleOf(dir, `"ok"`, "eeee");
    const cache = path.join(dir, "cache");
    loadBundle(bundle, cache).save();
    const file = path.join(cache, cachesIn(cache)[0]!);
    expect(fs.statSync(cache).mode & 0o777).toBe(0o700);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(loadBundle(bundle, cache).cache).toBe("used");
    // Writable by the group or by others: another user could have put code in it.
    for (const mode of [0o620, 0o602]) {
      fs.chmodSync(file, mode);
      const loaded = loadBundle(bundle, cache);
      expect(loaded.cache, mode.toString(8)).toBe("missing");
      expect(loaded.exports).toMatchObject({ value: "ok" });
    }
    fs.chmodSync(file, 0o600);
    if (process.getuid?.() === 0) {
      // Someone else's (only root can make one here).
      fs.chownSync(file, 4242, 4242);
      expect(loadBundle(bundle, cache).cache).toBe("missing");
    }
  });

  it("a cache that cannot be written leaves the run alone", () => {
    const dir = tempDir();
    const bundle = bundleOf(dir, `"ok"`, "cccc");
    // A file where the cache folder should be: mkdir fails whoever runs the test (root ignores permissions).
    const blocked = path.join(dir, "not-a-dir");
    fs.writeFileSync(blocked, "");
    const loaded = loadBundle(bundle, path.join(blocked, "recover"));
    expect(loaded.exports).toMatchObject({ value: "ok" });
    expect(() => loaded.save()).not.toThrow();
    expect(fs.readdirSync(dir).sort()).toEqual(["main.cjs", "main.cjs.id", "not-a-dir"]);
  });

  it("lives in $XDG_CACHE_HOME/recover, else ~/.cache/recover; NODE_DISABLE_COMPILE_CACHE turns it off", () => {
    expect(cacheDirIn({ XDG_CACHE_HOME: "/x/cache", HOME: "/home/dana" })).toBe("/x/cache/recover");
    expect(cacheDirIn({ HOME: "/home/dana" })).toBe("/home/dana/.cache/recover");
    expect(cacheDirIn({})).toBeUndefined();
    expect(cacheDirIn({ HOME: "/home/dana", NODE_DISABLE_COMPILE_CACHE: "1" })).toBeUndefined();
    const dir = tempDir();
    const off = loadBundle(bundleOf(dir, `"ok"`, "dddd"), undefined);
    expect(off.cache).toBe("off");
    off.save();
    expect(fs.readdirSync(dir).sort()).toEqual(["main.cjs", "main.cjs.id"]);
  });

  it("bin/recover writes one cache on its first run, then prints the same with it", () => {
    const cacheHome = tempDir();
    const runBin = () =>
      spawnSync(process.execPath, [BIN, "session", "scan", "--all", "--store", path.resolve("fixtures/demo/claude")], {
        encoding: "utf8",
        env: childEnv({ XDG_CACHE_HOME: cacheHome }),
      });
    const first = runBin();
    const caches = cachesIn(path.join(cacheHome, "recover"));
    expect(caches).toEqual([`main.cjs-${fs.readFileSync("dist/main.cjs.id", "utf8").trim()}-${process.version}-${process.arch}.v8cache`]);
    const bytes = fs.readFileSync(path.join(cacheHome, "recover", caches[0]!));
    const second = runBin();
    expect([second.status, second.stdout, second.stderr]).toEqual([first.status, first.stdout, first.stderr]);
    expect(first.status).toBe(1);
    expect(fs.readFileSync(path.join(cacheHome, "recover", caches[0]!)).equals(bytes)).toBe(true);
  });
});
