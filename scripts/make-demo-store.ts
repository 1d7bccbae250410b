// Writes the bundled demo stores:
//   fixtures/demo/opencode/opencode.db                (opencode 1.18 SQLite layout)
//   fixtures/demo/opencode-legacy/storage/...          (opencode ≤1.1.65 JSON tree)
//   fixtures/demo/expected.json, fixtures/README.md    (what is planted where)
// Both stores hold the same sessions. Run: npx vite-node scripts/make-demo-store.ts
import Database from "better-sqlite3";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  SECOND,
  MINUTE,
  Transcript,
  ascendingId,
  buildStore,
  healthySession,
  mulberry32,
  replaceWithBytes,
  truncateAfter,
  writeJsonStore,
  writeSqliteStore,
  type BuiltSession,
  type BuiltStore,
  type Corrupt,
  type Json,
  type MessageSpec,
  type PartSpec,
  type SessionSpec,
} from "../test/support/opencode-fixtures.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const SQLITE_DIR = path.join(ROOT, "fixtures/demo/opencode");
const LEGACY_DIR = path.join(ROOT, "fixtures/demo/opencode-legacy");
const SEED = 20261122;
const WRAP = Date.parse("2026-08-14T11:19:55.136Z");

const INVOICE_API = "/home/dana/code/invoice-api";
const FETCHKIT = "/home/dana/code/fetchkit";
const DASHBOARD = "/home/dana/code/dashboard-web";

/** A planted defect: the rule that should report it and the record it lives in. */
interface Defect {
  rule: string;
  what: string;
  /** The message or part it lives in; absent for session-wide defects. */
  record?: MessageSpec | PartSpec;
}
interface DemoSession {
  spec: SessionSpec;
  summary: string;
  defects: Defect[];
}

const at = (iso: string) => Date.parse(iso);

/** What opencode leaves on a message the process died in: never completed, no usage recorded. */
const KILLED: Json = {
  time: { completed: undefined },
  finish: undefined,
  cost: 0,
  tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
};

function session(w: Transcript, title: string, start: number, messages: MessageSpec[], extra: Partial<SessionSpec> = {}): SessionSpec {
  return { title, directory: w.directory, created: start, messages, ...extra };
}

// ---------------------------------------------------------------------------------------------
// Healthy sessions
// ---------------------------------------------------------------------------------------------

function healthyConfig(): DemoSession {
  return {
    spec: healthySession({ start: at("2026-10-05T09:12:00Z"), title: "Validate config with zod", turns: 4, directory: INVOICE_API }),
    summary: "Healthy: zod validation for the config loader (4 turns, tools, file attachment, two-step assistant message).",
    defects: [],
  };
}

const RETRY_TEST = `import { describe, expect, it, vi } from "vitest";
import { withRetry } from "../src/retry";

describe("withRetry", () => {
  it("retries twice before giving up", async () => {
    const call = vi.fn().mockRejectedValue(new Error("ECONNRESET"));
    await expect(withRetry(call, { attempts: 3, baseDelayMs: 5 })).rejects.toThrow("ECONNRESET");
    expect(call).toHaveBeenCalledTimes(3);
  });
});`;

const RETRY_SRC = `export interface RetryOptions {
  attempts: number;
  baseDelayMs: number;
}

export async function withRetry<T>(fn: () => Promise<T>, opts: RetryOptions): Promise<T> {
  let lastError: unknown;
  for (let attempt = 0; attempt < opts.attempts; attempt++) {
    try {
      return await fn();
    } catch (error) {
      lastError = error;
      const delay = opts.baseDelayMs * 2 ** attempt * (0.5 + Math.random());
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
  throw lastError;
}`;

function healthyRetry(): DemoSession {
  const start = at("2026-10-19T14:03:00Z");
  const w = new Transcript({ start, directory: FETCHKIT, seed: 11 });
  const messages = [
    w.user("test/retry.test.ts fails about one run in ten on CI with `expected 3 calls, got 2`. Find out why.", { gap: 3 * SECOND }),
    w.assistant([
      w.stepStart(),
      w.reasoning("A call count that is sometimes short suggests the test finishes before the last retry fires. Read the test and the retry helper."),
      w.text("Let me read the test and `withRetry`."),
      w.read("test/retry.test.ts", RETRY_TEST),
      w.read("src/retry.ts", RETRY_SRC),
      w.stepFinish("tool-calls"),
      w.stepStart(),
      w.reasoning(
        "The delay uses Math.random jitter with real timers; the rejection assertion resolves after the third attempt, so the count should be 3... unless the mock is shared. Fake timers make it deterministic either way.",
      ),
      w.text("The test runs on real timers with random jitter, so its timing varies on a loaded CI runner. I'll switch it to fake timers."),
      w.edit(
        "test/retry.test.ts",
        '    const call = vi.fn().mockRejectedValue(new Error("ECONNRESET"));\n    await expect(withRetry(call, { attempts: 3, baseDelayMs: 5 })).rejects.toThrow("ECONNRESET");',
        '    vi.useFakeTimers();\n    const call = vi.fn().mockRejectedValue(new Error("ECONNRESET"));\n    const done = expect(withRetry(call, { attempts: 3, baseDelayMs: 5 })).rejects.toThrow("ECONNRESET");\n    await vi.runAllTimersAsync();\n    await done;',
      ),
      w.bash(
        "for i in $(seq 20); do npx vitest run test/retry.test.ts --reporter=dot || exit 1; done 2>&1 | tail -n 4",
        "Run retry test 20 times",
        "\n Test Files  1 passed (1)\n      Tests  1 passed (1)\n   Duration  388ms\n",
        { ms: 9_800 },
      ),
      w.stepFinish("tool-calls"),
      w.patch(["test/retry.test.ts"]),
      w.stepStart(),
      w.text("20 out of 20 runs pass now. The test no longer depends on wall-clock timing."),
      w.stepFinish("stop"),
    ]),
    w.user("Thanks. Could the jitter be injectable instead of relying on Math.random?", { gap: 2 * MINUTE }),
    w.assistant([
      w.stepStart(),
      w.reasoning("Add an optional random: () => number to RetryOptions defaulting to Math.random."),
      w.edit(
        "src/retry.ts",
        "  baseDelayMs: number;\n}",
        "  baseDelayMs: number;\n  /** Source of jitter in [0, 1); tests can pass () => 0.5. */\n  random?: () => number;\n}",
      ),
      w.edit("src/retry.ts", "(0.5 + Math.random())", "(0.5 + (opts.random ?? Math.random)())"),
      w.bash("npx vitest run", "Run all tests", "\n Test Files  6 passed (6)\n      Tests  58 passed (58)\n   Duration  1.21s\n", { ms: 3_900 }),
      w.stepFinish("tool-calls"),
      w.patch(["src/retry.ts"]),
      w.stepStart(),
      w.text("`RetryOptions` now takes an optional `random` function (defaults to `Math.random`). All 58 tests pass."),
      w.stepFinish("stop"),
    ]),
  ];
  return {
    spec: session(w, "Fix flaky retry test", start, messages),
    summary: "Healthy: flaky test diagnosis in another project (reads, edits, repeated test run).",
    defects: [],
  };
}

