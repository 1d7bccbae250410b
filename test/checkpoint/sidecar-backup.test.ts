// A checkpoint's sidecar (checkpoints.json) is written like any change recover makes to a store: its
// before-image is backed up first, the write is one transaction, and `session restore <backup-id>` undoes it.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createCheckpoint } from "../../src/checkpoint/create.js";
import { applyPrune, DEFAULT_RETENTION, planPrune } from "../../src/checkpoint/prune.js";
import { updateSidecar } from "../../src/checkpoint/sidecar.js";
import { listBackups } from "../../src/txn/backup-store.js";
import { run } from "../cli/run.js";
import { battleFile, makeProject, stateDir, TASK, write } from "../support/git-repo.js";

describe("checkpoint sidecar writes are backed up and undoable", () => {
  it("the first checkpoint backs up an absent sidecar; the second its previous bytes; restore puts them back", async () => {
    const { dir } = await makeProject({ clean: true });
    // recover's state dir as the CLI finds it from XDG_STATE_HOME, so that the built CLI can restore below.
    const home = stateDir();
    const state = path.join(home, "recover");
    const backups = path.join(state, "backups");
    const sidecar = battleFile(dir, "checkpoints.json");

    await createCheckpoint(dir, { taskId: TASK, stateDir: state });
    const first = fs.readFileSync(sidecar);
    const [created] = listBackups(backups);
    expect(created!.manifest.state).toBe("done");
    expect(created!.manifest.store).toEqual({ format: "pokeralph-battle", path: path.dirname(sidecar) });
    expect(created!.manifest.sessions).toEqual([TASK]);
    expect(created!.manifest.changes).toEqual([
      { op: "insert", record: "file", id: `.pokeralph/battles/${TASK}/checkpoints.json`, sessionId: TASK, rules: ["checkpoint-create"] },
    ]);
    expect(created!.manifest.images[0]!.before).toBeNull();

    write(dir, "src/index.ts", "// later\n");
    await createCheckpoint(dir, { taskId: TASK, stateDir: state });
    const second = listBackups(backups).at(-1)!;
    expect(second.manifest.changes[0]!.op).toBe("update");
    expect(JSON.parse(fs.readFileSync(sidecar, "utf8")).checkpoints).toHaveLength(2);

    const restored = await run(["session", "restore", second.manifest.id, "--yes"], { env: { XDG_STATE_HOME: home } });
    expect(restored.status, restored.stderr).toBe(0);
    expect(fs.readFileSync(sidecar).equals(first)).toBe(true);
  });

  it("a checkpoint prune backs up the entries it drops; --backup-dir sends the backup elsewhere", async () => {
    const { dir } = await makeProject({ clean: true });
    const state = stateDir();
    const elsewhere = path.join(stateDir(), "elsewhere");
    const sidecar = battleFile(dir, "checkpoints.json");
    const old = Date.now() - 30 * 24 * 60 * 60 * 1000;
    await createCheckpoint(dir, { taskId: TASK, stateDir: state, now: () => new Date(old) });
    write(dir, "src/index.ts", "// later\n");
    await createCheckpoint(dir, { taskId: TASK, stateDir: state });
    const before = fs.readFileSync(sidecar);
    const plan = await planPrune(dir, TASK, { ...DEFAULT_RETENTION, maxCheckpoints: 1 });
    expect(plan.remove).toHaveLength(1);
    await applyPrune(dir, plan, state, elsewhere);
    const [pruned] = listBackups(elsewhere);
    expect(pruned!.manifest.changes[0]).toMatchObject({ op: "update", rules: ["checkpoint-prune"] });
    expect(JSON.parse(fs.readFileSync(sidecar, "utf8")).checkpoints).toHaveLength(1);
    expect(fs.readFileSync(sidecar).equals(before)).toBe(false);
  });

  it("a change that leaves the sidecar's bytes as they were writes nothing and takes no backup", async () => {
    const { dir } = await makeProject({ clean: true });
    const state = stateDir();
    await createCheckpoint(dir, { taskId: TASK, stateDir: state });
    const sidecar = battleFile(dir, "checkpoints.json");
    const bytes = fs.readFileSync(sidecar);
    const mtime = fs.statSync(sidecar).mtimeMs;
    expect(listBackups(path.join(state, "backups"))).toHaveLength(1);
    expect(await updateSidecar(sidecar, TASK, (s) => s.checkpoints.length, { rule: "test", stateDir: state })).toBe(1);
    expect(listBackups(path.join(state, "backups"))).toHaveLength(1);
    expect(fs.readFileSync(sidecar).equals(bytes)).toBe(true);
    expect(fs.statSync(sidecar).mtimeMs).toBe(mtime);
  });
});
