// `npm run demo:battle` (scripts/demo-battle.mjs) as a user runs it: a real node process that bundles
// scripts/demo-battle-entry.ts with esbuild and builds a throw-away pokeralph repository. The repository must show
// what the demo promises through the built CLI, and every command it prints must run when pasted into a shell.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { childEnv, expectNoStack, expectSameBytes, parseJsonDocument, run, snapshot, tempDir } from "../cli/run.js";
import { closedPort } from "./fake-pokeralph.js";
import { spawnCollect } from "./run-async.js";

// recover's state (the checkpoint's backup, locks) in a temp dir, never the developer's; and never the developer's
// own pokeralph on 3456: the server probe gets a port nothing listens on.
const state = tempDir();
const env = { XDG_STATE_HOME: state, RECOVER_POKERALPH_URL: `http://127.0.0.1:${await closedPort()}`, PORT: undefined };
const demo = (dir: string, extra: Record<string, string> = {}) =>
  spawnCollect(process.execPath, [path.resolve("scripts/demo-battle.mjs"), dir], { env: childEnv({ ...env, ...extra }) });

describe("npm run demo:battle", () => {
  it("builds a repository with a crashed battle, a recorded checkpoint and a stale ralph loop; every printed command runs", async () => {
    const dir = tempDir();
    const result = await demo(dir);
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    const root = fs.realpathSync(dir);
    expect(result.stdout).toContain(`Demo pokeralph repository: ${root}\n`);

    const status = await run(["battle", "status", "--json", "--repo", root], { env });
    expect(status.status).toBe(1);
    const doc = parseJsonDocument(status.stdout) as {
      battles: { taskId: string; status: string; failure: { type: string } | null; findings: { rule: string }[] }[];
    };
    // Only the pokeralph battles: other entries (the ralph loop, once status reports it) may come too.
    const pokeralph = doc.battles.filter((b) => /^00\d-/.test(b.taskId));
    expect(pokeralph.map((b) => [b.taskId, b.status, b.failure?.type ?? null])).toEqual([
      ["001-project-setup", "completed", null],
      ["002-auth-system", "running", "crash"],
      ["003-invoice-pdf", "failed", "feedback_failure"],
    ]);
    expect(pokeralph[1]!.findings.map((f) => f.rule)).toContain("battle-crashed");

    const list = await run(["checkpoint", "list", "002-auth-system", "--json", "--repo", root], { env });
    expect(list.status).toBe(0);
    const { checkpoints } = parseJsonDocument(list.stdout) as { checkpoints: { source: string; afterIteration: number; ref?: string }[] };
    expect(checkpoints.filter((c) => c.source === "recorded")).toEqual([
      expect.objectContaining({ afterIteration: 3, ref: "refs/pokeralph/checkpoints/002-auth-system/3" }),
    ]);

    const ralph = fs.readFileSync(path.join(root, ".claude/ralph-loop.local.md"), "utf8");
    expect(ralph).toMatch(/^---\nactive: true\niteration: 7\nmax_iterations: 20\ncompletion_promise: "DONE"\n/);
    expect(ralph).toMatch(/\nstarted_at: "\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"\n---\n\nMake the invoice PDF tests pass\./);

    const commands = result.stdout
      .split("\n")
      .filter((line) => line.startsWith("  node "))
      .map((line) => line.trim());
    expect(commands.map((c) => c.replace(/^node \S+ /, "").replace(/ --repo \S+$/, ""))).toEqual([
      "battle status",
      "checkpoint list 002-auth-system",
      "battle rollback 002-auth-system --iteration 3 --dry-run",
      "battle resume 002-auth-system",
      "battle fix 002-auth-system",
    ]);
    for (const command of commands) {
      // From another directory: the commands must not depend on the cwd they are pasted in.
      const pasted = await spawnCollect("bash", ["-c", `cd / && ${command}`], { env: childEnv(env) });
      expectNoStack(pasted.stderr);
      expect([0, 1], `${command} exited ${pasted.status}: ${pasted.stderr}`).toContain(pasted.status);
    }
  }, 60_000);

  it("refuses a directory that is not empty: exit 2, one line on stderr, nothing written", async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, "notes.txt"), "mine\n");
    const before = snapshot(dir);
    const ownState = tempDir();
    const result = await demo(dir, { XDG_STATE_HOME: ownState });
    expect(result.status).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr.trimEnd().split("\n")).toEqual([expect.stringMatching(/is not empty/)]);
    expectSameBytes(before, snapshot(dir));
    expect(fs.readdirSync(ownState)).toEqual([]);
  });
});