// ---------------------------------------------------------------------------------------------
// A healthy session that spans the id wrap (2026-08-14T11:19:55.136Z)
// ---------------------------------------------------------------------------------------------

const LOGGER_SRC = `import Fastify from "fastify";
import { routes } from "./routes";

export function buildServer() {
  const app = Fastify();
  app.register(routes);
  return app;
}`;

function wrapSession(): DemoSession {
  const start = at("2026-08-14T11:02:00Z");
  const w = new Transcript({ start, directory: INVOICE_API, seed: 12 });
  const messages = [
    w.user("Add request logging with pino to the Fastify server: method, url, status and duration.", { gap: 4 * SECOND }),
    w.assistant([
      w.stepStart(),
      w.reasoning("Fastify has pino built in; enabling logger with a serializer is enough. Read the server setup first."),
      w.read("src/server.ts", LOGGER_SRC),
      w.edit("src/server.ts", "  const app = Fastify();", '  const app = Fastify({\n    logger: { level: process.env.LOG_LEVEL ?? "info" },\n  });'),
      w.stepFinish("tool-calls"),
      w.patch(["src/server.ts"]),
      w.stepStart(),
      w.text("Fastify ships with pino, so I enabled its logger. Each request now logs `req.method`, `req.url`, `res.statusCode` and `responseTime`."),
      w.stepFinish("stop"),
    ]),
    w.user("Redact the Authorization header in those logs.", { gap: 6 * MINUTE }),
    w.assistant([
      w.stepStart(),
      w.reasoning("pino supports redact paths; req.headers.authorization is the one to hide."),
      w.edit(
        "src/server.ts",
        '    logger: { level: process.env.LOG_LEVEL ?? "info" },',
        '    logger: {\n      level: process.env.LOG_LEVEL ?? "info",\n      redact: ["req.headers.authorization"],\n    },',
      ),
      w.stepFinish("tool-calls"),
      w.stepStart(),
      w.text('Added `redact: ["req.headers.authorization"]`; the header now logs as `[Redacted]`.'),
      w.stepFinish("stop"),
    ]),
    // The user comes back a quarter of an hour later: this turn is minted after the wrap, so its ids sort first.
    w.user("Run the tests to make sure nothing else changed.", { gap: 14 * MINUTE }),
    w.assistant([
      w.stepStart(),
      w.bash("npm test", "Run all tests", "\n Test Files  9 passed (9)\n      Tests  87 passed (87)\n   Duration  2.34s\n", { ms: 4_600 }),
      w.stepFinish("tool-calls"),
      w.stepStart(),
      w.text("All 87 tests pass."),
      w.stepFinish("stop"),
    ]),
  ];
  return {
    spec: session(w, "Add pino request logging", start, messages),
    summary:
      "Healthy, but spans the id wrap: the last turn was minted after 2026-08-14T11:19:55.136Z, so its msg_/prt_ ids sort BEFORE the earlier ones. A scanner that orders by id instead of (time_created, id) reports false positives here.",
    defects: [],
  };
}

// ---------------------------------------------------------------------------------------------
// Damaged sessions
// ---------------------------------------------------------------------------------------------

const PDF_ROUTE = `import type { FastifyInstance } from "fastify";
import { renderInvoicePdf } from "../pdf/render";

export async function pdfRoutes(app: FastifyInstance) {
  app.get<{ Params: { id: string } }>("/invoices/:id/pdf", async (req, reply) => {
    const invoice = await app.db.invoice.findUnique({ where: { id: req.params.id } });
    const pdf = await renderInvoicePdf(invoice!);
    return reply.type("application/pdf").send(pdf);
  });
}`;

/** Collects the defects planted in one session; `flag` returns its record so it can sit inline. */
function planted() {
  const defects: Defect[] = [];
  const flag = <T extends MessageSpec | PartSpec>(rule: string, what: string, record: T): T => {
    defects.push({ rule, what, record });
    return record;
  };
  return { defects, flag };
}

function withCorrupt(part: PartSpec, corrupt: Corrupt): PartSpec {
  part.corrupt = corrupt;
  return part;
}

function interruptedTool(): DemoSession {
  const start = at("2026-09-08T16:20:00Z");
  const w = new Transcript({ start, directory: INVOICE_API, seed: 21 });
  const { defects, flag } = planted();
  const messages = [
    w.user("GET /invoices/:id/pdf returns a 500 locally. Start the dev server and reproduce it.", { gap: 3 * SECOND }),
    flag(
      "incomplete-message",
      "its assistant message has no time.completed and no error",
      w.assistant(
        [
          w.stepStart(),
          w.reasoning("Reproduce first: start the dev server, then request the PDF for a known invoice."),
          w.text("I'll start the dev server and request the PDF endpoint."),
          flag(
            "tool-call-interrupted",
            "bash tool part left `running` (input, title, metadata, time.start); a later user message follows",
            w.running(
              "bash",
              { command: "npm run dev", description: "Start dev server" },
              {
                title: "Start dev server",
                metadata: {
                  output: "\n> invoice-api@0.4.0 dev\n> tsx watch src/server.ts\n\n[16:20:14.021] INFO (48213): Server listening at http://127.0.0.1:3000\n",
                  description: "Start dev server",
                },
              },
            ),
          ),
        ],
        KILLED,
      ),
    ),
    w.user("opencode hung on the dev server and I had to kill it. Don't run the server in the foreground; call the route from a test instead.", {
      gap: 7 * MINUTE,
    }),
    w.assistant([
      w.stepStart(),
      w.reasoning("Use app.inject in a vitest test to call the route without listening on a port."),
      w.text("I'll call the route through a test instead."),
      w.read("src/routes/pdf.ts", PDF_ROUTE),
      w.bash(
        "npx vitest run test/pdf.test.ts",
        "Run PDF route test",
        "\n FAIL  test/pdf.test.ts > GET /invoices/:id/pdf > renders an existing invoice\nTypeError: Cannot read properties of null (reading 'lines')\n ❯ renderInvoicePdf src/pdf/render.ts:14:28\n\n Test Files  1 failed (1)\n      Tests  1 failed (1)\n",
        { exit: 1, ms: 2_900 },
      ),
      w.stepFinish("tool-calls"),
      w.stepStart(),
      w.text(
        "The route passes `invoice!` to the renderer, but the fixture id does not exist, so `findUnique` returns null. The handler should answer 404 when the invoice is missing instead of crashing.",
      ),
      w.stepFinish("stop"),
    ]),
  ];
  return {
    spec: session(w, "Reproduce 500 on invoice PDF export", start, messages),
    summary: "Process killed while `npm run dev` ran; the user restarted and asked again.",
    defects,
  };
}

