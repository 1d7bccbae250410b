// What a killed recover leaves outside the store (src/txn/leftovers.ts): a backup folder it had not finished (its
// images, a manifest temp file, no manifest) and temp files in its state dir. `session backups` lists such a folder
// as incomplete and `--prune` removes it; the next repair removes it on its own. A folder whose writer is alive is
// being written right now: listed, never removed. Runs the built CLI (npm run build first).
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { parseJsonDocument } from "../cli/run.js";
import { deadPid, sandbox, writeTestStore, type Sandbox } from "../cli/repair-support.js";
import { defectStore } from "../cli/stores.js";
import { runCli } from "../harness/crash-support.js";

const TEMP_MARKER = ".recover-tmp-";

const ID = "20261101T120000Z-0badc0";

/**
 * A backup as a recover killed while writing its manifest leaves it (in the temp folder named with its pid that is
 * renamed to its id once whole), and a journal temp file of the same run.
 */
function killedRunLeftovers(sb: Sandbox, pid: number): { folder: string; journalTemp: string } {
  const folder = path.join(sb.backups, `.${ID}${TEMP_MARKER}${pid}-1a2b3c4d`);
  fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
  fs.writeFileSync(path.join(folder, "images.bin"), Buffer.alloc(64 * 1024, 7));
  fs.writeFileSync(path.join(folder, `.manifest.json${TEMP_MARKER}${pid}-1a2b3c4d`), '{"schemaVersion":1,"id":"20261101T');
  const journal = path.join(sb.state, "journal");
  fs.mkdirSync(journal, { recursive: true });
  const journalTemp = path.join(journal, `.0123456789abcdef01234567.json${TEMP_MARKER}${pid}-5e6f7a8b`);
  fs.writeFileSync(journalTemp, '{"backup":');
  // Killed a minute ago.
  const then = new Date(Date.now() - 60_000);
  for (const f of [journalTemp, ...fs.readdirSync(folder).map((n) => path.join(folder, n)), folder]) fs.utimesSync(f, then, then);
  return { folder, journalTemp };
}

function tempsUnder(dir: string): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.includes(TEMP_MARKER)) found.push(p);
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return found;
}

describe("a killed run's leftovers", () => {
  it("`session backups` lists its backup as incomplete; --prune removes it, whatever its age", async () => {
    const sb = sandbox();
    const { folder } = killedRunLeftovers(sb, deadPid());
    const listed = parseJsonDocument((await sb.run(["session", "backups", "--json"])).stdout) as { backups: unknown[]; incomplete?: unknown[] };
    expect(listed.backups).toEqual([]);
    expect(listed.incomplete).toEqual([{ id: ID, createdAt: expect.any(String), state: "incomplete", orphaned: true, path: folder }]);
    const human = await sb.run(["session", "backups"]);
    expect(human.stdout).toContain(`incomplete backup ${ID} (left by a recover that was killed; \`--prune\` removes it): ${folder}`);

    const pruned = await sb.run(["session", "backups", "--prune", "--older-than", "30", "--yes"]);
    expect(pruned.status, pruned.stderr).toBe(0);
    expect(pruned.stdout).toBe(`pruned 1 backup: ${ID} (incomplete)\n`);
    expect(fs.existsSync(folder)).toBe(false);
  });

  it("the next repair removes the orphaned backup and the state dir's temp files", async () => {
    const sb = sandbox();
    const { folder, journalTemp } = killedRunLeftovers(sb, deadPid());
    const store = writeTestStore(defectStore().built, "opencode-json");
    const r = await sb.run(["session", "repair", "--all", "--yes", "--store", store.store]);
    expect(r.status, r.stderr).toBe(0);
    expect(fs.existsSync(folder)).toBe(false);
    expect(fs.existsSync(journalTemp)).toBe(false);
    // Its own backup is there, whole.
    const left = fs.readdirSync(sb.backups);
    expect(left).toHaveLength(1);
    expect(fs.existsSync(path.join(sb.backups, left[0]!, "manifest.json"))).toBe(true);
  });

  it("a backup whose writer is alive is being written: listed as such, never removed", async () => {
    const sb = sandbox();
    // A live process stands in for a recover still writing its backup.
    const writer = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60_000)"], { stdio: "ignore" });
    onTestFinished(() => {
      writer.kill("SIGKILL");
    });
    const { folder, journalTemp } = killedRunLeftovers(sb, writer.pid!);
    const listed = parseJsonDocument((await sb.run(["session", "backups", "--json"])).stdout) as { incomplete?: { orphaned: boolean }[] };
    expect(listed.incomplete?.map((b) => b.orphaned)).toEqual([false]);
    const store = writeTestStore(defectStore().built, "opencode-json");
    expect((await sb.run(["session", "repair", "--all", "--yes", "--store", store.store])).status).toBe(0);
    expect((await sb.run(["session", "backups", "--prune", "--older-than", "1", "--yes"])).status).toBe(0);
    expect(fs.existsSync(folder)).toBe(true);
    expect(fs.existsSync(journalTemp)).toBe(true);
  });

  it("a real run SIGKILLed while it writes its backup: after the next repair no incomplete backup or temp file is left", async () => {
    const sb = sandbox();
    const store = writeTestStore(defectStore().built, "opencode-json");
    const killed = await runCli(["session", "repair", "--all", "--yes", "--store", store.store], sb.stateHome, { anchor: "backup", delayMs: 0 });
    expect(killed.signal === "SIGKILL" || killed.status === 0).toBe(true);
    const r = await sb.run(["session", "repair", "--all", "--yes", "--store", store.store]);
    expect([0, 1]).toContain(r.status);
    // Only whole backups are left: no temp folder, every folder with its manifest.
    for (const id of fs.existsSync(sb.backups) ? fs.readdirSync(sb.backups) : []) {
      expect(id.startsWith("."), `${id} is no temp folder`).toBe(false);
      expect(fs.existsSync(path.join(sb.backups, id, "manifest.json")), `${id} is whole`).toBe(true);
    }
    expect(tempsUnder(sb.stateHome), JSON.stringify(killed.milestones)).toEqual([]);
    const listed = parseJsonDocument((await sb.run(["session", "backups", "--json"])).stdout);
    expect(listed.incomplete).toBeUndefined();
  });
});
