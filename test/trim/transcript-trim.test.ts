// context trim on transcripts: the same strategies through the same planner, judged on the transcript's tool results
// and images outside the kept last turns; every other line stays byte for byte, and a second trim has nothing to do.
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import type { TranscriptRecords } from "../../src/model/transcript.js";
import { planSession } from "../../src/plan/planner.js";
import { DEFAULT_RULE_OPTIONS, type TrimOptions } from "../../src/rules/rule.js";
import { TRIM_RULES } from "../../src/rules/trim/index.js";
import { sessionView } from "../../src/scan/session-view.js";
import { openStore } from "../../src/stores/discover.js";
import { ClaudeTranscript, OpenclawTranscript } from "../support/transcript-fixtures.js";
import { loadTranscript, NOW, START } from "./transcripts.js";

function trim(loaded: TranscriptRecords, store: ReturnType<typeof openStore>, budget: Partial<TrimOptions>) {
  const options: TrimOptions = {
    targetTokens: 160_000,
    calibration: 1,
    keepTurns: 2,
    maxOutputChars: 50_000,
    strategies: new Set(TRIM_RULES.map((r) => r.id)),
    ...budget,
  };
  return planSession(loaded, store.fixing, { ...DEFAULT_RULE_OPTIONS, now: NOW, rules: TRIM_RULES, trim: options });
}

/** Lines of a file image, without their "\n". */
const linesOf = (bytes: Buffer) => bytes.toString("utf8").split("\n").slice(0, -1);

function bigClaude(turns: number, chars: number): ClaudeTranscript {
  const t = new ClaudeTranscript({ start: START, seed: 31 });
  for (let i = 0; i < turns; i++) {
    t.user(`step ${i}: read log ${i}`);
    t.assistant([{ type: "tool_use", id: `toolu_01${String(i).padStart(22, "0")}`, name: "Read", input: { file_path: `/var/log/app-${i}.log` } }]);
    t.toolResult(`toolu_01${String(i).padStart(22, "0")}`, `${"x".repeat(chars)} end of log ${i}`);
    t.assistant([{ type: "text", text: `Log ${i} read.` }]);
  }
  return t;
}

describe("context trim on a Claude Code transcript", () => {
  it("over the window: old results are truncated then cleared until it fits; the last turns and every other line stay", () => {
    const { store, loaded } = loadTranscript(bigClaude(40, 30_000));
    const before = sessionView(loaded, { now: NOW, liveWindowMs: DEFAULT_RULE_OPTIONS.liveWindowMs });
    expect(before.estimatedTokens).toBeGreaterThan(200_000);
    const plan = trim(loaded, store, {});
    expect(plan.after.estimatedTokens).toBeLessThanOrEqual(160_000);
    expect(plan.changes.every((c) => c.op === "update" && c.rules.every((r) => r === "prune-old-outputs" || r === "truncate-outputs"))).toBe(true);
    const after = linesOf(plan.files![0]!.after!);
    const original = loaded.lines.map((l) => l.raw.toString("utf8"));
    expect(after).toHaveLength(original.length);
    const changed = new Set(plan.changes.map((c) => c.key.id));
    loaded.lines.forEach((line, i) => {
      if (!changed.has(line.ref.id)) expect(after[i]).toBe(original[i]);
      else expect(JSON.parse(after[i]!).type).toBe("user");
    });
    // The last two turns (8 lines) are never touched.
    expect(loaded.lines.slice(-8).some((l) => changed.has(l.ref.id))).toBe(false);
    // Cleared the way Claude Code's own microcompaction clears them.
    expect(after.some((l) => l.includes("[Old tool result content cleared]"))).toBe(true);
  });

  it("a second trim of the trimmed file has nothing to do", () => {
    const { store, loaded, file } = loadTranscript(bigClaude(40, 30_000));
    const plan = trim(loaded, store, {});
    fs.writeFileSync(file, plan.files![0]!.after!);
    const reloaded = openStore({ store: file }).loadSession(loaded.summary.id, "full") as TranscriptRecords;
    expect(trim(reloaded, store, {}).changes).toEqual([]);
  });

  it("a byte budget (413): the largest pasted images of older prompts give way to a note, newest turns kept", () => {
    const t = new ClaudeTranscript({ start: START, seed: 32 });
    const image = (kb: number) => ({ type: "image", source: { type: "base64", media_type: "image/png", data: "A".repeat(kb * 1024) } });
    for (let i = 0; i < 6; i++) {
      t.user([{ type: "text", text: `screenshot ${i}` }, image(400 + i * 100)]);
      t.assistant([{ type: "text", text: `I see screen ${i}.` }]);
    }
    const { store, loaded } = loadTranscript(t);
    const plan = trim(loaded, store, { maxBytes: 2_500_000 });
    expect(plan.after.bytes).toBeLessThanOrEqual(2_500_000);
    expect(plan.changes.length).toBeGreaterThan(0);
    for (const change of plan.changes) {
      expect(change.rules).toEqual(["drop-images"]);
      const content = (change.after!.message as { content: { type: string; text?: string }[] }).content;
      expect(content[0]).toEqual({ type: "text", text: expect.stringMatching(/^screenshot \d$/) });
      expect(content[1]).toEqual({ type: "text", text: expect.stringContaining("image removed") });
    }
  });
});

describe("context trim on an openclaw transcript", () => {
  it("a long toolResult outside the kept turns is truncated around a marker, head and tail kept", () => {
    const t = new OpenclawTranscript({ start: START, seed: 33 });
    t.user("fetch the report");
    t.assistant([{ type: "toolCall", id: "toolu_01AAAAAAAAAAAAAAAAAAAAAA", name: "web_fetch", arguments: { url: "https://example.com/r" } }], {
      stopReason: "toolUse",
    });
    t.toolResult("toolu_01AAAAAAAAAAAAAAAAAAAAAA", "web_fetch", `HEAD${"y".repeat(900_000)}TAIL`);
    t.assistant([{ type: "text", text: "Done." }], { stopReason: "stop" });
    for (let i = 0; i < 3; i++) {
      t.user(`question ${i}`);
      t.assistant([{ type: "text", text: `answer ${i}` }], { stopReason: "stop" });
    }
    const { store, loaded } = loadTranscript(t);
    const plan = trim(loaded, store, {});
    const change = plan.changes.find((c) => c.rules.includes("truncate-outputs"));
    const text = (change!.after!.message as { content: { text: string }[] }).content[0]!.text;
    expect(text.startsWith("HEAD")).toBe(true);
    expect(text.endsWith("TAIL")).toBe(true);
    expect(text).toContain("truncated");
    expect(text.length).toBeLessThanOrEqual(50_000);
  });
});