function incompleteMessage(): DemoSession {
  const start = at("2026-09-15T10:41:00Z");
  const w = new Transcript({ start, directory: FETCHKIT, seed: 22 });
  const { defects, flag } = planted();
  const messages = [
    w.user("Why does fetchkit ignore the AbortSignal while a retry is waiting?", { gap: 2 * SECOND }),
    flag(
      "incomplete-message",
      "assistant message without time.completed and without error, not the last message",
      w.assistant(
        [
          w.stepStart(),
          w.reasoning("The sleep between attempts ignores the AbortSignal."),
          streaming(
            w.text(
              "The retry loop in `src/retry.ts` awaits the back-off `setTimeout` without looking at the signal, so an abort during the back-off window is only noticed when the next attempt calls `fetch`. The fix is to",
            ),
          ),
        ],
        KILLED,
      ),
    ),
    w.user("You stopped mid-sentence (laptop went to sleep). Continue.", { gap: 26 * MINUTE }),
    w.assistant([
      w.stepStart(),
      w.reasoning("Make the sleep abortable: reject when the signal fires and clear the timer."),
      w.edit(
        "src/retry.ts",
        "      await new Promise((resolve) => setTimeout(resolve, delay));",
        '      await new Promise<void>((resolve, reject) => {\n        const timer = setTimeout(resolve, delay);\n        opts.signal?.addEventListener("abort", () => {\n          clearTimeout(timer);\n          reject(opts.signal!.reason);\n        }, { once: true });\n      });',
      ),
      w.stepFinish("tool-calls"),
      w.stepStart(),
      w.text("…make the back-off sleep abortable. It now rejects with `signal.reason` as soon as the signal fires, so a pending retry stops immediately."),
      w.stepFinish("stop"),
    ]),
  ];
  return {
    spec: session(w, "AbortSignal ignored during retry back-off", start, messages),
    summary: "Process died mid-stream (text part without time.end, no step-finish); the user continued later.",
    defects,
  };
}

/** A text part still streaming when the process died: text-end never arrived. */
function streaming(part: PartSpec): PartSpec {
  delete ((part.data as Json).time as Json).end;
  return part;
}

function emptyParts(): DemoSession {
  const start = at("2026-09-22T13:05:00Z");
  const w = new Transcript({ start, directory: DASHBOARD, seed: 23 });
  const { defects, flag } = planted();
  const messages = [
    w.user("Rename the `rows` prop of InvoiceTable to `invoices` everywhere.", { gap: 2 * SECOND }),
    w.assistant([
      w.stepStart(),
      w.reasoning("Find every use of the rows prop first."),
      // opencode trims text at text-end; a lone "\n\n" streamed before a tool call becomes ""
      flag("empty-text-part", 'text part with text "" before the tool calls', w.text("")),
      w.tool(
        "grep",
        { pattern: "rows=\\{", path: `${DASHBOARD}/src` },
        {
          output: `Found 3 matches\n${DASHBOARD}/src/pages/Invoices.tsx:\n  Line 42:       <InvoiceTable rows={invoices} onSelect={open} />\n${DASHBOARD}/src/pages/Overdue.tsx:\n  Line 18:     <InvoiceTable rows={overdue} />\n${DASHBOARD}/src/components/InvoiceTable.tsx:\n  Line 9: export function InvoiceTable({ rows, onSelect }: Props) {`,
          title: "rows=\\{",
          metadata: { matches: 3, truncated: false },
        },
      ),
      w.edit(
        "src/components/InvoiceTable.tsx",
        "export function InvoiceTable({ rows, onSelect }: Props) {",
        "export function InvoiceTable({ invoices, onSelect }: Props) {",
      ),
      w.edit("src/pages/Invoices.tsx", "<InvoiceTable rows={invoices} onSelect={open} />", "<InvoiceTable invoices={invoices} onSelect={open} />"),
      w.edit("src/pages/Overdue.tsx", "<InvoiceTable rows={overdue} />", "<InvoiceTable invoices={overdue} />"),
      w.stepFinish("tool-calls"),
      w.patch(["src/components/InvoiceTable.tsx", "src/pages/Invoices.tsx", "src/pages/Overdue.tsx"]),
      w.stepStart(),
      w.text("Renamed `rows` to `invoices` in the component and both pages."),
      w.stepFinish("stop"),
    ]),
    w.user("Also update the storybook story."),
    flag(
      "empty-message",
      "assistant message whose only parts are step-start + step-finish (the model answered with nothing)",
      w.assistant([w.stepStart(), w.stepFinish("stop", { input: 6, output: 0, reasoning: 0, cache: { read: 21_488, write: 0 } })]),
    ),
    w.user("Hello? Update src/components/InvoiceTable.stories.tsx too.", { gap: 90 * SECOND }),
    w.assistant([
      w.stepStart(),
      w.edit("src/components/InvoiceTable.stories.tsx", "  args: { rows: sampleInvoices },", "  args: { invoices: sampleInvoices },"),
      w.stepFinish("tool-calls"),
      w.stepStart(),
      w.text("Updated the story's args as well."),
      w.stepFinish("stop"),
    ]),
  ];
  return {
    spec: session(w, "Rename InvoiceTable rows prop", start, messages),
    summary: "Model streamed an empty text block before its tool calls, then answered a later turn with nothing at all.",
    defects,
  };
}

