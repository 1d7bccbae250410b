import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { layoutOf, recordKey } from "../../src/rules/trim/layout.js";
import { loadRecords } from "../support/rule-tester.js";
import { calibrate } from "../../src/cli/trim-budget.js";
import { planSession } from "../../src/plan/planner.js";
import { DEFAULT_RULE_OPTIONS, type TrimOptions } from "../../src/rules/rule.js";
import { STRATEGIES, TRIM_RULES } from "../../src/rules/trim/index.js";
import { sessionView } from "../../src/scan/session-view.js";
import { ClaudeTranscript, OpenclawTranscript } from "../support/transcript-fixtures.js";
import { loadTranscript, NOW, START } from "./transcripts.js";
import { pngBytes } from "./running-turn-stores.js";

function plan(t: ClaudeTranscript | OpenclawTranscript, strategy: string, budget: Partial<TrimOptions> = {}) {
  const { store, loaded } = loadTranscript(t);
  const trim: TrimOptions = { targetTokens: 1, calibration: 1, keepTurns: 2, maxOutputChars: 50_000, strategies: new Set([strategy]), ...budget };
  return { loaded, plan: planSession(loaded, store.fixing, { ...DEFAULT_RULE_OPTIONS, now: NOW, rules: TRIM_RULES, trim }) };
}

/** The JSON of the changed lines, by line uuid / entry id. */
const changed = (p: ReturnType<typeof plan>["plan"]) => new Map(p.changes.map((c) => [c.key.id, c]));

const filler = (n: number) => Array.from({ length: n }, (_, i) => `line ${i}: ok`).join("\n");

describe("dedupe on a Claude Code transcript", () => {
  it("an older result of the same call (keys in another order) is cleared the microcompaction way; the newest stays", () => {
    const t = new ClaudeTranscript({ start: START, seed: 41 });
    const ids: string[] = [];
    const results: string[] = [];
    for (let i = 0; i < 5; i++) {
      t.user(`turn ${i}: read it`);
      const id = t.toolUseId();
      ids.push(id);
      const input = i % 2 === 0 ? { file_path: "/app/x.ts", limit: 10 } : { limit: 10, file_path: "/app/x.ts" };
      t.assistant([{ type: "tool_use", id, name: "Read", input }]);
      results.push(t.toolResult(id, filler(2_000)));
      t.assistant([{ type: "text", text: `read ${i}` }]);
    }
    const { plan: p } = plan(t, "dedupe");
    const byLine = changed(p);
    // Turns 0–2 are older than the 2 kept; then the kept turn 3 (turn 4 holds the last 2 steps, and the newest call).
    expect([...byLine.keys()].sort()).toEqual([results[0], results[1], results[2], results[3]].sort());
    for (const id of byLine.keys()) {
      const content = (byLine.get(id)!.after!.message as { content: { content: unknown }[] }).content[0]!.content;
      expect(JSON.stringify(content)).toContain("[Old tool result content cleared]");
    }
    expect(p.fixed.filter((f) => f.runningTurn).map((f) => f.rule)).toEqual(["dedupe-outputs"]);
  });
});

describe("purge-errors on an openclaw transcript", () => {
  it("a failed call's arguments become {} (pi keeps them at `arguments`); its result and the rest of the entry stay", () => {
    const t = new OpenclawTranscript({ start: START, seed: 42 });
    const calls: string[] = [];
    for (let i = 0; i < 7; i++) {
      t.user(`try migration ${i}`);
      const id = t.toolCallId();
      calls.push(t.assistant([{ type: "toolCall", id, name: "exec", arguments: { command: `psql <<'SQL'\n${filler(300)}\nSQL` } }], { stopReason: "toolUse" }));
      t.toolResult(id, "exec", "psql: error: connection refused", { isError: true });
      t.assistant([{ type: "text", text: `migration ${i} failed` }], { stopReason: "stop" });
    }
    const { loaded, plan: p } = plan(t, "purge-errors");
    const byLine = changed(p);
    // Every failed call but the last (in the last 2 steps).
    expect([...byLine.keys()].sort()).toEqual(calls.slice(0, 6).sort());
    for (const id of byLine.keys()) {
      const before = loaded.lines.find((l) => l.ref.id === id)!.value as { message: { content: { arguments: unknown }[] } };
      const after = byLine.get(id)!.after as typeof before;
      expect(after.message.content[0]!.arguments).toEqual({});
      expect({ ...after.message.content[0], arguments: null }).toEqual({ ...before.message.content[0], arguments: null });
    }
  });
});

