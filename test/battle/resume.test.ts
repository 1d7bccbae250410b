// `recover battle resume` through the built CLI on real git repositories with realistic .pokeralph/ trees: the
// strategy (default, refusal), the prompt's sections, the printed command, one iteration run with a stand-in
// claude (log, history.json, feedback, checkpoint ref), the timeout, and the hand-off to a live pokeralph server.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { simpleGit } from "simple-git";
import { HAS_SCRIPT, parseJsonDocument, paste, runInTerminal } from "../cli/run.js";
import { crashedBattle, createPokeralphRepo, failedFeedbackBattle, removeFixture, writeJson, type PokeralphFixture } from "../support/pokeralph-fixtures.js";
import { closedPort, startFakePokeralph } from "./fake-pokeralph.js";
import { runAsync, runProcessAsync } from "./run-async.js";
import { fakeClaude, feedbackScripts, tmp } from "./resume-support.js";

const fixtures: PokeralphFixture[] = [];
afterAll(() => fixtures.forEach(removeFixture));

async function repo(): Promise<PokeralphFixture> {
  const fx = await createPokeralphRepo();
  fixtures.push(fx);
  return fx;
}

const NO_SERVER = {
  RECOVER_POKERALPH_URL: `http://127.0.0.1:${await closedPort()}`,
  PORT: undefined,
  CLAUDE_PATH: undefined,
  XDG_STATE_HOME: tmp("recover-state-"),
};

async function resume(args: string[], cwd: string, env: Record<string, string | undefined> = {}) {
  return await runAsync(["battle", "resume", ...args], { cwd, env: { ...NO_SERVER, ...env } });
}

interface ResumeDoc {
  strategy: string;
  defaulted: boolean;
  allowedStrategies: string[];
  iteration: { number: number; retryCount: number | null };
  prompt: string;
  promptFile: string | null;
  command?: string;
  action: string;
  outcome?: { log: string; timedOut: boolean; feedback: Record<string, { passed: boolean }>; checkpoint: { ref: string } | null; historyStatus: string };
}

type Hist = {
  status: string;
  error?: string;
  iterations: {
    number: number;
    result: string;
    retryCount?: number;
    error?: string;
    output: string;
    feedbackResults?: Record<string, { passed: boolean; output: string }>;
  }[];
};
const history = (file: string) => JSON.parse(fs.readFileSync(file, "utf8")) as Hist;