function thinkingOnly(): DemoSession {
  const start = at("2026-10-02T08:30:00Z");
  const w = new Transcript({ start, directory: INVOICE_API, seed: 24 });
  const { defects, flag } = planted();
  const messages = [
    w.user("Invoice INV-2041 shows a total of 100.01 but its line items add up to 100.00. Why?", { gap: 2 * SECOND }),
    flag(
      "thinking-only-message",
      "assistant message whose only content is a signed reasoning part (step-start, reasoning, step-finish)",
      w.assistant([
        w.stepStart(),
        w.reasoning(
          "Line items: 3 × 33.333 rounded per line gives 33.33 × 3 = 99.99, but the total is computed from the unrounded sum 99.999 → 100.00, then tax is added on the rounded subtotal... The invoice shows 100.01, which means tax rounding happens per line while the subtotal rounds once. I should check src/invoices/totals.ts to confirm where Math.round is applied.",
        ),
        w.stepFinish("stop"),
      ]),
    ),
    w.user("?? You didn't answer.", { gap: 40 * SECOND }),
    w.assistant([
      w.stepStart(),
      w.read(
        "src/invoices/totals.ts",
        "export function total(lines: Line[]): number {\n  const tax = lines.reduce((sum, l) => sum + round2(l.net * l.taxRate), 0);\n  return round2(sum(lines.map((l) => l.net)) + tax);\n}",
      ),
      w.stepFinish("tool-calls"),
      w.stepStart(),
      w.text(
        "Tax is rounded per line (`round2(l.net * l.taxRate)`) and then added to a subtotal that is rounded once. Three lines each round their tax up by a third of a cent, which adds a cent. Round the tax once on the summed amount instead.",
      ),
      w.stepFinish("stop"),
    ]),
  ];
  return {
    spec: session(w, "Invoice total off by a cent", start, messages),
    summary: "Claude ended its turn right after thinking: the assistant message holds nothing but a signed reasoning part.",
    defects,
  };
}

function thinkingOrder(): DemoSession {
  const start = at("2026-10-09T15:10:00Z");
  const w = new Transcript({ start, directory: FETCHKIT, seed: 25 });
  const { defects, flag } = planted();
  const messages = [
    w.user("Add a per-request `timeout` option that aborts with a TimeoutError.", { gap: 2 * SECOND }),
    w.assistant([
      w.stepStart(),
      w.text("Let me look at how request options are merged first."),
      flag(
        "thinking-block-order",
        "reasoning part after a text part in the same (first) step",
        w.reasoning("Options are merged in src/options.ts; a timeout needs an AbortSignal.timeout combined with the caller's signal."),
      ),
      w.read(
        "src/options.ts",
        "export interface RequestOptions {\n  headers?: Record<string, string>;\n  signal?: AbortSignal;\n  retry?: RetryOptions;\n}\n\nexport function mergeOptions(a: RequestOptions, b: RequestOptions): RequestOptions {\n  return { ...a, ...b, headers: { ...a.headers, ...b.headers } };\n}",
      ),
      w.stepFinish("tool-calls"),
      w.stepStart(),
      w.reasoning("Add timeout?: number and combine signals with AbortSignal.any."),
      w.edit(
        "src/options.ts",
        "  signal?: AbortSignal;",
        "  signal?: AbortSignal;\n  /** Abort the request with a TimeoutError after this many milliseconds. */\n  timeout?: number;",
      ),
      w.text("Added a `timeout` option; `request()` combines it with the caller's signal via `AbortSignal.any([signal, AbortSignal.timeout(timeout)])`."),
      w.stepFinish("stop"),
    ]),
    w.user("Now add a test for it."),
    w.assistant([
      w.stepStart(),
      w.reasoning("A test with fake timers: start a request that never resolves, advance past the timeout, expect TimeoutError."),
      w.text("Adding a test with fake timers."),
      w.edit(
        "test/timeout.test.ts",
        "",
        'it("aborts with TimeoutError", async () => {\n  vi.useFakeTimers();\n  const pending = request("https://example.test/slow", { timeout: 50 });\n  vi.advanceTimersByTime(60);\n  await expect(pending).rejects.toMatchObject({ name: "TimeoutError" });\n});',
      ),
      w.stepFinish("tool-calls"),
      w.stepStart(),
      flag(
        "trailing-thinking",
        "the message's second step is only this reasoning: the last part before the final step-finish",
        w.reasoning("The test file is written. I should run it, but first consider whether AbortSignal.timeout respects fake timers in Node 20."),
      ),
      w.stepFinish("stop"),
    ]),
    w.user("Run it.", { gap: 30 * SECOND }),
    w.assistant([
      w.stepStart(),
      w.reasoning("Run the new test file."),
      w.bash("npx vitest run test/timeout.test.ts", "Run timeout test", "\n Test Files  1 passed (1)\n      Tests  1 passed (1)\n   Duration  301ms\n"),
      w.stepFinish("tool-calls"),
      w.stepStart(),
      w.text("The timeout test passes."),
      w.stepFinish("stop"),
    ]),
  ];
  return {
    spec: session(w, "Add request timeout option", start, messages),
    summary: "Thinking blocks in the wrong place: text streamed before reasoning in one step, and a later step that ended on reasoning.",
    defects,
  };
}

function unsignedThinking(): DemoSession {
  const start = at("2026-10-14T19:45:00Z");
  const w = new Transcript({ start, directory: DASHBOARD, seed: 26 });
  const { defects, flag } = planted();
  const messages = [
    w.user("Add a dark mode toggle to the header that remembers the choice.", { gap: 2 * SECOND }),
    w.assistant([
      w.stepStart(),
      flag(
        "unsigned-thinking",
        "reasoning part from anthropic/claude-sonnet-4-5 with no metadata.anthropic.signature",
        w.reasoning("A dark mode toggle needs a class on <html> and persisted preference in localStorage; read the theme provider.", { signed: false }),
      ),
      w.text("I'll check the existing theme provider."),
      w.read(
        "src/theme/ThemeProvider.tsx",
        'export function ThemeProvider({ children }: { children: React.ReactNode }) {\n  const [theme, setTheme] = useState<"light" | "dark">("light");\n  return <ThemeContext.Provider value={{ theme, setTheme }}>{children}</ThemeContext.Provider>;\n}',
      ),
      w.stepFinish("tool-calls"),
      w.stepStart(),
      w.reasoning("Initialise from localStorage and toggle the dark class on documentElement in an effect."),
      w.edit(
        "src/theme/ThemeProvider.tsx",
        '  const [theme, setTheme] = useState<"light" | "dark">("light");',
        '  const [theme, setTheme] = useState<"light" | "dark">(() => (localStorage.getItem("theme") === "dark" ? "dark" : "light"));\n  useEffect(() => {\n    document.documentElement.classList.toggle("dark", theme === "dark");\n    localStorage.setItem("theme", theme);\n  }, [theme]);',
      ),
      w.text("The provider now restores the saved theme and keeps the `dark` class on `<html>` in sync. The header button only needs to call `setTheme`."),
      w.stepFinish("stop"),
    ]),
  ];
  return {
    spec: session(w, "Dark mode toggle", start, messages),
    summary: "The stream was cut by a proxy before the signature_delta arrived: an Anthropic reasoning part has no signature.",
    defects,
  };
}

