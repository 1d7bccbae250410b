// Battle state recover cannot safely work on is refused, never a crash, never a change that cannot be undone. Found
// with the battle fuzz loop (test/harness/fuzz-battle.test.ts):
// - a damaged rollback archive (`rolledBack` in checkpoints.json) is a damaged sidecar: every command that reads it
//   (battle fix, battle rollback) stops with exit 2 and one line naming the entry, as for a damaged checkpoint entry,
//   and writes nothing; checkpoint list and create, which never read it, leave it as it is. A `null` entry made `battle fix` and a rollback to the safety checkpoint
//   end in an internal error ("Cannot read properties of null"), and an archive entry whose iterations were not
//   iterations would have been put back into history.json as they were;
// - a state file that is a symbolic link is refused (exit 3): a rollback replaced the link with a plain file, and
//   its undo could only put back a plain file holding what the link pointed at.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectJsonError, parseJsonDocument, run } from "../cli/run.js";
import { copyDir, copyProject, tempDir, worktreeBytes } from "../support/git-repo.js";
import { createPokeralphRepo, removeFixture, TASKS, timeoutBattle, writeProjectFile, type PokeralphFixture } from "../support/pokeralph-fixtures.js";
import { closedPort } from "./fake-pokeralph.js";

const TASK = TASKS.rateLimit.id;
const NO_SERVER = { RECOVER_POKERALPH_URL: `http://127.0.0.1:${await closedPort()}`, PORT: undefined };

let fx: PokeralphFixture;
let state: string;
let safetyRef: string;

/** A failed battle of two iterations, checkpointed after the first, rolled back to it once: its sidecar archives iteration 2. */
beforeAll(async () => {
  fx = await createPokeralphRepo();
  state = tempDir("recover-state-");
  await timeoutBattle(fx);
  const env = { ...NO_SERVER, XDG_STATE_HOME: state };
  expect((await run(["checkpoint", "create", TASK, "--iteration", "1", "--json", "--repo", fx.root], { env })).status).toBe(0);
  writeProjectFile(fx, "README.md", "# invoice-service\n\nEdited after the checkpoint.\n");
  const rolled = await run(["battle", "rollback", TASK, "--iteration", "2", "--yes", "--json", "--repo", fx.root], { env });
  expect(rolled.status, rolled.stdout).toBe(0);
  safetyRef = (parseJsonDocument(rolled.stdout).safety as { ref: string }).ref;
}, 60_000);

afterAll(() => removeFixture(fx));

const sidecarOf = (dir: string) => path.join(dir, ".pokeralph", "battles", TASK, "checkpoints.json");

/** A copy of the rolled-back battle whose archive `damage` changed (pokeralph's two-space JSON). */
async function damaged(damage: (archive: unknown[]) => void): Promise<{ dir: string; env: Record<string, string | undefined> }> {
  const dir = await copyProject(fx.root);
  const sidecar = JSON.parse(fs.readFileSync(sidecarOf(dir), "utf8")) as { rolledBack: unknown[] };
  damage(sidecar.rolledBack);
  fs.writeFileSync(sidecarOf(dir), `${JSON.stringify(sidecar, null, 2)}\n`);
  return { dir, env: { ...NO_SERVER, XDG_STATE_HOME: copyDir(state) } };
}

const DAMAGE: [string, (archive: unknown[]) => void, RegExp][] = [
  ["an entry that is null", (a) => (a[0] = null), /rolledBack\.0: .*expected object, received null/],
  ["an entry whose iterations are a string", (a) => ((a[0] as { iterations: unknown }).iterations = "x"), /rolledBack\.0\.iterations: .*expected array/],
  ["an archived iteration that is null", (a) => ((a[0] as { iterations: unknown[] }).iterations[0] = null), /rolledBack\.0\.iterations\.0: /],
  ["an entry without its target", (a) => delete (a[0] as { target?: unknown }).target, /rolledBack\.0\.target: /],
];

