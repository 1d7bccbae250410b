// Fixture builder: a REAL git repository (simple-git) holding a small TypeScript project and a `.pokeralph/`
// tree written the way pokeralph v0.2.0 writes it (2-space JSON, `logs/iteration-<n>.txt`, commits
// `[PokéRalph] <taskId>: <title>`), with battles in the states a user meets: crashed, failed feedback loop,
// completed, cancelled, timed out, running, leftovers of an interrupted write, a commit rewritten away.
// Format notes: /work/shared/reference/battles-and-checkpoints.md §1.2, §1.3, §1.5, §1.8.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { simpleGit, type SimpleGit } from "simple-git";

export type Json = Record<string, unknown>;

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;

/** The PRD's tasks, one per scenario (ids and titles are what the scenarios below use). */
export const TASKS = {
  setup: {
    id: "001-project-setup",
    title: "Project setup with Bun workspaces",
    description: "Create the workspace layout, tsconfig and test runner.",
    criteria: ["bun test passes", "bun run typecheck passes"],
  },
  auth: {
    id: "002-auth-system",
    title: "JWT authentication middleware",
    description: "Protect /invoices routes with JWT bearer auth.",
    criteria: ["401 without token", "200 with valid token", "tests cover expiry"],
  },
  pdf: {
    id: "003-invoice-pdf",
    title: "Render invoices as PDF",
    description: "GET /invoices/:id.pdf renders the invoice with totals and VAT.",
    criteria: ["PDF snapshot test passes", "VAT rounding matches the spec"],
  },
  rateLimit: {
    id: "004-rate-limiting",
    title: "Rate limiting per API key",
    description: "Limit each API key to 100 requests per minute.",
    criteria: ["429 after 100 requests", "limit resets after a minute"],
  },
  email: {
    id: "005-email-notifications",
    title: "Email on invoice issue",
    description: "Send an email to the customer when an invoice is issued.",
    criteria: ["email sent once per invoice", "template covers totals"],
  },
  search: {
    id: "006-invoice-search",
    title: "Search invoices by customer",
    description: "GET /invoices?customer= filters invoices.",
    criteria: ["filters by customer id", "paginates"],
  },
  audit: {
    id: "007-audit-log",
    title: "Audit log of invoice changes",
    description: "Record who changed which invoice and when.",
    criteria: ["every change logged", "log is append-only"],
  },
  refunds: {
    id: "008-refunds",
    title: "Partial refunds",
    description: "Support partial refunds on paid invoices.",
    criteria: ["refund cannot exceed paid amount"],
  },
} as const;
export type TaskKey = keyof typeof TASKS;

export interface PokeralphFixture {
  root: string;
  /** `<root>/.pokeralph` */
  dir: string;
  git: SimpleGit;
  now: number;
  config: Json;
  prd: Json;
  /** Commits made so far, by label. */
  commits: Record<string, string>;
}

export interface FixtureOptions {
  /** Where to create the repository (default: a fresh temp dir). */
  root?: string;
  /** "Now" for the timeline (default: Date.now()). */
  now?: number;
  config?: Json;
  /** Create `.pokeralph/` (default true). */
  pokeralph?: boolean;
}

const PROJECT_FILES: Record<string, string> = {
  "package.json": `${JSON.stringify(
    {
      name: "invoice-service",
      version: "0.1.0",
      private: true,
      type: "module",
      scripts: { test: "bun test", lint: "biome check src tests", typecheck: "tsc --noEmit" },
      devDependencies: { "@biomejs/biome": "^1.9.4", typescript: "^5.7.3" },
    },
    null,
    2,
  )}\n`,
  "tsconfig.json": `${JSON.stringify({ compilerOptions: { target: "ES2022", module: "ESNext", moduleResolution: "bundler", strict: true, noEmit: true }, include: ["src", "tests"] }, null, 2)}\n`,
  ".gitignore": "node_modules/\ndist/\n.env\n",
  "README.md": "# invoice-service\n\nHTTP service that issues and tracks invoices.\n",
  "src/index.ts": `import { invoices } from "./routes/invoices.ts";\n\nexport function handle(request: Request): Response {\n  const url = new URL(request.url);\n  if (url.pathname.startsWith("/invoices")) return invoices(request);\n  return new Response("not found", { status: 404 });\n}\n`,
  "src/routes/invoices.ts": `export function invoices(request: Request): Response {\n  return Response.json({ invoices: [], method: request.method });\n}\n`,
  "tests/invoices.test.ts": `import { expect, test } from "bun:test";\nimport { handle } from "../src/index.ts";\n\ntest("lists invoices", async () => {\n  const response = handle(new Request("http://x/invoices"));\n  expect(response.status).toBe(200);\n});\n`,
};

