// Shell completion, run the way a user's shell runs it: the script `recover completion bash` prints is sourced by a
// real bash, which is then asked to complete command lines (COMP_WORDS / COMP_CWORD, the completion function), and
// the candidates are what bash would offer: commands, session ids of the demo store, the id of a real backup for
// `session restore`. The rest of what `recover __complete` answers (options, --format values, task ids of a real
// pokeralph repository) is asked in-process: the same answer without a bash and two node starts per word.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createPokeralphRepo, failedFeedbackBattle, removeFixture, timeoutBattle, type PokeralphFixture } from "../support/pokeralph-fixtures.js";
import { BIN, childEnv, parseJsonDocument, run, tempDir } from "./run.js";

const DEMO = path.resolve("fixtures/demo/opencode");
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const fixtures: PokeralphFixture[] = [];
afterAll(() => fixtures.forEach(removeFixture));

/** What bash offers after `recover <words…>` (the last word is the one being completed). */
function bash(words: string[], options: { cwd?: string; env?: Record<string, string> } = {}): string[] {
  const all = ["recover", ...words];
  const script = [
    `source <(${quote(process.execPath)} ${quote(BIN)} completion bash)`,
    `complete -p recover >/dev/null || exit 9`,
    `COMP_WORDS=(${all.map(quote).join(" ")}); COMP_CWORD=${all.length - 1}`,
    "_recover_complete",
    `printf '%s\\n' "\${COMPREPLY[@]}"`,
  ].join("\n");
  const result = spawnSync("bash", ["-c", script], { cwd: options.cwd ?? process.cwd(), env: childEnv(options.env ?? {}), encoding: "utf8" });
  expect(result.status, result.stderr).toBe(0);
  return result.stdout.split("\n").filter((l) => l !== "");
}

/** What `recover __complete` answers for `recover <words…>`, in-process. */
async function answer(words: string[], options: { cwd?: string } = {}): Promise<string[]> {
  const r = await run(["__complete", "--", ...words], options);
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.split("\n").filter((l) => l !== "");
}

describe("recover completion bash, run by bash", () => {
  it("commands and subcommands", () => {
    expect(bash(["se"])).toEqual(["session"]);
    expect(bash(["session", "re"]).sort()).toEqual(["repair", "restore", "resume"]);
  });

  it("what __complete answers: options, --format values, nothing for a path", async () => {
    expect(await answer([""])).toEqual(expect.arrayContaining(["session", "battle", "checkpoint", "completion", "rules"]));
    expect(await answer([""])).not.toContain("__complete");
    expect(await answer(["session", "scan", "--for"])).toEqual(["--format"]);
    expect(await answer(["battle", "rollback", "--un"])).toEqual(["--undo"]);
    expect((await answer(["session", "scan", "--format", "o"])).sort()).toEqual(["openclaw", "openclaw-sqlite", "opencode-json", "opencode-sqlite"]);
    // A path: nothing from recover, so bash completes file names (-o default).
    expect(await answer(["session", "scan", "--store", ""])).toEqual([]);
  });

  it("session ids of the store the line names, backup ids for restore", async () => {
    const listed = parseJsonDocument((await run(["session", "list", "--json", "--store", DEMO])).stdout) as { sessions: { id: string }[] };
    const ids = listed.sessions.map((s) => s.id);
    expect(ids.length).toBeGreaterThan(1);
    expect(bash(["--store", DEMO, "session", "repair", ""]).sort()).toEqual([...ids].sort());
    expect(await answer(["session", "scan", "--store", DEMO, ids[0]!.slice(0, 12)])).toContain(ids[0]);

    // A real backup: a repair of a copy of the demo store.
    const state = tempDir();
    const copy = tempDir();
    fs.cpSync(DEMO, copy, { recursive: true });
    const repaired = await run(["session", "repair", "--all", "--yes", "--json", "--store", copy], { env: { XDG_STATE_HOME: state } });
    expect([0, 1]).toContain(repaired.status);
    const backups = fs.readdirSync(path.join(state, "recover", "backups")).filter((d) => !d.startsWith("."));
    expect(backups.length).toBeGreaterThan(0);
    expect(bash(["session", "restore", ""], { env: { XDG_STATE_HOME: state } }).sort()).toEqual([...backups].sort());
  });

  it("battle task ids of the pokeralph project around the working directory", async () => {
    const fx = await createPokeralphRepo();
    fixtures.push(fx);
    await failedFeedbackBattle(fx);
    await timeoutBattle(fx);
    expect((await answer(["battle", "rollback", ""], { cwd: fx.root })).sort()).toEqual(["003-invoice-pdf", "004-rate-limiting"]);
    expect((await answer(["checkpoint", "list", "00"], { cwd: path.join(fx.root, "src") })).sort()).toEqual(["003-invoice-pdf", "004-rate-limiting"]);
  });

  it("prints a script for zsh and fish too; an unknown shell is a usage error", async () => {
    for (const shell of ["zsh", "fish"]) {
      const printed = await run(["completion", shell]);
      expect(printed.status).toBe(0);
      expect(printed.stdout).toContain("__complete --");
    }
    expect((await run(["completion", "tcsh"])).status).toBe(2);
  });

  it("--json: one document, the same script in its field", async () => {
    const plain = await run(["completion", "bash"]);
    const doc = parseJsonDocument((await run(["completion", "bash", "--json"])).stdout);
    expect(doc).toMatchObject({ schemaVersion: 1, shell: "bash", script: plain.stdout });
  });
});
