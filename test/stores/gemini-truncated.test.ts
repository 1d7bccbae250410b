// A Gemini CLI chat file cut short where the session's header is (issue 40 row 10, google-gemini/gemini-cli#26425;
// docs/research/gemini-truncated-chats.md): a legacy .json document the real Gemini CLI 0.30.0 wrote
// (fixtures/gemini-0.30/truncated-json.*), cut to two thirds. The client then finds no session in the project; the
// repair keeps every field and message that is whole, and loses no byte (restore).
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { classifyProviderError } from "../../src/provider/classify-error.js";
import { readsNoSession } from "../../src/stores/gemini/no-session.js";
import { salvageHeader } from "../../src/stores/gemini/salvage.js";
import { expectSameBytes, parseJsonDocument, run, snapshot, tempDir } from "../cli/run.js";
import { writtenAgo } from "../support/captured-home.js";

const FIXTURES = path.resolve("fixtures/gemini-0.30");
const NAME = "session-2026-11-27T17-20-7628a857.json";
const ID = "7628a857-b554-4001-ba93-41f9d8d96001";

type Doc = { sessionId: string; projectHash: string; startTime: string; lastUpdated: string; messages: { id: string; type: string }[] };

function home(): { home: string; file: string } {
  const dir = tempDir();
  const file = path.join(dir, "tmp", "project", "chats", NAME);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.copyFileSync(path.join(FIXTURES, "truncated-json.json"), file);
  // As if written two hours ago (the capture's times are the day it was made): no agent is writing it.
  writtenAgo(file, 2 * 3_600_000);
  return { home: dir, file };
}

