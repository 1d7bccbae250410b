// Writes the bundled JSONL transcript demo stores:
//   fixtures/demo/claude/projects/<encoded cwd>/<sessionId>.jsonl   (fixtures/demo/claude is a Claude Code config dir)
//   fixtures/demo/openclaw/agents/main/sessions/{<sessionId>.jsonl,sessions.json}   (fixtures/demo/openclaw is an openclaw state dir)
//   fixtures/demo/expected-transcripts.json, fixtures/TRANSCRIPTS.md   (what is planted where)
// Run: npx vite-node scripts/make-demo-transcripts.ts
// Builder: test/support/transcript-fixtures.ts. Formats: /work/shared/reference/formats-and-errors.md §2, §3.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  ClaudeTranscript,
  MINUTE,
  OpenclawTranscript,
  SECOND,
  damage,
  fileHistorySnapshot,
  numberedLines,
  type Json,
} from "../test/support/transcript-fixtures.js";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const CLAUDE_DIR = "fixtures/demo/claude";
const OPENCLAW_DIR = "fixtures/demo/openclaw";

const INVOICE_API = "/home/dana/code/invoice-api";
const FETCHKIT = "/home/dana/code/fetchkit";

export interface Expectation {
  rule: string;
  line: number;
}
export interface DemoTranscript {
  format: "claude" | "openclaw";
  sessionId: string;
  sessionKey?: string;
  /** Relative to the repository root, "/"-separated. */
  path: string;
  summary: string;
  expect: Expectation[];
}

/** One demo session: how to write it, plus the table text (title, per-finding notes) for TRANSCRIPTS.md. */
interface Demo {
  entry: DemoTranscript;
  title: string;
  notes: string[];
  write(root: string): string;
}

const at = (isoTime: string) => Date.parse(isoTime);

/** Collects planted findings (rule, line, note) for one session. */
function planted() {
  const expect: Expectation[] = [];
  const notes: string[] = [];
  const plant = (rule: string, line: number, note: string) => {
    expect.push({ rule, line });
    notes.push(`line ${line}: ${note}`);
  };
  return { expect, notes, plant };
}

// ---------------------------------------------------------------------------------------------
// Claude Code: file contents used by the tools
// ---------------------------------------------------------------------------------------------

const INVOICE_ROUTES = `import type { FastifyInstance } from "fastify";
import { listInvoices } from "../repo/invoices";

export async function invoiceRoutes(app: FastifyInstance) {
  app.get<{ Querystring: { status?: "draft" | "sent" | "paid"; limit?: number } }>("/invoices", async (req) => {
    const { status, limit = 50 } = req.query;
    return listInvoices(app.db, { limit });
  });
}`;

const INVOICE_REPO = `import type { Db } from "../db";

export interface ListOptions {
  status?: "draft" | "sent" | "paid";
  limit: number;
}

export async function listInvoices(db: Db, opts: ListOptions) {
  return db.invoice.findMany({
    where: opts.status ? { status: opts.status } : undefined,
    orderBy: { issuedAt: "desc" },
    take: opts.limit,
  });
}`;

const STATUS_TEST = `import { describe, expect, it } from "vitest";
import { buildServer } from "../src/server";
import { seedInvoices } from "./support/seed";

describe("GET /invoices?status=", () => {
  it("returns only invoices with that status", async () => {
    const app = buildServer();
    await seedInvoices(app.db, [{ status: "paid" }, { status: "draft" }, { status: "paid" }]);
    const res = await app.inject({ method: "GET", url: "/invoices?status=paid" });
    expect(res.statusCode).toBe(200);
    expect(res.json().map((i: { status: string }) => i.status)).toEqual(["paid", "paid"]);
  });
});`;

const SERVER_SRC = `import Fastify from "fastify";
import { invoiceRoutes } from "./routes/invoices";

export function buildServer() {
  const app = Fastify({ logger: { level: process.env.LOG_LEVEL ?? "info" } });
  app.register(invoiceRoutes);
  return app;
}`;

const FORMAT_SRC = `export function formatAmount(cents: number): string {
  return (cents / 100).toFixed(2);
}

export function invoiceTotal(lines: { quantity: number; unitPrice: number }[]): number {
  return lines.reduce((sum, l) => sum + l.quantity * l.unitPrice, 0);
}`;

const NDJSON_SRC = `export async function* readLines(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const chunk of body) {
    buffered += decoder.decode(chunk, { stream: true });
    const lines = buffered.split("\\n");
    buffered = lines.pop()!;
    yield* lines.filter((l) => l !== "");
  }
  if (buffered !== "") yield buffered;
}`;

/**
 * A user prompt as Claude Code writes it: a file-history-snapshot for the prompt's uuid, then the prompt,
 * both stamped when the user pressed Enter (typing time grows with the prompt's length).
 */
function prompt(t: ClaudeTranscript, content: string, extra: Json & { parent?: string | null } = {}): string {
  const uuid = t.mintUuid();
  const sent = t.lastUuid === null ? t.now() : new Date(Date.parse(t.now()) + 8 * SECOND + 60 * content.length).toISOString();
  t.meta(fileHistorySnapshot(uuid, sent));
  return t.user(content, { ...extra, uuid, timestamp: sent });
}