function duplicateCallId(): DemoSession {
  const start = at("2026-10-20T11:00:00Z");
  const w = new Transcript({ start, directory: INVOICE_API, seed: 27 });
  const { defects, flag } = planted();
  const reused = w.callID();
  const messages = [
    w.user("Which dependencies are outdated?", { gap: 2 * SECOND }),
    w.assistant([
      w.stepStart(),
      w.tool(
        "bash",
        { command: "npm outdated", description: "List outdated packages" },
        {
          callID: reused,
          output:
            "Package   Current  Wanted  Latest  Location\nfastify    5.2.1   5.6.1   5.6.1  node_modules/fastify\npino       9.5.0   9.9.4   9.9.4  node_modules/pino\nzod       3.24.1  3.25.76  4.1.12  node_modules/zod\n",
          title: "List outdated packages",
          metadata: { exit: 1, description: "List outdated packages" },
          ms: 3_100,
        },
      ),
      w.stepFinish("tool-calls"),
      w.stepStart(),
      w.text("fastify, pino and zod are behind. zod 4 is a major upgrade; the other two are minor."),
      w.stepFinish("stop"),
    ]),
    w.user("Update fastify and pino, leave zod for now."),
    w.assistant([
      w.stepStart(),
      flag(
        "duplicate-tool-call-id",
        `second tool part with callID ${reused} (the first is the npm outdated call)`,
        w.tool(
          "bash",
          { command: "npm install fastify@5.6.1 pino@9.9.4", description: "Update fastify and pino" },
          {
            callID: reused,
            output:
              "\nchanged 14 packages, and audited 312 packages in 4s\n\n58 packages are looking for funding\n  run `npm fund` for details\n\nfound 0 vulnerabilities\n",
            title: "Update fastify and pino",
            metadata: { exit: 0, description: "Update fastify and pino" },
            ms: 4_200,
          },
        ),
      ),
      w.stepFinish("tool-calls"),
      w.stepStart(),
      w.text("Updated fastify to 5.6.1 and pino to 9.9.4; npm reports no vulnerabilities."),
      w.stepFinish("stop"),
    ]),
  ];
  return {
    spec: session(w, "Bump dependencies", start, messages),
    summary: "A replaying proxy returned the same tool_use id twice: two bash calls in different turns share one callID.",
    defects,
  };
}

function unreadableRecords(): DemoSession {
  const start = at("2026-10-23T09:20:00Z");
  const w = new Transcript({ start, directory: FETCHKIT, seed: 28 });
  const { defects, flag } = planted();
  const messages = [
    w.user("Write a Usage section for the README with two examples.", { gap: 2 * SECOND }),
    w.assistant([
      w.stepStart(),
      w.reasoning("Read the current README to match its tone."),
      w.text("I'll read the current README first."),
      flag(
        "unreadable-record",
        "read tool part with one flipped bit: ':' (0x3A) became 0xBA, invalid UTF-8 outside any string; not valid JSON",
        withCorrupt(
          w.read("README.md", "# fetchkit\n\nSmall fetch wrapper with retries and timeouts.\n\n## Install\n\n```sh\nnpm install fetchkit\n```"),
          replaceWithBytes('"callID":', Buffer.from('"callID"\xba', "latin1")),
        ),
      ),
      w.stepFinish("tool-calls"),
      w.stepStart(),
      flag(
        "unreadable-record",
        "text part whose JSON is cut off mid-string (the process died while writing it)",
        withCorrupt(
          w.text(
            "Here is a README section with usage examples for fetchkit, for example a GET with retries and a POST with a timeout. I kept each example self-contained so it can be pasted into a REPL.",
          ),
          truncateAfter("for example a GET with re"),
        ),
      ),
      w.stepFinish("stop"),
    ]),
  ];
  return {
    spec: session(w, "README usage examples", start, messages),
    summary: "Two part records that cannot be parsed at all.",
    defects,
  };
}

function corruptedOutputs(): DemoSession {
  const start = at("2026-10-27T14:00:00Z");
  const w = new Transcript({ start, directory: INVOICE_API, seed: 29 });
  const { defects, flag } = planted();
  const messages = [
    w.user("Import data/legacy-customers.csv into the customers table; check its encoding first. Also, why is the logo in the PDF blank?", { gap: 2 * SECOND }),
    w.assistant([
      w.stepStart(),
      w.reasoning("Preview the CSV to see its encoding and delimiter, and look at the logo bytes."),
      w.text("Looking at the CSV and the logo file."),
      flag(
        "corrupted-tool-output",
        "bash output string holding raw Latin-1 bytes (0xFC in 'Müller'): invalid UTF-8, the rest of the JSON parses",
        withCorrupt(
          w.bash(
            "head -n 4 data/legacy-customers.csv",
            "Preview legacy CSV",
            "id;name;city;vat\n1041;Jürgen Müller;Köln;DE812345678\n1042;Ana Pérez;Sevilla;ESB12345678\n1043;Lars Østergaard;Aarhus;DK12345678\n",
          ),
          // the Latin-1 file reached the record undecoded
          replaceWithBytes("Müller", Buffer.from("M\xfcller", "latin1")),
        ),
      ),
      flag(
        "corrupted-tool-output",
        "bash output with NUL characters (\\u0000) from binary data",
        w.bash(
          "git show HEAD:assets/logo.png | head -c 48",
          "Peek at logo bytes",
          "\u0089PNG\r\n\u001a\n\u0000\u0000\u0000\rIHDR\u0000\u0000\u0000\u0080\u0000\u0000\u0000\u0080\b\u0006\u0000\u0000\u0000\u00c3>a\u00cb\u0000\u0000\u0000\u0001sRGB\u0000",
        ),
      ),
      w.stepFinish("tool-calls"),
      w.stepStart(),
      w.text("The CSV is Latin-1, not UTF-8, so it must be decoded as `latin1` before import. The logo is a valid 128×128 PNG."),
      w.stepFinish("stop"),
    ]),
  ];
  return {
    spec: session(w, "Import legacy customers CSV", start, messages),
    summary: "Tool outputs the API will reject: raw Latin-1 bytes inside the output string, and binary output with NUL characters.",
    defects,
  };
}

