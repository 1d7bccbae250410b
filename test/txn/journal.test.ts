// The journal, deterministically: a repair that a crash left half applied (JSON tree: some files renamed, others
// not) is undone by the next command on the store, and one that completed is marked done. Real stores, the built
// CLI, and a manifest put back into the state a crash leaves it in.
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BIN, childEnv, run, snapshot, expectSameBytes, tempDir } from "../cli/run.js";
import { defectStore, writeStore } from "../cli/stores.js";

function backupsOf(state: string): string[] {
  const root = path.join(state, "recover", "backups");
  return fs.existsSync(root) ? fs.readdirSync(root).sort() : [];
}

function manifestPath(state: string, id: string): string {
  return path.join(state, "recover", "backups", id, "manifest.json");
}

/** Put a finished repair back into the state a crash leaves: manifest `applying`, journal pointing at it. */
function simulateCrash(state: string, id: string, storePath: string): void {
  const file = manifestPath(state, id);
  const manifest = JSON.parse(fs.readFileSync(file, "utf8"));
  manifest.state = "applying";
  fs.writeFileSync(file, JSON.stringify(manifest, null, 2));
  const journal = path.join(state, "recover", "journal");
  fs.mkdirSync(journal, { recursive: true });
  // The pointer is named by the store's key (src/txn/lock.ts): sha256 of the store's real path.
  fs.writeFileSync(path.join(journal, `${storeKeyOf(storePath)}.json`), JSON.stringify({ backup: path.dirname(file), store: storePath }));
}

function storeKeyOf(storePath: string): string {
  return createHash("sha256").update(fs.realpathSync(storePath)).digest("hex").slice(0, 24);
}

/**
 * A repair a crash cut short (JSON tree), then one of its parts rewritten by someone else: settling it must refuse.
 */
async function interruptedUnderAStranger() {
  const { built, brokenId } = defectStore();
  const { store, readPath } = writeStore(built, "opencode-json");
  const state = tempDir();
  const env = { XDG_STATE_HOME: state };
  const original = snapshot(readPath);
  expect((await run(["session", "repair", brokenId, "--yes", "--store", store], { env })).status).toBe(0);
  const id = backupsOf(state)[0]!;
  const manifest = JSON.parse(fs.readFileSync(manifestPath(state, id), "utf8"));
  const part: { key: { id: string; path: string } } = manifest.images.find((i: { key: { record: string } }) => i.key.record === "part");
  fs.writeFileSync(part.key.path, '{"someone":"else"}');
  simulateCrash(state, id, readPath);
  return { store, readPath, state, env, original, id, part };
}