function claudeDemo(t: ClaudeTranscript, title: string, summary: string, p: ReturnType<typeof planted>): Demo {
  const rel = path
    .relative(REPO, t.pathIn(path.join(REPO, CLAUDE_DIR)))
    .split(path.sep)
    .join("/");
  return {
    entry: { format: "claude", sessionId: t.sessionId, path: rel, summary, expect: sortExpect(p.expect) },
    title,
    notes: p.notes,
    write: (root) => t.writeTo(path.join(root, CLAUDE_DIR)),
  };
}

// ---------------------------------------------------------------------------------------------
// Claude Code sessions
// ---------------------------------------------------------------------------------------------

function claudeHealthy(): Demo {
  const t = new ClaudeTranscript({ seed: 101, cwd: INVOICE_API, gitBranch: "fix/status-filter", start: at("2026-10-06T08:41:00Z") });
  const routes = `${INVOICE_API}/src/routes/invoices.ts`;
  const repo = `${INVOICE_API}/src/repo/invoices.ts`;
  const testFile = `${INVOICE_API}/test/invoices-status.test.ts`;

  prompt(t, "`GET /invoices?status=paid` returns every invoice, not just the paid ones. Find out why.");
  const readRoutes = t.toolUseId();
  const readRepo = t.toolUseId();
  t.assistant([
    { type: "thinking", thinking: "The filter is probably dropped somewhere between the route handler and the repository query. Read both." },
    { type: "text", text: "I'll read the route handler and the repository function it calls." },
    { type: "tool_use", id: readRoutes, name: "Read", input: { file_path: routes } },
    { type: "tool_use", id: readRepo, name: "Read", input: { file_path: repo } },
  ]);
  // Results come back out of call order; they are matched by tool_use_id.
  t.toolResult(readRepo, numberedLines(INVOICE_REPO));
  t.toolResult(readRoutes, numberedLines(INVOICE_ROUTES));
  const [explained] = t.assistant([
    {
      type: "text",
      text: "The route destructures `status` from the query string but only passes `{ limit }` to `listInvoices`. The repository already filters when `opts.status` is set, so the filter is simply never handed over.",
    },
  ]);

  // An abandoned branch: the user asked for one fix, then rewound (Esc Esc) and asked for another.
  prompt(t, "Fix it by filtering the rows in the route after the query.");
  t.assistant([
    {
      type: "text",
      text: "I can, but filtering after `take: limit` would return fewer rows than requested whenever other statuses fill the page. Passing `status` to the repository avoids that. Should I filter in the route anyway?",
    },
  ]);
  t.advance(40 * SECOND);
  const rewound = prompt(t, "Pass status through to the repository instead, and add a test for it.", { parent: explained ?? null });
  const edit = t.toolUseId();
  const write = t.toolUseId();
  t.assistant([
    { type: "thinking", thinking: "One-line change in the route, plus an inject-based test that seeds mixed statuses." },
    {
      type: "tool_use",
      id: edit,
      name: "Edit",
      input: {
        file_path: routes,
        old_string: "    return listInvoices(app.db, { limit });",
        new_string: "    return listInvoices(app.db, { status, limit });",
      },
    },
    { type: "tool_use", id: write, name: "Write", input: { file_path: testFile, content: STATUS_TEST } },
  ]);
  t.toolResult(edit, `The file ${routes} has been updated successfully.`);
  t.toolResult(write, `File created successfully at: ${testFile}`);
  t.meta(
    fileHistorySnapshot(
      rewound,
      t.now(),
      { "src/routes/invoices.ts": { version: 1, backupTime: t.now() }, "test/invoices-status.test.ts": { version: 1, backupTime: t.now(), created: true } },
      true,
    ),
  );
  const run = t.toolUseId();
  t.assistant([
    {
      type: "tool_use",
      id: run,
      name: "Bash",
      input: { command: "npx vitest run test/invoices-status.test.ts", description: "Run the new status filter test" },
    },
  ]);
  t.toolResult(
    run,
    "\n RUN  v3.2.4 /home/dana/code/invoice-api\n\n ✓ test/invoices-status.test.ts (1 test) 41ms\n\n Test Files  1 passed (1)\n      Tests  1 passed (1)\n   Duration  612ms",
    { isError: false },
  );
  const [leaf] = t.assistant([
    {
      type: "text",
      text: "`status` is now passed to `listInvoices`, and `test/invoices-status.test.ts` checks that `?status=paid` returns only paid invoices. The test passes.",
    },
  ]);
  t.meta({ type: "summary", summary: "Fix ignored status filter on GET /invoices", leafUuid: leaf });
  t.meta({ type: "custom-title", customTitle: "invoice status filter", sessionId: t.sessionId });

  return claudeDemo(
    t,
    "invoice status filter (invoice-api)",
    "Healthy: signed thinking + text + two tool_use lines in one response, results out of call order, file-history snapshots (one an update), a summary whose leaf is in the file, a custom-title, and an abandoned rewind branch (a second user child of the same parent).",
    planted(),
  );
}