/** pokeralph's config, the reference §1.8 example. */
export const DEFAULT_FIXTURE_CONFIG: Json = {
  maxIterationsPerTask: 8,
  mode: "yolo",
  feedbackLoops: ["test", "lint", "typecheck"],
  timeoutMinutes: 20,
  pollingIntervalMs: 2000,
  autoCommit: true,
};

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** pokeralph writes with `JSON.stringify(value, null, 2)`. */
export function writeJson(file: string, value: unknown): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(value, null, 2));
}

export function setMtime(file: string, ms: number): void {
  fs.utimesSync(file, new Date(ms), new Date(ms));
}

export async function createPokeralphRepo(options: FixtureOptions = {}): Promise<PokeralphFixture> {
  const root = options.root ?? fs.mkdtempSync(path.join(os.tmpdir(), "recover-battle-"));
  const now = options.now ?? Date.now();
  fs.mkdirSync(root, { recursive: true });
  // The initialised repository with the project staged is the same for every fixture: copied from a template.
  fs.cpSync(await stagedProject(), root, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
  const git = simpleGit({ baseDir: root }).env(gitEnv(root));
  const fx: PokeralphFixture = { root, dir: path.join(root, ".pokeralph"), git, now, config: options.config ?? DEFAULT_FIXTURE_CONFIG, prd: {}, commits: {} };

  fx.commits.initial = await commitStaged(fx, "Initial commit: invoice service skeleton", now - 3 * 24 * HOUR);

  if (options.pokeralph !== false) {
    const created = now - 2 * 24 * HOUR;
    writeJson(path.join(fx.dir, "config.json"), fx.config);
    fx.prd = {
      name: "Invoice Service",
      description: "HTTP service that issues and tracks invoices.",
      createdAt: iso(created),
      updatedAt: iso(created),
      metadata: { version: "1.0.0", generatedBy: "claude-code" },
      tasks: Object.values(TASKS).map((t, i) => ({
        id: t.id,
        title: t.title,
        description: t.description,
        status: "pending",
        priority: i + 1,
        acceptanceCriteria: [...t.criteria],
        iterations: [],
        createdAt: iso(created),
        updatedAt: iso(created),
      })),
    };
    writeJson(path.join(fx.dir, "prd.json"), fx.prd);
  }
  return fx;
}

/**
 * `git init`, the identity, and the project's files written and staged (`git add`), once per test file: what every
 * fixture starts from before its initial commit, whose date depends on the fixture's "now". A copy of it (.git
 * included) is a real repository; `git commit` refreshes the copy's index stat data itself.
 */
let template: Promise<string> | undefined;
function stagedProject(): Promise<string> {
  template ??= (async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "recover-battle-template-"));
    process.once("exit", () => fs.rmSync(root, { recursive: true, force: true }));
    const git = simpleGit({ baseDir: root }).env(gitEnv(root));
    await git.init(["--initial-branch=main"]);
    await git.addConfig("user.name", "Dana Reyes");
    await git.addConfig("user.email", "dana@example.com");
    await git.addConfig("commit.gpgsign", "false");
    for (const [file, text] of Object.entries(PROJECT_FILES)) {
      fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      fs.writeFileSync(path.join(root, file), text);
    }
    await git.raw(["add", "-A", "--", ".", ":!.pokeralph"]);
    return root;
  })();
  template.catch(() => (template = undefined));
  return template;
}

/**
 * The developer's own git config (signing, hooks, templates, default branch) must not change the fixture: git
 * runs with HOME pointing into the fixture and no system config. (simple-git also refuses inherited EDITOR & co.)
 */
function gitEnv(root: string): Record<string, string> {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: root, XDG_CONFIG_HOME: root, GIT_CONFIG_NOSYSTEM: "1", LANG: "C" };
}

export function removeFixture(fx: PokeralphFixture): void {
  fs.rmSync(fx.root, { recursive: true, force: true });
}