describe("strip-old-thinking on a Claude Code transcript", () => {
  it("signed thinking of turns before the latest goes whole (its line, relinked); the last 2 steps' thinking stays", () => {
    const t = new ClaudeTranscript({ start: START, seed: 43 });
    const thinking: string[][] = [];
    for (let i = 0; i < 5; i++) {
      t.user(`question ${i}`);
      thinking.push(
        t.assistant([
          { type: "thinking", thinking: `Let me think about ${i}. ${filler(400)}`, signature: `EqQB${"x".repeat(60)}` },
          { type: "text", text: `answer ${i}` },
        ]),
      );
    }
    const { loaded, plan: p } = plan(t, "strip-old-thinking", { keepTurns: 0 });
    const deleted = p.changes.filter((c) => c.op === "delete").map((c) => c.key.id);
    // One line per block: the thinking lines of turns 0–2 go; turns 3 and 4 hold the last 2 steps.
    expect(deleted.sort()).toEqual([thinking[0]![0], thinking[1]![0], thinking[2]![0]].sort());
    // Nothing was edited: the text lines are only relinked to their parent.
    for (const c of p.changes.filter((x) => x.op === "update")) {
      const before = loaded.lines.find((l) => l.ref.id === c.key.id)!.value!;
      expect({ ...c.after, parentUuid: null }).toEqual({ ...before, parentUuid: null });
    }
  });
});

describe("strip-old-thinking on a model that binds thinking to its prefix (issue 36)", () => {
  it("the oldest blocks go and the later ones stay: a run stripped from the start is still bound to what it was", () => {
    const t = new ClaudeTranscript({ start: START, seed: 45, model: "claude-opus-5-5" });
    const thinking: string[][] = [];
    for (let i = 0; i < 5; i++) {
      t.user(`question ${i}`);
      thinking.push(
        t.assistant([
          { type: "thinking", thinking: `Let me think about ${i}. ${filler(400)}`, signature: `EqQB${String(i).repeat(60)}` },
          { type: "text", text: `answer ${i}` },
        ]),
      );
    }
    const { plan: p } = plan(t, "strip-old-thinking", { keepTurns: 0 });
    const deleted = p.changes.filter((c) => c.op === "delete").map((c) => c.key.id);
    expect(deleted.sort()).toEqual([thinking[0]![0], thinking[1]![0], thinking[2]![0]].sort());
    // Turns 3 and 4 keep their thinking: nothing outside thinking changed before them, and they still follow each
    // other (stripping oldest-first is accepted; ../shared/reference/preserved-thinking.md §2).
    expect(p.droppedThinking).toBeUndefined();
    expect(p.changes.filter((c) => c.rules.includes("prefix-bound-thinking"))).toEqual([]);
  });
});

describe("drop-oldest-turns on an openclaw transcript", () => {
  it("whole older turns go, never the first nor the kept ones; the chain stays whole", () => {
    const t = new OpenclawTranscript({ start: START, seed: 44 });
    const firsts: string[] = [];
    for (let i = 0; i < 6; i++) {
      firsts.push(t.user(`step ${i}: ${filler(200)}`));
      t.assistant([{ type: "text", text: `done ${i}` }], { stopReason: "stop" });
    }
    const { loaded, plan: p } = plan(t, "drop-oldest-turns");
    const deleted = new Set(p.changes.filter((c) => c.op === "delete").map((c) => c.key.id));
    // Turns 1–3 (the first stays; 4 and 5 are kept).
    expect(firsts.filter((id) => deleted.has(id))).toEqual(firsts.slice(1, 4));
    expect(deleted.size).toBe(6);
    const after = new Set(loaded.lines.map((l) => l.ref.id).filter((id) => !deleted.has(id)));
    // The turn after the dropped ones now hangs on the first turn's answer.
    const relinked = p.changes.find((c) => c.op === "update" && c.key.id === firsts[4]);
    expect(after.has(String((relinked!.after as { parentId: string }).parentId))).toBe(true);
  });
});

