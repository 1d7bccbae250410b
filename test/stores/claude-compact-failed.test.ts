// Issue 40 row 13: a session Claude Code's own compaction cannot save, written by the real client 2.1.197 (scenario
// repair-compact-failed): the last turn's output was made 200,000 characters; on resume the client compacted, kept
// that turn verbatim after the summary (compactMetadata.preservedSegment), was refused again, and so on after every
// restart. compact-failed.request.json is the refused request of the second resume.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { anthropicRequest } from "../../src/provider/anthropic-request.js";
import { sessionView } from "../../src/scan/session-view.js";
import { loadRecords } from "../support/rule-tester.js";
import { expectSameBytes, parseJsonDocument, run, snapshot, tempDir } from "../cli/run.js";

const DIR = path.resolve("fixtures/claude-code-2.1/compact-failed");
const expected = JSON.parse(fs.readFileSync(path.join(DIR, "compact-failed.expected.json"), "utf8")) as { sessionId: string; error: string };
type Sent = { role: string; content: string | { type: string; tool_use_id?: string; content?: unknown }[] };
const sent = (JSON.parse(fs.readFileSync(path.join(DIR, "compact-failed.request.json"), "utf8")) as { messages: Sent[] }).messages;
const shape = (m: { role: string; content: string | { type: string }[] }) =>
  `${m.role}: ${typeof m.content === "string" ? "text" : m.content.map((b) => b.type).join(" ")}`;

describe("Claude Code: a compaction that keeps the turn that overflows", () => {
  it("recover's view sends the kept turn after the summary, as the client did", () => {
    const bytes = fs.readFileSync(path.join(DIR, "compact-failed.jsonl"));
    const view = sessionView(loadRecords({ dialect: "claude", bytes }), { now: Date.UTC(2030, 0, 1), liveWindowMs: 0 });
    const ours = anthropicRequest(view.conversation).messages;
    // The summary (2.1.197 leads it with its user context, which it does not store), then the kept turn (the call, its
    // 200,000-character result, the answer), as the client sent them.
    expect(shape(ours[0]!)).toBe("user: text");
    expect(JSON.stringify(sent[0]!.content)).toContain("This session is being continued");
    expect(ours.slice(1, 4).map(shape)).toEqual(sent.slice(1, 4).map(shape));
    const result = (sent[2]!.content as { type: string; tool_use_id?: string }[])[0]!;
    expect(ours[2]!.content[0]!.id).toBe(result.tool_use_id);
    expect(view.estimatedTokens).toBeGreaterThan(50_000);
  });

  it("context trim --error --keep-steps 0 brings it under the window, and restore gives it back", async () => {
    const root = tempDir();
    const config = path.join(root, "claude");
    const file = path.join(config, "projects", "p", `${expected.sessionId}.jsonl`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.copyFileSync(path.join(DIR, "compact-failed.jsonl"), file);
    const env = { XDG_STATE_HOME: path.join(root, "state") };
    const before = snapshot(config);
    const r = await run(
      ["context", "trim", expected.sessionId, "--error", expected.error, "--keep-steps", "0", "--yes", "--force", "--json", "--store", config],
      { env },
    );
    expect(r.status, r.stderr).toBe(0);
    const doc = parseJsonDocument(r.stdout) as { stillOver: boolean; backup: { id: string }; tokens: { after: number; limit: number } };
    expect(doc.stillOver).toBe(false);
    expect(doc.tokens.after).toBeLessThanOrEqual(doc.tokens.limit * 0.8);
    expect((await run(["session", "restore", doc.backup.id, "--yes", "--store", config], { env })).status).toBe(0);
    expectSameBytes(before, snapshot(config));
  });
});
