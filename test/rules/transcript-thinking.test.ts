// Thinking in a transcript is never edited or made up: a block the rules reject goes alone, except in the latest
// tool-use turn, whose thinking the API forbids changing: there the whole turn goes with the results that answer it.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { TranscriptRecords } from "../../src/model/transcript.js";
import { planSession } from "../../src/plan/planner.js";
import { DEFAULT_RULE_OPTIONS } from "../../src/rules/rule.js";
import { unsignedThinking } from "../../src/rules/unsigned-thinking.js";
import { openStore } from "../../src/stores/discover.js";
import { ClaudeTranscript, MINUTE } from "../support/transcript-fixtures.js";

const START = Date.UTC(2026, 4, 2, 9, 0, 0);
const OPTIONS = { ...DEFAULT_RULE_OPTIONS, now: START + 3 * 24 * 60 * MINUTE, rules: [unsignedThinking] };
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function planFor(t: ClaudeTranscript) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "recover-tthink-"));
  dirs.push(dir);
  const file = t.writeTo(dir);
  const store = openStore({ store: file });
  const loaded = store.loadSession(t.sessionId, "full") as TranscriptRecords;
  return { plan: planSession(loaded, store.fixing, OPTIONS), loaded };
}

const unsigned = (thinking: string) => ({ type: "thinking", thinking, signature: "" });

describe("unsigned thinking in a Claude Code transcript (on request)", () => {
  it("in an older turn only the thinking line goes, and the chain is relinked around it", () => {
    const t = new ClaudeTranscript({ start: START, seed: 11 });
    t.user("rename the config loader");
    const [thinking, text] = t.assistant([unsigned("Look at config.ts first."), { type: "text", text: "Renamed it." }]);
    t.user("now run the tests");
    t.assistant([{ type: "text", text: "All green." }]);
    const { plan, loaded } = planFor(t);
    expect(plan.changes.filter((c) => c.op === "delete").map((c) => c.key.id)).toEqual([thinking]);
    const relinked = plan.changes.find((c) => c.op === "update" && c.key.id === text);
    expect(relinked?.after?.parentUuid).toBe(loaded.lines.find((l) => l.uuid === thinking)!.parent);
  });

  it("in the latest tool-use turn the whole response and its result go; the prompt before stays the leaf's parent", () => {
    const t = new ClaudeTranscript({ start: START, seed: 12 });
    const prompt = t.user("check the migration status");
    const lines = t.assistant([
      unsigned("Run prisma migrate status."),
      { type: "tool_use", id: "toolu_01AAAAAAAAAAAAAAAAAAAAAA", name: "Bash", input: { command: "npx prisma migrate status" } },
    ]);
    const result = t.toolResult("toolu_01AAAAAAAAAAAAAAAAAAAAAA", "1 migration pending");
    const { plan, loaded } = planFor(t);
    const deleted = plan.changes.filter((c) => c.op === "delete").map((c) => c.key.id);
    expect(deleted.sort()).toEqual([...lines, result].sort());
    expect(plan.changes.every((c) => c.op === "delete")).toBe(true);
    expect(plan.fixed.map((f) => f.rule)).toEqual(["unsigned-thinking"]);
    // What is left is the prompt's line, byte for byte: the user's question waits for a fresh answer.
    const promptLine = loaded.lines.find((l) => l.uuid === prompt)!;
    expect(plan.files?.[0]?.after?.toString("utf8")).toBe(`${promptLine.raw.toString("utf8")}\n`);
  });
});