describe("battle resume: strategy", () => {
  it("defaults from the failure: a failed feedback loop → retry_with_context, with the failure in the prompt", async () => {
    const fx = await repo();
    const b = await failedFeedbackBattle(fx);
    const r = await resume([b.taskId, "--json"], fx.root);
    expect(r.status, r.stderr).toBe(0);
    const doc = parseJsonDocument(r.stdout) as unknown as ResumeDoc;
    expect(doc.strategy).toBe("retry_with_context");
    expect(doc.defaulted).toBe(true);
    expect(doc.allowedStrategies).toContain("rollback_and_retry");
    expect(doc.prompt).toContain("## Previous Attempt Failed");
    expect(doc.prompt).toContain("Feedback loop 'test' failed");
    expect(doc.prompt).toContain("Snapshot mismatch: font 'Inter' not found");
    expect(doc.prompt).not.toContain("## Additional Instructions");
    // The task as pokeralph gives it: id, title, description, criteria, feedback loops.
    expect(doc.prompt).toContain("**ID:** 003-invoice-pdf");
    expect(doc.prompt).toContain("**Title:** Render invoices as PDF");
    expect(doc.prompt).toContain("- [ ] VAT rounding matches the spec");
    expect(doc.prompt).toMatch(/## Feedback Loops[\s\S]*run test/);
    // A fresh iteration after the three recorded ones, a first retry.
    expect(doc.iteration).toEqual({ number: 4, retryCount: 1 });
  });

  it("a crash defaults to retry_same (no failure context) and takes the in-flight iteration's number", async () => {
    const fx = await repo();
    const b = await crashedBattle(fx);
    const r = await resume([b.taskId, "--json"], fx.root);
    expect(r.status, r.stderr).toBe(0);
    const doc = parseJsonDocument(r.stdout) as unknown as ResumeDoc;
    expect(doc.strategy).toBe("retry_same");
    expect(doc.prompt).not.toContain("## Previous Attempt Failed");
    expect(doc.iteration).toEqual({ number: 4, retryCount: 1 });
  });

  it("refuses a strategy the failure does not allow, exit 2, naming the allowed ones", async () => {
    const fx = await repo();
    const b = await crashedBattle(fx);
    const r = await resume([b.taskId, "--strategy", "continue_next"], fx.root);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      /strategy continue_next is not allowed for a crash failure of 002-auth-system; allowed: retry_same, rollback_and_retry, manual_then_continue/,
    );
    const unknown = await resume([b.taskId, "--strategy", "yolo"], fx.root);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/unknown strategy "yolo"/);
  });

  it("a prompt carrying terminal escapes (colored output, a title sequence) is printed safely and pastes back exactly", async () => {
    const fx = await repo();
    const b = await failedFeedbackBattle(fx);
    const claude = fakeClaude("ok");
    const hostile = "Keep the \u001b[31mred\u001b[0m test output.\u001b]0;pwned\u0007";
    const human = await resume([b.taskId, "--claude", claude, "--instructions", hostile], fx.root);
    expect(human.status, human.stderr).toBe(0);
    expect(human.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    const command = /^ {2}(cd .*)$/m.exec(human.stdout)?.[1];
    expect(command).toContain("$'");
    const pasted = spawnSync("bash", ["-c", command!], { encoding: "utf8", env: { ...process.env, CI: undefined } });
    expect(pasted.status, pasted.stderr).toBe(0);
    const doc = parseJsonDocument((await resume([b.taskId, "--claude", claude, "--instructions", hostile, "--json"], fx.root)).stdout) as unknown as ResumeDoc;
    expect(doc.prompt).toContain(hostile);
    expect(pasted.stdout).toContain(`PROMPT-BEGIN\n${doc.prompt}\nPROMPT-END`);
  });

  it("--instructions adds ## Additional Instructions after ## Previous Attempt Failed", async () => {
    const fx = await repo();
    const b = await failedFeedbackBattle(fx);
    const r = await resume([b.taskId, "--strategy", "retry_with_context", "--instructions", "Mock the font loader in tests.", "--json"], fx.root);
    expect(r.status, r.stderr).toBe(0);
    const { prompt } = parseJsonDocument(r.stdout) as unknown as ResumeDoc;
    expect(prompt).toMatch(/## Previous Attempt Failed\n\n[\s\S]*## Additional Instructions\n\nMock the font loader in tests\.$/);
  });
});

describe("battle resume: without --run", () => {
  it("prints the whole claude command, prompt included, and writes nothing; pasted into bash it runs claude with that prompt", async () => {
    const fx = await repo();
    const b = await failedFeedbackBattle(fx);
    const before = fs.readdirSync(b.dir).sort();
    const historyBefore = fs.readFileSync(b.historyPath, "utf8");
    const claude = fakeClaude("ok");
    const r = await resume([b.taskId, "--claude", claude, "--instructions", "Don't touch the user's 'fonts' dir.", "--json"], fx.root);
    expect(r.status, r.stderr).toBe(0);
    const doc = parseJsonDocument(r.stdout) as unknown as ResumeDoc;
    expect(doc.command).toMatch(new RegExp(`^cd ${fx.root} && CI=true ${claude} --dangerously-skip-permissions --print '`));
    expect(doc.promptFile).toBeNull();
    // Printing wrote nothing: no prompt file, history untouched.
    expect(fs.readdirSync(b.dir).sort()).toEqual(before);
    expect(fs.readFileSync(b.historyPath, "utf8")).toBe(historyBefore);
    // The command works when pasted: bash runs claude in the repository with exactly the prompt (quotes and all).
    const pasted = spawnSync("bash", ["-c", doc.command!], { encoding: "utf8", env: { ...process.env, CI: undefined } });
    expect(pasted.status, pasted.stderr).toBe(0);
    expect(pasted.stdout).toContain(`ARGS ["--dangerously-skip-permissions","--print"]`);
    expect(pasted.stdout).toContain(`CI=true CWD=${fx.root}`);
    expect(pasted.stdout).toContain(`PROMPT-BEGIN\n${doc.prompt}\nPROMPT-END`);

    const human = await resume([b.taskId], fx.root);
    expect(human.stdout).toContain("Run (claude unattended, every tool call allowed (yolo)):");
    expect(human.stdout).not.toContain("Prompt written");
    expect(fs.readdirSync(b.dir).sort()).toEqual(before);
  });

  it("follows the battle's mode: hitl prints an interactive claude session, and --run without a terminal refuses", async () => {
    const fx = await repo();
    const b = await failedFeedbackBattle(fx);
    writeJson(path.join(fx.dir, "config.json"), { ...fx.config, mode: "hitl" });
    const claude = fakeClaude("ok");
    const printed = await resume([b.taskId, "--claude", claude, "--json"], fx.root);
    expect(printed.status, printed.stderr).toBe(0);
    const doc = parseJsonDocument(printed.stdout) as unknown as ResumeDoc & { mode: string };
    expect(doc.mode).toBe("hitl");
    expect(doc.command).not.toContain("--dangerously-skip-permissions");
    expect(doc.command).not.toContain("--print");
    expect(doc.command).toMatch(new RegExp(`CI=true ${claude} '`));

    const run = await resume([b.taskId, "--run", "--yes", "--claude", claude], fx.root);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/hitl battle: .*needs a terminal.*--mode yolo/);
    expect(fs.existsSync(path.join(b.dir, "logs", "iteration-4.txt"))).toBe(false);
    expect(fs.existsSync(path.join(fx.root, "src/claude-was-here.ts"))).toBe(false);

    // At a terminal (a real pty), --run starts claude as an interactive session on it, then records the iteration.
    if (HAS_SCRIPT) {
      feedbackScripts(fx, { test: true, lint: true });
      writeJson(path.join(fx.dir, "config.json"), { ...fx.config, feedbackLoops: ["test", "lint"], mode: "hitl" });
      const atTerminal = runInTerminal(["battle", "resume", b.taskId, "--run", "--yes", "--claude", claude], { cwd: fx.root, env: NO_SERVER });
      expect(atTerminal.status, atTerminal.output).toBe(0);
      expect(atTerminal.output).toContain("ARGS []");
      expect(atTerminal.output).toContain("TTY stdin=true stdout=true");
      expect(atTerminal.output).toContain(`PROMPT-BEGIN`);
      expect(history(b.historyPath).iterations.at(-1)).toMatchObject({ number: 4, result: "success" });
      expect(fs.readFileSync(path.join(b.dir, "logs", "iteration-4.txt"), "utf8")).toContain("interactive session at the terminal");
    }

    // --mode yolo overrides it for this run.
    const yolo = await resume([b.taskId, "--mode", "yolo", "--claude", claude, "--json"], fx.root);
    expect((parseJsonDocument(yolo.stdout) as unknown as ResumeDoc).command).toContain("--dangerously-skip-permissions --print");
  });

  it("names --claude in the printed command", async () => {
    const fx = await repo();
    const b = await failedFeedbackBattle(fx);
    const r = await resume([b.taskId, "--claude", "/opt/claude bin/claude"], fx.root);
    expect(r.stdout).toContain(`CI=true '/opt/claude bin/claude' --dangerously-skip-permissions --print`);
  });
});

