// `recover battle status` through the built CLI (a separate node process on bin/recover), on real git
// repositories with realistic `.pokeralph/` trees: human and --json output, exit codes, the task id filter,
// --repo, discovery from a subdirectory, input errors, and a fake pokeralph server on a random localhost port.
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { expectJsonError, expectNoAnsi, expectNoStack, expectOneLineError, parseJsonDocument, tempDir } from "../cli/run.js";
import {
  cancelledBattle,
  completedBattle,
  crashedBattle,
  createPokeralphRepo,
  failedFeedbackBattle,
  kitchenSinkRepo,
  removeFixture,
  runningBattle,
  staleArtefacts,
  type PokeralphFixture,
} from "../support/pokeralph-fixtures.js";
import { closedPort, startFakePokeralph } from "./fake-pokeralph.js";
import { runAsync } from "./run-async.js";

const fixtures: PokeralphFixture[] = [];
afterAll(() => fixtures.forEach(removeFixture));

async function repo(): Promise<PokeralphFixture> {
  const fx = await createPokeralphRepo();
  fixtures.push(fx);
  return fx;
}

// Never the developer's own pokeralph on 3456: every run points the probe at a port nothing listens on.
const NO_SERVER = { RECOVER_POKERALPH_URL: `http://127.0.0.1:${await closedPort()}`, PORT: undefined };

async function status(args: string[], cwd: string, env: Record<string, string | undefined> = NO_SERVER) {
  return await runAsync(["battle", "status", ...args], { cwd, env });
}

interface Finding {
  rule: string;
  severity: string;
  path: string;
  message: string;
}
interface Battle {
  taskId: string;
  status: string | null;
  failure: { type: string; recoverable: boolean; suggestedAction: string; allowedStrategies: string[]; defaultStrategy: string } | null;
  findings: Finding[];
  iterations: { number: number; result: string; feedback: Record<string, { passed: boolean; output?: string }>; commitHash: string | null }[];
  commits: { hash: string; source: string; iteration?: number }[];
}
interface StatusDoc {
  schemaVersion: number;
  battles: Battle[];
  repo: string;
  findings: Finding[];
  summary: { battles: number; errors: number; warnings: number };
}