function loneSurrogate(): DemoSession {
  const start = at("2026-10-30T16:30:00Z");
  const w = new Transcript({ start, directory: DASHBOARD, seed: 30 });
  const { defects, flag } = planted();
  const rows = ["paid ✅", "overdue 🔴", "draft 📝", "sent 📨"].map((s, i) => `  ✓ StatusBadge renders ${s} (${i + 2}ms)`).join("\n");
  const full = `\n RUN  v3.2.4 ${DASHBOARD}\n\n${rows}\n`;
  // opencode cut the output at a character limit that fell between the two halves of 📨
  const cut = full.slice(0, full.indexOf("📨") + 1);
  const messages = [
    w.user("Add a test that every invoice status renders its emoji badge.", { gap: 2 * SECOND }),
    w.assistant([
      w.stepStart(),
      w.reasoning("Write a parameterised test over all statuses, then run it."),
      w.text("Running the StatusBadge tests."),
      flag(
        "corrupted-tool-output",
        "bash output ending in a lone high surrogate (\\ud83d, escaped in the JSON)",
        w.bash("npx vitest run src/components/StatusBadge.test.tsx --reporter=verbose", "Run StatusBadge tests", `${cut}\n\n(output truncated)`),
      ),
      w.stepFinish("tool-calls"),
      w.stepStart(),
      w.text("All four status badges render their emoji."),
      w.stepFinish("stop"),
    ]),
  ];
  return {
    spec: session(w, "StatusBadge emoji tests", start, messages),
    summary: "Output truncated in the middle of a surrogate pair: the JSON holds an escaped lone surrogate.",
    defects,
  };
}

function withoutCallId(part: PartSpec): PartSpec {
  delete (part.data as Json).callID;
  return part;
}

function schemaAndOrphan(): DemoSession {
  const start = at("2026-11-04T10:00:00Z");
  const w = new Transcript({ start, directory: FETCHKIT, seed: 31 });
  const { defects, flag } = planted();
  const messages = [
    w.user("Convert fetchkit to native ESM.", { gap: 2 * SECOND }),
    w.assistant([
      w.stepStart(),
      w.reasoning("Find remaining require() calls first."),
      w.text("Searching for CommonJS requires."),
      flag(
        "schema-violation",
        "completed grep tool part without callID (written by an old plugin); it parses but is not a valid ToolPart",
        withoutCallId(
          w.tool(
            "grep",
            { pattern: "require\\(", path: `${FETCHKIT}/src` },
            {
              output: `Found 2 matches\n${FETCHKIT}/src/index.ts:\n  Line 3: const { withRetry } = require("./retry");\n${FETCHKIT}/src/options.ts:\n  Line 1: const merge = require("lodash.merge");`,
              title: "require\\(",
              metadata: { matches: 2, truncated: false },
            },
          ),
        ),
      ),
      w.stepFinish("tool-calls"),
      w.stepStart(),
      w.text('Two `require` calls remain (src/index.ts and src/options.ts). After replacing them with `import`, set `"type": "module"` in package.json.'),
      w.stepFinish("stop"),
    ]),
  ];
  // The user reverted the follow-up answer while it was still streaming: the revert deleted the
  // message, then the processor's final update of its text part landed anyway.
  const revertedAt = w.tick(3 * MINUTE);
  const orphanMessageId = ascendingId("msg", revertedAt, 1, mulberry32(SEED + 14));
  const orphan = flag("orphan-part", `text part whose message ${orphanMessageId} does not exist`, {
    time: revertedAt + 1_000,
    data: { type: "text", text: 'Replaced both require calls and set "type": "module".', time: { start: revertedAt + 1_000, end: revertedAt + 1_400 } },
  });
  return {
    spec: session(w, "Convert to native ESM", start, messages, { orphanParts: [{ messageId: orphanMessageId, parts: [orphan] }] }),
    summary: `A part that parses but breaks the schema, and a part written after a revert deleted its message (${orphanMessageId}).`,
    defects,
  };
}

/** Realistic structured API log lines, deterministic. */
function apiLog(targetChars: number, startMs: number): string {
  const rand = mulberry32(5);
  const routes = ["GET /invoices", "GET /invoices/:id", "POST /invoices", "GET /customers/:id", "GET /invoices/search", "PATCH /invoices/:id"];
  const lines: string[] = [];
  let length = 0;
  for (let t = startMs; length < targetChars; t += 40 + Math.floor(rand() * 900)) {
    const route = routes[Math.floor(rand() * routes.length)]!;
    const slow = route.endsWith("search") && rand() < 0.7;
    const ms = slow ? 800 + Math.floor(rand() * 2400) : 3 + Math.floor(rand() * 40);
    const level = slow ? "WARN" : "INFO";
    const reqId = `req-${Math.floor(rand() * 0xfffff).toString(36)}`;
    const url = route
      .replace(":id", String(1000 + Math.floor(rand() * 3000)))
      .replace("search", `search?q=${["acme", "globex", "initech", "umbrella"][Math.floor(rand() * 4)]}`);
    const line = `${new Date(t).toISOString()} ${level.padEnd(5)} [http] ${url.padEnd(38)} 200 ${String(ms).padStart(5)}ms reqId=${reqId}${slow ? " slow query: invoices_fts seq scan" : ""}`;
    lines.push(line);
    length += line.length + 1;
  }
  return lines.join("\n");
}

