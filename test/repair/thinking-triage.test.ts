// `recover session repair <id> --error "<the provider's exact text>" --yes` for the thinking errors and the fallback
// that answers an error whose position names the wrong block, end to end through the built CLI (in-process main(),
// npm run build first) on real-shaped stores in temp dirs: an opencode SQLite store, a Claude Code config dir and an
// openclaw state dir. Each repair is checked on disk (exactly which rows or lines changed), by a second
// `session scan` (no error left) and by `session restore <backup-id>` (every byte back).
import fs from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { buildStore, type BuiltStore, type Json, type MessageSpec, type Transcript } from "../support/opencode-fixtures.js";
import { ClaudeTranscript, OpenclawTranscript } from "../support/transcript-fixtures.js";
import { partWhere, sessionOf } from "../rules/harness.js";
import {
  expectFailure,
  expectStoreBytes,
  partKey,
  printedBackup,
  sandbox,
  storeBytes,
  storeState,
  writeTestStore,
  type Sandbox,
  type TestStore,
} from "../cli/repair-support.js";
import { parseJsonDocument, tempDir } from "../cli/run.js";
import { T0 } from "../cli/stores.js";
import { cleanupAll } from "./harness.js";

afterAll(cleanupAll);

const HOUR = 60 * 60 * 1000;

const THINKING_EMPTY = (n: number, m: number) => `messages.${n}.content.${m}.thinking: each thinking block must contain non-whitespace thinking`;
const THINKING_MODIFIED = (n: number, m: number) =>
  `messages.${n}.content.${m}: \`thinking\` or \`redacted_thinking\` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.`;