describe("a chat file cut short in its header (Gemini CLI 0.30, truncated-json)", () => {
  const whole = JSON.parse(fs.readFileSync(path.join(FIXTURES, "truncated-json.whole.json"), "utf8")) as Doc;
  const cut = fs.readFileSync(path.join(FIXTURES, "truncated-json.json"), "utf8");

  it("is what the client wrote, cut: the client found no session to resume", () => {
    expect(JSON.stringify(whole, null, 2).startsWith(cut)).toBe(true);
    expect(() => JSON.parse(cut)).toThrow();
    expect(fs.readFileSync(path.join(FIXTURES, "truncated-json.resume.stderr.txt"), "utf8")).toContain("No previous sessions found for this project.");
  });

  it("salvage keeps the header and every whole message, each exactly as written, and nothing cut", () => {
    const kept = salvageHeader(cut) as Doc;
    const { messages, ...header } = whole;
    expect(kept).toEqual({ ...header, messages: messages.slice(0, kept.messages.length) });
    expect(kept.messages.length).toBeGreaterThan(0);
    expect(kept.messages.length).toBeLessThan(messages.length);
    // The next message was cut in the middle: it is not kept in part.
    expect(cut).toContain(`"id": "${messages[kept.messages.length]!.id}"`);
    // A torn metadata line keeps its whole fields; a torn message record is not a header; nothing whole, nothing kept.
    expect(salvageHeader('{"sessionId":"s","projectHash":"h","startTime":"2026-')).toEqual({ sessionId: "s", projectHash: "h" });
    expect(salvageHeader('{"id":"m","timestamp":"t","type":"user","content":[{"te')).toBeUndefined();
    expect(salvageHeader('{"sessionId":"s","projectHa')).toBeUndefined();
    expect(salvageHeader("")).toBeUndefined();
    // A key the damage made invalid JSON (a NUL in it, found by the fuzz harness): what came before it is kept.
    expect(salvageHeader('{"sessionId":"s","projectHash":"h","st\u0000art":1,"x')).toEqual({ sessionId: "s", projectHash: "h" });
    expect(salvageHeader('{"\u0000":1')).toBeUndefined();
  });

  it("scan says the session is lost to the client; repair writes back what parses, the client's layout; restore gives back every byte", async () => {
    const { home: store, file } = home();
    const before = snapshot(store);
    const stored = fs.readFileSync(file, "utf8");
    const scan = await run(["session", "scan", ID, "--json", "--store", store]);
    expect(scan.status).toBe(1);
    const findings = (parseJsonDocument(scan.stdout) as { sessions: { findings: { rule: string; severity: string; message: string }[] }[] }).sessions[0]!
      .findings;
    expect(findings.map((f) => `${f.rule} ${f.severity}`)).toEqual(["unreadable-record error"]);
    expect(findings[0]!.message).toMatch(/Gemini CLI reads no session from this file/);

    const repaired = await run(["session", "repair", ID, "--yes", "--json", "--store", store]);
    expect(repaired.status, repaired.stderr).toBe(0);
    const backup = (parseJsonDocument(repaired.stdout) as { backup: { id: string } }).backup.id;
    const written = fs.readFileSync(file, "utf8");
    const doc = JSON.parse(written) as Doc;
    expect(doc).toEqual(salvageHeader(stored));
    expect(doc.messages.length).toBe((salvageHeader(cut) as Doc).messages.length);
    expect(written).toBe(JSON.stringify(doc, null, 2));
    const again = await run(["session", "repair", ID, "--yes", "--json", "--store", store]);
    expect(again.status, again.stderr).toBe(0);
    expect(fs.readFileSync(file, "utf8")).toBe(written);
    const restored = await run(["session", "restore", backup, "--yes", "--store", store]);
    expect(restored.status, restored.stderr).toBe(0);
    expectSameBytes(snapshot(store), before);
  });

  it("`--error` with what the client printed (`No previous sessions found…`, `Invalid session identifier…`) aims at the torn header", async () => {
    const printed = fs.readFileSync(path.join(FIXTURES, "truncated-json.resume.stderr.txt"), "utf8").trim().split("\n").at(-1)!;
    for (const text of [printed, `Error resuming session: Invalid session identifier "${ID}".`]) {
      expect(classifyProviderError(text).kind, text).toBe("session_not_found");
      const { home: store, file } = home();
      const stored = fs.readFileSync(file, "utf8");
      const r = await run(["session", "repair", ID, "--error", text, "--yes", "--json", "--store", store]);
      expect(r.status, r.stderr).toBe(0);
      expect(JSON.parse(fs.readFileSync(file, "utf8"))).toEqual(salvageHeader(stored));
      // Once the header is whole, the same words name nothing left in this session: nothing changes.
      const again = await run(["session", "repair", ID, "--error", text, "--yes", "--store", store]);
      expect(again.status).toBe(1);
      expect(again.stderr).toMatch(/holds no header cut short/);
    }
  });

  it("an empty chat file is a warning the repair removes (the suffix's session kept); restore puts the file back", async () => {
    const { home: store, file } = home();
    // What a resume of this session leaves when it is killed right after creating its fresh recording.
    const empty = path.join(path.dirname(file), "session-2026-11-27T17-40-7628a857.jsonl");
    fs.writeFileSync(empty, "");
    writtenAgo(empty, 2 * 3_600_000);
    const before = snapshot(store);
    const scan = await run(["session", "scan", "--all", "--json", "--exit-zero", "--store", store]);
    const doc = parseJsonDocument(scan.stdout) as { sessions: { id: string; findings: { rule: string; severity: string; message: string }[] }[] };
    const found = doc.sessions.flatMap((s) => s.findings.filter((f) => f.rule === "empty-chat-file"));
    expect(found.map((f) => f.severity)).toEqual(["warning"]);
    expect(found[0]!.message).toMatch(/0\.61 deletes it at its next start and every chat file ending in -7628a857\.jsonl or -7628a857\.json/);
    const repaired = await run(["session", "repair", "session-2026-11-27T17-40-7628a857", "--yes", "--json", "--store", store]);
    expect(repaired.status, repaired.stderr).toBe(0);
    const report = parseJsonDocument(repaired.stdout) as { backup: { id: string }; sessions: { changes: { op: string; record: string }[] }[] };
    expect(report.sessions[0]!.changes.map((c) => `${c.op} ${c.record}`)).toEqual(["delete file"]);
    expect(fs.existsSync(empty)).toBe(false);
    expect(fs.existsSync(file)).toBe(true);
    // Nothing is left to repair: the file is gone, and with it the session it was.
    const again = await run(["session", "scan", "--all", "--json", "--store", store]);
    expect((parseJsonDocument(again.stdout) as { sessions: { id: string }[] }).sessions.map((s) => s.id)).toEqual([ID]);
    const restored = await run(["session", "restore", report.backup.id, "--yes", "--store", store]);
    expect(restored.status, restored.stderr).toBe(0);
    expectSameBytes(snapshot(store), before);
  });

  it("the store's only file, empty: removed, and the emptied store still takes the restore (named or --last)", async () => {
    const store = tempDir();
    const empty = path.join(store, "tmp", "project", "chats", "session-2026-11-27T17-40-7628a857.jsonl");
    fs.mkdirSync(path.dirname(empty), { recursive: true });
    fs.writeFileSync(empty, "");
    writtenAgo(empty, 2 * 3_600_000);
    const before = snapshot(store);
    const repaired = await run(["session", "repair", "session-2026-11-27T17-40-7628a857", "--yes", "--store", store]);
    expect(repaired.status, repaired.stderr).toBe(0);
    expect(fs.existsSync(empty)).toBe(false);
    const restored = await run(["session", "restore", "--last", "--yes", "--store", store]);
    expect(restored.status, restored.stderr).toBe(0);
    expectSameBytes(snapshot(store), before);
  });
});

