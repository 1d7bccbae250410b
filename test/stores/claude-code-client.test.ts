// Transcripts written by the real Claude Code client (2.1.331, and 2.1.197 where the name ends in -197, run offline
// against a loopback mock of the API by the Claude Code driver, scripts/clients/claude-code.mjs;
// fixtures/claude-code-2.1/README.md). recover's view of what that client sends must match what it did send: a scan
// of them reports only what the API would really reject.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseJsonDocument, run, tempDir } from "../cli/run.js";

const FIXTURES = path.resolve("fixtures/claude-code-2.1");

/** A Claude Code config dir holding every captured transcript, each named after its session, as the client names them. */
function storeOfCaptures(): { dir: string; ids: Map<string, string> } {
  const dir = tempDir();
  const project = path.join(dir, "projects", "-tmp-cc-capture-project");
  fs.mkdirSync(project, { recursive: true });
  const ids = new Map<string, string>();
  for (const name of fs.readdirSync(FIXTURES).filter((f) => f.endsWith(".jsonl"))) {
    const text = fs.readFileSync(path.join(FIXTURES, name), "utf8");
    const id = /"sessionId":"([0-9a-f-]{36})"/.exec(text)![1]!;
    ids.set(id, name.replace(/\.jsonl$/, ""));
    fs.writeFileSync(path.join(project, `${id}.jsonl`), text);
  }
  return { dir, ids };
}

describe("transcripts written by the real Claude Code 2.1 client", () => {
  it("scan: no unknown records, no empty text the client leaves out, parallel results on sibling branches found; only what the API rejects", async () => {
    const { dir, ids } = storeOfCaptures();
    expect(ids.size).toBeGreaterThanOrEqual(16);
    const r = await run(["session", "scan", "--all", "--include-live", "--json", "--exit-zero", "--store", dir]);
    expect(r.status, r.stderr).toBe(0);
    const doc = parseJsonDocument(r.stdout) as { sessions: { id: string; findings: { rule: string; line?: number }[] }[] };
    const found = doc.sessions.flatMap((s) => s.findings.map((f) => `${ids.get(s.id)} ${f.rule}`)).sort();
    expect(found).toEqual([
      // Two tool turns the API gave one call id: the client leaves the later call and its result out of every request
      // (a warning, left alone; issue 40, docs/research/severity-audit.md).
      "duplicate-call-id duplicate-tool-call-id",
      // Each reply's thinking line stored twice: the client sends both copies (refused: the thinking of the latest
      // assistant message `cannot be modified`).
      "duplicate-thinking duplicate-thinking",
      "duplicate-thinking duplicate-thinking",
      // 2.1.197 sends the empty text stored before its tool call, which the API refuses (2.1.331 leaves it out).
      "empty-text-197 empty-text-part",
      // The lines before the first reply gone: 2.1.332 sends the reply first (`first message must use the "user"
      // role`). Not here: leading-assistant-197, whose client leads with its own context as a user message.
      "leading-assistant leading-assistant",
      // The repair loop's damage (turn two's tool_result line removed, later turns kept), on both clients.
      "opus55-interrupted tool-result-missing",
      "opus55-interrupted-197 tool-result-missing",
      // A tool result whose call line is gone: the client sends "(no content)" in its place (a warning, left alone).
      "orphan-result orphan-tool-result",
      // A reply whose stored message.id is a gateway's (requestId kept): 2.1.332 names it as
      // diagnostics.previous_message_id on Anthropic's API, which refuses it (a warning: through the gateway nothing is
      // sent). Not here: previous-id-api-error-tail, the client's own API error entry at the tail, which it passes over.
      "previous-id-foreign foreign-message-id",
      // The client sends stored empty thinking as it is; the API answers `each thinking block must contain
      // non-whitespace thinking` (the scenario empties the thinking of two turns).
      "thinking-block-order thinking-block-order",
      "thinking-block-order thinking-block-order",
      "thinking-empty empty-thinking",
      "thinking-empty empty-thinking",
      // A lone surrogate in a stored tool input: the client sends it as U+FFFD (a warning, left alone; issue 40).
      "tool-input-surrogate corrupted-tool-output",
      // Not here: thinking-text-emptied(-197), a reply whose text damage emptied. The client leaves the message out
      // whole and the API accepts the resume: no `trailing-thinking` or `thinking-only-message` error (issue 40).
    ]);
  });
});