describe("battle resume --run", () => {
  it("runs claude, streams its output to the log, runs the feedback loops, records the iteration and checkpoints it", async () => {
    const fx = await repo();
    const b = await failedFeedbackBattle(fx);
    feedbackScripts(fx, { test: true, lint: true });
    const claude = fakeClaude("ok");
    const headBefore = (await simpleGit({ baseDir: fx.root }).revparse(["HEAD"])).trim();
    // A real process (the smoke run of `battle resume --run`): the iteration's history backup goes where the
    // process's own XDG_STATE_HOME says, which the battle layer still reads from the environment.
    const r = await runProcessAsync(["battle", "resume", b.taskId, "--run", "--yes", "--claude", claude, "--instructions", "Use a bundled font.", "--json"], {
      cwd: fx.root,
      env: NO_SERVER,
    });
    expect(r.status, r.stderr).toBe(0);
    const doc = parseJsonDocument(r.stdout) as unknown as ResumeDoc;
    expect(doc.action).toBe("ran");

    const log = fs.readFileSync(path.join(b.dir, "logs", "iteration-4.txt"), "utf8");
    expect(log).toContain(`ARGS ["--dangerously-skip-permissions","--print"]`);
    expect(log).toContain(`CI=true CWD=${fx.root}`);
    expect(log).toContain("## Previous Attempt Failed");
    expect(log).toContain("## Additional Instructions\n\nUse a bundled font.");
    expect(log).toContain("a line on stderr");
    expect(fs.readFileSync(path.join(fx.root, "src/claude-was-here.ts"), "utf8")).toContain("fixed");

    const h = history(b.historyPath);
    expect(h.iterations.map((i) => i.number)).toEqual([1, 2, 3, 4]);
    const it4 = h.iterations[3]!;
    expect(it4.result).toBe("success");
    expect(it4.retryCount).toBe(1);
    expect(it4.feedbackResults?.test?.passed).toBe(true);
    expect(it4.feedbackResults?.lint?.output).toContain("lint ok");
    expect(it4.output).toContain("PROMPT-END");
    expect(h.status).toBe("paused");
    expect(h.error).toBeUndefined();
    // The history it replaced (status failed, the error) is backed up; session restore puts it back byte for byte.
    const backups = path.join(NO_SERVER.XDG_STATE_HOME, "recover", "backups");
    // This battle's (the state dir is shared by every test of the file): the resume rule, on this battle folder.
    const id = fs.readdirSync(backups).find((d) => {
      const manifest = JSON.parse(fs.readFileSync(path.join(backups, d, "manifest.json"), "utf8")) as {
        store: { path: string };
        changes: { rules: string[] }[];
      };
      return manifest.store.path === b.dir && manifest.changes.some((c) => c.rules.includes("battle-resume"));
    })!;
    expect(id).toBeDefined();
    const restored = await runAsync(["session", "restore", id, "--yes"], { cwd: fx.root, env: NO_SERVER });
    expect(restored.status, restored.stderr).toBe(0);
    expect(history(b.historyPath).iterations.map((i) => i.number)).toEqual([1, 2, 3]);
    expect(history(b.historyPath).status).toBe("failed");

    expect(doc.outcome?.checkpoint?.ref).toBe("refs/pokeralph/checkpoints/003-invoice-pdf/4");
    const refs = await simpleGit({ baseDir: fx.root }).raw(["for-each-ref", "--format=%(refname)", "refs/pokeralph/checkpoints/003-invoice-pdf/"]);
    expect(refs).toContain("refs/pokeralph/checkpoints/003-invoice-pdf/4");
    // The user's branch did not move.
    expect((await simpleGit({ baseDir: fx.root }).revparse(["HEAD"])).trim()).toBe(headBefore);
  });

  it("a failing feedback loop and a claude that exits 1: result failure, ✗, battle failed, exit 1", async () => {
    const fx = await repo();
    const b = await failedFeedbackBattle(fx);
    feedbackScripts(fx, { test: true, lint: false });
    const r = await resume([b.taskId, "--run", "--yes", "--claude", fakeClaude("fail")], fx.root);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stdout).toContain("✓ npm run test");
    expect(r.stdout).toContain("✗ npm run lint");
    const it4 = history(b.historyPath).iterations[3]!;
    expect(it4.result).toBe("failure");
    expect(it4.error).toBe("claude exited with 1");
    expect(it4.feedbackResults?.lint).toMatchObject({ passed: false });
    expect(history(b.historyPath).status).toBe("failed");
    expect(fs.readFileSync(path.join(b.dir, "logs", "iteration-4.txt"), "utf8")).toContain("API Error: overloaded");
  });

  it("after a failed run, progress.json agrees with history.json, and status says the error once", async () => {
    const fx = await repo();
    // A crashed battle: progress says iteration 4 in_progress.
    const b = await crashedBattle(fx);
    feedbackScripts(fx, { test: true, lint: true });
    const r = await resume([b.taskId, "--run", "--yes", "--claude", fakeClaude("fail")], fx.root);
    expect(r.status, r.stderr).toBe(1);
    const progress = JSON.parse(fs.readFileSync(b.progressPath, "utf8")) as Record<string, unknown>;
    const h = history(b.historyPath);
    expect(h.status).toBe("failed");
    expect(progress).toMatchObject({ taskId: b.taskId, currentIteration: h.iterations.at(-1)!.number, status: "failed", error: "claude exited with 1" });
    // Claude's own progress log lines are kept.
    expect(progress.logs).toEqual(["Reading typecheck error", "Narrowing header type in middleware"]);
    const status = await runAsync(["battle", "status", b.taskId], { cwd: fx.root, env: NO_SERVER });
    expect(status.stdout).toContain(`progress: iteration ${h.iterations.at(-1)!.number} failed`);
    expect(status.stdout).not.toContain("in_progress");
    expect(status.stdout.match(/error: claude exited with 1/g)).toHaveLength(1);
  });

  it("kills claude at the timeout and records a timeout", async () => {
    const fx = await repo();
    const b = await failedFeedbackBattle(fx);
    feedbackScripts(fx, { test: true, lint: true });
    const started = Date.now();
    const r = await resume([b.taskId, "--run", "--yes", "--claude", fakeClaude("sleep"), "--json"], fx.root, { RECOVER_CLAUDE_TIMEOUT_MS: "1500" });
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(r.status, r.stderr).toBe(1);
    const doc = parseJsonDocument(r.stdout) as unknown as ResumeDoc;
    expect(doc.outcome?.timedOut).toBe(true);
    const it4 = history(b.historyPath).iterations[3]!;
    expect(it4.result).toBe("timeout");
    expect(it4.error).toBe("Claude execution timed out");
    expect(fs.readFileSync(path.join(b.dir, "logs", "iteration-4.txt"), "utf8")).toContain("Claude execution timed out");
  });

  it("without --yes and no terminal it refuses and runs nothing", async () => {
    const fx = await repo();
    const b = await failedFeedbackBattle(fx);
    const r = await resume([b.taskId, "--run", "--claude", fakeClaude("ok")], fx.root);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/without --yes/);
    expect(fs.existsSync(path.join(b.dir, "logs", "iteration-4.txt"))).toBe(false);
  });

  it("claude missing: a clear usage error", async () => {
    const fx = await repo();
    const b = await failedFeedbackBattle(fx);
    const r = await resume([b.taskId, "--run", "--yes", "--claude", "/nonexistent/claude"], fx.root);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/claude not found/);
  });
});