export function writeProjectFile(fx: PokeralphFixture, file: string, text: string): void {
  const full = path.join(fx.root, file);
  fs.mkdirSync(path.dirname(full), { recursive: true });
  fs.writeFileSync(full, text);
}

/** `git add -A -- . ':!.pokeralph'` then a commit dated `at`; returns the full hash. */
export async function commitAll(fx: PokeralphFixture, message: string, at: number): Promise<string> {
  await simpleGit({ baseDir: fx.root }).env(gitEnv(fx.root)).raw(["add", "-A", "--", ".", ":!.pokeralph"]);
  return await commitStaged(fx, message, at);
}

/** A commit of what is staged, dated `at`; returns the full hash. */
async function commitStaged(fx: PokeralphFixture, message: string, at: number): Promise<string> {
  const date = iso(at);
  const git = simpleGit({ baseDir: fx.root }).env({ ...gitEnv(fx.root), GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date });
  await git.commit(message);
  return (await git.revparse(["HEAD"])).trim();
}

export function pokeralphSubject(task: TaskKey): string {
  return `[PokéRalph] ${TASKS[task].id}: ${TASKS[task].title}`;
}

export function setTaskStatus(fx: PokeralphFixture, task: TaskKey, status: string, at: number): void {
  const tasks = fx.prd.tasks as Json[];
  const entry = tasks.find((t) => t.id === TASKS[task].id)!;
  entry.status = status;
  entry.updatedAt = iso(at);
  fx.prd.updatedAt = iso(at);
  writeJson(path.join(fx.dir, "prd.json"), fx.prd);
}

// ---------------------------------------------------------------------------------------------
// Battle files
// ---------------------------------------------------------------------------------------------

type Feedback = Record<string, [passed: boolean, output: string]>;

export interface IterationSpec {
  number: number;
  start: number;
  minutes: number;
  result: "success" | "failure" | "timeout" | "cancelled" | "pending";
  output: string;
  filesChanged: string[];
  feedback?: Feedback;
  commitHash?: string;
  error?: string;
}

/** An iteration record as the battle loop writes it (key order of pokeralph's createIteration + loop). */
export function iteration(spec: IterationSpec): Json {
  const durations: Record<string, number> = { test: 2140, lint: 388, typecheck: 1710 };
  return {
    number: spec.number,
    startedAt: iso(spec.start),
    endedAt: iso(spec.start + spec.minutes * MINUTE),
    output: spec.output,
    result: spec.result,
    filesChanged: spec.filesChanged,
    ...(spec.commitHash ? { commitHash: spec.commitHash } : {}),
    ...(spec.error ? { error: spec.error } : {}),
    ...(spec.feedback
      ? {
          feedbackResults: Object.fromEntries(
            Object.entries(spec.feedback).map(([name, [passed, output]]) => [name, { passed, output, duration: durations[name] ?? 500 }]),
          ),
        }
      : {}),
  };
}

export interface BattleFiles {
  history?: Json;
  progress?: Json;
  /** Iteration numbers → log text (`logs/iteration-<n>.txt`). */
  logs?: Record<number, string>;
  /** mtime of the JSON files (pokeralph's last write), default: the history's last timestamp. */
  mtime?: number;
}

export interface BattleScenario {
  taskId: string;
  dir: string;
  historyPath: string;
  progressPath: string;
  /** Labelled commits this scenario made (full hashes). */
  commits: Record<string, string>;
}

export function battlePaths(fx: PokeralphFixture, taskId: string): Pick<BattleScenario, "dir" | "historyPath" | "progressPath"> {
  const dir = path.join(fx.dir, "battles", taskId);
  return { dir, historyPath: path.join(dir, "history.json"), progressPath: path.join(dir, "progress.json") };
}

export function writeBattle(fx: PokeralphFixture, taskId: string, files: BattleFiles): BattleScenario {
  const paths = battlePaths(fx, taskId);
  fs.mkdirSync(path.join(paths.dir, "logs"), { recursive: true });
  if (files.history) writeJson(paths.historyPath, files.history);
  if (files.progress) writeJson(paths.progressPath, files.progress);
  for (const [n, text] of Object.entries(files.logs ?? {})) fs.writeFileSync(path.join(paths.dir, "logs", `iteration-${n}.txt`), text);
  if (files.mtime !== undefined) {
    for (const file of [paths.historyPath, paths.progressPath]) if (fs.existsSync(file)) setMtime(file, files.mtime);
  }
  return { taskId, ...paths, commits: {} };
}

