// Sessions for the `recover context trim` tests: a realistic overflowing session (a long debugging run with 40–80 KB
// bash logs and file reads, stored token counts that tell the real prompt size) and small sessions on which exactly
// one strategy applies. Everything is seeded: the same bytes on every run. Plus what the tests read back: the store
// as the CLI sees it, the estimate a rescan makes, spawned runs with stdin.
import Database from "better-sqlite3";
import fs from "node:fs";
import path from "node:path";
import type { SessionRecords } from "../../src/model/opencode-records.js";
import type { SessionView } from "../../src/model/session-view.js";
import { anthropicRequest } from "../../src/provider/anthropic-request.js";
import { validateAnthropic, type Violation } from "../../src/provider/validate-anthropic.js";
import { DEFAULT_RULE_OPTIONS } from "../../src/rules/rule.js";
import { requestBytes } from "../../src/rules/trim/budget.js";
import { opencodeSessionView } from "../../src/stores/opencode/view.js";
import { openStore } from "../../src/stores/discover.js";
import { isOpencodeStore } from "../../src/stores/store.js";
import { parseJsonDocument, type RunResult } from "../cli/run.js";
import type { Sandbox, TestStore } from "../cli/repair-support.js";
import { T0 } from "../cli/stores.js";
import {
  buildStore,
  mulberry32,
  readOutput,
  SECOND,
  Transcript,
  type BuiltStore,
  type Json,
  type MessageSpec,
  type PartSpec,
  type SessionSpec,
  type Tokens,
} from "../support/opencode-fixtures.js";

export { T0 };

/** Stored usage of zero: `context trim` then has nothing to calibrate against and uses characters / 4 as is. */
export const ZERO_TOKENS: Tokens = { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } };

// ---------------------------------------------------------------------------------------------
// Content: logs and source files of an exact size
// ---------------------------------------------------------------------------------------------

const WORDS = ["worker", "batch", "invoice", "ledger", "queue", "retry", "shard", "export", "cursor", "payload", "account", "upload"];

/** Seeded text generators: bash logs and TypeScript sources of exactly `chars` characters. */
export class Content {
  private readonly rand: () => number;
  constructor(seed: number) {
    this.rand = mulberry32(seed);
  }

  private int(lo: number, hi: number): number {
    return lo + Math.floor(this.rand() * (hi - lo + 1));
  }

  private word(): string {
    return WORDS[Math.floor(this.rand() * WORDS.length)]!;
  }

  private fill(chars: number, line: () => string): string {
    const out: string[] = [];
    let n = 0;
    while (n < chars) {
      const l = line();
      out.push(l);
      n += l.length + 1;
    }
    return out.join("\n").slice(0, chars);
  }

  /** A bash log: timestamps, levels, ids, the odd stack frame. */
  log(chars: number): string {
    return this.fill(chars, () => {
      const ts = `2026-07-${String(this.int(10, 28)).padStart(2, "0")}T${String(this.int(0, 23)).padStart(2, "0")}:${String(this.int(0, 59)).padStart(2, "0")}:${String(this.int(0, 59)).padStart(2, "0")}Z`;
      switch (this.int(0, 5)) {
        case 0:
          return `${ts} WARN  ${this.word()} ${this.int(1, 9999)} slow: took ${this.int(900, 9000)}ms (budget 800ms)`;
        case 1:
          return `    at ${this.word()}${this.int(1, 99)} (file:///srv/etl/dist/${this.word()}/${this.word()}.js:${this.int(1, 900)}:${this.int(1, 80)})`;
        case 2:
          return `${ts} ERROR ${this.word()} id=${this.int(100000, 999999).toString(16)} failed: ECONNRESET after ${this.int(1, 5)} retries`;
        default:
          return `${ts} INFO  ${this.word()} ${this.int(1, 9999)} processed ${this.int(1, 500)} ${this.word()}s ok`;
      }
    });
  }

