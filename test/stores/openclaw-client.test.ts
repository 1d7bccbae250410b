// Transcripts written by the real openclaw 2026.9.6 client (run offline against a loopback mock of the API by the
// client driver scripts/clients/openclaw.mjs; fixtures/openclaw-2026.9/README.md), as pi JSONL lines in an openclaw
// agent dir. recover's view is what that client sends (test/provider/openclaw-request.test.ts), so a scan reports
// only what the API would reject of it, and `repair --error` with the API's own text fixes the block the API named.
import Database from "better-sqlite3";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { anthropicRequest } from "../../src/provider/anthropic-request.js";
import { sessionView } from "../../src/scan/session-view.js";
import { parseJsonDocument, run, snapshot, expectSameBytes, tempDir } from "../cli/run.js";
import { loadRecords } from "../support/rule-tester.js";

const FIXTURES = path.resolve("fixtures/openclaw-2026.9");

/** An openclaw state dir holding every captured transcript as `agents/main/sessions/<session id>.jsonl`. */
function storeOfCaptures(): { dir: string; ids: Map<string, string>; files: Map<string, string> } {
  const dir = tempDir();
  const sessions = path.join(dir, "agents", "main", "sessions");
  fs.mkdirSync(sessions, { recursive: true });
  const ids = new Map<string, string>();
  const files = new Map<string, string>();
  for (const name of fs.readdirSync(FIXTURES).filter((f) => f.endsWith(".jsonl"))) {
    const text = fs.readFileSync(path.join(FIXTURES, name), "utf8");
    const id = (JSON.parse(text.slice(0, text.indexOf("\n"))) as { id: string }).id;
    const scenario = name.replace(/\.jsonl$/, "");
    ids.set(id, scenario);
    files.set(scenario, path.join(sessions, `${id}.jsonl`));
    fs.writeFileSync(path.join(sessions, `${id}.jsonl`), text);
    // Last written when the client wrote it, not now (a fresh copy would look like a running agent's).
    const captured = new Date("2026-11-24T16:00:00Z");
    fs.utimesSync(path.join(sessions, `${id}.jsonl`), captured, captured);
  }
  return { dir, ids, files };
}

type ScanDoc = { sessions: { id: string; findings: { rule: string; severity: string }[] }[] };

describe("transcripts written by the real openclaw 2026.9 client", () => {
  it("scan: only what the API rejects is an error; what the client drops (empty text, earlier thinking on sonnet-4-5, failed turns) is not", async () => {
    const { dir, ids } = storeOfCaptures();
    expect(ids.size).toBe(11);
    const r = await run(["session", "scan", "--all", "--include-live", "--json", "--exit-zero", "--store", dir]);
    expect(r.status, r.stderr).toBe(0);
    const doc = parseJsonDocument(r.stdout) as ScanDoc;
    const found = doc.sessions.flatMap((s) => s.findings.map((f) => `${ids.get(s.id)} ${f.rule} ${f.severity}`)).sort();
    expect(found).toEqual(
      [
        // The same edits on sonnet-4-5 (`edit-thinking`) are not sent: only the latest turn's thinking goes out there.
        "edit-thinking-sonnet-4-6 duplicate-thinking error",
        "edit-thinking-sonnet-4-6 duplicate-thinking error",
        "edit-thinking-sonnet-4-6 empty-thinking error",
        // Histories that end on an errored turn: a warning, fixed only on request (the client replaces or drops the turn).
        "edit-more trailing-assistant warning",
        "error-turn trailing-assistant warning",
      ].sort(),
    );
  });

  it("repair --error with the API's text for the empty thinking it was sent: that block goes, and the repeats with it; restore undoes it", async () => {
    const { dir, files } = storeOfCaptures();
    const file = files.get("edit-thinking-sonnet-4-6")!;
    const id = path.basename(file, ".jsonl");
    const before = snapshot(dir);
    // What the API answers the captured request (its messages.1.content.0 is `{"type":"thinking","thinking":""}`).
    const error = "messages.1.content.0.thinking: each thinking block must contain non-whitespace thinking";
    const repaired = await run(["session", "repair", id, "--error", error, "--yes", "--json", "--store", dir]);
    expect(repaired.status, repaired.stderr).toBe(0);
    const doc = parseJsonDocument(repaired.stdout) as { backup: { id: string }; sessions: { changes: { rules: string[] }[] }[] };
    expect(doc.sessions[0]!.changes.flatMap((c) => c.rules).sort()).toEqual(["duplicate-thinking", "empty-thinking"]);
    const view = sessionView(loadRecords({ dialect: "openclaw", bytes: fs.readFileSync(file) }), { now: Date.UTC(2030, 0, 1), liveWindowMs: 0 });
    const request = anthropicRequest(view.conversation);
    // Turn one keeps its text, turn two one copy of its thinking; every thinking block left is sent verbatim.
    expect(request.messages.map((m) => `${m.role}: ${m.content.map((b) => b.type).join(" ")}`)).toEqual([
      "user: text",
      "assistant: text",
      "user: text",
      "assistant: thinking text",
      "user: text",
      "assistant: thinking text",
    ]);
    expect(view.conversation.messages.flatMap((m) => m.blocks).filter((b) => b.type === "thinking" && b.blank)).toEqual([]);
    const scan = await run(["session", "scan", id, "--json", "--include-live", "--store", dir]);
    expect(scan.status, scan.stdout).toBe(0);

    expect((await run(["session", "restore", doc.backup.id, "--yes", "--store", dir])).status).toBe(0);
    expectSameBytes(before, snapshot(dir));
  });

  it("a state dir of openclaw 2026.9 read as JSONL says where its live sessions are: as a notice, and in the error when no transcript is left", async () => {
    const { dir } = storeOfCaptures();
    // The live store of 2026.9: one SQLite database per agent (its transcript table, as the client creates it).
    const agentDir = path.join(dir, "agents", "main", "agent");
    fs.mkdirSync(agentDir, { recursive: true });
    const db = new Database(path.join(agentDir, "openclaw-agent.sqlite"));
    db.exec(
      "CREATE TABLE transcript_events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_json TEXT, created_at INTEGER NOT NULL, PRIMARY KEY (session_id, seq)) STRICT",
    );
    db.close();
    const listed = await run(["session", "list", "--store", dir]);
    expect(listed.status, listed.stderr).toBe(0);
    expect(listed.stderr).toContain(
      `note: openclaw 2026.8 and later keep live sessions in ${path.join(agentDir, "openclaw-agent.sqlite")}, and never read these JSONL transcripts again`,
    );
    fs.rmSync(path.join(dir, "agents", "main", "sessions"), { recursive: true });
    fs.mkdirSync(path.join(dir, "agents", "main", "sessions"));
    const empty = await run(["session", "scan", "--format", "openclaw", "--store", dir]);
    expect(empty.status).toBe(2);
    expect(empty.stderr.trim().split("\n")).toHaveLength(1);
    expect(empty.stderr).toMatch(/holds no openclaw transcripts; openclaw 2026\.8 and later keep live sessions in .*openclaw-agent\.sqlite/);
  });
});