// Issue 38: scenario `empty-text` (stored "Running." := "" before its tool call, "Done: hi." := " \n\t ") as the real
// 2.1.197 left it. 2.1.197 sends the empty text and every resume is refused; from 2.1.277 on the client leaves it
// out. recover's view follows the client the session names (the newest record's `version`).
describe("an empty text beside a tool call, as the client that wrote the session sends it", () => {
  const REFUSED = "messages: text content blocks must contain non-whitespace text";
  const text = fs.readFileSync(path.join(FIXTURES, "empty-text-197.jsonl"), "utf8");
  const id = /"sessionId":"([0-9a-f-]{36})"/.exec(text)![1]!;

  /** A config dir holding the transcript (each record's version replaced by `version`, or removed), written long ago. */
  function storeWith(version: string | null): { dir: string; file: string } {
    const dir = tempDir();
    const project = path.join(dir, "projects", "-tmp-wt-b-work-project");
    fs.mkdirSync(project, { recursive: true });
    const file = path.join(project, `${id}.jsonl`);
    const stamped = text.replaceAll('"version":"2.1.197"', version === null ? '"versionless":true' : `"version":"${version}"`);
    fs.writeFileSync(file, stamped);
    fs.utimesSync(file, new Date("2026-11-27T00:00:00Z"), new Date("2026-11-27T00:00:00Z"));
    return { dir, file };
  }

  const emptyTexts = (file: string) =>
    fs
      .readFileSync(file, "utf8")
      .split("\n")
      .filter((l) => l.includes('"type":"assistant"') && l.includes('"text":""')).length;

  it("2.1.197: `session repair --error` with the API's refusal removes the empty text line it sent", async () => {
    const { dir, file } = storeWith("2.1.197");
    expect(emptyTexts(file)).toBe(1);
    const r = await run(["session", "repair", id, "--error", REFUSED, "--yes", "--store", dir]);
    expect(r.status, r.stderr).toBe(0);
    expect(emptyTexts(file)).toBe(0);
    const after = await run(["session", "scan", id, "--json", "--exit-zero", "--store", dir]);
    expect(parseJsonDocument(after.stdout)).toMatchObject({ sessions: [{ findings: [] }] });
  });

  it.each([
    ["2.1.276", ["empty-text-part"]],
    ["2.1.277", []],
    ["2.1.332", []],
    // No version recorded: taken as a client that sends it (a needless repair sends the same; a missed one stays dead).
    [null, ["empty-text-part"]],
  ])("client %s: the scan reports %j", async (version, rules) => {
    const { dir } = storeWith(version);
    const r = await run(["session", "scan", id, "--json", "--exit-zero", "--store", dir]);
    const doc = parseJsonDocument(r.stdout) as { sessions: { findings: { rule: string }[] }[] };
    expect(doc.sessions[0]!.findings.map((f) => f.rule)).toEqual(rules);
  });
});