describe("a damaged rollback archive stops the commands that read it (fix, rollback), with exit 2 and one line", () => {
  it.each(DAMAGE)("%s", async (_name, damage, names) => {
    const { dir, env } = await damaged(damage);
    const before = worktreeBytes(dir);
    for (const args of [
      ["battle", "fix", TASK],
      ["battle", "rollback", TASK, "--to-checkpoint", safetyRef, "--dry-run"],
      ["battle", "rollback", TASK, "--to-checkpoint", safetyRef, "--yes"],
      ["battle", "rollback", TASK, "--iteration", "1", "--yes"],
    ]) {
      const result = await run([...args, "--json", "--repo", dir], { env });
      expect(result.status, `${args.join(" ")}: ${result.stdout}`).toBe(2);
      const error = expectJsonError(result, "store-corrupt");
      expect(error.message).toMatch(names);
      expect(error.message).toContain("checkpoints.json is not a checkpoint record");
    }
    expect(worktreeBytes(dir)).toEqual(before);
    // checkpoint list never reads the archive: it lists the checkpoints as before.
    const listed = await run(["checkpoint", "list", TASK, "--json", "--repo", dir], { env });
    expect(listed.status, listed.stdout).toBe(0);
    expect((parseJsonDocument(listed.stdout).checkpoints as unknown[]).length).toBeGreaterThan(0);
  });

  it("an intact archive still works: the rollback to the safety checkpoint brings iteration 2 back", async () => {
    const { dir, env } = await damaged(() => {});
    const result = await run(["battle", "rollback", TASK, "--to-checkpoint", safetyRef, "--yes", "--json", "--repo", dir], { env });
    expect(result.status, result.stdout).toBe(0);
    expect(parseJsonDocument(result.stdout).iterationsReinstated).toEqual([2]);
  });
});

describe("a state file that is a symbolic link is refused, and stays a link", () => {
  const linked = async (name: string) => {
    const { dir, env } = await damaged(() => {});
    const file = path.join(dir, ".pokeralph", "battles", TASK, name);
    fs.renameSync(file, `${file}.real`);
    fs.symlinkSync(`${name}.real`, file);
    return { dir, env, file };
  };

  it.each(["history.json", "checkpoints.json"])(
    "%s: rollback and its dry run (and checkpoint create, for the sidecar) exit 3; nothing changes",
    async (name) => {
      const { dir, env, file } = await linked(name);
      const before = worktreeBytes(dir);
      for (const args of [
        ["battle", "rollback", TASK, "--iteration", "1", "--dry-run"],
        ["battle", "rollback", TASK, "--iteration", "1", "--yes"],
        ["battle", "rollback", TASK, "--to-checkpoint", safetyRef, "--yes"],
        ...(name === "checkpoints.json" ? [["checkpoint", "create", TASK, "--iteration", "1"]] : []),
      ]) {
        const result = await run([...args, "--json", "--repo", dir], { env });
        expect(result.status, `${args.join(" ")}: ${result.stdout}`).toBe(3);
        expect(expectJsonError(result, "restore-conflict").message).toBe(
          `${file} is a symbolic link: recover replaces the file, which would put a plain file where the link is; replace the link with the file it points to, then retry; nothing was changed`,
        );
      }
      expect(fs.lstatSync(file).isSymbolicLink()).toBe(true);
      expect(worktreeBytes(dir)).toEqual(before);
    },
  );

  it("history.json made a link after a rollback: the undo is refused (exit 3), the link stays", async () => {
    const { dir, env } = await damaged(() => {});
    const rolled = await run(["battle", "rollback", TASK, "--to-checkpoint", safetyRef, "--yes", "--json", "--repo", dir], { env });
    expect(rolled.status, rolled.stdout).toBe(0);
    const file = path.join(dir, ".pokeralph", "battles", TASK, "history.json");
    fs.renameSync(file, `${file}.real`);
    fs.symlinkSync("history.json.real", file);
    const undo = await run(["battle", "rollback", TASK, "--undo", "--yes", "--json", "--repo", dir], { env });
    expect(undo.status, undo.stdout).toBe(3);
    expectJsonError(undo, "restore-conflict");
    expect(fs.lstatSync(file).isSymbolicLink()).toBe(true);
  });
});
