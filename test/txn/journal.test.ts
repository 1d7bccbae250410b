// The journal, deterministically: a repair that a crash left half applied (JSON tree: some files renamed, others
// not) is undone by the next command on the store, and one that completed is marked done. Real stores, the built
// CLI, and a manifest put back into the state a crash leaves it in.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { childEnv, run, snapshot, expectSameBytes, tempDir } from "../cli/run.js";
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

describe("journal (opencode JSON tree)", () => {
  it("undoes a repair a crash cut short, and says so", async () => {
    const { built, brokenId } = defectStore();
    const { store, readPath } = writeStore(built, "opencode-json");
    const state = tempDir();
    const env = { XDG_STATE_HOME: state };
    const before = snapshot(readPath);
    const repaired = await run(["session", "repair", brokenId, "--yes", "--store", store], { env });
    expect(repaired.status, repaired.stderr).toBe(0);
    const [id] = backupsOf(state);
    const manifest = JSON.parse(fs.readFileSync(manifestPath(state, id!), "utf8"));
    const changed = manifest.images.filter((i: { before: string | null; after: string | null }) => i.before !== i.after);
    expect(changed.length).toBeGreaterThan(2);
    // Half applied: the first changed file is back to its old bytes, the rest keep the new ones.
    const first = changed[0];
    const backupDir = path.dirname(manifestPath(state, id!));
    if (first.length !== undefined)
      fs.writeFileSync(first.key.path, fs.readFileSync(path.join(backupDir, "images.bin")).subarray(first.offset, first.offset + first.length));
    else fs.rmSync(first.key.path);
    fs.writeFileSync(`${first.key.path}.recover-tmp-123-deadbeef`, '{"half":');
    simulateCrash(state, id!, readPath);

    const scan = await run(["session", "scan", "--store", store, "--exit-zero"], { env });
    expect(scan.status).toBe(0);
    expect(scan.stderr).toMatch(new RegExp(`interrupted repair \\(backup ${id}\\) was rolled back`));
    const after = snapshot(readPath);
    // mtimes aside, every byte is the original again, and the temp file is gone.
    expectSameBytes(before, after);
    expect(JSON.parse(fs.readFileSync(manifestPath(state, id!), "utf8")).state).toBe("rolled-back");
    expect(fs.readdirSync(path.join(state, "recover", "journal"))).toEqual([]);
  });

  it("marks a repair that completed before the crash as done and leaves the store repaired", async () => {
    const { built, brokenId } = defectStore();
    const { store, readPath } = writeStore(built, "opencode-json");
    const state = tempDir();
    const env = { XDG_STATE_HOME: state };
    expect((await run(["session", "repair", brokenId, "--yes", "--store", store], { env })).status).toBe(0);
    const repaired = snapshot(readPath);
    const [id] = backupsOf(state);
    simulateCrash(state, id!, readPath);
    const list = await run(["session", "list", "--store", store], { env });
    expect(list.status).toBe(0);
    expect(list.stderr).toMatch(/had completed; it is now marked done/);
    expectSameBytes(repaired, snapshot(readPath));
    expect(JSON.parse(fs.readFileSync(manifestPath(state, id!), "utf8")).state).toBe("done");
  });

  it("stops with exit 3 when a record it would undo was changed by someone else since", async () => {
    const { built, brokenId } = defectStore();
    const { store, readPath } = writeStore(built, "opencode-json");
    const state = tempDir();
    const env = { XDG_STATE_HOME: state };
    const original = snapshot(readPath);
    expect((await run(["session", "repair", brokenId, "--yes", "--store", store], { env })).status).toBe(0);
    const [id] = backupsOf(state);
    const manifest = JSON.parse(fs.readFileSync(manifestPath(state, id!), "utf8"));
    const part = manifest.images.find((i: { key: { record: string } }) => i.key.record === "part");
    fs.writeFileSync(part.key.path, '{"someone":"else"}');
    simulateCrash(state, id!, readPath);
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
  });
});