export function progress(taskId: string, over: Json): Json {
  return {
    taskId,
    currentIteration: 0,
    status: "in_progress",
    lastUpdate: "",
    logs: [],
    lastOutput: "",
    completionDetected: false,
    error: null,
    feedbackResults: {},
    ...over,
  };
}

const PASS: Feedback = { test: [true, "12 pass, 0 fail"], lint: [true, "Checked 41 files"], typecheck: [true, ""] };

function claudeLog(lines: string[]): string {
  return `${lines.join("\n")}\n`;
}

// ---------------------------------------------------------------------------------------------
// Scenarios
// ---------------------------------------------------------------------------------------------

/**
 * The reference §1.8 battle: crashed during iteration 4. Iteration 1 committed by Claude itself (so no
 * commitHash), iteration 2 auto-committed by pokeralph (commitHash), iteration 3 failed typecheck and left its
 * changes uncommitted in the tree, iteration 4 was in flight when pokeralph died.
 * `lastUpdateAgo`: how long ago progress was written (default 5 h: stale); `status`: running or awaiting_approval.
 */
export async function crashedBattle(
  fx: PokeralphFixture,
  options: { lastUpdateAgo?: number; status?: "running" | "awaiting_approval"; task?: TaskKey } = {},
): Promise<BattleScenario> {
  const task = options.task ?? "auth";
  const taskId = TASKS[task].id;
  const lastUpdate = fx.now - (options.lastUpdateAgo ?? 5 * HOUR);
  const t0 = lastUpdate - 42 * MINUTE;
  const commits: Record<string, string> = {};

  writeProjectFile(
    fx,
    "src/auth/jwt.ts",
    `export function verify(token: string, secret: string): boolean {\n  return token.length > 0 && secret.length > 0;\n}\n`,
  );
  commits.claude = await commitAll(fx, pokeralphSubject(task), t0 + 11 * MINUTE);
  writeProjectFile(
    fx,
    "src/auth/middleware.ts",
    `import { verify } from "./jwt.ts";\n\nexport function requireAuth(header: string | undefined, secret: string): boolean {\n  const token = header?.replace(/^Bearer /, "") ?? "";\n  return verify(token, secret);\n}\n`,
  );
  writeProjectFile(
    fx,
    "src/routes/invoices.ts",
    `import { requireAuth } from "../auth/middleware.ts";\n\nexport function invoices(request: Request): Response {\n  if (!requireAuth(request.headers.get("authorization") ?? undefined, "dev")) return new Response("unauthorized", { status: 401 });\n  return Response.json({ invoices: [], method: request.method });\n}\n`,
  );
  writeProjectFile(
    fx,
    "tests/auth.test.ts",
    `import { expect, test } from "bun:test";\nimport { requireAuth } from "../src/auth/middleware.ts";\n\ntest("401 without token", () => expect(requireAuth(undefined, "s")).toBe(false));\n`,
  );
  commits.iteration2 = await commitAll(fx, pokeralphSubject(task), t0 + 24 * MINUTE);
  // Iteration 3: typecheck failed, nothing committed; the changes stay in the working tree.
  writeProjectFile(fx, "src/auth/expiry.ts", `export function isExpired(exp: number, now = Date.now() / 1000): boolean {\n  return exp <= now;\n}\n`);
  writeProjectFile(
    fx,
    "src/auth/middleware.ts",
    `import { verify } from "./jwt.ts";\nimport { isExpired } from "./expiry.ts";\n\nexport function requireAuth(header: string | undefined, secret: string, exp?: number): boolean {\n  const token: string = header?.replace(/^Bearer /, "");\n  return verify(token, secret) && !isExpired(exp ?? Infinity);\n}\n`,
  );

  const status = options.status ?? "running";
  const history = {
    taskId,
    status,
    startedAt: iso(t0),
    iterations: [
      iteration({
        number: 1,
        start: t0 + 0.1 * SECOND,
        minutes: 11.7,
        result: "success",
        output: "Exploring src/ ... Added src/auth/jwt.ts ... committed.",
        filesChanged: [`.pokeralph/battles/${taskId}/progress.json`],
        feedback: PASS,
      }),
      iteration({
        number: 2,
        start: t0 + 11.8 * MINUTE,
        minutes: 12.7,
        result: "success",
        output: "Set up JWT middleware on /invoices ...",
        filesChanged: ["src/routes/invoices.ts", "src/auth/middleware.ts", "tests/auth.test.ts"],
        commitHash: commits.iteration2,
        feedback: { test: [true, "15 pass, 0 fail"], lint: [true, "Checked 43 files"], typecheck: [true, ""] },
      }),
      iteration({
        number: 3,
        start: t0 + 24.6 * MINUTE,
        minutes: 13.7,
        result: "failure",
        output: "Added token expiry handling ...",
        filesChanged: ["src/auth/middleware.ts", "src/auth/expiry.ts"],
        feedback: {
          test: [true, "17 pass, 0 fail"],
          lint: [true, "Checked 44 files"],
          typecheck: [false, "src/auth/middleware.ts(23,5): error TS2322: Type 'string | undefined' is not assignable to type 'string'."],
        },
      }),
    ],
  };
  const scenario = writeBattle(fx, taskId, {
    history,
    progress: progress(taskId, {
      currentIteration: status === "running" ? 4 : 3,
      status: status === "running" ? "in_progress" : "awaiting_approval",
      lastUpdate: iso(lastUpdate),
      logs: ["Reading typecheck error", "Narrowing header type in middleware"],
      lastOutput: "Editing src/auth/middleware.ts",
    }),
    logs: {
      1: claudeLog([
        "Exploring src/ to understand the routing layer.",
        "Added src/auth/jwt.ts with verify().",
        "Ran bun test: 12 pass.",
        "Committed: [PokéRalph] 002-auth-system: JWT authentication middleware",
      ]),
      2: claudeLog(["Wiring requireAuth() into /invoices.", "Added tests/auth.test.ts.", "All feedback loops pass."]),
      3: claudeLog(["Adding token expiry handling in src/auth/expiry.ts.", "typecheck: src/auth/middleware.ts(23,5): error TS2322"]),
    },
    mtime: lastUpdate,
  });
  setTaskStatus(fx, task, "in_progress", t0);
  return { ...scenario, commits };
}