function claudeInterrupted(): Demo {
  const t = new ClaudeTranscript({ seed: 102, cwd: INVOICE_API, start: at("2026-10-14T13:05:00Z") });
  const p = planted();
  prompt(t, "Run the pending Prisma migration against the local database and check that `invoices` got the new `due_date` column.");
  const migrate = t.toolUseId();
  // Killed mid-stream: the snapshot usage of a streamed response (output_tokens 3) and no stop_reason.
  const uuids = t.assistant(
    [
      { type: "thinking", thinking: "Apply the migration with prisma migrate dev, then describe the table." },
      { type: "text", text: "I'll apply the pending migration." },
      { type: "tool_use", id: migrate, name: "Bash", input: { command: "npx prisma migrate dev", description: "Apply pending migrations" } },
    ],
    { stopReason: null, usage: { output_tokens: 3 } },
  );
  p.plant(
    "tool-result-missing",
    t.lineOf(uuids.at(-1)!),
    `Bash tool_use ${migrate} (npx prisma migrate dev) has no tool_result; claude was killed while the command waited for input, and a later user prompt follows`,
  );
  t.advance(6 * MINUTE);
  prompt(t, "It hung on the reset prompt and I had to kill claude. Don't run migrate dev again; just show me the SQL of the pending migration.");
  return claudeDemo(
    t,
    "prisma migration killed (invoice-api)",
    "Interrupted: killed while a Bash tool ran; resumed with a new prompt, so the tool_use never gets a result.",
    p,
  );
}

function claudeDamaged(): Demo {
  const t = new ClaudeTranscript({ seed: 103, cwd: INVOICE_API, gitBranch: "feat/rate-limit", start: at("2026-10-22T10:15:00Z") });
  const p = planted();
  const server = `${INVOICE_API}/src/server.ts`;

  // A summary copied in from another session: its leaf is in no line of this file.
  t.meta({ type: "summary", summary: "Pino request logging with Authorization redaction", leafUuid: t.mintUuid() });
  p.plant("foreign-summary", t.lines.length, "summary whose leafUuid is in no line of this file (written by another session)");

  prompt(t, "POST /invoices can be hammered by a buggy client. Add rate limiting: 30 requests per minute per API key.");
  const read = t.toolUseId();
  t.assistant([
    { type: "thinking", thinking: "@fastify/rate-limit with a keyGenerator on the x-api-key header. Check how the server registers plugins first." },
    { type: "text", text: "I'll check how the server registers its plugins." },
    { type: "tool_use", id: read, name: "Read", input: { file_path: server } },
  ]);
  t.toolResult(read, numberedLines(SERVER_SRC));
  const install = t.toolUseId();
  t.assistant([
    { type: "tool_use", id: install, name: "Bash", input: { command: "npm install @fastify/rate-limit", description: "Install rate limit plugin" } },
  ]);
  t.toolResult(install, "\nadded 3 packages, and audited 312 packages in 2s\n\nfound 0 vulnerabilities", { isError: false });
  const edit = t.toolUseId();
  t.assistant([
    {
      type: "tool_use",
      id: edit,
      name: "Edit",
      input: {
        file_path: server,
        old_string: "  app.register(invoiceRoutes);",
        new_string:
          '  app.register(rateLimit, {\n    max: 30,\n    timeWindow: "1 minute",\n    keyGenerator: (req) => String(req.headers["x-api-key"] ?? req.ip),\n  });\n  app.register(invoiceRoutes);',
      },
    },
  ]);
  t.toolResult(edit, `The file ${server} has been updated successfully.`);
  t.assistant([
    { type: "text", text: "Registered `@fastify/rate-limit`: 30 requests per minute, keyed by the `x-api-key` header (falling back to the client IP)." },
  ]);

  // ext4 after a crash: the record being appended became a run of NUL bytes.
  t.lines.push(damage.nulRun(300));
  p.plant("unreadable-record", t.lines.length, "300 NUL bytes where a record was being appended when the machine crashed");
  t.advance(14 * MINUTE);

  // Written by a newer Claude Code build: valid JSON, unknown type.
  t.meta({ type: "future-record", version: "2.6.3", sessionId: t.sessionId, timestamp: undefined, payload: { kind: "lane-handoff", lane: 2 } });
  p.plant("unreadable-record", t.lines.length, 'valid JSON with an unknown type "future-record" (written by a newer build)');

  // The prompt after the crash points at a uuid in no line (a prompt-suggestion record that lives in a sidechain file).
  const dangling = t.mintUuid();
  prompt(t, "Make the limit configurable per deployment with RATE_LIMIT_PER_MINUTE.", { parent: dangling });
  p.plant("broken-parent-chain", t.lines.length, `user prompt whose parentUuid ${dangling} is in no line of the file`);
  const edit2 = t.toolUseId();
  t.assistant([
    { type: "text", text: "I'll read the limit from the environment with 30 as the default." },
    {
      type: "tool_use",
      id: edit2,
      name: "Edit",
      input: { file_path: server, old_string: "    max: 30,", new_string: "    max: Number(process.env.RATE_LIMIT_PER_MINUTE ?? 30)," },
    },
  ]);
  t.toolResult(edit2, `The file ${server} has been updated successfully.`);
  const pr = t.toolUseId();
  t.assistant([
    {
      type: "tool_use",
      id: pr,
      name: "Bash",
      input: { command: 'gh pr create --fill --title "Rate-limit invoice API per API key"', description: "Open a pull request" },
    },
  ]);
  t.toolResult(pr, "https://github.com/dana-k/invoice-api/pull/42", { isError: false });
  t.assistant([{ type: "text", text: "Opened https://github.com/dana-k/invoice-api/pull/42." }]);

  // Killed while appending the pr-link record; the next append (a new prompt) landed on the same line.
  const prLink = JSON.stringify({
    type: "pr-link",
    sessionId: t.sessionId,
    prNumber: 42,
    prUrl: "https://github.com/dana-k/invoice-api/pull/42",
    prRepository: "dana-k/invoice-api",
    timestamp: t.now(),
  });
  const stub = prLink.slice(0, prLink.indexOf('"prNumber"') + '"prNu'.length);
  const swallowed = t.user("CI says the rate-limit test is flaky. Look at it.");
  const full = t.lines.pop() as string;
  t.lines.push(damage.concatenate(stub, full));
  p.plant(
    "unreadable-record",
    t.lines.length,
    `stub of a killed pr-link write ({"type":"pr-link",…,"prNu) followed on the same line by the full user prompt ${swallowed}`,
  );

  // Power loss while the response streamed: the file ends mid-record, without a final newline.
  t.assistant([{ type: "thinking", thinking: "Flaky rate-limit tests usually share the in-memory store between tests; check for a missing app.close()." }]);
  const whole = t.lines.pop() as string;
  t.lines.push(damage.truncate(whole, whole.indexOf('"content"') + 40));
  t.endsWithNewline = false;
  p.plant("unreadable-record", t.lines.length, "the last line stops mid-record (power loss while the response streamed); the file has no final newline");

  return claudeDemo(
    t,
    "rate limit POST /invoices (invoice-api)",
    "Damaged lines: a foreign summary, a NUL run, an unknown record type, a prompt with a dangling parentUuid, a killed write concatenated with the next record, and a truncated tail.",
    p,
  );
}