function oversizedOutput(): DemoSession {
  const start = at("2026-11-10T13:15:00Z");
  const w = new Transcript({ start, directory: INVOICE_API, seed: 32 });
  const { defects, flag } = planted();
  const log = apiLog(60_000, at("2026-11-10T08:00:00Z"));
  const messages = [
    w.user("Invoice search got slow since yesterday. The API log is in logs/api.log.", { gap: 2 * SECOND }),
    w.assistant([
      w.stepStart(),
      w.reasoning("Look at the log for slow search requests."),
      w.text("Reading the API log."),
      flag(
        "oversized-tool-output",
        `bash output of ${log.length} characters (the whole log file)`,
        w.bash("cat logs/api.log", "Show API log", log, { ms: 300 }),
      ),
      w.stepFinish("tool-calls"),
      w.stepStart(),
      w.text(
        "Search requests take 0.8–3.2 s and every slow one logs `invoices_fts seq scan`: the full-text index is not being used. Re-create the `invoices_fts` index and check the query plan.",
      ),
      w.stepFinish("stop"),
    ]),
  ];
  return {
    spec: session(w, "Investigate slow invoice search", start, messages),
    summary: `A single tool output of ${log.length.toLocaleString("en")} characters (whole log file).`,
    defects,
  };
}

/** A plausible React component of about targetChars characters. */
function componentSource(name: string, targetChars: number, rand: () => number): string {
  const lines = [
    `import { useMemo, useState } from "react";`,
    `import type { Invoice } from "../api/types";`,
    "",
    `export function ${name}({ invoices }: { invoices: Invoice[] }) {`,
  ];
  const fields = ["number", "customer", "dueDate", "total", "status", "currency", "issuedAt", "paidAt"];
  let n = 0;
  while (lines.join("\n").length < targetChars - 40) {
    const f = fields[Math.floor(rand() * fields.length)]!;
    n++;
    lines.push(
      `  const by${f[0]!.toUpperCase()}${f.slice(1)}${n} = useMemo(() => invoices.filter((i) => i.${f} !== undefined).map((i) => ({ id: i.id, value: String(i.${f}) })), [invoices]);`,
      `  const [open${n}, setOpen${n}] = useState(false);`,
      `  // ${f}: rows ${n * 3}–${n * 3 + 2} render as <button aria-label="${f}"> for keyboard users`,
    );
  }
  lines.push(`  return <section aria-label="${name}">{invoices.length}</section>;`, "}");
  return lines.join("\n");
}

function contextOverflow(): DemoSession {
  const start = at("2026-11-17T09:00:00Z");
  const w = new Transcript({ start, directory: DASHBOARD, seed: 33 });
  const rand = mulberry32(77);
  const components = [
    "InvoiceTable",
    "InvoiceDetail",
    "CustomerCard",
    "StatusBadge",
    "Header",
    "Sidebar",
    "SearchBox",
    "Pagination",
    "DateRangePicker",
    "CurrencyInput",
    "LineItemEditor",
    "PdfPreview",
    "Toast",
    "Modal",
    "Tabs",
    "Tooltip",
    "EmptyState",
    "ErrorBoundary",
    "UserMenu",
    "ThemeToggle",
    "FilterBar",
    "ExportButton",
    "SortHeader",
    "Avatar",
    "Breadcrumbs",
    "Skeleton",
    "Chart",
    "KpiTile",
    "NotesPanel",
    "AuditLog",
    "SettingsForm",
    "Footer",
  ];
  const messages: MessageSpec[] = [
    w.user("Audit every component in src/components for accessibility problems. Go through them in batches of four and list issues per file.", {
      gap: 2 * SECOND,
    }),
  ];
  for (let batch = 0; batch < components.length / 4; batch++) {
    const names = components.slice(batch * 4, batch * 4 + 4);
    if (batch > 0) messages.push(w.user("Next batch.", { gap: 50 * SECOND }));
    messages.push(
      w.assistant([
        w.stepStart(),
        w.reasoning(`Read ${names.join(", ")} and check labels, roles and keyboard access.`),
        ...names.map((n) => w.read(`src/components/${n}.tsx`, componentSource(n, 29_000 + Math.floor(rand() * 2_000), rand))),
        w.stepFinish("tool-calls"),
        w.stepStart(),
        w.text(names.map((n) => `- **${n}**: icon-only buttons rely on aria-label; the toggle state is not announced (add aria-expanded).`).join("\n")),
        w.stepFinish("stop"),
      ]),
    );
  }
  messages.push(
    w.user("Now summarise all findings in one table.", { gap: 2 * MINUTE }),
    // What the next request produced: the provider refused the oversized prompt.
    w.assistant([], {
      finish: undefined,
      cost: 0,
      tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
      error: { name: "ContextOverflowError", data: { message: "prompt is too long: 251734 tokens > 200000 maximum" } },
    }),
  );
  return {
    spec: session(w, "Accessibility audit of all components", start, messages),
    summary:
      "32 full-file reads of ~30k characters each: the conversation no longer fits a 200k-token context. The last assistant message is the provider's ContextOverflowError (a symptom, with no parts).",
    defects: [{ rule: "context-overflow", what: "sendable text of the session exceeds 900,000 characters (~>200k tokens)" }],
  };
}

// ---------------------------------------------------------------------------------------------
// Build, check, write
// ---------------------------------------------------------------------------------------------

const demos: DemoSession[] = [
  healthyConfig(),
  healthyRetry(),
  wrapSession(),
  interruptedTool(),
  incompleteMessage(),
  emptyParts(),
  thinkingOnly(),
  thinkingOrder(),
  unsignedThinking(),
  duplicateCallId(),
  unreadableRecords(),
  corruptedOutputs(),
  loneSurrogate(),
  schemaAndOrphan(),
  oversizedOutput(),
  contextOverflow(),
];

/** Finds the built record (message or part) made from a spec object. */
function locate(spec: SessionSpec, built: BuiltSession, record: MessageSpec | PartSpec | undefined): { messageId?: string; partId?: string } {
  if (record === undefined) return {};
  for (const [i, m] of spec.messages.entries()) {
    const bm = built.messages[i]!;
    if (m === record) return { messageId: bm.id };
    const j = m.parts.indexOf(record as PartSpec);
    if (j >= 0) return { messageId: bm.id, partId: bm.parts[j]!.id };
  }
  const orphans = (spec.orphanParts ?? []).flatMap((o) => o.parts);
  const k = orphans.indexOf(record as PartSpec);
  if (k >= 0) return { messageId: built.orphanParts[k]!.messageId, partId: built.orphanParts[k]!.id };
  throw new Error("defect record not found in its session");
}