// Issue 40, row 3: scenario `tool-input-surrogate` as 2.1.332 left it (the stored Bash call's command ends in a lone
// high surrogate). The client sends it as U+FFFD and is accepted: recover warns and leaves it. A user who got the
// API's 400 anyway (an older client, another path to the API) gives it to --error, and the surrogate goes.
describe("a lone surrogate in a stored tool call's input", () => {
  const text = fs.readFileSync(path.join(FIXTURES, "tool-input-surrogate.jsonl"), "utf8");
  const id = /"sessionId":"([0-9a-f-]{36})"/.exec(text)![1]!;
  const REFUSED =
    'API Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"The request body is not valid JSON: no low surrogate in string: line 1 column 28642 (char 28641)"},"request_id":"req_011CYEFwLV3CotFyg7Xr7zVy"}';

  function store(): { dir: string; file: string } {
    const dir = tempDir();
    const project = path.join(dir, "projects", "-tmp-cr-wf3-project");
    fs.mkdirSync(project, { recursive: true });
    const file = path.join(project, `${id}.jsonl`);
    fs.writeFileSync(file, text);
    fs.utimesSync(file, new Date("2026-11-27T00:00:00Z"), new Date("2026-11-27T00:00:00Z"));
    return { dir, file };
  }
  const commands = (file: string) => [...fs.readFileSync(file, "utf8").matchAll(/"command":("(?:[^"\\]|\\.)*")/g)].map((m) => JSON.parse(m[1]!) as string);

  it("scan: a warning naming the field and what the client does; a plain repair changes nothing", async () => {
    const { dir, file } = store();
    const r = await run(["session", "scan", id, "--json", "--exit-zero", "--store", dir]);
    const doc = parseJsonDocument(r.stdout) as { sessions: { findings: { rule: string; severity: string; message: string; fixable: boolean }[] }[] };
    expect(doc.sessions[0]!.findings).toMatchObject([
      {
        rule: "corrupted-tool-output",
        severity: "warning",
        fixable: false,
        message: expect.stringMatching(/message\.content\.0\.input\.command: Claude Code sends it as U\+FFFD/),
      },
    ]);
    const repaired = await run(["session", "repair", id, "--yes", "--force", "--include-live", "--store", dir]);
    expect(repaired.status, repaired.stderr).toBe(0);
    expect(fs.readFileSync(file, "utf8")).toBe(text);
  });

  it("`session repair --error` with the API's 400 removes the surrogate, keeps the call, and restores byte for byte", async () => {
    const { dir, file } = store();
    expect(commands(file)).toEqual(["echo hi \ud83d"]);
    const env = { XDG_STATE_HOME: path.join(dir, "state") };
    // --force: the capture is minutes old by its records' clock, and no client runs here.
    const r = await run(["session", "repair", id, "--error", REFUSED, "--yes", "--force", "--store", dir], { env });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/invalid_json_body/);
    expect(commands(file)).toEqual(["echo hi "]);
    expect(text.split("\n").length).toBe(fs.readFileSync(file, "utf8").split("\n").length);
    const restored = await run(["session", "restore", "--last", "--yes", "--store", dir], { env });
    expect(restored.status, restored.stderr).toBe(0);
    expect(fs.readFileSync(file, "utf8")).toBe(text);
  });
});

// Issue 40, row 16: scenario `duplicate-call-id` as 2.1.332 left it: two tool turns whose Bash calls the API gave one id
// (toolu_mock_bash_01), each answered. Both checked clients leave the later call out of the request and send
// "(no content)" for its result's message, and the API accepts it: recover warns, and a repair changes nothing (a fresh
// id would put the call back into what the client sends).
describe("a tool call id an earlier call already holds", () => {
  const text = fs.readFileSync(path.join(FIXTURES, "duplicate-call-id.jsonl"), "utf8");
  const id = /"sessionId":"([0-9a-f-]{36})"/.exec(text)![1]!;

  it("scan: a warning naming what the client does; a plain repair changes nothing", async () => {
    const dir = tempDir();
    const project = path.join(dir, "projects", "-tmp-sev-duplicate-call-id-project");
    fs.mkdirSync(project, { recursive: true });
    const file = path.join(project, `${id}.jsonl`);
    fs.writeFileSync(file, text);
    const r = await run(["session", "scan", id, "--json", "--exit-zero", "--include-live", "--store", dir]);
    const doc = parseJsonDocument(r.stdout) as { sessions: { findings: { rule: string; severity: string; message: string; fixable: boolean }[] }[] };
    expect(doc.sessions[0]!.findings).toMatchObject([
      {
        rule: "duplicate-tool-call-id",
        severity: "warning",
        fixable: false,
        message: expect.stringMatching(/call id toolu_mock_bash_01 is already used .*Claude Code leaves the later call and its result out/),
      },
    ]);
    const repaired = await run(["session", "repair", id, "--yes", "--force", "--include-live", "--store", dir]);
    expect(repaired.status, repaired.stderr).toBe(0);
    expect(fs.readFileSync(file, "utf8")).toBe(text);
  });
});