describe("a resume's stub beside its session (Gemini CLI 0.61, resume-stub)", () => {
  const FIXTURE = path.resolve("fixtures/gemini-0.61/resume-stub");
  const OWN = "session-2026-11-27T20-44-29069d00.jsonl";
  const STUB = "session-2026-11-27T20-45-29069d00.jsonl";
  const SESSION = "29069d00-";

  function stubHome(): { store: string; chats: string } {
    const store = tempDir();
    const chats = path.join(store, "tmp", "project", "chats");
    fs.mkdirSync(chats, { recursive: true });
    for (const name of [OWN, STUB]) {
      fs.copyFileSync(path.join(FIXTURE, name), path.join(chats, name));
      writtenAgo(path.join(chats, name), 2 * 3_600_000);
    }
    return { store, chats };
  }

  it("the client's reading: the stub holds no session, the session's own file does", () => {
    expect(readsNoSession(fs.readFileSync(path.join(FIXTURE, STUB)))).toMatch(/nothing resumable/);
    expect(readsNoSession(fs.readFileSync(path.join(FIXTURE, OWN)))).toBeUndefined();
    expect(readsNoSession(Buffer.from("\n \n"))).toBe("nothing in it");
    // A record the check cannot read as text counts as content: such a file is left alone.
    const meta = fs.readFileSync(path.join(FIXTURE, STUB), "utf8").split("\n")[0];
    const image = JSON.stringify({ id: "u1", type: "user", content: [{ inlineData: { mimeType: "image/png", data: "AA==" } }] });
    expect(readsNoSession(Buffer.from(`${meta}\n${image}\n`))).toBeUndefined();
    // Rewound to before its only turn: nothing resumable again.
    const turn = JSON.stringify({ id: "u2", type: "user", content: [{ text: "hello" }] });
    expect(readsNoSession(Buffer.from(`${meta}\n${turn}\n`))).toBeUndefined();
    expect(readsNoSession(Buffer.from(`${meta}\n${turn}\n{"$rewindTo":"u2"}\n`))).toMatch(/nothing resumable/);
  });

  it("scan warns on the session, naming the stub; repair removes the stub only; restore puts it back byte for byte", async () => {
    const { store, chats } = stubHome();
    const before = snapshot(store);
    const own = fs.readFileSync(path.join(chats, OWN));
    const scan = await run(["session", "scan", "--all", "--json", "--store", store]);
    expect(scan.status, scan.stderr).toBe(0);
    const sessions = (parseJsonDocument(scan.stdout) as { sessions: { id: string; findings: { rule: string; severity: string; message: string }[] }[] })
      .sessions;
    expect(sessions.map((s) => s.id.slice(0, 9))).toEqual([SESSION]);
    // The folder `gemini --resume` must run in: the project its session context names.
    const listed = parseJsonDocument((await run(["session", "list", "--json", "--store", store])).stdout) as { sessions: { directory: string }[] };
    expect(listed.sessions[0]!.directory).toBe("/tmp/gemini-capture/project");
    const found = sessions[0]!.findings.filter((f) => f.rule === "empty-chat-file");
    expect(found.map((f) => f.severity)).toEqual(["warning"]);
    expect(found[0]!.message).toContain(`${STUB}, another chat file of this session`);
    expect(found[0]!.message).toContain(`this session's own file (${OWN}) among them`);
    const id = sessions[0]!.id;
    const repaired = await run(["session", "repair", id, "--yes", "--json", "--store", store]);
    expect(repaired.status, repaired.stderr).toBe(0);
    const report = parseJsonDocument(repaired.stdout) as { backup: { id: string }; sessions: { changes: { op: string; record: string; id: string }[] }[] };
    expect(report.sessions[0]!.changes).toMatchObject([{ op: "delete", record: "file", id: STUB }]);
    expect(fs.readdirSync(chats)).toEqual([OWN]);
    expect(fs.readFileSync(path.join(chats, OWN)).equals(own)).toBe(true);
    const again = await run(["session", "repair", id, "--yes", "--json", "--store", store]);
    expect(again.status, again.stderr).toBe(0);
    expect(fs.readdirSync(chats)).toEqual([OWN]);
    const restored = await run(["session", "restore", report.backup.id, "--yes", "--store", store]);
    expect(restored.status, restored.stderr).toBe(0);
    expectSameBytes(snapshot(store), before);
  });
});
