// One real process per command and per store format: the CLI as a user starts it (bin/recover, its own argv,
// streams, environment and cwd) prints the same bytes and exits with the same code as main() called in-process,
// which most other tests use. Mutating commands run as a process on copies.
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { completedBattle, createPokeralphRepo, failedFeedbackBattle, removeFixture, type PokeralphFixture } from "../support/pokeralph-fixtures.js";
import { closedPort } from "../battle/fake-pokeralph.js";
import { parseJsonDocument, run, runProcess, tempDir, type RunOptions } from "./run.js";

const DEMO = path.resolve("fixtures/demo");
const STORES = { "opencode-sqlite": "opencode", "opencode-json": "opencode-legacy", claude: "claude", openclaw: "openclaw" } as const;

/** The same command in-process and as a process: same status, stdout and stderr. */
async function expectSameAsProcess(args: string[], options: RunOptions = {}): Promise<void> {
  const inProcess = await run(args, options);
  const spawned = runProcess(args, options);
  expect(spawned.signal).toBeNull();
  expect({ status: inProcess.status, stdout: inProcess.stdout, stderr: inProcess.stderr }).toEqual({
    status: spawned.status,
    stdout: spawned.stdout,
    stderr: spawned.stderr,
  });
}

/** A copy of a demo store, for the commands that change it. */
function copyOf(demo: string): string {
  const copy = path.join(tempDir(), demo);
  fs.cpSync(path.join(DEMO, demo), copy, { recursive: true });
  return copy;
}

describe.each(Object.entries(STORES))("a process on the %s demo store", (format, demo) => {
  const store = path.join(DEMO, demo);
  const env = () => ({ XDG_STATE_HOME: tempDir() });

  it("session list, scan (human and --json) and rules print what main() prints", async () => {
    const options = { env: env() };
    await expectSameAsProcess(["session", "list", "--json", "--store", store], options);
    await expectSameAsProcess(["session", "scan", "--all", "--json", "--store", store], options);
    await expectSameAsProcess(["session", "scan", "--exit-zero", "--store", store], options);
    await expectSameAsProcess(["--format", format, "session", "scan", "--all", "--store", store, "--json"], options);
  });

  it("session repair --dry-run and context trim --dry-run print what main() prints", async () => {
    const options = { env: env() };
    // A dry run mints fresh ids for the records it would insert: the same plan, not the same bytes.
    const repairArgs = ["session", "repair", "--all", "--dry-run", "--json", "--store", store];
    const [inProcess, spawned] = [await run(repairArgs, options), runProcess(repairArgs, options)];
    expect([inProcess.status, inProcess.stderr]).toEqual([spawned.status, spawned.stderr]);
    expect(parseJsonDocument(inProcess.stdout).summary).toEqual(parseJsonDocument(spawned.stdout).summary);
    // Only to find a session id: the listing as a process is the first test's check, in-process is enough here.
    const listed = parseJsonDocument((await run(["session", "list", "--json", "--store", store], options)).stdout) as { sessions: { id: string }[] };
    await expectSameAsProcess(["context", "trim", listed.sessions[0]!.id, "--limit", "1000", "--dry-run", "--json", "--store", store], options);
  });

  it("session repair --yes, session backups and session restore run as a process", () => {
    const copy = copyOf(demo);
    const options = { env: env() };
    const repaired = runProcess(["session", "repair", "--all", "--yes", "--json", "--store", copy], options);
    expect(repaired.status, repaired.stderr).not.toBe(2);
    const backup = (parseJsonDocument(repaired.stdout) as { backup?: { id: string } | null }).backup;
    const backups = runProcess(["session", "backups", "--json"], options);
    expect(backups.status, backups.stderr).toBe(0);
    if (!backup) return;
    expect(backups.stdout).toContain(backup.id);
    const restored = runProcess(["session", "restore", backup.id, "--yes", "--json"], options);
    expect(restored.status, restored.stderr).toBe(0);
  });
});

describe("a process on the other commands", () => {
  it("rules, explain and a usage error print what main() prints", async () => {
    await expectSameAsProcess(["rules"]);
    await expectSameAsProcess(["rules", "--json"]);
    await expectSameAsProcess(["explain", "messages.1.content.0: unexpected tool_use_id found in tool_result blocks"]);
    await expectSameAsProcess(["session", "scna"]);
    await expectSameAsProcess(["--help"]);
  });

  describe("on a pokeralph repository", () => {
    const fixtures: PokeralphFixture[] = [];
    afterAll(() => fixtures.forEach(removeFixture));
    const noServer = async () => ({ RECOVER_POKERALPH_URL: `http://127.0.0.1:${await closedPort()}`, XDG_STATE_HOME: tempDir() });

    it("battle status, resume (printed) and rollback --dry-run print what main() prints", async () => {
      const fx = await createPokeralphRepo();
      fixtures.push(fx);
      const failed = await failedFeedbackBattle(fx);
      await completedBattle(fx);
      const options = { cwd: fx.root, env: await noServer() };
      await expectSameAsProcess(["battle", "status", "--json"], options);
      await expectSameAsProcess(["battle", "status"], options);
      await expectSameAsProcess(["battle", "rollback", failed.taskId, "--iteration", "1", "--dry-run", "--json"], options);
      const resumed = runProcess(["battle", "resume", failed.taskId, "--json"], options);
      expect(resumed.status, resumed.stderr).toBe(0);
      const fixed = runProcess(["battle", "fix", failed.taskId, "--json"], options);
      expect(fixed.signal).toBeNull();
      expect(fixed.stderr).not.toMatch(/^\s+at /m);
    });

    it("checkpoint create, list and prune --dry-run run as a process", async () => {
      const fx = await createPokeralphRepo();
      fixtures.push(fx);
      const done = await completedBattle(fx);
      const options = { cwd: fx.root, env: await noServer() };
      const created = runProcess(["checkpoint", "create", done.taskId, "--json"], options);
      expect(created.status, created.stderr).toBe(0);
      await expectSameAsProcess(["checkpoint", "list", done.taskId, "--json"], options);
      const pruned = runProcess(["checkpoint", "prune", done.taskId, "--dry-run", "--json"], options);
      expect(pruned.signal).toBeNull();
      expect(pruned.stderr).not.toMatch(/^\s+at /m);
    });
  });
});