  /** A TypeScript source file. */
  source(chars: number): string {
    return this.fill(chars, () => {
      const indent = "  ".repeat(this.int(0, 3));
      switch (this.int(0, 5)) {
        case 0:
          return `export async function ${this.word()}${this.int(1, 99)}(${this.word()}: ${this.word()}Options): Promise<void> {`;
        case 1:
          return `${indent}const ${this.word()} = await db.${this.word()}.findMany({ where: { id: ${this.int(1, 999)} } });`;
        case 2:
          return `${indent}if (!${this.word()}) throw new Error("${this.word()} ${this.int(1, 99)} missing");`;
        case 3:
          return `${indent}}`;
        default:
          return `${indent}log.debug("${this.word()}", { ${this.word()}: ${this.int(0, 9999)} });`;
      }
    });
  }

  /** A file read as the read tool prints it, about `chars` characters in all. */
  read(chars: number): { content: string; output: string } {
    // readOutput adds "00001| " (7 chars) per line of ~60: take off about a tenth for the numbering.
    const content = this.source(Math.round(chars * 0.9));
    return { content, output: readOutput(content) };
  }
}

// ---------------------------------------------------------------------------------------------
// The realistic overflowing session
// ---------------------------------------------------------------------------------------------

const PROMPTS = [
  "The nightly ETL job (`npm run etl:nightly`) started failing three days ago with ECONNRESET. Find out why and fix it.",
  "Run it again with DEBUG=etl:* and show me what the exporter does before it dies.",
  "Read the retry wrapper in src/etl/retry.ts and the exporter, I think the backoff is wrong.",
  "Check the worker logs from last night on the staging box too.",
  "Look at how the ledger shard cursor is advanced after a partial batch.",
  "Try the export with a batch size of 200 instead of 1000.",
  "Read src/etl/exporter.ts again, the version on main changed.",
  "What does the upload queue log say around 02:14?",
  "Run the whole ETL integration suite.",
  "Apply the fix to the cursor handling and rerun the nightly job locally.",
  "Run the integration suite once more and summarise.",
  "Write a short incident note for the team channel.",
];

/**
 * A long debugging session whose request is far over a 200,000-token window: `heavy` turns, each a tool loop of one
 * to three assistant messages (one per step, as opencode writes them) calling bash and read with 40–80 KB outputs,
 * an errored call now and then, a file read twice with its input keys in another order; then `light` recent turns
 * with small outputs (what the user is working on now). Stored usage (input + cache.read + cache.write) tracks the
 * real prompt: everything sent so far plus a system prompt of about 10,000 tokens.
 */
export function overflowSession(opts: { start?: number; heavy?: number; light?: number; seed?: number } = {}): SessionSpec {
  const start = opts.start ?? T0;
  const heavy = opts.heavy ?? 8;
  const light = opts.light ?? 4;
  const seed = opts.seed ?? 101;
  const text = new Content(seed);
  const rand = mulberry32(seed + 1);
  const big = () => 40_000 + Math.floor(rand() * 40_000);
  const small = () => 2_000 + Math.floor(rand() * 8_000);
  const w = new Transcript({ start, directory: "/srv/etl", seed });
  const messages: MessageSpec[] = [];
  const exporter = text.read(big());
  for (let t = 0; t < heavy + light; t++) {
    const size = t < heavy ? big : small;
    messages.push(w.user(PROMPTS[t % PROMPTS.length]!, { gap: t === 0 ? 2 * SECOND : 90 * SECOND }));
    // Step 1: look at something big.
    const first: PartSpec[] = [w.stepStart(), w.reasoning(`Turn ${t + 1}: I need the evidence before changing anything.`), w.text("Let me look.")];
    if (t < heavy && t % 3 === 1) {
      // The same file read again, its input written with the keys in another order: dedupe's case.
      const input =
        t % 2 === 0
          ? { filePath: "/srv/etl/src/etl/exporter.ts", limit: 2000, offset: 0 }
          : { offset: 0, filePath: "/srv/etl/src/etl/exporter.ts", limit: 2000 };
      first.push(w.tool("read", input, { output: exporter.output, title: "src/etl/exporter.ts", ms: 40 }));
    } else {
      first.push(w.read(`src/etl/${WORDS[t % WORDS.length]}.ts`, text.read(size()).content));
    }
    first.push(w.bash(`DEBUG=etl:* npm run etl:nightly -- --step ${t + 1}`, `Run nightly ETL step ${t + 1}`, text.log(size()), { exit: 1 }));
    first.push(w.stepFinish("tool-calls"));
    messages.push(w.assistant(first));
    // Step 2 (most turns): one more log, sometimes after a failed call.
    if (t % 4 !== 3) {
      const second: PartSpec[] = [w.stepStart(), w.text("Now the worker log.")];
      if (t % 3 === 2) {
        second.push(
          erroredTool(
            w,
            "bash",
            { command: `ssh staging-etl-${t} journalctl -u etl-worker --since 02:00`, description: "Worker journal" },
            "ssh: connect to host staging-etl port 22: Connection timed out",
          ),
        );
      }
      second.push(w.bash(`journalctl -u etl-worker --since "02:00" --until "03:00" -n ${2000 + t}`, "Worker journal", text.log(size())));
      second.push(w.stepFinish("tool-calls"));
      messages.push(w.assistant(second));
    }
    // Last step: the answer.
    messages.push(
      w.assistant([
        w.stepStart(),
        w.text(`Step ${t + 1}: the exporter resets the shard cursor after a partial batch, so the retry re-sends rows the ledger already has.`),
        w.stepFinish("stop"),
      ]),
    );
  }
  return { title: "Nightly ETL fails with ECONNRESET", directory: "/srv/etl", created: start, messages };
}

