// `recover explain`, run as a user runs it (the built CLI), every kind of provider error the classifier knows: the
// kind, its cause, where it points, the ids and sizes it names, and the command that fixes it; --json as one
// document; --store/--session mapping the position to records; stdin and --error-file; usage errors.
// The runs are read-only, so they all start at once.
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { classifyProviderError, type ProviderErrorKind } from "../../src/provider/classify-error.js";
import { ERROR_CAUSES } from "../../src/provider/error-kinds.js";
import { inlineText } from "../../src/cli/commands/explain.js";
import { shellQuote } from "../../src/model/shell-quote.js";
import { buildStore } from "../support/opencode-fixtures.js";
import { hasText, partWhere, sessionOf } from "../rules/harness.js";
import { runAsync, type CliResult } from "../provider/request-support.js";
import { expectNoStack, expectJsonError, expectOneLineError, parseJsonDocument, tempDir } from "./run.js";
import { T0, writeStore, type Format } from "./stores.js";

const PACKAGE_VERSION = (JSON.parse(fs.readFileSync("package.json", "utf8")) as { version: string }).version;
const DOCS = "https://docs.claude.com/en/docs/build-with-claude/extended-thinking";

/** One text per kind, word for word from the reference (formats-and-errors.md §1). */
const TEXTS: Record<Exclude<ProviderErrorKind, "unknown">, string> = {
  orphan_tool_use:
    "messages.22: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01HqfLWiAKQLsniF2fBGF2KD, toolu_01SJzDkeAZER935cpGFptTNk. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
  orphan_tool_result:
    "messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_015cqXRmSf7tsfMgJ9ibV1z3. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.",
  tool_result_not_first:
    "Did not find 1 tool_result block(s) at the beginning of this message. Messages following tool_use blocks must begin with a matching number of tool_result blocks.",
  duplicate_tool_id: "messages.43.content.2: tool_use ids must be unique",
  thinking_order: `messages.1.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`text\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at ${DOCS}`,
  thinking_modified:
    "messages.5.content.1: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.",
  thinking_signature: "messages.1.content.0: Invalid `signature` in `thinking` block",
  thinking_bound: "messages.3.content.0: Invalid `signature` in `thinking` block. The block is bound to a different conversation.",
  thinking_when_disabled:
    "messages.1.content.0: When thinking is disabled, an `assistant` message in the final position cannot contain `thinking`. To use thinking blocks, enable `thinking` in your request.",
  trailing_thinking: "messages.1: The final block in an assistant message cannot be `thinking`.",
  trailing_assistant: "This model does not support assistant message prefill. The conversation must end with a user message.",
  empty_content: "messages: text content blocks must be non-empty",
  first_not_user: 'messages: first message must use the "user" role',
  roles_not_alternating: 'messages: roles must alternate between "user" and "assistant", but found multiple "user" roles in a row',
  context_overflow: "prompt is too long: 219898 tokens > 200000 maximum",
  request_too_large: '{"error":{"type":"request_too_large","message":"Request exceeds the maximum size"}}',
  image_invalid: "messages.120.content.0.image.source.base64: image exceeds 5 MB maximum: 9427836 bytes > 5242880 bytes",
  document_invalid: "messages.1.content.22.pdf.source.base64.data: A maximum of 100 PDF pages may be provided.",
  invalid_json_body: "The request body is not valid JSON: unexpected end of data: line 1 column 3 (char 2)",
  previous_message_id: "diagnostics.previous_message_id: must be the `id` from a prior /v1/messages response (starts with `msg_`)",
  tool_reference_unknown: "Tool reference 'WaitForMcpServers' not found in available tools",
  thinking_empty: "messages.9.content.0.thinking: each thinking block must contain non-whitespace thinking",
  empty_tool_id: "Invalid 'input[12].call_id': empty string. Expected a string with minimum length 1, but got an empty string instead.",
  tool_response_mismatch: "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.",
  reasoning_invalid:
    "The encrypted content gAAAAABoT8w could not be verified. Reason: Encrypted content organization_id did not match the target organization.",
  // Codex CLI's own refusals (fixtures/codex-0.169: tail-no-ordinal, moved-rollout; openai/codex#41657).
  rollout_ordinal:
    "thread/resume failed: error resuming thread: Fatal error: Failed to initialize session: thread-store internal error: failed to resume local thread recorder: final paginated rollout record at /home/u/.codex/sessions/2026/11/27/rollout-2026-11-27T17-02-56-01a21df5-c8e9-7242-a5ef-222e8807fb21.jsonl is missing an ordinal (code -32603)",
  rollout_missing: "Error: thread/resume: thread/resume failed: no rollout found for thread id 01a21df6-923d-7283-bef9-7cdbdbe55312 (code -32600)",
  session_not_found: "Error resuming session: No previous sessions found for this project.",
  // Claude Code's own texts (issue 40): its binary's words (2.1.332).
  subagent_not_found: 'Agent "Run tests" could not be resumed: No transcript found for agent ID: a54ba10ec0018e37e',
};
const KINDS = Object.keys(TEXTS) as (keyof typeof TEXTS)[];

/** The kinds whose --json document is checked field by field (every fix family, a position, ids, tokens, unknown). */
const JSON_KINDS = ["orphan_tool_use", "thinking_signature", "context_overflow", "request_too_large", "first_not_user", "unknown"] as const;

const UNKNOWN = "Something went wrong on our side, sorry.";
const RATE_LIMIT = '429 {"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}';

/** How the fix reads the error again: the text itself when it was the argument and fits on a line, else stdin. */
const errorWords = (text: string) => (inlineText(text, text) ? shellQuote(text) : "-");

/** The human lines explain prints for a text given as the argument, without a session. */
function expectedLines(text: string): string[] {
  const c = classifyProviderError(text);
  const { cause, fixedBy } = ERROR_CAUSES[c.kind];
  const lines = [`${c.kind} (${c.provider})`, `cause: ${c.note ?? cause}`];
  if (c.index !== null) lines.push(`at:    messages.${c.index}${c.contentIndex === null ? "" : `.content.${c.contentIndex}`} of the request`);
  if (c.ids.length > 0) lines.push(`ids:   ${c.ids.join(", ")}`);
  if (c.tokens) lines.push(`size:  ${c.tokens.current.toLocaleString("en-US")} tokens > ${c.tokens.max.toLocaleString("en-US")}`);
  lines.push(
    fixedBy === "repair"
      ? `fix:   recover session repair <session-id> --error ${errorWords(text)}`
      : fixedBy === "trim"
        ? `fix:   recover context trim <session-id> --error ${errorWords(text)}`
        : "fix:   none offline",
  );
  return lines;
}

const outLines = (r: CliResult) => r.stdout.trimEnd().split("\n");

// ---------------------------------------------------------------------------------------------
describe("recover explain <text>", () => {
  const human = new Map<string, CliResult>();
  const json = new Map<string, CliResult>();
  beforeAll(async () => {
    const texts = [...Object.values(TEXTS), UNKNOWN, RATE_LIMIT];
    const jsonTexts = JSON_KINDS.map((k) => (k === "unknown" ? UNKNOWN : TEXTS[k]));
    const runs = await Promise.all([...texts.map((t) => runAsync(["explain", t])), ...jsonTexts.map((t) => runAsync(["explain", t, "--json"]))]);
    for (const [i, t] of texts.entries()) human.set(t, runs[i]!);
    for (const [i, t] of jsonTexts.entries()) json.set(t, runs[texts.length + i]!);
  });

  it("knows every kind the classifier names, and the cases here cover them all", () => {
    expect(KINDS.map((k) => classifyProviderError(TEXTS[k]).kind)).toEqual(KINDS);
    expect(KINDS.length).toBe(Object.keys(ERROR_CAUSES).length - 1);
  });

  it.each(KINDS)("%s: exit 0, kind, cause, position, ids, size and fix", (kind) => {
    const r = human.get(TEXTS[kind])!;
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(outLines(r)).toEqual(expectedLines(TEXTS[kind]));
    expect(outLines(r)[0]).toMatch(new RegExp(`^${kind} \\(`));
    expect(outLines(r)[1]).toBe(`cause: ${ERROR_CAUSES[kind].cause}`);
  });

  it("orphan_tool_use, word for word", () => {
    expect(human.get(TEXTS.orphan_tool_use)!.stdout).toBe(
      [
        "orphan_tool_use (anthropic)",
        "cause: a tool call was sent without its result right after it (the agent was killed or aborted mid-call)",
        "at:    messages.22 of the request",
        "ids:   toolu_01HqfLWiAKQLsniF2fBGF2KD, toolu_01SJzDkeAZER935cpGFptTNk",
        `fix:   recover session repair <session-id> --error ${shellQuote(TEXTS.orphan_tool_use)}`,
        "",
      ].join("\n"),
    );
  });

  it("context_overflow, word for word: the size, and the repair that trims as the fix", () => {
    expect(human.get(TEXTS.context_overflow)!.stdout).toBe(
      [
        "context_overflow (anthropic)",
        "cause: the conversation is longer than the model's context window",
        "size:  219,898 tokens > 200,000",
        "fix:   recover session repair <session-id> --error 'prompt is too long: 219898 tokens > 200000 maximum'",
        "",
      ].join("\n"),
    );
  });

  it("a kind with no offline fix is still recognised (exit 0): fix none offline", () => {
    // roles_not_alternating: no rule answers it (first_not_user has one since issue 40: leading-assistant).
    const r = human.get(TEXTS.roles_not_alternating)!;
    expect(r.status).toBe(0);
    expect(outLines(r).at(-1)).toBe("fix:   none offline");
  });

  it("an unknown error: exit 1, the generic cause, no fix", () => {
    const r = human.get(UNKNOWN)!;
    expect(r.status).toBe(1);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(["unknown (unknown)", "cause: not an error recover knows how to repair offline", "fix:   none offline", ""].join("\n"));
  });

  it("a rate limit: unknown (exit 1), and the cause says the session is fine", () => {
    const r = human.get(RATE_LIMIT)!;
    expect(r.status).toBe(1);
    expect(outLines(r)).toEqual(["unknown (anthropic)", "cause: a rate limit: wait and retry; nothing in the session is wrong", "fix:   none offline"]);
  });

  it.each(JSON_KINDS)("--json (%s): one document, the fields in order, the same exit code", (kind) => {
    const text = kind === "unknown" ? UNKNOWN : TEXTS[kind];
    const r = json.get(text)!;
    expect(r.stderr).toBe("");
    expect(r.status).toBe(kind === "unknown" ? 1 : 0);
    const doc = parseJsonDocument(r.stdout);
    expect(Object.keys(doc)).toEqual(["schemaVersion", "tool", "kind", "index", "contentIndex", "ids", "tokens", "provider", "fix", "message", "cause"]);
    const c = classifyProviderError(text);
    const fixedBy = ERROR_CAUSES[c.kind].fixedBy;
    expect(doc).toEqual({
      schemaVersion: 1,
      tool: { name: "recover", version: PACKAGE_VERSION },
      kind: c.kind,
      index: c.index,
      contentIndex: c.contentIndex,
      ids: c.ids,
      tokens: c.tokens,
      provider: c.provider,
      fix: fixedBy === null ? null : `recover ${fixedBy === "repair" ? "session repair" : "context trim"} <session-id> --error ${errorWords(text)}`,
      message: c.message,
      cause: c.note ?? ERROR_CAUSES[c.kind].cause,
    });
  });

  it("--json, literally, for a context overflow and a wrapped (Vertex) signature error", async () => {
    expect(parseJsonDocument(json.get(TEXTS.context_overflow)!.stdout)).toEqual({
      schemaVersion: 1,
      tool: { name: "recover", version: PACKAGE_VERSION },
      kind: "context_overflow",
      index: null,
      contentIndex: null,
      ids: [],
      tokens: { current: 219898, max: 200000 },
      provider: "anthropic",
      fix: "recover session repair <session-id> --error 'prompt is too long: 219898 tokens > 200000 maximum'",
      message: "prompt is too long: 219898 tokens > 200000 maximum",
      cause: "the conversation is longer than the model's context window",
    });
    const vertex = JSON.stringify({
      error: {
        code: 400,
        message: JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: TEXTS.thinking_signature } }),
        status: "INVALID_ARGUMENT",
      },
    });
    const r = await runAsync(["explain", vertex, "--json"]);
    expect(r.status).toBe(0);
    expect(parseJsonDocument(r.stdout)).toMatchObject({
      kind: "thinking_signature",
      index: 1,
      contentIndex: 0,
      provider: "anthropic",
      message: TEXTS.thinking_signature,
    });
  });
});

// ---------------------------------------------------------------------------------------------
describe("recover explain: where the text comes from, and usage errors", () => {
  it("- reads the text from stdin (backticks and all), the same as the argument; its fix reads stdin again", async () => {
    const [fromStdin, fromArg] = await Promise.all([
      await runAsync(["explain", "-"], { input: `${TEXTS.orphan_tool_use}\n` }),
      await runAsync(["explain", TEXTS.orphan_tool_use]),
    ]);
    expect(fromStdin.status).toBe(0);
    expect(outLines(fromStdin).slice(0, -1)).toEqual(outLines(fromArg).slice(0, -1));
    expect(outLines(fromStdin).at(-1)).toBe("fix:   recover session repair <session-id> --error -");
    expect(outLines(fromArg).at(-1)).toBe(`fix:   recover session repair <session-id> --error ${shellQuote(TEXTS.orphan_tool_use)}`);
  });

  it("a text on several lines, or too long to print whole, is read again from stdin by the fix", async () => {
    const [lines, long] = await Promise.all([
      runAsync(["explain", `${TEXTS.orphan_tool_use}\nrequest id req_011`]),
      runAsync(["explain", `${TEXTS.orphan_tool_use} ${"x".repeat(600)}`]),
    ]);
    for (const r of [lines, long]) expect(outLines(r).at(-1)).toBe("fix:   recover session repair <session-id> --error -");
  });

  it("--error-file reads a file, and the fix names that file", async () => {
    const file = path.join(tempDir(), "my error.txt");
    fs.writeFileSync(file, `${TEXTS.thinking_signature}\n`);
    const [r, j] = await Promise.all([await runAsync(["explain", "--error-file", file]), await runAsync(["explain", "--error-file", file, "--json"])]);
    expect(r.status).toBe(0);
    expect(outLines(r).at(-1)).toBe(`fix:   recover session repair <session-id> --error-file '${file}'`);
    expect(parseJsonDocument(j.stdout).fix).toBe(`recover session repair <session-id> --error-file '${file}'`);
  });

  it("no text at all, empty text, a missing file, text and a file: exit 2 with one line (or a JSON error)", async () => {
    const file = path.join(tempDir(), "e.txt");
    fs.writeFileSync(file, TEXTS.trailing_thinking);
    const [none, noneJson, blank, blankStdin, missing, both] = await Promise.all([
      await runAsync(["explain"]),
      await runAsync(["explain", "--json"]),
      await runAsync(["explain", "   "]),
      await runAsync(["explain", "-"], { input: "\n\n" }),
      await runAsync(["explain", "--error-file", path.join(tempDir(), "absent.txt")]),
      await runAsync(["explain", TEXTS.trailing_thinking, "--error-file", file]),
    ]);
    for (const r of [none, blank, blankStdin, missing, both]) {
      expect(r.status, r.stderr).toBe(2);
      expect(r.stdout).toBe("");
    }
    expectOneLineError(none, /^recover: give the error text, - for stdin, or --error-file <path>$/);
    expect(noneJson.status).toBe(2);
    expect(expectJsonError(noneJson, "usage").message).toBe("give the error text, - for stdin, or --error-file <path>");
    expectOneLineError(blank, /the error text is empty/);
    expectOneLineError(blankStdin, /the error text is empty/);
    expectOneLineError(missing, /absent\.txt/);
    expectOneLineError(both, /not both/);
    for (const r of [none, blank, blankStdin, missing, both]) expectNoStack(r.stderr);
  });
});

// ---------------------------------------------------------------------------------------------
/** Three finished turns: request 5 is the second answer's first step, R3 its reasoning (see error-targeted tests). */
function explainStore(format: Format) {
  const spec = sessionOf(
    (w) => [
      w.user("Fix it."),
      w.assistant([
        w.stepStart(),
        w.reasoning("R3: sum integer cents, round once."),
        w.text("Editing."),
        w.edit("src/invoices/totals.ts", "Math.round(l.quantity * l.unitPrice * 100) / 100", "l.quantity * l.unitPrice"),
        w.stepFinish("tool-calls"),
        w.stepStart(),
        w.text("Done."),
        w.stepFinish("stop"),
      ]),
      w.user("Thanks."),
      w.assistant([w.stepStart(), w.text("You're welcome."), w.stepFinish("stop")]),
    ],
    { start: T0 },
  );
  const built = buildStore({ seed: 23, sessions: [spec] });
  return { built, id: built.sessions[0]!.id, store: writeStore(built, format).store };
}

describe.each(["opencode-sqlite", "opencode-json"] as const)("recover explain --store --session (%s)", (format) => {
  const { built, id, store } = explainStore(format);
  const r3 = partWhere(built, hasText("R3: sum integer cents"));
  const answer = built.sessions[0]!.messages[3]!.id;
  const explanation =
    "the provider rejected the signature of the thinking at messages.5.content.0; a model or system-prompt switch makes every earlier signature fail, one request at a time, so all 3 signed thinking blocks named or before the latest assistant message go in this one repair (kept verbatim in the backup; in the latest tool-use turn the turn goes whole)";
  const sig = "messages.5.content.0: Invalid `signature` in `thinking` block";
  let human: CliResult;
  let json: CliResult;
  let byPrefix: CliResult;
  let noBlock: CliResult;
  beforeAll(async () => {
    [human, json, byPrefix, noBlock] = await Promise.all([
      await runAsync(["explain", "-", "--store", store, "--session", id], { input: sig }),
      await runAsync(["explain", "-", "--store", store, "--session", id, "--json"], { input: sig }),
      await runAsync(["explain", sig, "--store", store, "--session", id.slice(0, 12)]),
      await runAsync(["explain", "messages.40: The final block in an assistant message cannot be `thinking`.", "--store", store, "--session", id, "--json"]),
    ]);
  });

  it("human: the record behind the position, what repair would do, and the fix for this session", () => {
    expect(human.stderr).toBe("");
    expect(human.status).toBe(0);
    expect(human.stdout).toBe(
      [
        "thinking_signature (anthropic)",
        "cause: a thinking block's signature is missing or no longer accepted (another model, conversation or system prompt)",
        "at:    messages.5.content.0 of the request",
        `in:    session ${id}: message ${answer}, part ${r3.partId}`,
        `what:  ${explanation}`,
        `fix:   recover session repair ${id} --error - --store ${store}`,
        "",
      ].join("\n"),
    );
  });

  it("--json: session, records and explanation after the error's own fields", () => {
    expect(json.status).toBe(0);
    const doc = parseJsonDocument(json.stdout);
    expect(Object.keys(doc)).toEqual([
      "schemaVersion",
      "tool",
      "kind",
      "index",
      "contentIndex",
      "ids",
      "tokens",
      "provider",
      "fix",
      "message",
      "cause",
      "session",
      "records",
      "explanation",
    ]);
    expect(doc).toMatchObject({
      kind: "thinking_signature",
      index: 5,
      contentIndex: 0,
      fix: `recover session repair ${id} --error - --store ${store}`,
      session: id,
      records: { messages: [answer], part: r3.partId },
      explanation,
    });
  });

  it("a unique prefix of the session id is enough", () => {
    expect(byPrefix.status).toBe(0);
    expect(byPrefix.stdout).toContain(`in:    session ${id}: message ${answer}, part ${r3.partId}\n`);
  });

  it("a position past the request's end: no records, and a fix all the same", () => {
    expect(noBlock.status).toBe(0);
    const doc = parseJsonDocument(noBlock.stdout);
    expect(doc).toMatchObject({ kind: "trailing_thinking", index: 40, session: id, records: { messages: [], part: null } });
  });
});
