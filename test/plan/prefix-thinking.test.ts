// Repairs that keep the prefix (issue 36): on a model that binds each thinking block to everything before it, a fix
// that changes the request before a thinking block drops that block and every later one in the same plan, and keeps
// every earlier one; a fix at the tail drops nothing; an older model's thinking is kept as before; --keep-thinking
// refuses instead. Real stores of both opencode formats, planned in-process as `session repair` plans.
import Database from "better-sqlite3";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { run } from "../cli/run.js";
import { T0, writeStore } from "../cli/stores.js";
import { tempDir } from "../cli/run.js";
import { ClaudeTranscript, MINUTE, OpenclawTranscript } from "../support/transcript-fixtures.js";
import { RecoverError } from "../../src/errors.js";
import type { Block, Conversation } from "../../src/model/conversation.js";
import { BOUND_THINKING_ID, BOUND_THINKING_REASON, boundThinkingFrom, firstChange } from "../../src/plan/prefix-thinking.js";
import { sessionOf, storeOf, textPart } from "../rules/harness.js";
import { cleanupAll, FORMATS, plan, setup } from "../repair/harness.js";
import type { Transcript } from "../support/opencode-fixtures.js";

afterAll(cleanupAll);

const BOUND = "claude-opus-5-5";
const OLDER = "claude-sonnet-4-5";

/** Three turns with signed thinking each; the blank text part (the damage) in turn `damaged` (1-based). */
function session(model: string, damaged: number) {
  const as = { model: { providerID: "anthropic", modelID: model } };
  const turn = (w: Transcript, n: number) => [
    w.user(`Question ${n}: what does step ${n} of the migration do?`, { info: as }),
    w.assistant(
      [
        w.stepStart(),
        w.reasoning(`Step ${n} is in the migration script; read it before answering.`),
        ...(n === damaged ? [textPart(w, "  ")] : []),
        w.text(`Step ${n} copies the rows of table t${n} into the new schema.`),
      ],
      { modelID: model, providerID: "anthropic" },
    ),
  ];
  // No opening turn of the harness's own: turn n's thinking is messages.(2n-1).content.0 of the request.
  return storeOf(sessionOf((w) => [1, 2, 3].flatMap((n) => turn(w, n)), { opening: false }));
}

const reasoningTexts = (changes: ReturnType<typeof plan>["changes"]) =>
  changes.filter((c) => c.op === "delete" && c.rules.includes(BOUND_THINKING_ID)).map((c) => String(c.before?.text));