/** A tool call that failed (opencode stores status error with the error text). */
export function erroredTool(w: Transcript, tool: string, input: Json, error: string): PartSpec {
  const start = w.tick();
  const end = w.tick(300);
  return { time: start, data: { type: "tool", callID: w.callID(), tool, state: { status: "error", input, error, time: { start, end } } } };
}

/** A one-step assistant message that stores zero usage (so no calibration applies). */
export function answer(w: Transcript, parts: PartSpec[], reason = "stop"): MessageSpec {
  return w.assistant([w.stepStart(), ...parts, w.stepFinish(reason, ZERO_TOKENS)]);
}

export function storeWith(...sessions: SessionSpec[]): BuiltStore {
  return buildStore({ seed: 23, sessions });
}

// ---------------------------------------------------------------------------------------------
// Reading the store back
// ---------------------------------------------------------------------------------------------

export function loadRecords(store: TestStore, sessionId: string): SessionRecords {
  const s = openStore({ store: store.store });
  try {
    if (!isOpencodeStore(s)) throw new Error(`${s.info.format} is not an opencode store`);
    return s.loadSession(sessionId, "full");
  } finally {
    s.close();
  }
}

export function viewOf(store: TestStore, sessionId: string): SessionView {
  return opencodeSessionView(loadRecords(store, sessionId), { now: Date.now(), liveWindowMs: DEFAULT_RULE_OPTIONS.liveWindowMs });
}

/** What a rescan estimates: tokens (× a calibration) and characters of the request. */
export function estimate(store: TestStore, sessionId: string, factor = 1): { tokens: number; raw: number; chars: number } {
  const view = viewOf(store, sessionId);
  return { tokens: Math.round(view.estimatedTokens * factor), raw: view.estimatedTokens, chars: requestBytes(view) };
}

/** Violations of the Anthropic rules in the request built from the stored session. */
export function violations(store: TestStore, sessionId: string, thinking: "on" | "auto"): Violation[] {
  const request = anthropicRequest(viewOf(store, sessionId).conversation);
  const mode =
    thinking === "auto"
      ? request.messages.some((m) => m.role === "assistant" && m.content.some((b) => b.type === "thinking" || b.type === "redacted_thinking"))
        ? "on"
        : "off"
      : "on";
  return validateAnthropic(request, mode);
}

/** The turns of a stored session: user message id → the ids of its messages (user first) and of all their parts. */
export interface StoredTurn {
  messageIds: string[];
  partIds: string[];
  prompt: string;
}

