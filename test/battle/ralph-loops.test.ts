// Stale loop state of Claude Code's ralph-loop plugin, on real git repositories built by the fixture builder: the
// state file written the way the plugin's setup script writes it (YAML front matter, then the prompt), a HOME
// holding the session's transcript, and a real process standing in for a running session (its command line names
// the session id, as `claude --resume <id>` does). `battle status` lists the loops and reports a stale one (exit 1);
// `battle fix --clear-stale` sets it inactive through a backed-up transaction that `session restore` undoes.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BIN, expectOneLineError, parseJsonDocument, paste, run } from "../cli/run.js";
import { createPokeralphRepo, failedFeedbackBattle, removeFixture, type PokeralphFixture } from "../support/pokeralph-fixtures.js";
import { tmp } from "./resume-support.js";

const SESSION = "6f1c2d9e-4b7a-4e21-9c3f-2a8d5e0b7c41";
const HOUR = 3600_000;
const fixtures: PokeralphFixture[] = [];
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill("SIGKILL");
  fixtures.forEach(removeFixture);
});

/** `.claude/ralph-loop.local.md` as setup-ralph-loop.sh writes it, then advanced by the Stop hook to `iteration`. */
function loopState(options: { active?: string | null; iteration?: number; session?: string } = {}): string {
  const lines = ["---"];
  if (options.active !== null) lines.push(`active: ${options.active ?? "true"}`);
  lines.push(
    `iteration: ${options.iteration ?? 7}`,
    "max_iterations: 20",
    'completion_promise: "DONE"',
    `session_id: ${options.session ?? SESSION}`,
    'started_at: "2026-11-24T18:02:11Z"',
    "---",
    "",
    "Make the invoice PDF tests pass. Output <promise>DONE</promise> when they do.",
    "",
  );
  return lines.join("\n");
}

interface Setup {
  fx: PokeralphFixture;
  home: string;
  state: string;
  file: string;
  env: Record<string, string>;
}

/** A pokeralph repository with a failed battle, a ralph loop state file, and a HOME whose transcript is `ageMs` old. */
async function setup(options: { transcriptAgeMs?: number; state?: string } = {}): Promise<Setup> {
  const fx = await createPokeralphRepo();
  fixtures.push(fx);
  await failedFeedbackBattle(fx);
  const home = tmp("recover-home-");
  const transcript = path.join(home, ".claude", "projects", fx.root.replace(/[^A-Za-z0-9]/g, "-"), `${SESSION}.jsonl`);
  fs.mkdirSync(path.dirname(transcript), { recursive: true });
  fs.writeFileSync(transcript, `${JSON.stringify({ type: "user", sessionId: SESSION, message: { role: "user", content: "go" } })}\n`);
  const at = new Date(Date.now() - (options.transcriptAgeMs ?? 5 * HOUR));
  fs.utimesSync(transcript, at, at);
  const file = path.join(fx.root, ".claude", "ralph-loop.local.md");
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, options.state ?? loopState());
  fs.utimesSync(file, at, at);
  const state = tmp("recover-state-");
  return { fx, home, state, file, env: { HOME: home, XDG_STATE_HOME: state, RECOVER_POKERALPH_URL: "http://127.0.0.1:9" } };
}

interface StatusDoc {
  findings: { rule: string; severity: string; path: string; message: string; fix?: string }[];
  ralphLoops: { id: string; active: boolean; iteration: number; maxIterations: number; sessionId: string; session: { state: string }; stale: boolean }[];
}