describe("battle resume with a live pokeralph server", () => {
  it("hands the battle to the server (POST /api/battle/start/<taskId>) instead of running claude", async () => {
    const fx = await repo();
    const b = await failedFeedbackBattle(fx);
    const server = await startFakePokeralph({ battle: null, workingDir: fx.root });
    try {
      const claude = fakeClaude("ok");
      const r = await resume([b.taskId, "--run", "--yes", "--claude", claude], fx.root, { RECOVER_POKERALPH_URL: server.url });
      expect(r.status, r.stderr).toBe(0);
      expect(server.requests).toContain(`POST /api/battle/start/${b.taskId}`);
      expect(r.stdout).toMatch(/handed the battle to it/);
      // The command it names to follow the battle works where this one ran.
      const follow = /follow it with (.*)\.$/m.exec(r.stdout)?.[1];
      expect(follow).toBe(`recover battle status ${b.taskId}`);
      expect(paste(`${follow} --json`, { cwd: fx.root, env: { ...NO_SERVER, RECOVER_POKERALPH_URL: server.url } }).stdout).toContain(b.taskId);
      expect(fs.existsSync(path.join(b.dir, "logs", "iteration-4.txt"))).toBe(false);
      expect(fs.existsSync(path.join(fx.root, "src/claude-was-here.ts"))).toBe(false);
      expect(history(b.historyPath).iterations).toHaveLength(3);

      // Without --run it says so and prints the hand-off.
      const printed = await resume([b.taskId], fx.root, { RECOVER_POKERALPH_URL: server.url });
      expect(printed.status).toBe(0);
      expect(printed.stdout).toContain(`curl -X POST ${server.url}/api/battle/start/${b.taskId}`);
    } finally {
      await server.stop();
    }
  });
});