function sendableChars(s: BuiltSession): number {
  let n = 0;
  for (const m of s.messages)
    for (const p of m.parts) {
      const d = p.data;
      if (!d) continue;
      if (d.type === "text" || d.type === "reasoning") n += String(d.text).length;
      if (d.type === "tool") n += JSON.stringify(d.state).length;
    }
  return n;
}

/** Every record must be minted in conversation order, as opencode's clock would have minted it. */
function checkChronology(s: BuiltSession): void {
  let previous = (s.info.time as { created: number }).created;
  for (const m of s.messages) {
    if (m.created <= previous) throw new Error(`session ${s.id}: message ${m.id} is not after the record before it`);
    previous = m.created;
    for (const p of m.parts) {
      if (p.created <= previous) throw new Error(`session ${s.id}: part ${p.id} is not after the record before it`);
      previous = p.created;
    }
    const completed = (m.info?.time as { completed?: number } | undefined)?.completed;
    if (completed !== undefined && completed < previous) throw new Error(`session ${s.id}: message ${m.id} completes before its last part`);
    previous = Math.max(previous, completed ?? 0);
  }
}

function check(store: BuiltStore): void {
  store.sessions.forEach(checkChronology);
  const wrap = store.sessions[2]!;
  const times = wrap.messages.map((m) => m.created);
  if (!(times.some((t) => t < WRAP) && times.some((t) => t >= WRAP))) throw new Error("wrap session does not span the wrap");
  for (const m of wrap.messages) {
    const ts = [m.created, ...m.parts.map((p) => p.created)];
    if (ts.some((t) => t < WRAP) && ts.some((t) => t >= WRAP)) throw new Error(`message ${m.id} straddles the wrap`);
  }
  const overflow = sendableChars(store.sessions.at(-1)!);
  if (overflow <= 900_000) throw new Error(`context-overflow session has only ${overflow} sendable characters`);
  for (const s of store.sessions.slice(0, -1)) if (sendableChars(s) > 200_000) throw new Error(`session ${s.id} is unexpectedly large`);
  const end = Date.parse("2026-11-22T00:00:00Z");
  for (const s of store.sessions) if ((s.info.time as { updated: number }).updated > end) throw new Error(`session ${s.id} ends in the future`);
}

function writeManifest(store: BuiltStore): void {
  const entries = demos.map((d, i) => {
    const s = store.sessions[i]!;
    return {
      sessionId: s.id,
      title: String(s.info.title),
      directory: String(s.info.directory),
      summary: d.summary,
      expect: d.defects.map((x) => ({ rule: x.rule, ...locate(d.spec, s, x.record), what: x.what })),
    };
  });
  fs.writeFileSync(path.join(ROOT, "fixtures/demo/expected.json"), `${JSON.stringify(entries, null, 2)}\n`);

  const md: string[] = [
    "# Fixtures",
    "",
    "Generated by `npx vite-node scripts/make-demo-store.ts` with the builder in `test/support/opencode-fixtures.ts`. Do not edit by hand; change the script and re-run it.",
    "",
    "- `demo/opencode/opencode.db`: opencode 1.18.31 SQLite store (V1 tables, WAL mode, checkpointed; no -wal/-shm committed).",
    "- `demo/opencode-legacy/storage/`: the same sessions as an opencode ≤1.1.65 JSON tree.",
    "- `demo/expected.json`: the table below as data (session, rule, message/part ids).",
    "- `demo/claude/`, `demo/openclaw/`: Claude Code and openclaw transcripts, written by `npx vite-node scripts/make-demo-transcripts.ts`; what is planted where is in `TRANSCRIPTS.md` and `demo/expected-transcripts.json`.",
    "- `demo/codex/`, `demo/gemini/`: rollouts the real Codex CLI 0.169.0 and chat files the real Gemini CLI 0.61.0 wrote (from `codex-0.169/`, `gemini-0.61/`), laid out as each agent's home by `npx vite-node scripts/make-demo-captures.ts`; what each shows is in `demo/expected-codex.json`, `demo/expected-gemini.json`.",
    "",
    "All times are in 2026. Healthy sessions must produce no findings. Each planted defect lists the rule id that should report it and the record it is in.",
    "",
    "| # | Session id | Title | Planted | Rule ids | Record(s) |",
    "|---|---|---|---|---|---|",
  ];
  entries.forEach((e, i) => {
    const rules = e.expect.length ? e.expect.map((x) => `\`${x.rule}\``).join("<br>") : "none";
    const records = e.expect.length
      ? e.expect.map((x) => `${x.partId ? `part \`${x.partId}\`` : x.messageId ? `message \`${x.messageId}\`` : "session"}: ${x.what}`).join("<br>")
      : "";
    md.push(`| ${i + 1} | \`${e.sessionId}\` | ${e.title} (${path.basename(e.directory)}) | ${e.summary} | ${rules} | ${records} |`);
  });
  md.push(
    "",
    "Notes:",
    "",
    "- Raw-byte defects (`unreadable-record`, invalid UTF-8) are applied to each format's own serialisation: compact JSON without ids in `part.data`, pretty JSON with ids in the JSON tree.",
    "- The `context-overflow` session ends with an assistant message carrying `ContextOverflowError` and no parts; opencode skips errored messages when it builds a request, so it is not a separate defect.",
    "- Session 3 checks ordering: its last turn was minted after 2026-08-14T11:19:55.136Z, so its ids sort before the earlier turns. Order messages by `(time_created, id)`.",
    "",
  );
  fs.writeFileSync(path.join(ROOT, "fixtures/README.md"), md.join("\n"));
}

function main(): void {
  const store = buildStore({ seed: SEED, sessions: demos.map((d) => d.spec) });
  check(store);
  fs.rmSync(SQLITE_DIR, { recursive: true, force: true });
  fs.rmSync(LEGACY_DIR, { recursive: true, force: true });
  const db = writeSqliteStore(SQLITE_DIR, store);
  writeJsonStore(LEGACY_DIR, store);
  writeManifest(store);

  const conn = new Database(db, { readonly: true });
  const count = (table: string) => conn.prepare(`SELECT count(*) FROM ${table}`).pluck().get();
  console.log(`${db}: ${fs.statSync(db).size} bytes, sessions=${count("session")} messages=${count("message")} parts=${count("part")}`);
  conn.close();
  for (const f of [`${db}-wal`, `${db}-shm`]) fs.rmSync(f, { force: true }); // only the .db is committed
}

main();