export function storedTurns(records: SessionRecords): StoredTurn[] {
  const turns: StoredTurn[] = [];
  for (const m of records.messages) {
    if (m.info?.role === "user" || turns.length === 0) {
      const text = m.parts.map((p) => p.original).find((d) => d?.type === "text")?.text;
      turns.push({ messageIds: [], partIds: [], prompt: typeof text === "string" ? text : "" });
    }
    const turn = turns.at(-1)!;
    turn.messageIds.push(m.ref.id);
    turn.partIds.push(...m.parts.map((p) => p.ref.id));
  }
  return turns;
}

/** The store-state keys (see storeState) of a turn's records. */
export function turnKeys(store: TestStore, sessionId: string, turn: StoredTurn, records: SessionRecords): string[] {
  if (store.format === "opencode-sqlite") return [...turn.messageIds.map((id) => `message/${id}`), ...turn.partIds.map((id) => `part/${id}`)];
  const keys = turn.messageIds.map((id) => path.join("message", sessionId, `${id}.json`));
  for (const m of records.messages) if (turn.messageIds.includes(m.ref.id)) for (const p of m.parts) keys.push(path.join("part", m.ref.id, `${p.ref.id}.json`));
  return keys;
}

/** JSON tree: each file's mtime (ms) under storage/, by the same keys as treeFiles. */
export function treeMtimes(storage: string): Record<string, number> {
  const out: Record<string, number> = {};
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(p);
      else out[path.relative(storage, p)] = fs.statSync(p).mtimeMs;
    }
  };
  walk(storage);
  return out;
}