/** The document's fixed head, as the issue spells it: keys in that order, extra keys only after them. */
function statusDoc(stdout: string): StatusDoc {
  const doc = parseJsonDocument(stdout) as unknown as StatusDoc;
  expect(Object.keys(doc).slice(0, 3)).toEqual(["schemaVersion", "tool", "battles"]);
  expect(doc.schemaVersion).toBe(1);
  for (const b of doc.battles) {
    expect(Object.keys(b).slice(0, 4)).toEqual(["taskId", "status", "failure", "findings"]);
    if (b.failure) expect(Object.keys(b.failure).slice(0, 4)).toEqual(["type", "recoverable", "suggestedAction", "allowedStrategies"]);
    for (const f of [...b.findings, ...doc.findings]) {
      expect(Object.keys(f).slice(0, 4)).toEqual(["rule", "severity", "path", "message"]);
      expect(f.severity).toMatch(/^(error|warning)$/);
      expect(f.path).not.toMatch(/^\//);
    }
  }
  return doc;
}

describe("every scenario in one repository", async () => {
  const { fx, scenarios } = await kitchenSinkRepo();
  fixtures.push(fx);
  staleArtefacts(fx, scenarios.crashed!.taskId);

  it("--json: the issue's shape, one entry per battle, exit 1", async () => {
    const result = await status(["--json"], fx.root);
    expect(result.status).toBe(1);
    expect(result.stderr).toBe("");
    const doc = statusDoc(result.stdout);
    expect(doc.repo).toBe(fx.root);
    const crashed = doc.battles.find((b) => b.taskId === "002-auth-system")!;
    expect(crashed).toMatchObject({
      taskId: "002-auth-system",
      status: "running",
      failure: {
        type: "crash",
        recoverable: true,
        suggestedAction: "restart",
        allowedStrategies: ["retry_same", "rollback_and_retry", "manual_then_continue"],
        defaultStrategy: "retry_same",
      },
    });
    expect(crashed.findings.map((f) => [f.rule, f.severity, f.path])).toEqual([
      ["battle-crashed", "error", ".pokeralph/battles/002-auth-system/history.json"],
      ["stale-lock", "warning", ".pokeralph/battles/002-auth-system/history.json.lock"],
      ["stale-temp-file", "warning", expect.stringMatching(/^\.pokeralph\/battles\/002-auth-system\/progress\.json\.tmp\.\d+\.x7f2p$/)],
    ]);
    expect(crashed.iterations.map((it) => [it.number, it.result])).toEqual([
      [1, "success"],
      [2, "success"],
      [3, "failure"],
    ]);
    expect(crashed.iterations[2]!.feedback.typecheck).toEqual({ passed: false, output: expect.stringContaining("TS2322") });
    expect(crashed.commits.map((c) => [c.source, c.iteration])).toEqual([
      ["log", 1],
      ["recorded", 2],
    ]);

    expect(doc.battles.map((b) => [b.taskId, b.status, b.failure?.type ?? null])).toEqual([
      ["001-project-setup", "completed", null],
      ["002-auth-system", "running", "crash"],
      ["003-invoice-pdf", "failed", "feedback_failure"],
      ["004-rate-limiting", "failed", "timeout"],
      ["005-email-notifications", "cancelled", "cancellation"],
      ["007-audit-log", "paused", null],
    ]);
    expect(doc.battles[0]!.findings).toEqual([]);
    expect(doc.battles[5]!.findings.map((f) => f.rule)).toEqual(["commit-not-ancestor", "commit-missing"]);
    expect(doc.findings.map((f) => f.rule)).toEqual(["stale-temp-file", "stale-lock"]);
    expect(doc.summary).toEqual({ battles: 6, errors: 5, warnings: 5 });
  });

  it("human: status, iterations with results and feedback, commits, the failure and its strategies, findings", async () => {
    const result = await status([], fx.root);
    expect(result.status).toBe(1);
    expectNoStack(result.stderr);
    expectNoAnsi(result.stdout);
    const out = result.stdout;
    expect(out).toMatch(/^002-auth-system {2}running \(crashed\) {2}JWT authentication middleware$/m);
    expect(out).toMatch(/^ {2}#3 {2}✗ failure .* test ✓ {2}lint ✓ {2}typecheck ✗$/m);
    expect(out).toMatch(/^ {8}typecheck: src\/auth\/middleware\.ts\(23,5\): error TS2322/m);
    expect(out).toMatch(/^ {4}[0-9a-f]{8} {2}#1 {2}in HEAD {2}by subject {2}\[PokéRalph\] 002-auth-system: JWT authentication middleware$/m);
    expect(out).toMatch(/^ {2}failure: crash \(high severity\) · recoverable · suggested action: restart$/m);
    expect(out).toMatch(/^ {4}resume strategies: retry_same \(default\), rollback_and_retry, manual_then_continue$/m);
    expect(out).toMatch(/^ {2}error {3}battle-crashed {6}\.pokeralph\/battles\/002-auth-system\/history\.json {2}pokeralph stopped during iteration 4/m);
    expect(out).toMatch(/^ {2}failure: feedback_failure .*$/m);
    expect(out).toMatch(/^ {4}resume strategies: retry_same, retry_with_context \(default\), rollback_and_retry, continue_next, manual_then_continue$/m);
    expect(out).toMatch(/^ {2}failure: timeout .*$/m);
    expect(out).toMatch(/^ {2}failure: cancellation .*$/m);
    expect(out).toMatch(/^ {2}error {3}commit-missing {6}.*5e1d0c3b9a8f is not in the repository/m);
    expect(out).toMatch(/\n✖ 6 battles: 5 errors, 5 warnings\n$/);
    expect(result.stderr).toBe(`battles in ${path.join(fx.root, ".pokeralph")}\n`);
  });

  it("--quiet: findings only, one per line", async () => {
    const result = await status(["-q"], fx.root);
    expect(result.status).toBe(1);
    expect(result.stderr).toBe("");
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(10);
    for (const line of lines) expect(line).toMatch(/^(error {2}|warning) [a-z-]+ +\.pokeralph\/\S+ {2}\S/);
  });

  it("a task id (or a unique prefix) shows that battle alone, with the project's findings", async () => {
    for (const id of ["003-invoice-pdf", "003"]) {
      const result = await status([id, "--json"], fx.root);
      expect(result.status).toBe(1);
      const doc = statusDoc(result.stdout);
      expect(doc.battles.map((b) => b.taskId)).toEqual(["003-invoice-pdf"]);
      expect(doc.battles[0]!.failure?.allowedStrategies).toEqual([
        "retry_same",
        "retry_with_context",
        "rollback_and_retry",
        "continue_next",
        "manual_then_continue",
      ]);
      expect(doc.findings.map((f) => f.rule)).toEqual(["stale-temp-file", "stale-lock"]);
    }
  });

  it("found upward from a subdirectory, and with --repo from anywhere", async () => {
    const fromSub = await status(["--json"], path.join(fx.root, "src", "auth"));
    const elsewhere = tempDir();
    const fromRepo = await status(["--repo", fx.root, "--json"], elsewhere);
    const fromDotDir = await status(["--json", "--repo", path.join(fx.root, ".pokeralph")], elsewhere);
    for (const result of [fromSub, fromRepo, fromDotDir]) {
      expect(result.status).toBe(1);
      expect(statusDoc(result.stdout).battles).toHaveLength(6);
    }
  });
});

describe("exit codes", () => {
  it("0 for a completed battle: failure null, no findings", async () => {
    const fx = await repo();
    await completedBattle(fx);
    const result = await status(["--json"], fx.root);
    expect(result.status).toBe(0);
    const doc = statusDoc(result.stdout);
    expect(doc.battles).toMatchObject([{ taskId: "001-project-setup", status: "completed", failure: null, findings: [] }]);
    const human = await status([], fx.root);
    expect(human.status).toBe(0);
    expect(human.stdout).toMatch(/\n✔ 1 battle, no findings\n$/);
  });

  it("0 when only warnings: a cancelled battle and stale leftovers", async () => {
    const fx = await repo();
    const s = await cancelledBattle(fx);
    staleArtefacts(fx, s.taskId);
    const result = await status([], fx.root);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/\n⚠ 1 battle: 0 errors, 5 warnings\n$/);
  });

  it("1 for a failed feedback loop", async () => {
    const fx = await repo();
    await failedFeedbackBattle(fx);
    expect((await status([], fx.root)).status).toBe(1);
  });

  it("0 with no battles yet", async () => {
    const fx = await repo();
    const result = await status([], fx.root);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/✔ no battles in .*battles yet\n$/);
    expect(statusDoc((await status(["--json"], fx.root)).stdout).battles).toEqual([]);
  });

  it("an invalid history.json is a finding (exit 1), not a refusal: the other battles are still reported", async () => {
    const fx = await repo();
    const broken = await failedFeedbackBattle(fx);
    await completedBattle(fx);
    fs.writeFileSync(broken.historyPath, '{"taskId": "003-invoice-pdf", "status": "fail');
    const result = await status(["--json"], fx.root);
    expect(result.status).toBe(1);
    const doc = statusDoc(result.stdout);
    expect(doc.battles.map((b) => [b.taskId, b.status])).toEqual([
      ["001-project-setup", "completed"],
      ["003-invoice-pdf", null],
    ]);
    expect(doc.battles[1]!.findings).toMatchObject([{ rule: "invalid-file", severity: "error", path: ".pokeralph/battles/003-invoice-pdf/history.json" }]);
  });
});

describe("input errors: exit 2, one line (or one JSON error document)", () => {
  it("no .pokeralph/ upward from the cwd", async () => {
    const dir = tempDir();
    const result = await status([], dir);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe("");
    expectOneLineError(result, /no \.pokeralph\/ found in .* or any parent directory; run inside a pokeralph repository or pass --repo <dir>/);
    const json = await status(["--json"], dir);
    expect(json.status).toBe(2);
    expect(expectJsonError(json, "store-not-found").message).toMatch(/no \.pokeralph\//);
  });

  it("--repo without .pokeralph/, or that does not exist", async () => {
    const dir = tempDir();
    expectOneLineError(await status(["--repo", dir], "/"), /no \.pokeralph\/ in .*: not a pokeralph repository/);
    const missing = await status(["--repo", path.join(dir, "nope")], "/");
    expect(missing.status).toBe(2);
    expectOneLineError(missing, /no such directory/);
  });

  it("an unknown task id names the battles that exist", async () => {
    const fx = await repo();
    await completedBattle(fx);
    const result = await status(["009-nope"], fx.root);
    expect(result.status).toBe(2);
    expectOneLineError(result, /no battle for task 009-nope .*\(battles: 001-project-setup\)/);
  });

  it.each(["../001-project-setup", "001/../..", ".."])("a task id %j that could leave battles/", async (id) => {
    const fx = await repo();
    await completedBattle(fx);
    const result = await status([id], fx.root);
    expect(result.status).toBe(2);
    expectOneLineError(result, /invalid task id .*never contain "\/", "\\", "\.\." or NUL/);
    expect(expectJsonError(await status([id, "--json"], fx.root), "invalid-id").message).toMatch(/invalid task id/);
  });

  it("an unknown option", async () => {
    const fx = await repo();
    const result = await status(["--frobnicate"], fx.root);
    expect(result.status).toBe(2);
    expectOneLineError(result, /unknown option '--frobnicate'/);
  });
});

describe("a pokeralph server answering on a random localhost port", () => {
  it("a running battle it is running is NOT a crash (exit 0), even with stale progress", async () => {
    const fx = await repo();
    const s = await crashedBattle(fx);
    const fake = await startFakePokeralph({ battle: { taskId: s.taskId, iteration: 4, status: "running", mode: "yolo" }, workingDir: fx.root });
    try {
      for (const env of [{ RECOVER_POKERALPH_URL: fake.url }, { PORT: String(fake.port), RECOVER_POKERALPH_URL: undefined }]) {
        const result = await status(["--json"], fx.root, env);
        expect(result.status).toBe(0);
        const doc = statusDoc(result.stdout);
        expect(doc.battles).toMatchObject([{ taskId: s.taskId, status: "running", failure: null, findings: [], liveness: { state: "live" } }]);
      }
      expect(fake.requests).toContain("GET /api/battle/current");
      const human = await status([], fx.root, { RECOVER_POKERALPH_URL: fake.url });
      expect(human.stdout).toMatch(/^002-auth-system {2}running \(live\)/m);
    } finally {
      await fake.stop();
    }
  });

  it("the same battle with the server running nothing: a crash (exit 1), fresh progress or not", async () => {
    const fx = await repo();
    const s = await runningBattle(fx);
    const fake = await startFakePokeralph({ battle: null, workingDir: fx.root });
    try {
      const result = await status(["--json"], fx.root, { RECOVER_POKERALPH_URL: fake.url });
      expect(result.status).toBe(1);
      expect(statusDoc(result.stdout).battles).toMatchObject([{ taskId: s.taskId, failure: { type: "crash" }, findings: [{ rule: "battle-crashed" }] }]);
    } finally {
      await fake.stop();
    }
  });

  it("no server and fresh progress: a warning, exit 0", async () => {
    const fx = await repo();
    await runningBattle(fx);
    const result = await status(["--json"], fx.root);
    expect(result.status).toBe(0);
    expect(statusDoc(result.stdout).battles).toMatchObject([{ failure: null, findings: [{ rule: "battle-unconfirmed", severity: "warning" }] }]);
  });

  it("a wedged server costs the probe's timeout, not a hang", async () => {
    const fx = await repo();
    await crashedBattle(fx);
    const fake = await startFakePokeralph({ hang: true });
    try {
      const started = Date.now();
      const result = await status(["--json"], fx.root, { RECOVER_POKERALPH_URL: fake.url });
      expect(result.status).toBe(1);
      expect(statusDoc(result.stdout).battles[0]!.failure?.type).toBe("crash");
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      await fake.stop();
    }
  });
});