function claudeOrphan(): Demo {
  const t = new ClaudeTranscript({ seed: 104, cwd: INVOICE_API, start: at("2026-11-03T15:30:00Z") });
  const p = planted();
  const file = `${INVOICE_API}/src/pdf/format.ts`;
  prompt(t, "The PDF for INV-2291 shows 1234.57 but the API returns 1234.56. Find out why.");
  const read = t.toolUseId();
  t.assistant([
    { type: "thinking", thinking: "Two different roundings of the same total. Look at the PDF formatter." },
    { type: "text", text: "I'll look at how the PDF formats amounts." },
    { type: "tool_use", id: read, name: "Read", input: { file_path: file } },
  ]);
  t.toolResult(read, numberedLines(FORMAT_SRC));
  const foreign = t.toolUseId();
  t.toolResult(foreign, numberedLines("export function roundHalfEven(value: number, digits = 2): number {"), {
    toolUseResult: { type: "text", file: { filePath: `${INVOICE_API}/src/money.ts`, numLines: 1, startLine: 1, totalLines: 1 } },
  });
  p.plant("orphan-tool-result", t.lines.length, `tool_result for ${foreign}, which no tool_use in the file issued (its call was in a rewound turn)`);
  t.assistant([
    {
      type: "text",
      text: "`invoiceTotal` sums `quantity * unitPrice` in floating point and `formatAmount` rounds with `toFixed(2)`, while the API rounds the stored total half-even. Summing integer cents in both places gives the same 1234.56 everywhere.",
    },
  ]);
  return claudeDemo(
    t,
    "invoice total off by a cent (invoice-api)",
    "Orphan result: a tool_result user line whose tool_use_id matches no tool_use in the file.",
    p,
  );
}