describe.each(FORMATS)("%s: thinking bound to its prefix", (format) => {
  it("a fix in the first turn drops the thinking of every later turn, keeps the first turn's, and says why", () => {
    const planned = plan(setup(format, session(BOUND, 1)));
    expect(planned.droppedThinking).toBe(2);
    expect(reasoningTexts(planned.changes).sort()).toEqual([
      "Step 2 is in the migration script; read it before answering.",
      "Step 3 is in the migration script; read it before answering.",
    ]);
    const drop = planned.changes.find((c) => c.rules.includes(BOUND_THINKING_ID))!;
    expect(drop.reasons).toContain(BOUND_THINKING_REASON);
    expect(planned.remaining.filter((f) => f.severity === "error")).toEqual([]);
  });

  it("a fix in the last turn, after its thinking, drops nothing", () => {
    const planned = plan(setup(format, session(BOUND, 3)));
    expect(planned.changes.length).toBeGreaterThan(0);
    expect(planned.droppedThinking).toBeUndefined();
    expect(reasoningTexts(planned.changes)).toEqual([]);
  });

  it("an older model's thinking is kept whatever the fix changes before it", () => {
    const planned = plan(setup(format, session(OLDER, 1)));
    expect(planned.changes.length).toBeGreaterThan(0);
    expect(planned.droppedThinking).toBeUndefined();
  });

  it("--keep-thinking refuses such a plan (exit 3) instead of dropping", () => {
    const fx = setup(format, session(BOUND, 1));
    let caught: unknown;
    try {
      plan(fx, { keepThinking: true });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(RecoverError);
    expect((caught as RecoverError).code).toBe("thinking-bound");
    expect((caught as RecoverError).message).toMatch(/before 2 thinking blocks a current Claude model bound to it/);
  });
});

describe("what the user sees", () => {
  it("the plan says how many thinking blocks it drops and why; --json carries it; --keep-thinking refuses with exit 3", async () => {
    const { store, readPath } = writeStore(session(BOUND, 1), "opencode-sqlite");
    const env = { XDG_STATE_HOME: path.join(path.dirname(readPath), "state") };
    const human = await run(["session", "repair", "--all", "--dry-run", "--store", store], { env });
    expect(human.status, human.stderr).toBe(1);
    expect(human.stdout).toContain(`drops 2 thinking blocks: ${BOUND_THINKING_REASON}`);
    expect(human.stdout).toMatch(/delete part prt_\w+ \[prefix-bound-thinking\]/);

    const json = await run(["session", "repair", "--all", "--dry-run", "--json", "--store", store], { env });
    const doc = JSON.parse(json.stdout) as { sessions: { droppedThinking?: { blocks: number; reason: string } }[] };
    expect(doc.sessions.map((s) => s.droppedThinking)).toEqual([{ blocks: 2, reason: BOUND_THINKING_REASON }]);

    const kept = await run(["session", "repair", "--all", "--yes", "--keep-thinking", "--store", store], { env });
    expect(kept.status).toBe(3);
    expect(kept.stderr).toMatch(
      /^recover: the repair of session ses_\w+ changes the conversation before 2 thinking blocks .*--keep-thinking refuses to drop them: nothing was changed\n$/,
    );
  });
});

describe("the error itself: `bound to a different conversation`", () => {
  // The second turn's thinking.
  const BOUND_400 =
    'messages.3.content.0: Invalid `signature` in `thinking` block. The block is bound to a different conversation. Remove the block, or set `thinking.block_binding.prefix_mismatch_behavior` to "drop_block".';

  it("explain says what it means and that sending the same history again cannot work", async () => {
    const r = await run(["explain", BOUND_400]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^thinking_bound \(anthropic\)$/m);
    expect(r.stdout).toMatch(/re-sending the same history fails again/);
  });

  it("--error drops the named block and every later one, and keeps the earlier ones", async () => {
    const { store, readPath } = writeStore(session(BOUND, 0), "opencode-sqlite");
    const env = { XDG_STATE_HOME: path.join(path.dirname(readPath), "state") };
    const listed = JSON.parse((await run(["session", "list", "--json", "--store", store], { env })).stdout) as { sessions: { id: string }[] };
    const id = listed.sessions[0]!.id;
    const r = await run(["session", "repair", id, "--yes", "--json", "--error", BOUND_400, "--store", store], { env });
    expect(r.status, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as { sessions: { changes: { op: string; record: string }[] }[] };
    expect(doc.sessions[0]!.changes.filter((c) => c.op === "delete" && c.record === "part")).toHaveLength(2);
    const db = new Database(readPath, { readonly: true });
    const kept = db.prepare("SELECT json_extract(data, '$.text') FROM part WHERE json_extract(data, '$.type') = 'reasoning' ORDER BY id").pluck().all();
    db.close();
    expect(kept).toEqual(["Step 1 is in the migration script; read it before answering."]);
    const explained = await run(["explain", BOUND_400, "--session", id, "--store", store], { env });
    expect(explained.stdout).toMatch(/messages\.3\.content\.0 holds text: no thinking is sent from there on/);
  });
});

describe("transcripts: Claude Code and openclaw", () => {
  /** Three turns with thinking; turn 1's tool call (`call`, in the agent's own shape) was interrupted, and the user went on. */
  function interruptedThenTwoTurns(t: ClaudeTranscript | OpenclawTranscript, call: Record<string, unknown>, root: string): void {
    const assistant = (blocks: Record<string, unknown>[]) => (t as ClaudeTranscript).assistant(blocks as never);
    t.user("Run the migration's dry run.");
    assistant([{ type: "thinking", thinking: "Run the dry run first." }, call]);
    for (const n of [2, 3]) {
      t.advance(2 * MINUTE);
      t.user(`Question ${n}: what does step ${n} do?`);
      assistant([
        { type: "thinking", thinking: `Step ${n} is in the script.` },
        { type: "text", text: `Step ${n} copies table t${n}.` },
      ]);
    }
    t.writeTo(root);
  }

  const claude = (model: string, root: string) =>
    interruptedThenTwoTurns(
      new ClaudeTranscript({ seed: 36, start: T0, cwd: "/home/dana/code/migrate", model }),
      { type: "tool_use", name: "Bash", input: { command: "npm run migrate -- --dry-run" } },
      root,
    );

  const openclaw = (model: string, root: string) =>
    interruptedThenTwoTurns(
      new OpenclawTranscript({ seed: 36, start: T0, model }),
      { type: "toolCall", name: "bash", arguments: { command: "npm run migrate -- --dry-run" } },
      root,
    );

  /** Two more turns, each with its thinking: the blocks whose prefix a repair of an earlier turn would change. */
  const twoMoreTurns = (t: ClaudeTranscript) => {
    for (const n of [2, 3]) {
      t.advance(2 * MINUTE);
      t.user(`Question ${n}: what does step ${n} do?`);
      t.assistant([
        { type: "thinking", thinking: `Step ${n} is in the script.` },
        { type: "text", text: `Step ${n} copies table t${n}.` },
      ]);
    }
  };

  it("claude: a reply of thinking and blank text is not sent at all, so nothing the repair does there drops later thinking", async () => {
    const root = tempDir();
    const t = new ClaudeTranscript({ seed: 37, start: T0, cwd: "/home/dana/code/migrate", model: BOUND });
    t.user("Think about the migration first.");
    t.assistant([
      { type: "thinking", thinking: "First thought about nothing." },
      { type: "thinking", thinking: "Second thought about nothing." },
      { type: "text", text: " \n " },
    ]);
    twoMoreTurns(t);
    t.writeTo(root);
    const env = { XDG_STATE_HOME: path.join(root, "state") };
    const scan = await run(["session", "scan", "--all", "--json", "--format", "claude", "--store", root], { env });
    expect(scan.status, scan.stdout).toBe(0);
    const r = await run(["session", "repair", "--all", "--dry-run", "--json", "--format", "claude", "--store", root], { env });
    expect(r.status, r.stdout).toBe(0);
    const doc = JSON.parse(r.stdout) as { sessions: { changes: unknown[]; droppedThinking?: unknown }[] };
    expect(doc.sessions.flatMap((s) => s.changes)).toEqual([]);
    expect(doc.sessions.map((s) => s.droppedThinking).filter(Boolean)).toEqual([]);
  });

  it.each([
    ["2.1.332", 0, undefined],
    ["2.1.197", 2, 3],
  ] as const)(
    "claude %s: an empty text beside a call, before later thinking: repaired only where the client sends it, and only then is the later thinking dropped",
    async (version, changes, dropped) => {
      const root = tempDir();
      const t = new ClaudeTranscript({ seed: 38, start: T0, cwd: "/home/dana/code/migrate", model: BOUND, version });
      const call = t.toolUseId();
      t.user("Run the migration's dry run.");
      t.assistant([
        { type: "thinking", thinking: "Run the dry run first." },
        { type: "text", text: "" },
        { type: "tool_use", id: call, name: "Bash", input: { command: "npm run migrate -- --dry-run" } },
      ]);
      t.toolResult(call, "dry run: 3 steps, no errors");
      t.assistant([
        { type: "thinking", thinking: "It passed." },
        { type: "text", text: "The dry run passed." },
      ]);
      twoMoreTurns(t);
      t.writeTo(root);
      const env = { XDG_STATE_HOME: path.join(root, "state") };
      const r = await run(["session", "repair", "--all", "--dry-run", "--json", "--format", "claude", "--store", root], { env });
      const doc = JSON.parse(r.stdout) as { sessions: { changes: { rules: string[] }[]; droppedThinking?: { blocks: number } }[] };
      const planned = doc.sessions.flatMap((s) => s.changes);
      // 2.1.332 never sends the empty text: nothing to repair, so no prefix changes. 2.1.197 sends it (and is refused):
      // its line goes (deleted, the call relinked), which changes the prefix of the three later thinking blocks, not of
      // "Run the dry run first." before it.
      expect(planned.filter((c) => c.rules.includes("empty-text-part")).length, r.stdout).toBe(changes);
      expect(doc.sessions[0]?.droppedThinking?.blocks).toBe(dropped);
    },
  );

  it.each([
    ["claude", claude],
    ["openclaw", openclaw],
  ] as const)(
    "%s: the interrupted call's result goes before two later turns: their thinking goes on a bound model, stays on an older one",
    async (format, write) => {
      for (const [model, dropped] of [
        [BOUND, 2],
        [OLDER, undefined],
      ] as const) {
        const root = tempDir();
        write(model, root);
        const env = { XDG_STATE_HOME: path.join(root, "state") };
        const r = await run(["session", "repair", "--all", "--dry-run", "--json", "--format", format, "--store", root], { env });
        expect(r.status, r.stderr).toBe(1);
        const doc = JSON.parse(r.stdout) as { sessions: { changes: { rules: string[] }[]; droppedThinking?: { blocks: number } }[] };
        expect(
          doc.sessions[0]!.changes.some((c) => c.rules.includes("tool-result-missing")),
          `${format} ${model}`,
        ).toBe(true);
        expect(doc.sessions[0]!.droppedThinking?.blocks, `${format} ${model}`).toBe(dropped);
      }
    },
  );
});

describe("what counts as a change of the prefix (firstChange)", () => {
  const source = { kind: "part" as const, id: "p" };
  const think = (sig: string): Block => ({ type: "thinking", source, chars: 5, text: `t ${sig}`, signed: true, signature: sig, model: BOUND });
  const say = (text: string): Block => ({ type: "text", source, chars: text.length, text, blank: false });
  const conversation = (...messages: Block[][]): Conversation => ({
    messages: messages.map((blocks, i) => ({ role: i % 2 === 0 ? "user" : "assistant", blocks, sourceMessageIds: [`m${i}`] })),
    skipped: [],
  });
  const original = conversation([say("q1")], [think("A"), say("a1")], [say("q2")], [think("B"), say("a2")], [say("q3")], [think("C"), say("a3")]);
  const signatures = (blocks: Block[]) => blocks.map((b) => (b as { signature?: string }).signature);

  it("thinking stripped from the start, from the end, or all of it changes nothing", () => {
    const fromStart = conversation([say("q1")], [say("a1")], [say("q2")], [think("B"), say("a2")], [say("q3")], [think("C"), say("a3")]);
    const fromEnd = conversation([say("q1")], [think("A"), say("a1")], [say("q2")], [think("B"), say("a2")], [say("q3")], [say("a3")]);
    const none = conversation([say("q1")], [say("a1")], [say("q2")], [say("a2")], [say("q3")], [say("a3")]);
    for (const after of [fromStart, fromEnd, none]) expect(firstChange(original, after)).toBeUndefined();
  });

  it("a block left out between others breaks the run: every later block is bound to another conversation", () => {
    const gap = conversation([say("q1")], [think("A"), say("a1")], [say("q2")], [say("a2")], [say("q3")], [think("C"), say("a3")]);
    const at = firstChange(original, gap);
    expect(at).toEqual({ message: 5, block: 0 });
    expect(signatures(boundThinkingFrom(gap, at))).toEqual(["C"]);
  });

  it("an edit outside thinking invalidates the thinking after it, in its own message too, not the thinking before it", () => {
    const edited = conversation([say("q1")], [think("A"), say("a1")], [say("q2 edited")], [think("B"), say("a2")], [say("q3")], [think("C"), say("a3")]);
    const at = firstChange(original, edited);
    expect(at).toEqual({ message: 2, block: 0 });
    expect(signatures(boundThinkingFrom(edited, at))).toEqual(["B", "C"]);
    const textAfterThinking = conversation(
      [say("q1")],
      [think("A"), say("a1 edited")],
      [say("q2")],
      [think("B"), say("a2")],
      [say("q3")],
      [think("C"), say("a3")],
    );
    expect(firstChange(original, textAfterThinking)).toEqual({ message: 1, block: 1 });
  });

  it("new turns at the tail, with thinking of their own, bind nothing", () => {
    const grown = conversation(...original.messages.map((m) => m.blocks), [say("q4")], [think("D"), say("a4")]);
    expect(firstChange(original, grown)).toBeUndefined();
  });
});