const SIGNATURE = (n: number) => `messages.${n}.content.0: Invalid \`signature\` in \`thinking\` block`;
const ORPHAN = (n: number, ids: string[]) =>
  `messages.${n}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${ids.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
const EMPTY_TEXT = "messages: text content blocks must contain non-whitespace text";
const EMPTY_THINKING_FINDING = "thinking block with no text is sent to the provider (rejected: `each thinking block must contain non-whitespace thinking`)";

// ---------------------------------------------------------------------------------------------
// Stores on disk
// ---------------------------------------------------------------------------------------------

type Dialect = "claude" | "openclaw";

/** A transcript written where its agent keeps it, last written an hour ago (not a live agent's file). */
interface TranscriptStore {
  dialect: Dialect;
  /** What --store names: the Claude Code config dir, or the openclaw state dir. */
  dir: string;
  file: string;
  sessionId: string;
}

function writeTranscript(t: ClaudeTranscript | OpenclawTranscript): TranscriptStore {
  const dir = tempDir();
  const file = t.writeTo(dir);
  const then = new Date(Date.now() - HOUR);
  fs.utimesSync(file, then, then);
  return { dialect: t instanceof ClaudeTranscript ? "claude" : "openclaw", dir, file, sessionId: t.sessionId };
}

/** Every file under a dir with its bytes. */
function filesUnder(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) out.set(`${entry.parentPath}/${entry.name}`, fs.readFileSync(`${entry.parentPath}/${entry.name}`));
  }
  return out;
}

function expectSameFiles(dir: string, before: Map<string, Buffer>): void {
  const after = filesUnder(dir);
  expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
  for (const [file, bytes] of before) expect(after.get(file)!.equals(bytes), `${file} is as it was`).toBe(true);
}

const jsonl = (lines: (string | Buffer)[]) => `${lines.map((l) => l.toString()).join("\n")}\n`;

/** A line of the transcript with some fields changed, serialised as the writer serialises an edited record. */
function edited(raw: string | Buffer, change: (value: Json) => void): string {
  const value = JSON.parse(raw.toString()) as Json;
  change(value);
  return JSON.stringify(value);
}

function opencodeStore(session: ReturnType<typeof sessionOf>): { built: BuiltStore; id: string; store: TestStore } {
  const built = buildStore({ seed: 23, sessions: [session] });
  return { built, id: built.sessions[0]!.id, store: writeTestStore(built, "opencode-sqlite") };
}

// ---------------------------------------------------------------------------------------------
// What every repair must leave behind
// ---------------------------------------------------------------------------------------------

async function repairWithError(sb: Sandbox, id: string, store: string, error: string) {
  return await sb.run(["session", "repair", id, "--error", error, "--yes", "--store", store]);
}

/** The error findings a fresh `session scan` reports for the session (its exit code says the same). */
async function scanErrors(sb: Sandbox, id: string, store: string): Promise<string[]> {
  const r = await sb.run(["session", "scan", id, "--json", "--store", store]);
  const doc = parseJsonDocument(r.stdout) as { sessions: { findings: { rule: string; severity: string; partId?: string }[] }[] };
  const errors = doc.sessions.flatMap((s) => s.findings.filter((f) => f.severity === "error").map((f) => `${f.rule} ${f.partId ?? "-"}`));
  expect(r.status, r.stdout).toBe(errors.length === 0 ? 0 : 1);
  return errors;
}

async function restore(sb: Sandbox, backupId: string): Promise<void> {
  const r = await sb.run(["session", "restore", backupId, "--yes"]);
  expect(r.status, r.stdout + r.stderr).toBe(0);
}

const note = (id: string, kind: string, explanation: string) => `note: session ${id}: the error given (${kind}): ${explanation}\n`;

// ---------------------------------------------------------------------------------------------
// Sessions
// ---------------------------------------------------------------------------------------------

/**
 * opencode, after the opening turn: request 0 prompt · 1 [thinking, text, tool_use] · 2 result · 3 [thinking, text] ·
 * 4 prompt · 5 [thinking (signed, empty), text] · 6 prompt · 7 [text].
 */
function emptyReasoningSession(start: number) {
  return sessionOf(
    (w: Transcript): MessageSpec[] => [
      w.user("Fix it and run the invoice tests."),
      w.assistant([w.stepStart(), w.reasoning(""), w.text("Summing integer cents and rounding once fixes the drift."), w.stepFinish("stop")]),
      w.user("Anything else to watch?"),
      w.assistant([w.stepStart(), w.text("Only credit notes: they round toward zero on exact halves."), w.stepFinish("stop")]),
    ],
    { start },
  );
}

/** Claude Code: 0 prompt · 1 [thinking (whitespace), text] · 2 prompt · 3 [text]. */
function claudeEmptyThinking(): { t: ClaudeTranscript; thinking: string; reply: string } {
  const t = new ClaudeTranscript({ start: T0, seed: 31 });
  t.user("rename the config loader to loadSettings");
  const [thinking, reply] = t.assistant([
    { type: "thinking", thinking: " \n\n " },
    { type: "text", text: "Renamed `loadConfig` to `loadSettings` in src/config.ts and its two callers." },
  ]);
  t.user("now run the tests");
  t.assistant([{ type: "text", text: "All 48 tests pass." }]);
  return { t, thinking: thinking!, reply: reply! };
}

/** openclaw: 0 prompt · 1 [thinking (empty), text] · 2 prompt · 3 [text]. */
function openclawEmptyThinking(): { t: OpenclawTranscript; answer: string } {
  const t = new OpenclawTranscript({ start: T0, seed: 32 });
  t.user("rename the config loader to loadSettings");
  const answer = t.assistant([
    { type: "thinking", thinking: "" },
    { type: "text", text: "Renamed `loadConfig` to `loadSettings` in src/config.ts and its two callers." },
  ]);
  t.user("now run the tests");
  t.assistant([{ type: "text", text: "All 48 tests pass." }]);
  return { t, answer };
}

// ---------------------------------------------------------------------------------------------
// a. An error that names no position
// ---------------------------------------------------------------------------------------------

describe("session repair --error with no position in the text", () => {
  it("opencode: `messages: text content blocks must contain non-whitespace text` fixes the whitespace-only text part", async () => {
    const { built, id, store } = opencodeStore(
      sessionOf(
        (w) => [
          w.user("Run the migrations."),
          w.assistant([w.stepStart(), w.text("Running the migrations now."), w.text("   "), w.stepFinish("stop")]),
          w.user("Did they pass?"),
          w.assistant([w.stepStart(), w.text("Yes, all three applied."), w.stepFinish("stop")]),
        ],
        { start: T0 },
      ),
    );
    const blank = partWhere(built, (d) => d.type === "text" && d.text === "   ");
    const sb = sandbox();
    const before = storeState(store);
    const r = await repairWithError(sb, id, store.store, EMPTY_TEXT);
    // It used to say "nothing in session … matches what it names": the error's position is the whole request.
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      new RegExp(
        `^note: session ${id}: the error given \\(empty_content\\): the error names no position; the one place with empty content is messages\\.5\\.content\\.1 \\(.+\\): fixing it\\n$`,
      ),
    );
    expect(r.stdout).toMatch(new RegExp(`^  delete part ${blank.partId} \\[empty-text-part\\]`, "m"));
    const after = storeState(store);
    expect(
      Object.keys(before)
        .filter((k) => before[k] !== after[k])
        .sort(),
    ).toEqual([partKey(store, blank.messageId, blank.partId), `session/${id}`].sort());
    expect(Object.keys(after).filter((k) => !(k in before))).toEqual([]);
    expect(await scanErrors(sb, id, store.store)).toEqual([]);
    await restore(sb, printedBackup(r.stdout).id);
    expect(storeState(store)).toEqual(before);
  });
});

// ---------------------------------------------------------------------------------------------
// b. thinking_empty naming the wrong block
// ---------------------------------------------------------------------------------------------

describe("session repair --error thinking_empty whose position is one message off", () => {
  it("opencode: the empty signed reasoning at messages.5 is fixed for an error naming messages.6, and the note says both", async () => {
    const { built, id, store } = opencodeStore(emptyReasoningSession(T0));
    const empty = partWhere(built, (d) => d.type === "reasoning" && d.text === "");
    const sb = sandbox();
    const before = storeState(store);
    const r = await repairWithError(sb, id, store.store, THINKING_EMPTY(6, 0));
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stderr).toBe(
      note(
        id,
        "thinking_empty",
        `messages.6.content.0 holds text, not empty thinking; the one place with empty thinking is messages.5.content.0 (${EMPTY_THINKING_FINDING}): fixing it`,
      ),
    );
    expect(r.stdout).toMatch(new RegExp(`^  delete part ${empty.partId} \\[empty-thinking\\]`, "m"));
    const after = storeState(store);
    expect(
      Object.keys(before)
        .filter((k) => before[k] !== after[k])
        .sort(),
    ).toEqual([partKey(store, empty.messageId, empty.partId), `session/${id}`].sort());
    expect(await scanErrors(sb, id, store.store)).toEqual([]);

    // explain says the same of the session as it stood.
    await restore(sb, printedBackup(r.stdout).id);
    expect(storeState(store)).toEqual(before);
    const explained = await sb.run(["explain", THINKING_EMPTY(6, 0), "--session", id, "--json", "--store", store.store]);
    expect(explained.status).toBe(0);
    expect(parseJsonDocument(explained.stdout)).toMatchObject({
      kind: "thinking_empty",
      index: 6,
      contentIndex: 0,
      explanation: `messages.6.content.0 holds text, not empty thinking; the one place with empty thinking is messages.5.content.0 (${EMPTY_THINKING_FINDING}): fixing it`,
    });
  });

  it("Claude Code: the whitespace thinking line at messages.1 goes for an error naming messages.2; the reply follows the prompt", async () => {
    const { t, thinking, reply } = claudeEmptyThinking();
    const fx = writeTranscript(t);
    const original = fs.readFileSync(fx.file);
    const sb = sandbox();
    const r = await repairWithError(sb, fx.sessionId, fx.dir, THINKING_EMPTY(2, 0));
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stderr).toBe(
      note(
        fx.sessionId,
        "thinking_empty",
        `messages.2.content.0 holds text, not empty thinking; the one place with empty thinking is messages.1.content.0 (${EMPTY_THINKING_FINDING}): fixing it`,
      ),
    );
    const prompt = t.lines[0]!;
    const lines = [...t.lines];
    const at = t.lineOf(thinking) - 1;
    expect(t.lineOf(reply)).toBe(at + 2);
    lines.splice(
      at,
      2,
      edited(lines[at + 1]!, (v) => (v.parentUuid = (JSON.parse(prompt.toString()) as Json).uuid)),
    );
    expect(fs.readFileSync(fx.file, "utf8")).toBe(jsonl(lines));
    expect(await scanErrors(sb, fx.sessionId, fx.dir)).toEqual([]);
    await restore(sb, printedBackup(r.stdout).id);
    expect(fs.readFileSync(fx.file).equals(original)).toBe(true);
  });

  it("openclaw: the empty thinking block at messages.1 goes for an error naming messages.0; the rest of its line stays", async () => {
    const { t, answer } = openclawEmptyThinking();
    const fx = writeTranscript(t);
    const original = filesUnder(fx.dir);
    const sb = sandbox();
    const r = await repairWithError(sb, fx.sessionId, fx.dir, THINKING_EMPTY(0, 0));
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stderr).toBe(
      note(
        fx.sessionId,
        "thinking_empty",
        `messages.0.content.0 holds text, not empty thinking; the one place with empty thinking is messages.1.content.0 (${EMPTY_THINKING_FINDING}): fixing it`,
      ),
    );
    const lines = [...t.lines];
    const at = t.lineOf(answer) - 1;
    lines[at] = edited(lines[at]!, (v) => (v.message as { content: unknown[] }).content.splice(0, 1));
    expect(fs.readFileSync(fx.file, "utf8")).toBe(jsonl(lines));
    expect(await scanErrors(sb, fx.sessionId, fx.dir)).toEqual([]);
    await restore(sb, printedBackup(r.stdout).id);
    expectSameFiles(fx.dir, original);
  });
});

// ---------------------------------------------------------------------------------------------
// c. thinking_modified on the latest tool-use turn
// ---------------------------------------------------------------------------------------------

describe("session repair --error thinking_modified", () => {
  it("Claude Code: the latest response (its thinking stored twice) and its tool_result line go; every line before is byte-identical", async () => {
    const t = new ClaudeTranscript({ start: T0, seed: 33 });
    t.user("what does the invoice module export?");
    t.assistant([
      { type: "thinking", thinking: "List the exports of src/invoices/index.ts." },
      { type: "text", text: "It exports `invoiceTotal` and `tax`." },
    ]);
    t.user("check the migration status");
    const kept = t.lines.length;
    const callId = t.toolUseId();
    const sig = "EqQBCkgIBxABGAIiQLM0dPYqZxJ7vK3v0n2d9mJz8h0S2pA6e4tq1o9nV+f5cD8kR1wXyB6sL2aQ3mZ7uH4iN0oP5qT9rE1yW2xA==";
    const thought = { type: "thinking", thinking: "Run prisma migrate status and report what is pending.", signature: sig };
    // The client stored the response's thinking twice: the request no longer holds what the model sent.
    t.assistant([thought, thought, { type: "tool_use", id: callId, name: "Bash", input: { command: "npx prisma migrate status" } }]);
    t.toolResult(callId, "1 migration pending: 20261002_add_tax_rate");
    expect(t.lines).toHaveLength(kept + 4);
    const fx = writeTranscript(t);
    const original = fs.readFileSync(fx.file);
    const sb = sandbox();
    // Request: 0 prompt · 1 [thinking, text] · 2 prompt · 3 [thinking, thinking, tool_use] · 4 [tool_result].
    const r = await repairWithError(sb, fx.sessionId, fx.dir, THINKING_MODIFIED(3, 1));
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stderr).toBe(
      note(
        fx.sessionId,
        "thinking_modified",
        "the thinking of the latest assistant message (messages.3) is not what the model sent, and thinking cannot be edited back: that message and the results of its tool calls are taken out (kept in the backup) and the model answers again",
      ),
    );
    expect(fs.readFileSync(fx.file, "utf8")).toBe(jsonl(t.lines.slice(0, kept)));
    expect(fs.readFileSync(fx.file).equals(original.subarray(0, Buffer.byteLength(jsonl(t.lines.slice(0, kept)))))).toBe(true);
    expect(await scanErrors(sb, fx.sessionId, fx.dir)).toEqual([]);
    await restore(sb, printedBackup(r.stdout).id);
    expect(fs.readFileSync(fx.file).equals(original)).toBe(true);
  });

  it("Claude Code: an error naming an assistant message that is no longer the latest is stale: exit 1, nothing taken out", async () => {
    // What the real client does (docs/research/claude-code-repair-loop.md): after this 400 it retries without the
    // thinking and the model answers, so the latest message is a good reply that must stay.
    const t = new ClaudeTranscript({ start: T0, seed: 35 });
    t.user("what does the invoice module export?");
    t.assistant([
      { type: "thinking", thinking: "An edited thought.", signature: "EqQBCkgIBxABGAIiQLM0dPYqZxJ7vK3v0n2d9mJz8h0S2pA6e4tq1o9nV+f5cD8kR1wXyB6sL2aQ==" },
      { type: "text", text: "It exports `invoiceTotal` and `tax`." },
    ]);
    t.user("and the tax module?");
    t.assistant([{ type: "text", text: "It exports `tax`." }]);
    const fx = writeTranscript(t);
    const sb = sandbox();
    const before = filesUnder(fx.dir);
    // Request: 0 prompt · 1 [thinking, text] · 2 prompt · 3 [text]; the error was about messages.1, the latest then.
    await expectFailure(
      sb,
      ["session", "repair", fx.sessionId, "--yes", "--error", THINKING_MODIFIED(1, 0), "--store", fx.dir],
      1,
      "fix-failed",
      /the error names messages\.1, but the latest assistant message is now messages\.3: the session went on after that error .*nothing is taken out; nothing was changed$/,
    );
    expectSameFiles(fx.dir, before);
    expect(fs.existsSync(sb.backups)).toBe(false);
  });

  it("openclaw: the latest response and its tool result go, a prompt typed after the result stays", async () => {
    const t = new OpenclawTranscript({ start: T0, seed: 34 });
    t.user("check the migration status");
    const callId = t.toolCallId();
    const thought = {
      type: "thinking",
      thinking: "Run prisma migrate status.",
      thinkingSignature: "EqQBCkgIBxABGAIiQFz1m9Qe7Rj2Ww4uYc0kN8hS3pL6tD1oV5bX9aM2gE7fK4rJ0iH8sU3nC6yT1qP5wZ2vB9lA0xO7dG4eI==",
    };
    const answer = t.assistant([thought, thought, { type: "toolCall", id: callId, name: "bash", arguments: { command: "npx prisma migrate status" } }]);
    const result = t.toolResult(callId, "bash", "1 migration pending");
    const prompt = t.user("and apply it");
    const fx = writeTranscript(t);
    const original = filesUnder(fx.dir);
    const sb = sandbox();
    // Request: 0 prompt · 1 [thinking, thinking, tool_use] · 2 [tool_result, prompt].
    const r = await repairWithError(sb, fx.sessionId, fx.dir, THINKING_MODIFIED(1, 1));
    expect(r.status, r.stdout + r.stderr).toBe(0);
    const lines = [...t.lines];
    const promptAt = t.lineOf(prompt) - 1;
    const relinked = edited(lines[promptAt]!, (v) => (v.parentId = (JSON.parse(lines[t.lineOf(answer) - 2]!.toString()) as Json).id));
    expect(t.lineOf(result)).toBe(t.lineOf(answer) + 1);
    expect(fs.readFileSync(fx.file, "utf8")).toBe(jsonl([...lines.slice(0, t.lineOf(answer) - 1), relinked]));
    expect(await scanErrors(sb, fx.sessionId, fx.dir)).toEqual([]);
    await restore(sb, printedBackup(r.stdout).id);
    expectSameFiles(fx.dir, original);
  });
});

// ---------------------------------------------------------------------------------------------
// d. thinking_signature: every earlier signed block in one repair
// ---------------------------------------------------------------------------------------------

/** Three earlier turns with signed thinking, then the latest (with thinking of its own). */
function signedTurns(dialect: Dialect) {
  const turns = [
    ["rename the config loader", "Look at config.ts first.", "Renamed it."],
    ["now the tests", "Run vitest.", "All green."],
    ["and the changelog", "One Changed bullet.", "Added the bullet."],
    ["thanks, anything else?", "Mention the credit notes.", "Only credit notes round toward zero."],
  ] as const;
  if (dialect === "claude") {
    const t = new ClaudeTranscript({ start: T0, seed: 35 });
    const thinking = turns.map(([prompt, thought, reply]) => {
      t.user(prompt);
      return t.assistant([
        { type: "thinking", thinking: thought },
        { type: "text", text: reply },
      ])[0]!;
    });
    return { t, thinking };
  }
  const t = new OpenclawTranscript({ start: T0, seed: 36 });
  const thinking = turns.map(([prompt, thought, reply]) => {
    t.user(prompt);
    return t.assistant([
      { type: "thinking", thinking: thought },
      { type: "text", text: reply },
    ]);
  });
  return { t, thinking };
}

describe.each(["claude", "openclaw"] as const)("session repair --error thinking_signature (%s)", (dialect) => {
  it("every signed thinking block before the latest assistant message goes in one repair; the same text again finds nothing to remove", async () => {
    const { t, thinking } = signedTurns(dialect);
    const fx = writeTranscript(t);
    const original = filesUnder(fx.dir);
    const sb = sandbox();
    // Request: 0 prompt · 1 [thinking, text] · 2 prompt · 3 [thinking, text] · 4 prompt · 5 [thinking, text] · 6 prompt · 7 [thinking, text].
    const r = await repairWithError(sb, fx.sessionId, fx.dir, SIGNATURE(1));
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stderr).toBe(
      note(
        fx.sessionId,
        "thinking_signature",
        "the provider rejected the signature of the thinking at messages.1.content.0; a model or system-prompt switch makes every earlier signature fail, one request at a time, so all 3 signed thinking blocks named or before the latest assistant message go in this one repair (kept verbatim in the backup; in the latest tool-use turn the turn goes whole)",
      ),
    );
    // Claude Code: each earlier thinking line goes and its reply line follows the prompt; openclaw: each earlier
    // response line loses its thinking block. The latest assistant message keeps its thinking, byte for byte.
    const lines: (string | Buffer)[] = [...t.lines];
    for (const id of thinking.slice(0, 3).reverse()) {
      const at = t.lineOf(id) - 1;
      const line = lines[at]!;
      if (dialect === "claude")
        lines.splice(
          at,
          2,
          edited(lines[at + 1]!, (v) => (v.parentUuid = (JSON.parse(line.toString()) as Json).parentUuid)),
        );
      else lines[at] = edited(line, (v) => (v.message as { content: unknown[] }).content.splice(0, 1));
    }
    expect(fs.readFileSync(fx.file, "utf8")).toBe(jsonl(lines));
    expect(lines).toContain(t.lines[t.lineOf(thinking[3]!) - 1]);
    expect(await scanErrors(sb, fx.sessionId, fx.dir)).toEqual([]);

    // The next request would name the next block only if the first repair had stopped at one: nothing is left.
    const repaired = filesUnder(fx.dir);
    const again = await repairWithError(sb, fx.sessionId, fx.dir, SIGNATURE(1));
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(
      /^recover: the error given \(thinking_signature\): messages\.1\.content\.0 holds text, not thinking; .* but no signed thinking is sent before the latest assistant message: there is nothing to remove; nothing in session .* matches what it names, so nothing was changed/,
    );
    expectSameFiles(fx.dir, repaired);

    await restore(sb, printedBackup(r.stdout).id);
    expectSameFiles(fx.dir, original);
  });
});

// ---------------------------------------------------------------------------------------------
// e. An error nothing in the session answers
// ---------------------------------------------------------------------------------------------

describe("session repair --error that nothing in a healthy session answers", () => {
  const error = ORPHAN(1, ["toolu_01NotInThisSession000000"]);
  const refused =
    /the error given \(orphan_tool_use\): .*no tool-call-interrupted or tool-result-missing finding anywhere in the \d+ messages of the request either, so recover found nothing this error is about; nothing was changed$/;

  it("opencode: exit 1 (fix-failed), nothing written, no backup", async () => {
    const { id, store } = opencodeStore(
      sessionOf((w) => [w.user("Thanks."), w.assistant([w.stepStart(), w.text("You're welcome."), w.stepFinish("stop")])], { start: T0 }),
    );
    const sb = sandbox();
    const before = storeBytes(store);
    await expectFailure(sb, ["session", "repair", id, "--yes", "--error", error, "--store", store.store], 1, "fix-failed", refused);
    expectStoreBytes(store, before);
    expect(fs.existsSync(sb.backups)).toBe(false);
  });

  it.each(["claude", "openclaw"] as const)("%s: exit 1 (fix-failed), nothing written, no backup", async (dialect) => {
    const fx = writeTranscript(signedTurns(dialect).t);
    const sb = sandbox();
    const before = filesUnder(fx.dir);
    await expectFailure(sb, ["session", "repair", fx.sessionId, "--yes", "--error", error, "--store", fx.dir], 1, "fix-failed", refused);
    expectSameFiles(fx.dir, before);
    expect(fs.existsSync(sb.backups)).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------
// f. thinking_empty in two turns: the error names the first, the API refuses the next one too
// ---------------------------------------------------------------------------------------------

/**
 * The real Claude Code client's transcript of the `thinking-empty` scenario (fixtures/claude-code-2.1/README.md): two
 * turns whose stored thinking was emptied (`""`, then `"  \n "`, signatures kept), in a config dir, last written an
 * hour ago. The client's request: 0 prompt · 1 [thinking (empty), text] · 2 prompt · 3 [thinking (whitespace), text] · …
 */
function twoEmptiedTurns(): TranscriptStore {
  const text = fs.readFileSync("fixtures/claude-code-2.1/thinking-empty.jsonl", "utf8");
  const sessionId = /"sessionId":"([0-9a-f-]{36})"/.exec(text)![1]!;
  const dir = tempDir();
  const project = `${dir}/projects/-tmp-cc-capture-project`;
  fs.mkdirSync(project, { recursive: true });
  const file = `${project}/${sessionId}.jsonl`;
  fs.writeFileSync(file, text);
  const then = new Date(Date.now() - HOUR);
  fs.utimesSync(file, then, then);
  return { dialect: "claude", dir, file, sessionId };
}

interface RepairDoc {
  store: { notices: string[] };
  sessions: { changes: { op: string; id: string; rules: string[] }[]; unfixed: { rule: string }[] }[];
  summary: { changes: number; errorsLeft: number };
}

describe("session repair --error thinking_empty when two turns' thinking was emptied (the real client's transcript)", () => {
  const error = THINKING_EMPTY(1, 0);
  const bothPlaces = `an empty thinking block at messages.1.content.0: it is removed (a signature cannot be made up); the API checks the whole request and would refuse the same at messages.3.content.0 next, so this repair fixes that too`;

  it("the repair aimed at messages.1 removes the empty thinking at messages.3 too, and says so; the dry run and the repair agree: no error left", async () => {
    const fx = twoEmptiedTurns();
    const original = fs.readFileSync(fx.file);
    const sb = sandbox();
    const args = ["session", "repair", fx.sessionId, "--error", error, "--store", fx.dir, "--json"];

    // A plain repair plans the same: each empty block's line goes, and the text line after it is relinked.
    const plain = await sb.run(["session", "repair", fx.sessionId, "--dry-run", "--json", "--store", fx.dir]);
    const plainDoc = parseJsonDocument(plain.stdout) as unknown as RepairDoc;
    expect(plainDoc.summary).toMatchObject({ changes: 4, errorsLeft: 0 });

    const dry = await sb.run([...args, "--dry-run"]);
    expect(dry.status, dry.stderr).toBe(1);
    const planned = parseJsonDocument(dry.stdout) as unknown as RepairDoc;
    expect(planned.summary).toEqual({ sessions: 1, changes: 4, unfixed: 0, errorsLeft: 0 });
    expect(planned.sessions[0]!.changes.map((c) => `${c.op}:${c.rules.join("+")}`).sort()).toEqual([
      "delete:empty-thinking",
      "delete:empty-thinking",
      "update:empty-thinking",
      "update:empty-thinking",
    ]);
    expect(planned.sessions[0]!.changes.map((c) => c.id).sort()).toEqual(plainDoc.sessions[0]!.changes.map((c) => c.id).sort());
    expect(fs.readFileSync(fx.file).equals(original)).toBe(true);

    const r = await sb.run([...args, "--yes"]);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    const done = parseJsonDocument(r.stdout) as unknown as RepairDoc;
    expect(done.store.notices).toEqual([note(fx.sessionId, "thinking_empty", bothPlaces).replace(/^note: (.*)\n$/, "$1")]);
    expect(done.summary).toEqual(planned.summary);
    expect(done.sessions[0]!.changes.map((c) => c.id).sort()).toEqual(planned.sessions[0]!.changes.map((c) => c.id).sort());
    expect(fs.readFileSync(fx.file, "utf8")).not.toMatch(/"type":"thinking"/);
    expect(await scanErrors(sb, fx.sessionId, fx.dir)).toEqual([]);

    await restore(sb, (done as unknown as { backup: { id: string } }).backup.id);
    expect(fs.readFileSync(fx.file).equals(original)).toBe(true);
  });

  it("with --rule naming another rule, the error still brings empty-thinking to every empty block of the request", async () => {
    const fx = twoEmptiedTurns();
    const sb = sandbox();
    const args = ["session", "repair", fx.sessionId, "--rule", "tool-result-missing", "--error", error, "--store", fx.dir, "--json"];
    const dry = await sb.run([...args, "--dry-run"]);
    const planned = parseJsonDocument(dry.stdout) as unknown as RepairDoc;
    expect(planned.summary).toEqual({ sessions: 1, changes: 4, unfixed: 0, errorsLeft: 0 });
    const r = await sb.run([...args, "--yes"]);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect((parseJsonDocument(r.stdout) as unknown as RepairDoc).summary).toEqual(planned.summary);
    expect(await scanErrors(sb, fx.sessionId, fx.dir)).toEqual([]);
  });
});