/**
 * A failed feedback loop: iteration 1 auto-committed, iterations 2 and 3 failed `test`, and Claude wrote
 * progress.error, so pokeralph failed the battle with that error (reference §1.5).
 */
export async function failedFeedbackBattle(fx: PokeralphFixture, options: { task?: TaskKey; at?: number } = {}): Promise<BattleScenario> {
  const task = options.task ?? "pdf";
  const taskId = TASKS[task].id;
  const t0 = options.at ?? fx.now - 30 * HOUR;
  writeProjectFile(
    fx,
    "src/pdf/render.ts",
    `export function renderInvoice(id: string): Uint8Array {\n  return new TextEncoder().encode(\`%PDF-1.7 invoice \${id}\`);\n}\n`,
  );
  const c1 = await commitAll(fx, pokeralphSubject(task), t0 + 14 * MINUTE);
  writeProjectFile(fx, "src/pdf/vat.ts", `export const vat = (net: number) => Math.round(net * 0.2 * 100) / 100;\n`);
  const error = "PDF snapshot test keeps failing: the Inter font is not installed in this environment";
  const failingTest =
    "tests/pdf.test.ts:\n✗ renders invoice totals [12.41ms]\n  error: expect(received).toMatchSnapshot()\n  Snapshot mismatch: font 'Inter' not found\n\n 18 pass\n 1 fail";
  const history = {
    taskId,
    status: "failed",
    startedAt: iso(t0),
    iterations: [
      iteration({
        number: 1,
        start: t0,
        minutes: 14,
        result: "success",
        output: "Rendered invoices with pdf-lib ...",
        filesChanged: ["src/pdf/render.ts"],
        commitHash: c1,
        feedback: { ...PASS, test: [true, "18 pass, 0 fail"] },
      }),
      iteration({
        number: 2,
        start: t0 + 14.2 * MINUTE,
        minutes: 9,
        result: "failure",
        output: "Added VAT line ...",
        filesChanged: ["src/pdf/vat.ts", "tests/pdf.test.ts"],
        feedback: { ...PASS, test: [false, failingTest] },
      }),
      iteration({
        number: 3,
        start: t0 + 23.4 * MINUTE,
        minutes: 7,
        result: "failure",
        output: "Tried embedding the font ...",
        filesChanged: ["src/pdf/vat.ts", "tests/pdf.test.ts"],
        feedback: { ...PASS, test: [false, failingTest] },
      }),
    ],
    completedAt: iso(t0 + 30.5 * MINUTE),
    durationMs: 30.5 * MINUTE,
    error,
  };
  const scenario = writeBattle(fx, taskId, {
    history,
    progress: progress(taskId, {
      currentIteration: 3,
      status: "failed",
      lastUpdate: iso(t0 + 30.5 * MINUTE),
      logs: ["Snapshot mismatch again"],
      lastOutput: "Giving up: font missing",
      error,
      feedbackResults: { test: { passed: false, output: failingTest, duration: 2300 } },
    }),
    logs: {
      1: claudeLog(["Rendering invoices with pdf-lib."]),
      2: claudeLog(["Adding VAT line.", "bun test: 1 fail"]),
      3: claudeLog(["Embedding the Inter font.", "bun test: 1 fail"]),
    },
    mtime: t0 + 30.5 * MINUTE,
  });
  setTaskStatus(fx, task, "failed", t0 + 30.5 * MINUTE);
  return { ...scenario, commits: { iteration1: c1 } };
}