// Issue 40, row 16: scenario `leading-assistant` as 2.1.332 left it (every line before the first reply gone). The
// client sends the reply first and the API refuses it six times; the repair with that 400 takes the reply, so the
// history begins with the user's next prompt (the suite's loop: the client then continues), and restore gives it back.
describe("a history that begins with a reply whose prompt was lost", () => {
  const text = fs.readFileSync(path.join(FIXTURES, "leading-assistant.jsonl"), "utf8");
  const id = /"sessionId":"([0-9a-f-]{36})"/.exec(text)![1]!;
  const REFUSED = 'API Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"messages: first message must use the \\"user\\" role"}}';
  const replies = (file: string) =>
    fs
      .readFileSync(file, "utf8")
      .split("\n")
      .filter((l) => l.includes('"type":"assistant"'))
      .map((l) => (JSON.parse(l) as { message: { content: { text?: string }[] } }).message.content[0]?.text ?? "");

  it("`session repair --error` with the API's 400 removes the reply, and restore gives it back", async () => {
    const dir = tempDir();
    const project = path.join(dir, "projects", "-tmp-sev-leading-assistant-project");
    fs.mkdirSync(project, { recursive: true });
    const file = path.join(project, `${id}.jsonl`);
    fs.writeFileSync(file, text);
    expect(replies(file)).toEqual(["one", "two"]);
    const env = { XDG_STATE_HOME: path.join(dir, "state") };
    const r = await run(["session", "repair", id, "--error", REFUSED, "--yes", "--force", "--include-live", "--store", dir], { env });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/first_not_user/);
    expect(replies(file)).toEqual(["two"]);
    const again = await run(["session", "scan", id, "--json", "--exit-zero", "--include-live", "--store", dir]);
    expect((parseJsonDocument(again.stdout) as { sessions: { findings: unknown[] }[] }).sessions[0]!.findings).toEqual([]);
    const restored = await run(["session", "restore", "--last", "--yes", "--store", dir], { env });
    expect(restored.status, restored.stderr).toBe(0);
    expect(fs.readFileSync(file, "utf8")).toBe(text);
  });
});

// Issue 40, row 2: scenario `previous-id-foreign` as 2.1.332 left it: turn two's stored message.id made a gateway's
// (`gen-…`), its requestId kept; every resume on Anthropic's API is refused (diagnostics.previous_message_id, six
// tries, exit 1). The repair with that 400 removes the line's requestId, and the client then names turn one's reply.
describe("a reply the client names as the previous response by an id the API never gave", () => {
  const text = fs.readFileSync(path.join(FIXTURES, "previous-id-foreign.jsonl"), "utf8");
  const id = /"sessionId":"([0-9a-f-]{36})"/.exec(text)![1]!;
  const REFUSED = "API Error: 400 diagnostics.previous_message_id: must be the `id` from a prior /v1/messages response (starts with `msg_`)";
  const GATEWAY = "gen-1764230000-AbCdEfGhIjKlMnOp";
  const lineOf = (file: string) =>
    fs
      .readFileSync(file, "utf8")
      .split("\n")
      .filter((l) => l.includes(`"id":"${GATEWAY}"`))
      .map((l) => JSON.parse(l) as Record<string, unknown>);

  function store(): { dir: string; file: string } {
    const dir = tempDir();
    const project = path.join(dir, "projects", "-tmp-cr-wfx-previous-id-foreign-project");
    fs.mkdirSync(project, { recursive: true });
    const file = path.join(project, `${id}.jsonl`);
    fs.writeFileSync(file, text);
    return { dir, file };
  }

  it("`session repair --error` with the API's 400 takes the line's requestId and nothing else; restore gives it back", async () => {
    const { dir, file } = store();
    const [before] = lineOf(file);
    expect(before!.requestId).toMatch(/^req_/);
    const env = { XDG_STATE_HOME: path.join(dir, "state") };
    const r = await run(["session", "repair", id, "--error", REFUSED, "--yes", "--force", "--store", dir], { env });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/previous_message_id/);
    const { requestId: _, ...rest } = before!;
    expect(lineOf(file)).toEqual([rest]);
    const again = await run(["session", "scan", id, "--json", "--exit-zero", "--include-live", "--store", dir]);
    expect((parseJsonDocument(again.stdout) as { sessions: { findings: unknown[] }[] }).sessions[0]!.findings).toEqual([]);
    const restored = await run(["session", "restore", "--last", "--yes", "--store", dir], { env });
    expect(restored.status, restored.stderr).toBe(0);
    expect(fs.readFileSync(file, "utf8")).toBe(text);
  });
});