function claudeFetchkit(): Demo {
  const t = new ClaudeTranscript({ seed: 105, cwd: FETCHKIT, start: at("2026-10-09T19:20:00Z") });
  const lines = `${FETCHKIT}/src/ndjson.ts`;
  prompt(t, "Add an `ndjson()` helper that yields parsed objects from a streaming response body.");
  const read = t.toolUseId();
  t.assistant([
    { type: "thinking", thinking: "There is already a line splitter in src/ndjson.ts; build on it." },
    { type: "tool_use", id: read, name: "Read", input: { file_path: lines } },
  ]);
  t.toolResult(read, numberedLines(NDJSON_SRC));
  const edit = t.toolUseId();
  t.assistant([
    { type: "text", text: "`readLines` already handles chunk boundaries; `ndjson()` only needs to parse each line." },
    {
      type: "tool_use",
      id: edit,
      name: "Edit",
      input: {
        file_path: lines,
        old_string: '  if (buffered !== "") yield buffered;\n}',
        new_string:
          '  if (buffered !== "") yield buffered;\n}\n\nexport async function* ndjson<T = unknown>(body: ReadableStream<Uint8Array>): AsyncGenerator<T> {\n  for await (const line of readLines(body)) yield JSON.parse(line) as T;\n}',
      },
    },
  ]);
  t.toolResult(edit, `The file ${lines} has been updated successfully.`);
  t.assistant([{ type: "text", text: "Added `ndjson<T>()`: it reuses `readLines` and parses one object per line." }]);

  // Auto-compaction, then the conversation continues from the summary (a new root in the same file).
  t.advance(25 * MINUTE);
  t.compact(
    "This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\nAnalysis: The user asked for an ndjson() helper in fetchkit. src/ndjson.ts already had readLines(), which splits a byte stream into lines across chunk boundaries. ndjson<T>() was added on top of it and parses each line with JSON.parse.\nPending: tests for a line split across two chunks.",
    148_210,
  );
  prompt(t, "Add a test where one JSON object is split across two chunks.");
  const write = t.toolUseId();
  const testFile = `${FETCHKIT}/test/ndjson.test.ts`;
  t.assistant([
    {
      type: "tool_use",
      id: write,
      name: "Write",
      input: {
        file_path: testFile,
        content:
          'import { expect, it } from "vitest";\nimport { ndjson } from "../src/ndjson";\n\nit("parses an object split across chunks", async () => {\n  const enc = new TextEncoder();\n  const body = new ReadableStream<Uint8Array>({\n    start(c) {\n      c.enqueue(enc.encode(\'{"id":1}\\n{"i\'));\n      c.enqueue(enc.encode(\'d":2}\\n\'));\n      c.close();\n    },\n  });\n  const out = [];\n  for await (const o of ndjson(body)) out.push(o);\n  expect(out).toEqual([{ id: 1 }, { id: 2 }]);\n});\n',
      },
    },
  ]);
  t.toolResult(write, `File created successfully at: ${testFile}`);
  const run = t.toolUseId();
  t.assistant([{ type: "tool_use", id: run, name: "Bash", input: { command: "npx vitest run test/ndjson.test.ts", description: "Run ndjson test" } }]);
  t.toolResult(run, "\n ✓ test/ndjson.test.ts (1 test) 9ms\n\n Test Files  1 passed (1)\n      Tests  1 passed (1)", { isError: false });
  t.assistant([{ type: "text", text: "The split-object test passes." }]);
  return claudeDemo(
    t,
    "ndjson helper (fetchkit)",
    "Healthy, second project: tool calls, then an auto-compaction (compact_boundary with parentUuid null + isCompactSummary user line) and more turns after it.",
    planted(),
  );
}

// ---------------------------------------------------------------------------------------------
// openclaw sessions (agent main)
// ---------------------------------------------------------------------------------------------

function openclawDemo(t: OpenclawTranscript, sessionKey: string, title: string, summary: string, p: ReturnType<typeof planted>): Demo {
  const rel = `${OPENCLAW_DIR}/agents/main/sessions/${t.sessionId}.jsonl`;
  return {
    entry: { format: "openclaw", sessionId: t.sessionId, sessionKey, path: rel, summary, expect: sortExpect(p.expect) },
    title,
    notes: p.notes,
    write: (root) => t.writeTo(path.join(root, OPENCLAW_DIR), "main", sessionKey),
  };
}

function openclawHealthy(): Demo {
  const t = new OpenclawTranscript({ seed: 201, start: at("2026-10-11T07:30:00Z") });
  t.entry({ type: "model_change", provider: "anthropic", modelId: "claude-opus-4-5" });
  t.entry({ type: "thinking_level_change", thinkingLevel: "low" });
  t.user("The NAS is almost full again. Check disk usage and prune old docker images, but keep anything used in the last week.");
  const df = t.toolCallId();
  const dockerDf = t.toolCallId();
  t.assistant([
    { type: "thinking", thinking: "Check the filesystem and docker's own accounting before deleting anything." },
    { type: "text", text: "Checking disk usage first." },
    { type: "toolCall", id: df, name: "exec", arguments: { command: "df -h /srv" } },
    { type: "toolCall", id: dockerDf, name: "exec", arguments: { command: "docker system df" } },
  ]);
  t.toolResult(df, "exec", "Filesystem      Size  Used Avail Use% Mounted on\n/dev/md0        1.8T  1.7T   96G  95% /srv");
  t.toolResult(
    dockerDf,
    "exec",
    "TYPE            TOTAL     ACTIVE    SIZE      RECLAIMABLE\nImages          87        12        61.4GB    38.2GB (62%)\nContainers      14        12        1.1GB     0B (0%)\nLocal Volumes   9         7         212GB     3.9GB (1%)\nBuild Cache     0         0         0B        0B",
  );
  const prune = t.toolCallId();
  t.assistant([
    { type: "text", text: "38.2 GB of images are reclaimable. Pruning unused images older than a week." },
    { type: "toolCall", id: prune, name: "exec", arguments: { command: 'docker image prune -a --filter "until=168h" -f' } },
  ]);
  t.toolResult(prune, "exec", "Deleted Images:\nuntagged: immich-app/immich-server:v1.118.2\n...\nTotal reclaimed space: 36.9GB");
  t.assistant([{ type: "text", text: "Freed 36.9 GB; /srv now has 133 GB available. Images used in the last week were kept." }]);
  // The user switched models with /model before the next request.
  t.entry({ type: "model_change", provider: "anthropic", modelId: "claude-sonnet-4-5" });
  t.user("Thanks. Schedule that prune every Sunday at 04:00.");
  const cron = t.toolCallId();
  t.assistant([
    { type: "thinking", thinking: "Use the cron tool with an isolated job so it does not run in the main session." },
    {
      type: "toolCall",
      id: cron,
      name: "cron",
      arguments: {
        action: "add",
        job: { name: "weekly-docker-prune", schedule: { kind: "cron", expr: "0 4 * * 0" }, command: 'docker image prune -a --filter "until=168h" -f' },
      },
    },
  ]);
  t.toolResult(cron, "cron", '{"ok":true,"id":"weekly-docker-prune","nextRunAt":"2026-10-18T04:00:00.000Z"}', {
    details: { jobId: "weekly-docker-prune" },
  });
  t.assistant([{ type: "text", text: "Scheduled `weekly-docker-prune` for Sundays at 04:00; the first run is on 18 October." }]);
  return openclawDemo(
    t,
    "agent:main:main",
    "NAS disk cleanup (main)",
    "Healthy: signed thinking, two toolCalls in one message with both results, a model_change mid-session, tool result with details.",
    planted(),
  );
}