/** SQLite: the ids of every message and part row of a session. */
export function sqliteIds(dbFile: string, sessionId: string): { messages: string[]; parts: string[] } {
  const db = new Database(dbFile, { readonly: true, fileMustExist: true });
  try {
    return {
      messages: db.prepare("SELECT id FROM message WHERE session_id = ? ORDER BY id").pluck().all(sessionId) as string[],
      parts: db.prepare("SELECT id FROM part WHERE session_id = ? ORDER BY id").pluck().all(sessionId) as string[],
    };
  } finally {
    db.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Running the CLI
// ---------------------------------------------------------------------------------------------

/** Runs the built CLI in the sandbox with `input` on stdin (run() gives the child no stdin). */
/** The CLI in-process with `input` as its standard input (what `--error -` reads). */
export async function runWithInput(sb: Sandbox, args: string[], input: string): Promise<RunResult> {
  return await sb.run(args, { input });
}

export interface TrimDoc {
  schemaVersion: number;
  tool: { name: string; version: string };
  store: { format: string; path: string; notices: string[] };
  dryRun: boolean;
  backup: { id: string; path: string } | null;
  undo?: string;
  sessions: {
    id: string;
    title: string;
    changes: { op: string; record: string; id: string; sessionId: string; messageId?: string; rules: string[]; reasons: string[] }[];
    unfixed: unknown[];
  }[];
  summary: { sessions: number; changes: number; unfixed: number };
  tokens: { before: number; after: number; limit: number; target: number; method: string };
  bytes?: { before: number; after: number; max: number };
  strategies: { id: string; records: number; tokens: number; chars: number }[];
  stillOver: boolean;
  reached?: { id: string; records: number }[];
  advice?: string;
}

export function trimDoc(result: RunResult): TrimDoc {
  return parseJsonDocument(result.stdout) as unknown as TrimDoc;
}

// ---------------------------------------------------------------------------------------------
// Small sessions on which one strategy applies (zero stored usage: the estimate is characters / 4 as is)
// ---------------------------------------------------------------------------------------------

/** A tool-call id with a readable tag, in Anthropic's shape (toolu_01 + 22 base62 characters). */
export function cid(tag: string): string {
  if (!/^[0-9A-Za-z]{1,22}$/.test(tag)) throw new Error(`cid: bad tag ${tag}`);
  return `toolu_01${tag.padEnd(22, "0")}`;
}

/** A completed call with an exact output and a known call id. */
export function call(w: Transcript, tool: string, input: Json, output: string, tag: string): PartSpec {
  return w.tool(tool, input, { output, title: tool, metadata: {}, ms: 100, callID: cid(tag) });
}

/** A failed call with a known call id. */
export function failed(w: Transcript, tool: string, input: Json, error: string, tag: string): PartSpec {
  const spec = erroredTool(w, tool, input, error);
  (spec.data as Json).callID = cid(tag);
  return spec;
}

/** A turn without tools: a prompt and a one-step answer. */
export function chatTurn(w: Transcript, prompt: string): MessageSpec[] {
  return [w.user(prompt), answer(w, [w.text(`About "${prompt.slice(0, 40)}": done.`)])];
}

/**
 * A turn with a tool loop as opencode writes it: the prompt, an assistant message whose step calls the tools, and a
 * second assistant message answering from their results. `calls` runs after the prompt is written (one clock).
 */
export function toolTurn(w: Transcript, prompt: string, calls: (w: Transcript) => PartSpec[]): MessageSpec[] {
  const user = w.user(prompt);
  const step = w.assistant([w.stepStart(), w.text("Let me check."), ...calls(w), w.stepFinish("tool-calls", ZERO_TOKENS)]);
  return [user, step, answer(w, [w.text("Here is what that shows.")])];
}

/** Light recent turns: what the user works on now (the last --keep-turns). */
export function recentTurns(w: Transcript, count: number, big?: { tag: string; chars: number }): MessageSpec[] {
  const text = new Content(77);
  const out: MessageSpec[] = [];
  for (let i = 0; i < count; i++) {
    if (i === 0 && big)
      out.push(
        ...toolTurn(w, "Show me the current build log.", (x) => [
          call(x, "bash", { command: "npm run build", description: "Build" }, text.log(big.chars), big.tag),
        ]),
      );
    else out.push(...chatTurn(w, `Recent question ${i + 1}: what is left to do?`));
  }
  return out;
}

/** A session written on one clock from T0. */
export function session(title: string, build: (w: Transcript) => MessageSpec[], start = T0): SessionSpec {
  const w = new Transcript({ start, directory: "/srv/etl", seed: 5 });
  return { title, directory: "/srv/etl", created: start, messages: build(w) };
}

/**
 * truncate-outputs: outputs of 100,000 (C), 200,000 (A), 60,000 (D), 150,000 (B) and 30,000 (E) characters in old
 * turns, in that order (the largest is not the oldest), and a 90,000-character output in the last turns (P).
 */
export function truncateSession(): SessionSpec {
  const text = new Content(11);
  return session("Big outputs", (w) => [
    ...chatTurn(w, "The export job is slow. Let us look at its logs."),
    ...toolTurn(w, "Show the export log.", (x) => [call(x, "bash", { command: "cat logs/export.log", description: "Export log" }, text.log(100_000), "C")]),
    ...toolTurn(w, "Show the full worker log.", (x) => [
      call(x, "bash", { command: "cat logs/worker.log", description: "Worker log" }, text.log(200_000), "A"),
    ]),
    ...toolTurn(w, "Read the exporter.", (x) => [call(x, "read", { filePath: "/srv/etl/src/exporter.ts" }, readOutput(text.source(60_000)), "D")]),
    ...toolTurn(w, "Show the queue log.", (x) => [call(x, "bash", { command: "cat logs/queue.log", description: "Queue log" }, text.log(150_000), "B")]),
    ...toolTurn(w, "Read the retry wrapper.", (x) => [call(x, "read", { filePath: "/srv/etl/src/retry.ts" }, readOutput(text.source(30_000)), "E")]),
    ...recentTurns(w, 4, { tag: "P", chars: 90_000 }),
  ]);
}

/**
 * prune-old-outputs (with --keep-turns 2): turns 2–8 each read a 40,000-character log (10,000 tokens: the walk's
 * arithmetic is the same rounded or not), turn 2 also a 40,000-character `skill` output; the last two turns each hold
 * an 80,000-character log. Tags: L2…L8, S2, R9, R10.
 */
export function pruneSession(): SessionSpec {
  const text = new Content(12);
  return session("Many logs", (w) => {
    const out: MessageSpec[] = [...chatTurn(w, "Help me find why the nightly ETL fails.")];
    for (let t = 2; t <= 8; t++) {
      out.push(
        ...toolTurn(w, `Show log ${t}.`, (x) => [
          ...(t === 2 ? [call(x, "skill", { name: "etl-runbook" }, text.source(40_000), "S2")] : []),
          call(x, "bash", { command: `cat logs/night-${t}.log`, description: `Log ${t}` }, text.log(40_000), `L${t}`),
        ]),
      );
    }
    for (const t of [9, 10])
      out.push(
        ...toolTurn(w, `Show log ${t}.`, (x) => [call(x, "bash", { command: `cat logs/night-${t}.log`, description: `Log ${t}` }, text.log(80_000), `R${t}`)]),
      );
    return out;
  });
}

/**
 * dedupe: the same read (keys, nested ones too, in another order each time) in turns 2, 3 and 4 (tags D2, D3, D4); a
 * read of another file (OTHER); grep with and without `include` (G1, G2); `npm test` in turn 5 (T5) and again, keys
 * swapped, in the last turn (T10, protected). 30,000-character outputs.
 */
export function dedupeSession(): SessionSpec {
  const text = new Content(13);
  const file = readOutput(text.source(27_000));
  const tests = text.log(30_000);
  return session("Repeated reads", (w) => [
    ...chatTurn(w, "Why does the exporter re-send rows?"),
    ...toolTurn(w, "Read the exporter.", (x) => [call(x, "read", { filePath: "/srv/etl/src/exporter.ts", options: { limit: 2000, offset: 0 } }, file, "D2")]),
    ...toolTurn(w, "Read it again.", (x) => [call(x, "read", { options: { offset: 0, limit: 2000 }, filePath: "/srv/etl/src/exporter.ts" }, file, "D3")]),
    ...toolTurn(w, "And once more, with the new changes.", (x) => [
      call(x, "read", { options: { offset: 0, limit: 2000 }, filePath: "/srv/etl/src/exporter.ts" }, file, "D4"),
      call(x, "read", { filePath: "/srv/etl/src/retry.ts", options: { limit: 2000, offset: 0 } }, readOutput(text.source(27_000)), "OTHER"),
    ]),
    ...toolTurn(w, "Where is the cursor reset?", (x) => [
      call(x, "grep", { pattern: "resetCursor" }, text.source(30_000), "G1"),
      call(x, "grep", { pattern: "resetCursor", include: "*.ts" }, text.source(30_000), "G2"),
      call(x, "bash", { command: "npm test", description: "Run tests" }, tests, "T5"),
    ]),
    ...chatTurn(w, "Explain the fix."),
    ...chatTurn(w, "Apply it."),
    ...chatTurn(w, "Anything else?"),
    ...toolTurn(w, "Run the tests again.", (x) => [call(x, "bash", { description: "Run tests", command: "npm test" }, tests, "T10")]),
  ]);
}

/**
 * purge-errors: errored bash calls with 6,000-character inputs (a heredoc) in turns 2, 3, 4 (E2, E3, E4) and 6, 7, 8,
 * 9 (E6…E9, the last four turns); turn 3 also has a completed call with a big input (OK3).
 */
export function purgeSession(): SessionSpec {
  const text = new Content(14);
  const heredoc = (n: number) => ({ command: `psql "$ETL_DB" <<'SQL'\n${text.source(6_000)}\nSQL`, description: `Run migration ${n}` });
  return session("Failed migrations", (w) => {
    const out: MessageSpec[] = [...chatTurn(w, "Apply the ledger migrations on staging.")];
    for (let t = 2; t <= 9; t++) {
      if (t === 5) {
        out.push(...chatTurn(w, "Why do they keep failing?"));
        continue;
      }
      out.push(
        ...toolTurn(w, `Try migration ${t}.`, (x) => [
          failed(x, "bash", heredoc(t), `psql: error: connection to server at "staging-db" (10.0.3.${t}), port 5432 failed: timeout expired`, `E${t}`),
          ...(t === 3 ? [call(x, "bash", heredoc(30), "CREATE TABLE\nCREATE INDEX", "OK3")] : []),
        ]),
      );
    }
    return out;
  });
}

/** drop-oldest-turns: ten turns, each a tool loop over a 40,000-character log (tags L1…L10). */
export function dropSession(): SessionSpec {
  const text = new Content(15);
  return session("Long investigation", (w) => {
    const out: MessageSpec[] = [];
    for (let t = 1; t <= 10; t++) {
      out.push(
        ...toolTurn(w, `Step ${t}: show the next log.`, (x) => [
          call(x, "bash", { command: `cat logs/step-${t}.log`, description: `Log ${t}` }, text.log(40_000), `L${t}`),
        ]),
      );
    }
    return out;
  });
}

/** A last turn whose reply failed with `error`, as opencode stores it on the message (no usage: the call failed). */
export function withStoredError(spec: SessionSpec, error: Json): SessionSpec {
  const w = new Transcript({ start: T0 + 6 * 60 * 60 * SECOND, directory: "/srv/etl", seed: 9 });
  const user = w.user("Continue with the fix.");
  const failedReply: MessageSpec = {
    role: "assistant",
    created: w.tick(2 * SECOND),
    info: { error, finish: undefined, cost: 0, tokens: { ...ZERO_TOKENS, cache: { read: 0, write: 0 } }, time: { completed: w.tick(1_500) } },
    parts: [],
  };
  return { ...spec, messages: [...spec.messages, user, failedReply] };
}

/** A user message with an image pasted as a data: URL of `chars` characters (what opencode stores for a paste). */
export function imageMessage(w: Transcript, prompt: string, chars: number): MessageSpec {
  const created = w.tick(45 * SECOND);
  const prefix = "data:image/png;base64,";
  const rand = mulberry32(chars);
  const b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  let data = "";
  while (data.length < chars - prefix.length) data += b64[Math.floor(rand() * 64)];
  return {
    role: "user",
    created,
    parts: [
      { time: w.tick(2), data: { type: "text", text: prompt } },
      { time: w.tick(2), data: { type: "file", mime: "image/png", filename: "dashboard.png", url: `${prefix}${data}` } },
    ],
  };
}

/**
 * A byte budget: turn 2 pastes a 600,000-character screenshot and reads a 120,000-character log (tag B2); turns 3
 * and 4 read 90,000 and 70,000 characters (B3, B4); four light recent turns.
 */
export function bytesSession(): SessionSpec {
  const text = new Content(16);
  return session("Dashboard shows stale numbers", (w) => [
    ...chatTurn(w, "The ETL dashboard shows yesterday's numbers."),
    imageMessage(w, "Here is what the dashboard shows right now.", 600_000),
    w.assistant([
      w.stepStart(),
      w.text("Let me read the exporter log."),
      call(w, "bash", { command: "cat logs/export.log", description: "Export log" }, text.log(120_000), "B2"),
      w.stepFinish("tool-calls", ZERO_TOKENS),
    ]),
    answer(w, [w.text("The export stopped at 02:14.")]),
    ...toolTurn(w, "Read the scheduler log.", (x) => [
      call(x, "bash", { command: "cat logs/scheduler.log", description: "Scheduler log" }, text.log(90_000), "B3"),
    ]),
    ...toolTurn(w, "Read the upload log.", (x) => [call(x, "bash", { command: "cat logs/upload.log", description: "Upload log" }, text.log(70_000), "B4")]),
    ...recentTurns(w, 4),
  ]);
}

/** The part whose tool call has this tag, as stored now (undefined once deleted). */
export function partByTag(records: SessionRecords, tag: string): { messageId: string; partId: string; data: Json } | undefined {
  for (const m of records.messages) {
    for (const p of m.parts) if (p.original?.callID === cid(tag)) return { messageId: m.ref.id, partId: p.ref.id, data: p.original };
  }
  return undefined;
}

/** The tool state of a tagged part (throws when the part is gone). */
export function stateOf(records: SessionRecords, tag: string): Json & { output?: string; input?: Json; time?: Json; status?: string } {
  const found = partByTag(records, tag);
  if (!found) throw new Error(`no part tagged ${tag}`);
  return found.data.state as Json;
}