/** A completed battle: iteration 1 failed lint (not committed), iteration 2 passed, was auto-committed and completed. */
export async function completedBattle(fx: PokeralphFixture, options: { task?: TaskKey; at?: number } = {}): Promise<BattleScenario> {
  const task = options.task ?? "setup";
  const taskId = TASKS[task].id;
  const t0 = options.at ?? fx.now - 40 * HOUR;
  writeProjectFile(fx, "bunfig.toml", `[test]\ncoverage = true\n`);
  writeProjectFile(fx, "src/config.ts", `export const PORT = Number(process.env.PORT ?? 8080);\n`);
  const c2 = await commitAll(fx, pokeralphSubject(task), t0 + 19 * MINUTE);
  const history = {
    taskId,
    status: "completed",
    startedAt: iso(t0),
    iterations: [
      iteration({
        number: 1,
        start: t0,
        minutes: 8,
        result: "failure",
        output: "Created bunfig.toml ...",
        filesChanged: ["bunfig.toml", "src/config.ts"],
        feedback: { ...PASS, lint: [false, "src/config.ts:1:14 lint/style/useNumberNamespace"] },
      }),
      iteration({
        number: 2,
        start: t0 + 8.1 * MINUTE,
        minutes: 10.5,
        result: "success",
        output: "Fixed lint. <promise>COMPLETE</promise>",
        filesChanged: ["bunfig.toml", "src/config.ts"],
        commitHash: c2,
        feedback: PASS,
      }),
    ],
    completedAt: iso(t0 + 18.7 * MINUTE),
    durationMs: 18.7 * MINUTE,
  };
  const scenario = writeBattle(fx, taskId, {
    history,
    progress: progress(taskId, {
      currentIteration: 2,
      status: "completed",
      lastUpdate: iso(t0 + 18.7 * MINUTE),
      completionDetected: true,
      lastOutput: "Done",
      feedbackResults: { test: { passed: true, output: "12 pass, 0 fail", duration: 2100 } },
    }),
    logs: { 1: claudeLog(["Creating bunfig.toml.", "lint: 1 error"]), 2: claudeLog(["Fixing lint.", "<promise>COMPLETE</promise>"]) },
    mtime: t0 + 18.7 * MINUTE,
  });
  setTaskStatus(fx, task, "completed", t0 + 18.7 * MINUTE);
  return { ...scenario, commits: { iteration2: c2 } };
}