function openclaw8946(): Demo {
  const t = new OpenclawTranscript({ seed: 202, start: at("2026-10-27T18:02:00Z") });
  const p = planted();
  const envelope = (text: string, when: string) => `[Telegram invoice-ops id:-100123 ${when}] Dana (@dana_k): ${text}`;
  t.entry({ type: "model_change", provider: "anthropic", modelId: "claude-opus-4-5" });
  t.user(envelope("summarise the three links pinned in this group", "2026-10-27 18:02 UTC"));
  const first = t.toolCallId();
  // openclaw#107221: the stored thinking of a turn emptied, its signature kept. opus-4-5's earlier thinking is replayed,
  // and openclaw sends the empty block as it is (2026.7.35, measured: scenario edit-thinking-sonnet-4-6), which the API
  // refuses. The signature is given, not minted, so every id after it stays what it was.
  const emptied = t.assistant([
    {
      type: "thinking",
      thinking: "",
      thinkingSignature: "EqQBCkgIBxABGAIqQKTwTmRfCb3nV0Qe1RZ8dL6pW2yM4sJ9uA7cF0hX5gN3kB8vE1oI6qZ2tY4rU9wS7mD3fH5jL0aC8bG1nK6eP2xR",
    },
    { type: "text", text: "Fetching the pinned links." },
    { type: "toolCall", id: first, name: "web_fetch", arguments: { url: "https://status.stripe.com/incidents/2026-10-26" } },
  ]);
  p.plant("empty-thinking", t.lineOf(emptied), "the turn's stored thinking is empty (its signature kept): openclaw sends it, and the API refuses it");
  t.toolResult(
    first,
    "web_fetch",
    "Stripe status: Elevated API error rates (resolved). Between 14:05 and 14:41 UTC some PaymentIntent confirmations returned 500.",
  );
  const second = t.toolCallId();
  const secondEntry = t.assistant([
    { type: "toolCall", id: second, name: "web_fetch", arguments: { url: "https://api.invoice-ops.internal/v1/incidents/latest" } },
  ]);
  p.plant("tool-result-missing", t.lineOf(secondEntry), `web_fetch toolCall ${second} never got a result; a user message follows`);
  // The tool returned malformed JSON; its error was recorded against a call id the history does not hold.
  const stray = `toolu_01Kw${t.toolCallId().slice("toolu_01".length + 2)}`;
  t.toolResult(stray, "web_fetch", "Unexpected non-whitespace character after JSON at position 438", { isError: true });
  p.plant("orphan-tool-result", t.lines.length, `toolResult for ${stray}, which matches no toolCall (the malformed-JSON tool response of openclaw #8946)`);
  t.advance(6 * MINUTE);
  t.user(envelope("you stopped halfway, what about the third link?", "2026-10-27 18:08 UTC"));
  return openclawDemo(
    t,
    "agent:main:telegram:group:-100123",
    "pinned links summary (telegram group)",
    "openclaw #8946: a tool returned malformed JSON; the history holds a toolResult whose toolCallId matches no toolCall, and the toolCall it belonged to has no result before the next user message (openclaw mends both itself when it sends the history). openclaw#107221: the first turn's stored thinking is empty, which openclaw sends and the API refuses.",
    p,
  );
}

function openclawAborted(): Demo {
  const t = new OpenclawTranscript({ seed: 203, start: at("2026-11-12T02:00:00Z") });
  const p = planted();
  t.entry({ type: "model_change", provider: "anthropic", modelId: "claude-sonnet-4-5" });
  t.user("[cron:nightly-digest] Compile the nightly digest: merged PRs and new issues in dana-k/invoice-api since yesterday 02:00 UTC.");
  const prs = t.toolCallId();
  t.assistant([
    { type: "thinking", thinking: "gh can list both; PRs first, then issues." },
    {
      type: "toolCall",
      id: prs,
      name: "exec",
      arguments: { command: 'gh pr list -R dana-k/invoice-api --state merged --search "merged:>=2026-11-11T02:00:00Z"' },
    },
  ]);
  t.toolResult(prs, "exec", "42\tRate-limit invoice API per API key\tfeat/rate-limit\tMERGED\n43\tPass status filter to repository\tfix/status-filter\tMERGED");
  const issues = t.toolCallId();
  const last = t.assistant(
    [
      { type: "text", text: "Two PRs merged. Now the new issues." },
      { type: "toolCall", id: issues, name: "exec", arguments: { command: 'gh issue list -R dana-k/invoice-api --search "created:>=2026-11-11T02:00:00Z"' } },
    ],
    { stopReason: "aborted", errorMessage: "Request was aborted.", usage: { output: 41 } },
  );
  const line = t.lineOf(last);
  p.plant("tool-result-missing", line, `exec toolCall ${issues} in an aborted message; it never got a result`);
  p.plant("trailing-assistant", line, 'the file ends with this assistant message (stopReason "aborted")');
  return openclawDemo(
    t,
    "cron:nightly-digest",
    "nightly digest (cron)",
    "Aborted: the cron run was stopped while the assistant was calling a tool; the aborted assistant message ends the file and its toolCall has no result.",
    p,
  );
}