describe("journal (opencode JSON tree)", () => {
  it("undoes a repair a crash cut short, and says so", async () => {
    const { built, brokenId } = defectStore();
    const { store, readPath } = writeStore(built, "opencode-json");
    const state = tempDir();
    const env = { XDG_STATE_HOME: state };
    const before = snapshot(readPath);
    const repaired = await run(["session", "repair", brokenId, "--yes", "--store", store], { env });
    expect(repaired.status, repaired.stderr).toBe(0);
    const id = backupsOf(state)[0]!;
    const manifest = JSON.parse(fs.readFileSync(manifestPath(state, id), "utf8"));
    const changed = manifest.images.filter((i: { before: string | null; after: string | null }) => i.before !== i.after);
    expect(changed.length).toBeGreaterThan(2);
    // Half applied: the first changed file is back to its old bytes, the rest keep the new ones.
    const first = changed[0];
    const backupDir = path.dirname(manifestPath(state, id));
    if (first.length !== undefined)
      fs.writeFileSync(first.key.path, fs.readFileSync(path.join(backupDir, "images.bin")).subarray(first.offset, first.offset + first.length));
    else fs.rmSync(first.key.path);
    fs.writeFileSync(`${first.key.path}.recover-tmp-123-deadbeef`, '{"half":');
    simulateCrash(state, id, readPath);

    const scan = await run(["session", "scan", "--store", store, "--exit-zero"], { env });
    expect(scan.status).toBe(0);
    expect(scan.stderr).toMatch(new RegExp(`interrupted repair \\(backup ${id}\\) was rolled back`));
    const after = snapshot(readPath);
    // mtimes aside, every byte is the original again, and the temp file is gone.
    expectSameBytes(before, after);
    expect(JSON.parse(fs.readFileSync(manifestPath(state, id), "utf8")).state).toBe("rolled-back");
    expect(fs.readdirSync(path.join(state, "recover", "journal"))).toEqual([]);
  });

  it("marks a repair that completed before the crash as done and leaves the store repaired", async () => {
    const { built, brokenId } = defectStore();
    const { store, readPath } = writeStore(built, "opencode-json");
    const state = tempDir();
    const env = { XDG_STATE_HOME: state };
    expect((await run(["session", "repair", brokenId, "--yes", "--store", store], { env })).status).toBe(0);
    const repaired = snapshot(readPath);
    const id = backupsOf(state)[0]!;
    simulateCrash(state, id, readPath);
    const list = await run(["session", "list", "--store", store], { env });
    expect(list.status).toBe(0);
    expect(list.stderr).toMatch(/had completed; it is now marked done/);
    expectSameBytes(repaired, snapshot(readPath));
    expect(JSON.parse(fs.readFileSync(manifestPath(state, id), "utf8")).state).toBe("done");
  });

  it("stops with exit 3 when a record it would undo was changed by someone else since", async () => {
    const { store, state, env, original, id, part } = await interruptedUnderAStranger();
    const scan = await run(["session", "scan", "--store", store], { env });
    expect(scan.status).toBe(3);
    expect(scan.stderr).toMatch(new RegExp(`repair ${id} was interrupted and part ${part.key.id} changed since`));
    expect(fs.readFileSync(part.key.path, "utf8")).toBe('{"someone":"else"}');
    // The way out it names works when pasted (the program as started, the store flags; --yes, as no terminal asks
    // here): it is not refused by the same settling, the part before the repair comes back in place of the
    // stranger's bytes (which the restore backs up first), and the store is no longer stuck.
    const pasted = /\(run `([^`]+)` to put back what was there before it, once you have looked\)/.exec(scan.stderr)?.[1];
    expect(pasted, scan.stderr).toBe(`recover session restore ${id} --force --store ${store}`);
    const restored = spawnSync("bash", ["-c", `${pasted} --yes`], { env: childEnv(env), encoding: "utf8" });
    expect(restored.status, restored.stderr).toBe(0);
    expect(fs.readFileSync(part.key.path)).toEqual(original.get(part.key.path));
    expect((await run(["session", "scan", "--store", store], { env })).status).not.toBe(3);
    // The repair is settled by the restore that resolved it: rolled back, not left "applying" for good (which
    // `session backups` would show as in flight and --prune would never take), and the journal is empty.
    expect(JSON.parse(fs.readFileSync(manifestPath(state, id), "utf8")).state).toBe("rolled-back");
    expect(fs.readdirSync(path.join(state, "recover", "journal"))).toEqual([]);
  });

  it("a forced restore killed while it applies leaves that repair unfinished, never forgotten", async () => {
    // A real process, SIGKILLed as soon as its own journal entry replaces the repair's; wherever the kill lands,
    // either the restore completed (the part is back) or the repair is unfinished again: the next command refuses
    // with the same way out, and that way out still works. Before, the restore's entry replaced the repair's for
    // good: killed, it was rolled back and the store was left half repaired with nothing in the journal.
    const landed = new Set<string>();
    for (let trial = 0; trial < 4 && !landed.has("cut short"); trial++) {
      const { store, readPath, state, env, original, id, part } = await interruptedUnderAStranger();
      const entryFile = path.join(state, "recover", "journal", `${storeKeyOf(readPath)}.json`);
      const repairDir = path.dirname(manifestPath(state, id));

      const child = spawn(process.execPath, [BIN, "session", "restore", id, "--force", "--yes", "--store", store], { env: childEnv(env), stdio: "ignore" });
      const exited = new Promise<void>((resolve) => child.on("close", () => resolve()));
      const watch = setInterval(() => {
        let entry: { backup?: string } = {};
        try {
          entry = JSON.parse(fs.readFileSync(entryFile, "utf8"));
        } catch {}
        if (entry.backup !== undefined && entry.backup !== repairDir) child.kill("SIGKILL");
      }, 0);
      await exited;
      clearInterval(watch);
      const restoreDir = backupsOf(state).find((b) => b !== id);
      const restoreState = restoreDir && JSON.parse(fs.readFileSync(manifestPath(state, restoreDir), "utf8")).state;

      const scan = await run(["session", "scan", "--store", store], { env });
      if (restoreState === "done" || fs.readFileSync(part.key.path).equals(original.get(part.key.path)!)) {
        landed.add("completed");
        expect(scan.status, scan.stderr).not.toBe(3);
        expect(fs.readFileSync(part.key.path)).toEqual(original.get(part.key.path));
        expect(JSON.parse(fs.readFileSync(manifestPath(state, id), "utf8")).state).toBe("rolled-back");
        continue;
      }
      landed.add("cut short");
      expect(scan.status, scan.stderr).toBe(3);
      expect(scan.stderr).toMatch(new RegExp(`repair ${id} was interrupted and part ${part.key.id} changed since`));
      const pasted = /\(run `([^`]+)` to put back/.exec(scan.stderr)?.[1];
      const again = spawnSync("bash", ["-c", `${pasted} --yes`], { env: childEnv(env), encoding: "utf8" });
      expect(again.status, again.stderr).toBe(0);
      expect(fs.readFileSync(part.key.path)).toEqual(original.get(part.key.path));
      expect((await run(["session", "scan", "--store", store], { env })).status).not.toBe(3);
      expect(JSON.parse(fs.readFileSync(manifestPath(state, id), "utf8")).state).toBe("rolled-back");
    }
    expect([...landed], "no kill landed before the restore completed").toContain("cut short");
  });
});