/** Cancelled by the user during iteration 2 (pokeralph: status cancelled, completedAt, error, no durationMs). */
export async function cancelledBattle(fx: PokeralphFixture, options: { task?: TaskKey; at?: number } = {}): Promise<BattleScenario> {
  const task = options.task ?? "email";
  const taskId = TASKS[task].id;
  const t0 = options.at ?? fx.now - 20 * HOUR;
  writeProjectFile(fx, "src/email/send.ts", `export async function sendInvoiceEmail(to: string): Promise<void> {\n  console.log("mail to", to);\n}\n`);
  const c1 = await commitAll(fx, pokeralphSubject(task), t0 + 12 * MINUTE);
  const history = {
    taskId,
    status: "cancelled",
    startedAt: iso(t0),
    iterations: [
      iteration({
        number: 1,
        start: t0,
        minutes: 12,
        result: "success",
        output: "Added email sender ...",
        filesChanged: ["src/email/send.ts"],
        commitHash: c1,
        feedback: PASS,
      }),
    ],
    completedAt: iso(t0 + 15 * MINUTE),
    error: "Cancelled by user",
  };
  const scenario = writeBattle(fx, taskId, {
    history,
    progress: progress(taskId, {
      currentIteration: 2,
      status: "failed",
      lastUpdate: iso(t0 + 15 * MINUTE),
      error: "Cancelled by user",
      lastOutput: "Writing the email template",
    }),
    logs: { 1: claudeLog(["Adding the email sender."]) },
    mtime: t0 + 15 * MINUTE,
  });
  setTaskStatus(fx, task, "failed", t0 + 15 * MINUTE);
  return { ...scenario, commits: { iteration1: c1 } };
}

/**
 * Iteration 2 hit pokeralph's 30-minute claude timeout ("Claude execution timed out"); before hanging, Claude had
 * written an error into progress.json, so pokeralph failed the battle with it.
 */
export async function timeoutBattle(fx: PokeralphFixture, options: { task?: TaskKey; at?: number } = {}): Promise<BattleScenario> {
  const task = options.task ?? "rateLimit";
  const taskId = TASKS[task].id;
  const t0 = options.at ?? fx.now - 10 * HOUR;
  const error = "Rate limiter test hangs waiting for the window to reset";
  const history = {
    taskId,
    status: "failed",
    startedAt: iso(t0),
    iterations: [
      iteration({
        number: 1,
        start: t0,
        minutes: 9,
        result: "failure",
        output: "Sketching a token bucket ...",
        filesChanged: ["src/middleware/rate-limit.ts"],
        feedback: { ...PASS, typecheck: [false, "src/middleware/rate-limit.ts(8,3): error TS2554: Expected 2 arguments, but got 1."] },
      }),
      iteration({
        number: 2,
        start: t0 + 9.2 * MINUTE,
        minutes: 36,
        result: "failure",
        output: "Running the rate-limit test with a real clock ...",
        filesChanged: ["src/middleware/rate-limit.ts", "tests/rate-limit.test.ts"],
        error: "Claude execution timed out",
        feedback: PASS,
      }),
    ],
    completedAt: iso(t0 + 45.5 * MINUTE),
    durationMs: 45.5 * MINUTE,
    error,
  };
  const scenario = writeBattle(fx, taskId, {
    history,
    progress: progress(taskId, { currentIteration: 2, status: "failed", lastUpdate: iso(t0 + 45.5 * MINUTE), error, lastOutput: "Waiting for the window..." }),
    logs: { 1: claudeLog(["Sketching a token bucket."]), 2: claudeLog(["Running bun test tests/rate-limit.test.ts", "(no output for 30 minutes)"]) },
    mtime: t0 + 45.5 * MINUTE,
  });
  setTaskStatus(fx, task, "failed", t0 + 45.5 * MINUTE);
  return { ...scenario, commits: {} };
}

/** A battle running right now (progress written `lastUpdateAgo` ago, default 30 s): iteration 2 in flight. */
export async function runningBattle(fx: PokeralphFixture, options: { task?: TaskKey; lastUpdateAgo?: number } = {}): Promise<BattleScenario> {
  const task = options.task ?? "search";
  const taskId = TASKS[task].id;
  const lastUpdate = fx.now - (options.lastUpdateAgo ?? 30 * SECOND);
  const t0 = lastUpdate - 20 * MINUTE;
  const history = {
    taskId,
    status: "running",
    startedAt: iso(t0),
    iterations: [
      iteration({
        number: 1,
        start: t0,
        minutes: 11,
        result: "failure",
        output: "Added customer filter ...",
        filesChanged: ["src/routes/invoices.ts"],
        feedback: { ...PASS, test: [false, "✗ paginates\n 20 pass\n 1 fail"] },
      }),
    ],
  };
  const scenario = writeBattle(fx, taskId, {
    history,
    progress: progress(taskId, {
      currentIteration: 2,
      status: "in_progress",
      lastUpdate: iso(lastUpdate),
      logs: ["Fixing pagination"],
      lastOutput: "Editing src/routes/invoices.ts",
    }),
    logs: { 1: claudeLog(["Adding a customer filter.", "bun test: 1 fail"]) },
    mtime: lastUpdate,
  });
  setTaskStatus(fx, task, "in_progress", t0);
  return scenario;
}