// ---------------------------------------------------------------------------------------------
// Independent check of what each file holds (a small oracle, not the product's rules)
// ---------------------------------------------------------------------------------------------

const CLAUDE_TYPES = new Set([
  "user",
  "assistant",
  "system",
  "attachment",
  "summary",
  "custom-title",
  "ai-title",
  "agent-name",
  "agent-setting",
  "file-history-snapshot",
  "file-history-delta",
  "queue-operation",
  "last-prompt",
  "progress",
  "result",
  "saved-hook-context",
  "started",
  "mode",
  "permission-mode",
  "pr-link",
  "fork-context-ref",
  "frame-link",
  "relocated",
  "bridge-session",
  "atis-latch",
  "worktree-state",
  "turn_end",
]);
const OPENCLAW_TYPES = new Set([
  "message",
  "compaction",
  "branch_summary",
  "custom",
  "custom_message",
  "model_change",
  "thinking_level_change",
  "label",
  "session_info",
]);

/** Splits a JSONL file into lines (a final newline does not start another line). */
export function splitLines(bytes: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let from = 0;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === 0x0a) {
      out.push(bytes.subarray(from, i));
      from = i + 1;
    }
  }
  if (from < bytes.length) out.push(bytes.subarray(from));
  return out;
}

/** The record on a line, or undefined when the line is not a readable record of this format. */
export function readRecord(format: "claude" | "openclaw", line: Buffer, index: number): Json | undefined {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(line);
  } catch {
    return undefined;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const type = (value as Json).type;
  if (typeof type !== "string") return undefined;
  if (format === "openclaw" && index === 0) return type === "session" ? (value as Json) : undefined;
  return (format === "claude" ? CLAUDE_TYPES : OPENCLAW_TYPES).has(type) ? (value as Json) : undefined;
}

function blocksOf(content: unknown): Json[] {
  return Array.isArray(content) ? content.filter((b): b is Json => typeof b === "object" && b !== null) : [];
}

/** What a scanner should find in a demo file, computed from the bytes (used to verify the planted list). */
export function oracleFindings(format: "claude" | "openclaw", bytes: Buffer): Expectation[] {
  const lines = splitLines(bytes);
  const records = lines.map((l, i) => readRecord(format, l, i));
  const found: Expectation[] = [];
  const ids = new Set<string>();
  const calls: { id: string; line: number }[] = [];
  const results: { id: string; line: number }[] = [];
  const idKey = format === "claude" ? "uuid" : "id";
  const parentKey = format === "claude" ? "parentUuid" : "parentId";
  records.forEach((r, i) => {
    if (!r) found.push({ rule: "unreadable-record", line: i + 1 });
    else if (typeof r[idKey] === "string") ids.add(r[idKey] as string);
  });
  records.forEach((r, i) => {
    if (!r) return;
    const line = i + 1;
    const parent = r[parentKey];
    if (typeof parent === "string" && !ids.has(parent)) found.push({ rule: "broken-parent-chain", line });
    if (format === "claude") {
      if (r.type === "summary" && !ids.has(String(r.leafUuid))) found.push({ rule: "foreign-summary", line });
      const message = r.message as Json | undefined;
      for (const b of blocksOf(message?.content)) {
        if (r.type === "assistant" && b.type === "tool_use") calls.push({ id: String(b.id), line });
        if (r.type === "user" && b.type === "tool_result") results.push({ id: String(b.tool_use_id), line });
      }
    } else if (r.type === "message") {
      const message = r.message as Json;
      if (message.role === "assistant") for (const b of blocksOf(message.content)) if (b.type === "toolCall") calls.push({ id: String(b.id), line });
      // A signed thinking block left empty (every demo model here replays it).
      if (message.role === "assistant")
        for (const b of blocksOf(message.content))
          if (b.type === "thinking" && String(b.thinking ?? "").trim() === "" && b.thinkingSignature) found.push({ rule: "empty-thinking", line });
      if (message.role === "toolResult") results.push({ id: String(message.toolCallId), line });
    }
  });
  for (const c of calls) if (!results.some((r) => r.id === c.id && r.line > c.line)) found.push({ rule: "tool-result-missing", line: c.line });
  for (const r of results) if (!calls.some((c) => c.id === r.id && c.line < r.line)) found.push({ rule: "orphan-tool-result", line: r.line });
  if (format === "openclaw") {
    const lastIndex = records.length - 1;
    const last = records[lastIndex];
    const message = last?.type === "message" ? (last.message as Json) : undefined;
    if (message?.role === "assistant" && (message.stopReason === "aborted" || message.stopReason === "error")) {
      found.push({ rule: "trailing-assistant", line: lastIndex + 1 });
    }
  }
  return sortExpect(found);
}

