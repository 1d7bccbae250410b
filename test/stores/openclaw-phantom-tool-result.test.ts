// openclaw/openclaw#21985 (#8264, #9769): a synthetic tool result with an empty toolCallId, paired to a call that is
// not there (or has an empty id too), in stores the real clients wrote (scenario phantom-tool-result of
// scripts/clients/scenarios/openclaw.mjs; docs/research/openclaw-phantom-tool-result.md). Both checked clients drop the
// call with no id and every result that answers no call before they send the history, so neither is an error (a
// warning); recover still mends both in the store, and the client continues (the scenario's repair loop).
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { expectSameBytes, run, snapshot, tempDir } from "../cli/run.js";
import { onlySession, openclawState, repairAndRestore, scanFindings, sessionRows, type ScannedFinding } from "../support/openclaw-db.js";

type Finding = ScannedFinding;
const scan = scanFindings;

const brief = (f: Finding) => `${f.rule} ${f.severity}`;

describe("a synthetic tool result with an empty toolCallId (openclaw/openclaw#21985)", () => {
  it("openclaw 2026.9.6's database: warnings; the repair drops the result that answers nothing and gives the empty call and its result one id; restore gives every row back", async () => {
    const { state, db } = openclawState("phantom-tool-result");
    const found = await scan(state);
    expect(found.map(brief)).toEqual(["orphan-tool-result warning", "duplicate-tool-call-id warning"]);
    expect(found[0]!.message).toBe("tool result with an empty tool call id, which answers no call (openclaw 2026.9 drops it before sending)");
    expect(found[1]!.message).toBe("call id is empty (openclaw 2026.9 drops the call before sending)");
    await repairAndRestore(state, db);
  });

  it("openclaw 2026.7.35's transcript: warnings; the repair drops the result that answers nothing and gives the empty call and its result one id; restore undoes it", async () => {
    const dir = tempDir();
    const sessions = path.join(dir, "agents", "main", "sessions");
    fs.mkdirSync(sessions, { recursive: true });
    const text = fs.readFileSync(path.resolve("fixtures/openclaw-2026.7/phantom-tool-result.jsonl"), "utf8");
    const id = (JSON.parse(text.slice(0, text.indexOf("\n"))) as { id: string }).id;
    const file = path.join(sessions, `${id}.jsonl`);
    fs.writeFileSync(file, text);
    // Last written when the client wrote it, not now (a fresh copy would look like a running agent's).
    const captured = new Date("2026-11-27T17:12:00Z");
    fs.utimesSync(file, captured, captured);
    const found = await scan(dir);
    expect(found.map(brief)).toEqual(["orphan-tool-result warning", "duplicate-tool-call-id warning"]);
    expect(found[0]!.message).toBe("tool result with an empty tool call id, which answers no call (openclaw drops it before sending)");

    const before = snapshot(dir);
    const repaired = await run(["session", "repair", id, "--yes", "--include-live", "--store", dir]);
    expect(repaired.status, repaired.stderr).toBe(0);
    expect(await scan(dir)).toEqual([]);
    const messages = fs
      .readFileSync(file, "utf8")
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; message?: { role: string; toolCallId?: string; content: { type: string; id?: string }[] } })
      .flatMap((l) => (l.type === "message" ? [l.message!] : []));
    // Turn one's phantom result is gone; turn two's call and result share one fresh id, neither empty.
    const results = messages.filter((m) => m.role === "toolResult");
    expect(results).toHaveLength(1);
    const call = messages.flatMap((m) => (m.role === "assistant" ? m.content.filter((b) => b.type === "toolCall") : []));
    expect(call).toHaveLength(1);
    expect(call[0]!.id).toMatch(/^toolu_[A-Za-z0-9]+$/);
    expect(results[0]!.toolCallId).toBe(call[0]!.id);

    const again = await run(["session", "repair", id, "--yes", "--include-live", "--store", dir]);
    expect(again.status, again.stderr).toBe(0);
    const restored = await run(["session", "restore", "--last", "--yes", "--store", dir]);
    expect(restored.status, restored.stderr).toBe(0);
    expectSameBytes(before, snapshot(dir));
  });
});

describe("ids openclaw 2026.9.6 mends before sending (duplicate-ids)", () => {
  it("a reused call id and a second result are warnings; the repair still mends them, and restore gives every row back", async () => {
    const { state, db } = openclawState("duplicate-ids");
    const found = await scan(state);
    expect(found.map(brief)).toEqual(["tool-result-missing warning", "orphan-tool-result warning", "duplicate-tool-call-id warning"]);
    expect(found[1]!.message).toBe("a second tool result for toolu_mock_a_01 (openclaw 2026.9 drops it before sending)");
    expect(found[2]!.message).toMatch(
      /^call id toolu_mock_a_01 is already used at \S+ \(openclaw 2026\.9 gives the later call and its result an id of their own before sending\)$/,
    );
    const before = sessionRows(db);
    const repaired = await run(["session", "repair", onlySession(db), "--yes", "--force", "--include-live", "--store", state]);
    expect(repaired.status, repaired.stderr).toBe(0);
    // Left: the call whose result was taken, which the client answers itself in every request.
    expect((await scan(state)).map(brief)).toEqual(["tool-result-missing warning"]);
    const restored = await run(["session", "restore", "--last", "--yes", "--store", state]);
    expect(restored.status, restored.stderr).toBe(0);
    expect(sessionRows(db)).toBe(before);
  });
});