/**
 * A paused battle whose recorded commits no longer hold: iteration 1's commit was reset away
 * (`git reset --hard HEAD~1`: the object still exists, it is just not in HEAD's history any more) and iteration
 * 2's commitHash names a commit the repository never had.
 */
export async function rewrittenCommitBattle(fx: PokeralphFixture, options: { task?: TaskKey; at?: number } = {}): Promise<BattleScenario> {
  const task = options.task ?? "audit";
  const taskId = TASKS[task].id;
  const t0 = options.at ?? fx.now - 7 * HOUR;
  writeProjectFile(fx, "src/audit/log.ts", `export const entries: { who: string; what: string; at: string }[] = [];\n`);
  const c1 = await commitAll(fx, pokeralphSubject(task), t0 + 10 * MINUTE);
  await fx.git.raw(["reset", "--hard", "HEAD~1"]);
  const ghost = "5e1d0c3b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d";
  const history = {
    taskId,
    status: "paused",
    startedAt: iso(t0),
    iterations: [
      iteration({
        number: 1,
        start: t0,
        minutes: 10,
        result: "success",
        output: "Added audit log ...",
        filesChanged: ["src/audit/log.ts"],
        commitHash: c1,
        feedback: PASS,
      }),
      iteration({
        number: 2,
        start: t0 + 10.2 * MINUTE,
        minutes: 8,
        result: "success",
        output: "Made the log append-only ...",
        filesChanged: ["src/audit/log.ts"],
        commitHash: ghost,
        feedback: PASS,
      }),
    ],
  };
  const scenario = writeBattle(fx, taskId, {
    history,
    progress: progress(taskId, { currentIteration: 2, status: "in_progress", lastUpdate: iso(t0 + 18.3 * MINUTE) }),
    logs: { 1: claudeLog(["Adding the audit log."]), 2: claudeLog(["Making it append-only."]) },
    mtime: t0 + 18.3 * MINUTE,
  });
  setTaskStatus(fx, task, "paused", t0 + 18.3 * MINUTE);
  return { ...scenario, commits: { resetAway: c1, ghost } };
}

/**
 * Leftovers of writes pokeralph never finished (reference §1.2): `<file>.json.lock` (content
 * `<pid>-<epochMs>-<random>`), `<file>.json.tmp.<epochMs>.<rand>`, `.pokeralph/.patch-temp-<epochMs>`, and a
 * lock on prd.json. `age`: how old they are (default 2 h: stale).
 */
export function staleArtefacts(fx: PokeralphFixture, taskId: string, options: { age?: number } = {}): string[] {
  const at = fx.now - (options.age ?? 2 * HOUR);
  const dir = path.join(fx.dir, "battles", taskId);
  fs.mkdirSync(dir, { recursive: true });
  const files = [
    [path.join(dir, "history.json.lock"), `48213-${at}-k3j9q1a`],
    [path.join(dir, `progress.json.tmp.${at}.x7f2p`), `{"taskId":"${taskId}","currentIteration":4,"sta`],
    [path.join(fx.dir, "prd.json.lock"), `48213-${at}-p0x2m7c`],
    [path.join(fx.dir, `.patch-temp-${at}`), "diff --git a/src/auth/expiry.ts b/src/auth/expiry.ts\nnew file mode 100644\n"],
  ] as const;
  for (const [file, text] of files) {
    fs.writeFileSync(file, text);
    setMtime(file, at);
  }
  return files.map(([file]) => file);
}

/** Every scenario in one repository, oldest first (the way they would have happened). */
export async function kitchenSinkRepo(options: FixtureOptions = {}): Promise<{ fx: PokeralphFixture; scenarios: Record<string, BattleScenario> }> {
  const fx = await createPokeralphRepo(options);
  const scenarios: Record<string, BattleScenario> = {};
  scenarios.completed = await completedBattle(fx);
  scenarios.failedFeedback = await failedFeedbackBattle(fx);
  scenarios.cancelled = await cancelledBattle(fx);
  scenarios.timeout = await timeoutBattle(fx);
  scenarios.rewritten = await rewrittenCommitBattle(fx);
  scenarios.crashed = await crashedBattle(fx);
  return { fx, scenarios };
}