function sortExpect(list: Expectation[]): Expectation[] {
  return [...list].sort((a, b) => a.line - b.line || a.rule.localeCompare(b.rule));
}

// ---------------------------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------------------------

function demos(): Demo[] {
  return [claudeHealthy(), claudeInterrupted(), claudeDamaged(), claudeOrphan(), claudeFetchkit(), openclawHealthy(), openclaw8946(), openclawAborted()];
}

function check(root: string, list: Demo[]): void {
  for (const d of list) {
    const bytes = fs.readFileSync(path.join(root, d.entry.path));
    const got = JSON.stringify(oracleFindings(d.entry.format, bytes));
    const want = JSON.stringify(d.entry.expect);
    if (got !== want) throw new Error(`${d.entry.path}: planted ${want} but the file holds ${got}`);
  }
}

function markdown(list: Demo[]): string {
  const md = [
    "# Transcript fixtures (Claude Code, openclaw)",
    "",
    "Generated by `npx vite-node scripts/make-demo-transcripts.ts` with the builder in `test/support/transcript-fixtures.ts`. Do not edit by hand; change the script and re-run it.",
    "",
    "- `demo/claude/`: a Claude Code config dir (`CLAUDE_CONFIG_DIR`); transcripts under `projects/<encoded cwd>/<sessionId>.jsonl`.",
    "- `demo/openclaw/`: an openclaw state dir; transcripts and `sessions.json` under `agents/main/sessions/`.",
    "- `demo/expected-transcripts.json`: the table below as data (format, session id, session key, path, rule and line per finding).",
    "",
    'Line numbers are 1-based lines of the file (a line is the bytes up to a "\\n"). Healthy sessions must produce no findings.',
    "",
    "| # | Format | Session id | Session | Planted | Rule ids | Line(s) |",
    "|---|---|---|---|---|---|---|",
  ];
  list.forEach((d, i) => {
    const e = d.entry;
    const id = e.sessionKey ? `\`${e.sessionId}\`<br>key \`${e.sessionKey}\`` : `\`${e.sessionId}\``;
    const rules = e.expect.length ? e.expect.map((x) => `\`${x.rule}\``).join("<br>") : "none";
    const where = d.notes.length ? d.notes.join("<br>") : "";
    md.push(`| ${i + 1} | ${e.format} | ${id} | ${d.title} | ${e.summary} | ${rules} | ${where} |`);
  });
  md.push(
    "",
    "Notes:",
    "",
    "- Claude Code damaged session: the concatenated line holds a complete user prompt after the pr-link stub; the truncated last line is the response to that prompt, so no readable record points at the swallowed prompt and the concatenation causes no parent-chain finding of its own. The NUL run and the unknown record type carry no uuid, so nothing points at them; the prompt after them is the planted dangling parent.",
    "- Claude Code healthy session: the abandoned rewind branch (second prompt and its text-only answer) shares its parent with the prompt that continues the conversation; the active branch is the leaf with the latest timestamp.",
    "- openclaw: a healthy session ends with an assistant message with `stopReason` `stop`; only the aborted session's trailing assistant (`stopReason` `aborted`) is planted as `trailing-assistant`.",
    "- Files are written with mode 0600 (as Claude Code and openclaw do); git keeps only the executable bit, so a checkout has the umask's mode.",
    "",
  );
  return md.join("\n");
}

/** Writes the demo stores, expected-transcripts.json and TRANSCRIPTS.md under root; returns the manifest. */
export function writeDemoTranscripts(root: string): DemoTranscript[] {
  const list = demos();
  fs.rmSync(path.join(root, CLAUDE_DIR), { recursive: true, force: true });
  fs.rmSync(path.join(root, OPENCLAW_DIR), { recursive: true, force: true });
  for (const d of list) {
    const written = d.write(root);
    if (path.relative(root, written).split(path.sep).join("/") !== d.entry.path) throw new Error(`${written} is not ${d.entry.path}`);
  }
  check(root, list);
  const manifest = list.map((d) => d.entry);
  fs.mkdirSync(path.join(root, "fixtures/demo"), { recursive: true });
  fs.writeFileSync(path.join(root, "fixtures/demo/expected-transcripts.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  fs.writeFileSync(path.join(root, "fixtures/TRANSCRIPTS.md"), markdown(list));
  return manifest;
}

// Imported by the tests (which regenerate into a temp dir); run directly it writes the repository's fixtures.
if (!process.env.VITEST) {
  const manifest = writeDemoTranscripts(REPO);
  for (const e of manifest) {
    const size = fs.statSync(path.join(REPO, e.path)).size;
    console.log(`${e.path}: ${size} bytes, ${e.expect.length ? e.expect.map((x) => `${x.rule}@${x.line}`).join(", ") : "healthy"}`);
  }
}