describe("battle resume --strategy rollback_and_retry", () => {
  it("rolls back the failed iteration first (when battle rollback exists), or refuses naming it", async () => {
    const fx = await repo();
    const b = await failedFeedbackBattle(fx);
    feedbackScripts(fx, { test: true, lint: true });
    await simpleGit({ baseDir: fx.root }).raw(["add", "package.json"]);
    await simpleGit({ baseDir: fx.root }).commit("feedback scripts");
    const printed = await resume([b.taskId, "--strategy", "rollback_and_retry", "--json"], fx.root);
    expect(printed.status, printed.stderr).toBe(0);
    expect((parseJsonDocument(printed.stdout) as unknown as ResumeDoc).prompt).toContain(
      "## Previous Attempt Failed\n\nPrevious attempt failed: Feedback loop 'test' failed",
    );

    // The state after iteration 2, checkpointed (pokeralph never committed the failed iteration 2).
    const cp = await runAsync(["checkpoint", "create", b.taskId, "--iteration", "2"], { cwd: fx.root, env: NO_SERVER });
    expect(cp.status, cp.stderr).toBe(0);
    // Run from outside the project: the undo command it prints must name it.
    const elsewhere = tmp("recover-elsewhere-");
    const r = await resume([b.taskId, "--strategy", "rollback_and_retry", "--run", "--yes", "--claude", fakeClaude("ok"), "--repo", fx.root], elsewhere);
    // Iteration 3 (the failure) rolled back → the retry is iteration 3 again.
    expect(r.status, r.stderr + r.stdout).toBe(0);
    expect(r.stdout).toMatch(/rolled back/);
    const h = history(b.historyPath);
    expect(h.iterations.at(-1)).toMatchObject({ number: 3, result: "success", retryCount: 1 });
    const undo = /\(undo with (recover battle rollback .*)\)$/m.exec(r.stdout)?.[1];
    expect(undo).toBe(`recover battle rollback ${b.taskId} --undo --repo ${fx.root}`);
    // Pasted where it was printed, it reaches this battle: the retry changed its state since, so it asks for --force.
    const refused = paste(`${undo} --yes`, { cwd: elsewhere, env: NO_SERVER });
    expect(refused.status, refused.stderr).toBe(3);
    expect(refused.stderr).toMatch(/003-invoice-pdf\/history\.json.*Pass --force/);
    const undone = paste(`${undo} --yes --force`, { cwd: elsewhere, env: NO_SERVER });
    expect(undone.status, undone.stderr).toBe(0);
    // Back to before the rollback: iteration 3 is the failure again, not the retry's success.
    expect(history(b.historyPath).iterations.at(-1)).toMatchObject({ number: 3, result: "failure" });
  });
});