describe("battle status: Claude Code ralph loops", () => {
  it("lists an active loop whose session is gone as stale (exit 1), with the command that clears it", async () => {
    const s = await setup();
    const r = await run(["battle", "status", "--json"], { cwd: s.fx.root, env: s.env });
    expect(r.status).toBe(1);
    const doc = parseJsonDocument(r.stdout) as unknown as StatusDoc;
    expect(doc.ralphLoops).toEqual([
      expect.objectContaining({
        id: SESSION,
        active: true,
        iteration: 7,
        maxIterations: 20,
        sessionId: SESSION,
        session: expect.objectContaining({ state: "stopped" }),
        stale: true,
      }),
    ]);
    const finding = doc.findings.find((f) => f.rule === "ralph-loop-stale")!;
    expect(finding).toMatchObject({ severity: "error", path: ".claude/ralph-loop.local.md" });
    expect(finding.fix).toBe(`recover battle fix --clear-stale ${SESSION}`);

    // From elsewhere, the printed command names the project, and works pasted there.
    const away = await run(["battle", "status", "--repo", s.fx.root, "--json"], { cwd: path.dirname(s.fx.root), env: s.env });
    const command = (parseJsonDocument(away.stdout) as unknown as StatusDoc).findings.find((f) => f.rule === "ralph-loop-stale")!.fix!;
    expect(command).toContain(`--repo ${s.fx.root}`);
    const pasted = spawnSync("bash", ["-c", `${command.replace(/^recover /, `${process.execPath} ${BIN} `)} --dry-run`], {
      cwd: path.dirname(s.fx.root),
      env: { ...process.env, ...s.env },
      encoding: "utf8",
    });
    expect(pasted.status, pasted.stderr).toBe(1);
    expect(pasted.stdout).toContain("+active: false");

    const human = await run(["battle", "status"], { cwd: s.fx.root, env: s.env });
    expect(human.stdout).toMatch(new RegExp(`ralph loops[\\s\\S]*${SESSION}\\s+active \\(stale\\)\\s+iteration 7/20\\s+session ${SESSION} stopped`));
  });

  it("a loop whose session runs (a live process naming it, or a transcript written just now) is not stale; --clear-stale refuses it", async () => {
    const s = await setup({ transcriptAgeMs: 30_000 });
    const recent = await run(["battle", "status", "--json"], { cwd: s.fx.root, env: s.env });
    const loop = (parseJsonDocument(recent.stdout) as unknown as StatusDoc).ralphLoops[0]!;
    expect(loop).toMatchObject({ stale: false, session: { state: "running" } });
    expect((parseJsonDocument(recent.stdout) as unknown as StatusDoc).findings.some((f) => f.rule === "ralph-loop-stale")).toBe(false);

    const old = await setup();
    const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 120000)", "--", "--resume", SESSION], { stdio: "ignore" });
    children.push(child);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const live = await run(["battle", "status", "--json"], { cwd: old.fx.root, env: old.env });
    expect((parseJsonDocument(live.stdout) as unknown as StatusDoc).ralphLoops[0]).toMatchObject({ stale: false, session: { state: "running" } });
    const before = fs.readFileSync(old.file);
    const refused = await run(["battle", "fix", "--clear-stale", SESSION, "--yes"], { cwd: old.fx.root, env: old.env });
    expect(refused.status, refused.stderr).toBe(3);
    expect(refused.stderr).toMatch(new RegExp(`pid ${child.pid} runs it`));
    expect(fs.readFileSync(old.file).equals(before)).toBe(true);
    child.kill("SIGKILL");

    // A session started as plain `claude` (no id on its command line) shows as claude working in the project.
    if (process.platform === "linux") {
      const plain = await setup();
      const claude = spawn(process.execPath, ["-e", "setTimeout(() => {}, 120000)"], { argv0: "claude", cwd: plain.fx.root, stdio: "ignore" });
      children.push(claude);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const seen = await run(["battle", "status", "--json"], { cwd: plain.fx.root, env: plain.env });
      const loop = (parseJsonDocument(seen.stdout) as unknown as StatusDoc).ralphLoops[0]!;
      expect(loop).toMatchObject({ stale: false, session: { state: "running" } });
      expect((loop.session as { detail?: string }).detail).toContain(`claude (pid ${claude.pid}) runs in`);
      claude.kill("SIGKILL");
    }
  });

  it("--clear-stale sets it inactive (every other byte kept), backed up; session restore puts it back byte for byte", async () => {
    const s = await setup();
    const before = fs.readFileSync(s.file, "utf8");
    const dry = await run(["battle", "fix", "--clear-stale", SESSION, "--dry-run"], { cwd: s.fx.root, env: s.env });
    expect(dry.status).toBe(1);
    expect(dry.stdout).toContain("-active: true\n+active: false");
    expect(fs.readFileSync(s.file, "utf8")).toBe(before);

    const r = await run(["battle", "fix", "--clear-stale", SESSION, "--yes", "--json"], { cwd: s.fx.root, env: s.env });
    expect(r.status, r.stderr).toBe(0);
    const doc = parseJsonDocument(r.stdout) as { backup: { id: string }; undo: string };
    expect(fs.readFileSync(s.file, "utf8")).toBe(before.replace("active: true", "active: false"));
    // The plugin's own reader sees it inactive, the prompt and the rest untouched; status is clean again.
    const after = await run(["battle", "status", "--json"], { cwd: s.fx.root, env: s.env });
    const loops = (parseJsonDocument(after.stdout) as unknown as StatusDoc).ralphLoops;
    expect(loops[0]).toMatchObject({ active: false, stale: false });
    expect((parseJsonDocument(after.stdout) as unknown as StatusDoc).findings.some((f) => f.rule === "ralph-loop-stale")).toBe(false);
    // Again: nothing to do.
    expect((await run(["battle", "fix", "--clear-stale", SESSION, "--yes"], { cwd: s.fx.root, env: s.env })).stdout).toContain("already inactive");

    expect(doc.undo).toBe(`recover session restore ${doc.backup.id}`);
    const restored = await run(["session", "restore", doc.backup.id, "--yes"], { cwd: s.fx.root, env: s.env });
    expect(restored.status, restored.stderr).toBe(0);
    expect(fs.readFileSync(s.file, "utf8")).toBe(before);
  });

  it("an unknown loop: the error names `battle status` for that project, which works pasted from elsewhere", async () => {
    const s = await setup();
    const elsewhere = tmp("recover-elsewhere-");
    const r = await run(["battle", "fix", "--clear-stale", "nope", "--repo", s.fx.root], { cwd: elsewhere, env: s.env });
    expect(r.status).toBe(2);
    const hint = /\(run `(.*)` to see them\)$/.exec(expectOneLineError(r, new RegExp(`no ralph loop "nope" \\(loops: ${SESSION}\\)`)))?.[1];
    expect(hint).toBe(`recover battle status --repo ${s.fx.root}`);
    const pasted = paste(hint!, { cwd: elsewhere, env: s.env });
    expect(pasted.stdout).toContain(SESSION);
    expect(pasted.status, pasted.stderr).not.toBe(2);
  });

  it("finds the user-scoped state (~/.claude/ralph-loop/<session>.local.md) and one with no active key; works without .pokeralph/", async () => {
    const s = await setup({ state: loopState({ active: null, session: "" }) });
    const userFile = path.join(s.home, ".claude", "ralph-loop", `${SESSION}.local.md`);
    fs.mkdirSync(path.dirname(userFile), { recursive: true });
    fs.writeFileSync(userFile, loopState());
    // A plain git repository, no pokeralph: the loops alone.
    fs.rmSync(s.fx.dir, { recursive: true });
    const r = await run(["battle", "status", "--json"], { cwd: s.fx.root, env: s.env });
    expect(r.status, r.stderr).toBe(1);
    const doc = parseJsonDocument(r.stdout) as unknown as StatusDoc & { battles: unknown[] };
    expect(doc.battles).toEqual([]);
    expect(doc.ralphLoops.map((l) => [l.id, l.active, l.stale])).toEqual([
      [".claude/ralph-loop.local.md", true, true],
      [SESSION, true, true],
    ]);
    const cleared = await run(["battle", "fix", "--clear-stale", ".claude/ralph-loop.local.md", "--yes"], { cwd: s.fx.root, env: s.env });
    expect(cleared.status, cleared.stderr).toBe(0);
    // No key: one is added as the front matter's first line.
    expect(fs.readFileSync(s.file, "utf8")).toBe(loopState({ active: "false", session: "" }));

    const empty = tmp("recover-empty-");
    const none = await run(["battle", "status"], { cwd: empty, env: { ...s.env, HOME: tmp("recover-home-") } });
    expect(none.status).toBe(2);
  });
});