describe("images inside tool results (Claude Code)", () => {
  it("a screenshot a tool returned over the 8,000 px rule goes, whatever the budget; the text beside it stays", () => {
    const t = new ClaudeTranscript({ start: START, seed: 45 });
    t.user("take a screenshot");
    const id = t.toolUseId();
    t.assistant([{ type: "tool_use", id, name: "screenshot", input: {} }]);
    const data = pngBytes(9_000, 1_200, 3).toString("base64");
    const result = t.toolResult(id, [
      { type: "text", text: "captured" },
      { type: "image", source: { type: "base64", media_type: "image/png", data } },
    ]);
    t.assistant([{ type: "text", text: "I see it." }]);
    for (let i = 0; i < 2; i++) {
      t.user(`more ${i}`);
      t.assistant([{ type: "text", text: `ok ${i}` }]);
    }
    // Under budget (a huge target): only the image the API refuses goes.
    const { plan: p } = plan(t, "drop-images", { targetTokens: 10_000_000 });
    expect(p.changes.map((c) => c.key.id)).toEqual([result]);
    const content = (p.changes[0]!.after!.message as { content: { content: { type: string; text?: string }[] }[] }).content[0]!.content;
    expect(content[0]).toEqual({ type: "text", text: "captured" });
    expect(content[1]!.type).toBe("text");
    expect(content[1]!.text).toContain("image removed");
    expect(p.fixed[0]!.message).toMatch(/9000×1200 px.*8,000 px/);
  });
});

describe("calibration against the usage each agent stores", () => {
  it("Claude Code: input + cache creation + cache read of the latest response; openclaw: input + cacheRead + cacheWrite", () => {
    const c = new ClaudeTranscript({ start: START, seed: 46 });
    c.user(`read this ${filler(4_000)}`);
    c.assistant([{ type: "text", text: "read" }], { usage: { input_tokens: 5_000, cache_creation_input_tokens: 5_000, cache_read_input_tokens: 10_000 } });
    const claude = loadTranscript(c).loaded;
    const cv = sessionView(claude, { now: NOW, liveWindowMs: 0 });
    expect(cv.measuredPrompt?.tokens).toBe(20_000);
    const cal = calibrate(cv);
    expect(cal.factor).toBeCloseTo(20_000 / cv.estimatedTokens, 5);
    expect(cal.factor).not.toBe(1);
    expect(cal.method).toMatch(/calibrated ×\d\.\d\d against the 20,000 prompt tokens Claude Code stored for message /);

    const o = new OpenclawTranscript({ start: START, seed: 47 });
    o.user(`read this ${filler(4_000)}`);
    o.assistant([{ type: "text", text: "read" }], { stopReason: "stop", usage: { input: 1_000, cacheRead: 15_000, cacheWrite: 4_000 } });
    const ov = sessionView(loadTranscript(o).loaded, { now: NOW, liveWindowMs: 0 });
    expect(ov.measuredPrompt?.tokens).toBe(20_000);
    expect(calibrate(ov).method).toMatch(/openclaw stored/);
  });

  it("a stored count more than a factor 2 from the estimate is not of this history: not used, and said so", () => {
    const c = new ClaudeTranscript({ start: START, seed: 48 });
    c.user(`read this ${filler(4_000)}`);
    c.assistant([{ type: "text", text: "read" }], { usage: { input_tokens: 3, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } });
    const cal = calibrate(sessionView(loadTranscript(c).loaded, { now: NOW, liveWindowMs: 0 }));
    expect(cal.factor).toBe(1);
    expect(cal.method).toMatch(/not calibrated: .* too far apart/);
  });
});

it("every strategy is allowed by name", () => {
  expect(STRATEGIES).toEqual(["drop-images", "truncate-outputs", "prune-old-outputs", "dedupe", "purge-errors", "strip-old-thinking", "drop-oldest-turns"]);
});

describe("the turns of a transcript with a system turn (Claude Code on a current model)", () => {
  it("the reminders after the first prompt are part of that prompt's turn, so the first turn stays the first", () => {
    // Written by Claude Code 2.1.331 on claude-opus-5-5: prompt, system turn, reply; two more prompts.
    const bytes = fs.readFileSync(path.resolve("fixtures/claude-code-2.1/opus55-interrupted.jsonl"));
    const view = sessionView(loadRecords({ dialect: "claude", bytes }), { now: NOW, liveWindowMs: 0 });
    expect(view.conversation.messages.map((m) => m.role[0]).join("")).toBe("usauaaua");
    const layout = layoutOf(view.conversation, 0);
    expect(layout.turns).toHaveLength(3);
    expect(layout.turns[0]!.prompt.map((b) => b.text?.slice(0, 13))).toEqual(["<system-remin", "Think twice, ", "# Environment"]);
    expect(layout.turns[0]!.steps).toHaveLength(1);
    // The first prompt, its reminders included, is never trimmed.
    for (const block of layout.turns[0]!.prompt) expect(layout.intact.has(recordKey(block.source))).toBe(true);
  });
});
