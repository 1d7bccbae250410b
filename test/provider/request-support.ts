// Shared by the provider-view, validator, provider-rejects, targeted-repair and explain tests: the request opencode
// would send for a stored session (built through a real store of either format), a compact way to write the
// expected shape, hand-built requests for the validator, and a CLI run that feeds stdin.
import { spawn, spawnSync } from "node:child_process";
import type { LoadMode, SessionRecords } from "../../src/model/opencode-records.js";
import type { SessionView } from "../../src/model/session-view.js";
import { anthropicRequest, type AnthropicRequest, type RequestBlock, type RequestMessage } from "../../src/provider/anthropic-request.js";
import { DEFAULT_RULE_OPTIONS } from "../../src/rules/rule.js";
import { opencodeSessionView } from "../../src/stores/opencode/view.js";
import type { BuiltPart, BuiltStore } from "../support/opencode-fixtures.js";
import { BIN, childEnv as cliEnv, run } from "../cli/run.js";
import { HOUR, lastWrite, withStore, type Format } from "../rules/harness.js";

// ---------------------------------------------------------------------------------------------
// The provider view of a stored session
// ---------------------------------------------------------------------------------------------

export interface Sent {
  records: SessionRecords;
  view: SessionView;
  request: AnthropicRequest;
}

/** Writes the store in `format`, loads the (first) session and builds the request opencode would send for it. */
export function sentFor(format: Format, built: BuiltStore, opts: { mode?: LoadMode; sessionId?: string; now?: number } = {}): Sent {
  const id = opts.sessionId ?? built.sessions[0]!.id;
  return withStore(format, built, (store) => {
    // These stores are opencode's (withStore writes one).
    const records = store.loadSession(id, opts.mode ?? "lean") as SessionRecords;
    const view = opencodeSessionView(records, { now: opts.now ?? lastWrite(built) + HOUR, liveWindowMs: DEFAULT_RULE_OPTIONS.liveWindowMs });
    return { records, view, request: anthropicRequest(view.conversation) };
  });
}

/** `role:[type,type,…]` per request message: the shape a golden test compares exactly. */
export function shapeOf(request: AnthropicRequest): string[] {
  return request.messages.map((m) => `${m.role}:[${m.content.map((b) => b.type).join(",")}]`);
}

/** `type partId field` per block of one request message (`-` for a block whose source has no field). */
export function sourcesOf(message: RequestMessage): string[] {
  return message.content.map((b) => `${b.type} ${b.source.id} ${b.source.field ?? "-"}`);
}

/** The parts of the built session's n-th stored message. */
export function partsOf(built: BuiltStore, n: number, sessionIndex = 0): BuiltPart[] {
  const message = built.sessions[sessionIndex]!.messages[n];
  if (!message) throw new Error(`no stored message ${n}`);
  return message.parts;
}

/** The id of the built session's n-th stored message. */
export function messageIdOf(built: BuiltStore, n: number, sessionIndex = 0): string {
  const message = built.sessions[sessionIndex]!.messages[n];
  if (!message) throw new Error(`no stored message ${n}`);
  return message.id;
}

/** The parts of stored message n of the given type, in stored order. */
export function partsOfType(built: BuiltStore, n: number, type: string): BuiltPart[] {
  return partsOf(built, n).filter((p) => p.data?.type === type);
}

export const callIdOf = (part: BuiltPart): string => (part.data as { callID: string }).callID;

// ---------------------------------------------------------------------------------------------
// Hand-built requests for the validator
// ---------------------------------------------------------------------------------------------

let counter = 0;
const nextId = () => `prt_${String(++counter).padStart(4, "0")}`;

function block(type: RequestBlock["type"], extra: Partial<RequestBlock> = {}, id = nextId()): RequestBlock {
  return { type, source: { kind: "part", id, messageId: "msg_pending" }, chars: 10, ...extra };
}

export const text = (t = "some text", id?: string): RequestBlock => block("text", { chars: t.length, blank: t.trim() === "" }, id);
export const thinking = (id?: string): RequestBlock => block("thinking", {}, id);
export const redacted = (id?: string): RequestBlock => block("redacted_thinking", {}, id);
export const toolUse = (callId: string, id?: string): RequestBlock => block("tool_use", { id: callId }, id);
export const toolResult = (callId: string, id?: string): RequestBlock => block("tool_result", { id: callId, isError: false }, id);
export const image = (id?: string): RequestBlock => block("image", { chars: 120 }, id);

/** A request from messages written as [role, blocks]; each message gets its own stored-message id `msg_<n>`. */
export function request(...messages: [role: "user" | "assistant", blocks: RequestBlock[]][]): AnthropicRequest {
  return {
    messages: messages.map(([role, content], n) => {
      for (const b of content) b.source.messageId = `msg_${n}`;
      return { role, content, sourceMessageIds: [`msg_${n}`] };
    }),
  };
}

// ---------------------------------------------------------------------------------------------
// The CLI with something on stdin
// ---------------------------------------------------------------------------------------------

export interface CliResult {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs bin/recover (build first) with `input` on stdin, no colour, RECOVER_DEBUG unset, plus `env`. */
export function runWithStdin(args: string[], input: string, env: Record<string, string> = {}): CliResult {
  const result = spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", env: cliEnv(env), input, timeout: 25_000 });
  if (result.error) throw result.error;
  return { status: result.status, signal: result.signal, stdout: result.stdout, stderr: result.stderr };
}

/** The same, without waiting: many runs at once (read-only commands). Stdin gets `input`, or is closed. */
export async function runAsync(args: string[], opts: { input?: string; env?: Record<string, string> } = {}): Promise<CliResult> {
  // Without stdin to feed (the CLI reads it from fd 0), the CLI runs in this process.
  if (opts.input === undefined) return await run(args, { env: opts.env ?? {} });
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: cliEnv(opts.env ?? {}), stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(() => child.kill("SIGKILL"), 25_000);
    child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    child.on("error", reject);
    child.on("close", (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, stdout, stderr });
    });
    child.stdin.on("error", () => {});
    child.stdin.end(opts.input ?? "");
  });
}
