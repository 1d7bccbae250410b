// recover's own folders follow the XDG Base Directory spec, which says a relative path in its variables is invalid
// and to be ignored. Taken as it is, a relative XDG_STATE_HOME put a repair's backup under the folder the repair ran
// in, where `session restore` run from anywhere else did not find it; a relative XDG_CACHE_HOME put a code cache there.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cacheDirIn } from "../../src/launch/compile-cache.js";
import { stateDir } from "../../src/txn/state-dir.js";
import { parseJsonDocument, runProcess, tempDir } from "./run.js";

/** Every file under `dir`, by relative path, with its bytes. */
function filesOf(dir: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) {
      const full = path.join(entry.parentPath, entry.name);
      files.set(path.relative(dir, full), fs.readFileSync(full));
    }
  }
  return files;
}

describe("recover's state and cache folders", () => {
  it("take an absolute XDG_STATE_HOME / XDG_CACHE_HOME, and ignore a relative one for the default under HOME", () => {
    expect(stateDir({ XDG_STATE_HOME: "/x/state", HOME: "/home/dana" })).toBe("/x/state/recover");
    expect(stateDir({ XDG_STATE_HOME: "state", HOME: "/home/dana" })).toBe("/home/dana/.local/state/recover");
    expect(stateDir({ XDG_STATE_HOME: "./state", HOME: "/home/dana" })).toBe("/home/dana/.local/state/recover");
    expect(stateDir({ XDG_STATE_HOME: "", HOME: "/home/dana" })).toBe("/home/dana/.local/state/recover");
    expect(cacheDirIn({ XDG_CACHE_HOME: "cache", HOME: "/home/dana" })).toBe("/home/dana/.cache/recover");
    expect(cacheDirIn({ XDG_CACHE_HOME: "/x/cache", HOME: "/home/dana" })).toBe("/x/cache/recover");
  });

  it("with relative ones, a repair writes nothing where it runs, and restore from another folder puts every byte back", () => {
    const home = tempDir();
    const here = tempDir();
    const elsewhere = tempDir();
    const store = path.join(tempDir(), "claude");
    fs.cpSync(path.resolve("fixtures/demo/claude"), store, { recursive: true });
    // An hour old: a transcript written seconds ago may belong to a running agent, and repair refuses it.
    const old = new Date(Date.now() - 3_600_000);
    for (const entry of fs.readdirSync(store, { recursive: true })) fs.utimesSync(path.join(store, String(entry)), old, old);
    const before = filesOf(store);
    const env = { HOME: home, XDG_STATE_HOME: "state", XDG_CACHE_HOME: "cache" };

    const repaired = runProcess(["session", "repair", "--all", "--yes", "--json", "--store", store], { env, cwd: here });
    expect(repaired.status, repaired.stderr).toBe(0);
    const backup = (parseJsonDocument(repaired.stdout) as { backup?: { id: string } | null }).backup;
    expect(backup).toBeTruthy();
    expect(filesOf(store)).not.toEqual(before);
    expect(fs.readdirSync(here)).toEqual([]);
    expect(fs.existsSync(path.join(home, ".local", "state", "recover", "backups", backup!.id))).toBe(true);
    expect(fs.readdirSync(path.join(home, ".cache", "recover")).some((f) => f.endsWith(".v8cache"))).toBe(true);

    const restored = runProcess(["session", "restore", backup!.id, "--yes", "--json"], { env, cwd: elsewhere });
    expect(restored.status, restored.stderr).toBe(0);
    expect(filesOf(store)).toEqual(before);
    expect(fs.readdirSync(elsewhere)).toEqual([]);
  });
});
