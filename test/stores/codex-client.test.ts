// Rollouts written by the real Codex CLI 0.169.0 (run offline against a loopback mock of the Responses API by
// scripts/clients/capture.mjs codex; fixtures/codex-0.169/README.md), healthy and damaged, in a Codex home laid out as
// the client lays it out. What recover models of the client's resume request is checked against the requests the
// client really sent; a repaired rollout is then judged by the request the client would send for it, through the
// Responses API's rules (src/provider/validate-responses.ts).
import Database from "better-sqlite3";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { codexResumeInput } from "../../src/stores/codex/request.js";
import { assembleTranscript } from "../../src/stores/transcript/assemble.js";
import { validateResponses, type ResponsesItem } from "../../src/provider/validate-responses.js";
import "../../src/stores/registry.js";
import { writeDemoCodex } from "../../scripts/make-demo-captures.js";
import { expectSameBytes, parseJsonDocument, run, snapshot, tempDir } from "../cli/run.js";
import { age, homeOfCaptures as capturedHome, writtenAgo } from "../support/captured-home.js";

const FIXTURES = path.resolve("fixtures/codex-0.169");
const DAY = path.join("sessions", "2026", "11", "24");

const WRITTEN = new Date("2026-11-24T19:10:00Z");

/** A Codex home holding every capture as `sessions/2026/11/24/rollout-…-<uuid>.jsonl` (`after`: as left by the resume). */
function homeOfCaptures(which: "before" | "after" = "before") {
  const place = (first: string) => {
    const id = (JSON.parse(first) as { payload: { id: string } }).payload.id;
    return { id, rel: path.join(DAY, `rollout-2026-11-24T19-07-00-${id}.jsonl`) };
  };
  return capturedHome({ fixtures: FIXTURES, place, written: WRITTEN }, which);
}

function resumeInput(file: string): ResponsesItem[] {
  const records = assembleTranscript(fs.readFileSync(file), { path: file, sessionId: "s", dialect: "codex", mtime: 0 }, false);
  return codexResumeInput(records.lines).map((s) => s.item);
}

/** What to compare of an item: the capture cut strings over 4,000 characters, and the client ids outputs it makes up. */
function shape(item: ResponsesItem): string {
  const text = typeof item.output === "string" ? item.output : "";
  const output = /…\d+ tokens truncated…/.exec(text)?.[0] ?? (text.length <= 4000 ? text : "(long)");
  return [item.type, item.role ?? "", item.call_id ?? "", output].join(" | ");
}

type ScanDoc = { sessions: { id: string; findings: { rule: string; severity: string; message: string }[] }[] };

describe("rollouts written by the real Codex CLI 0.169", () => {
  it("the resume input recover models is the one the client sent, item for item (aborted outputs added, orphans dropped, torn lines skipped, huge outputs cut, a compaction's replacement history for what came before it)", () => {
    const { captures } = homeOfCaptures();
    let compared = 0;
    for (const { scenario, file } of captures.values()) {
      const requestFile = path.join(FIXTURES, `${scenario}.resume-request.json`);
      // huge-output-stored's fixture rollout had its 200,004-character output cut to fit the repository; the cut at
      // resume is checked on its own below.
      if (!fs.existsSync(requestFile) || scenario === "huge-output-stored") continue;
      const sent = (JSON.parse(fs.readFileSync(requestFile, "utf8")) as { input: ResponsesItem[] }).input;
      // The client's input ends with the new prompt, which is not in the rollout yet.
      expect(resumeInput(file).map(shape), scenario).toEqual(sent.slice(0, -1).map(shape));
      compared++;
    }
    expect(compared).toBe(17);
  });

  it("an output stored over 48,000 characters goes out as its first and last 24,000 around Codex's marker (measured: 200,004 → 48,024)", () => {
    const output = Array.from({ length: 33334 }, (_, i) => String(i + 1).padStart(5, "0")).join("\n");
    expect(output.length + 1).toBe(200004);
    const lines = [
      { timestamp: "2026-11-24T19:07:00Z", type: "session_meta", payload: { id: "s", base_instructions: { text: "be brief" } } },
      { timestamp: "2026-11-24T19:07:01Z", type: "response_item", payload: { type: "function_call", name: "exec_command", arguments: "{}", call_id: "c1" } },
      { timestamp: "2026-11-24T19:07:02Z", type: "response_item", payload: { type: "function_call_output", call_id: "c1", output: `${output}\n` } },
    ];
    const records = assembleTranscript(
      Buffer.from(`${lines.map((l) => JSON.stringify(l)).join("\n")}\n`),
      { path: "/m", sessionId: "s", dialect: "codex", mtime: 0 },
      false,
    );
    const sent = codexResumeInput(records.lines).map((s) => s.item);
    expect(String(sent[2]!.output)).toHaveLength(48024);
    expect(String(sent[2]!.output)).toContain("…38001 tokens truncated…");
  });

  it("the Responses rules reject exactly the captured requests the API rejects, with its texts", () => {
    const verdicts = new Map<string, string[]>();
    for (const name of fs.readdirSync(FIXTURES).filter((f) => f.endsWith(".resume-request.json"))) {
      const sent = (JSON.parse(fs.readFileSync(path.join(FIXTURES, name), "utf8")) as { input: ResponsesItem[] }).input;
      const found = validateResponses(sent).map((v) => v.text);
      if (found.length > 0) verdicts.set(name.replace(".resume-request.json", ""), found);
    }
    expect(Object.fromEntries(verdicts)).toEqual({
      "duplicate-output": [expect.stringMatching(/^Duplicate item found with id fco_01a20ef4-b723-7be0-8f1e-fef46f23625c\. Remove the duplicate items/)],
      "empty-call-id": ["Invalid 'input[6].call_id': empty string.", "Invalid 'input[7].call_id': empty string."],
    });
    const stderr = fs.readFileSync(path.join(FIXTURES, "duplicate-output.resume.stderr.txt"), "utf8");
    expect(stderr).toContain(verdicts.get("duplicate-output")![0]!);
  });

  it("scan names every damage; what the client mends itself on resume is a warning", async () => {
    const { home, captures } = homeOfCaptures();
    const scenarioOf = new Map([...captures.values()].map((c) => [c.id, c.scenario]));
    const r = await run(["session", "scan", "--all", "--json", "--exit-zero", "--store", home]);
    expect(r.status, r.stderr).toBe(0);
    const doc = parseJsonDocument(r.stdout) as ScanDoc;
    const found = doc.sessions.flatMap((s) => s.findings.map((f) => `${scenarioOf.get(s.id)} ${f.rule} ${f.severity}`)).sort();
    expect(found).toEqual(
      [
        "duplicate-output orphan-tool-result error",
        // The copied line repeats its ordinal as well (Codex 0.154+ leaves it out of the thread history).
        "duplicate-output rollout-ordinal warning",
        "duplicate-ordinal rollout-ordinal warning",
        "tail-no-ordinal rollout-ordinal error",
        "empty-call-id duplicate-tool-call-id error",
        "killed-mid-call tool-result-missing warning",
        "nul-line tool-result-missing warning",
        "nul-line unreadable-record warning",
        "orphan-output orphan-tool-result warning",
        // Codex cannot read a line holding a lone surrogate: it skips it and answers its call "aborted" (issue 40).
        "output-surrogate corrupted-tool-output warning",
        "torn-output tool-result-missing warning",
        "torn-output unreadable-record warning",
        "torn-tail unreadable-record warning",
      ].sort(),
    );
    const lost = doc.sessions.find((s) => scenarioOf.get(s.id) === "nul-line")!.findings.find((f) => f.rule === "tool-result-missing")!;
    expect(lost.message).toMatch(/its result may have been on unreadable line 17, which is lost; Codex sends an "aborted" output/);
  });

  it("a failed resume's stored answer names the reasoning the API could not verify; the other captures after resume add nothing new", async () => {
    const { home, captures } = homeOfCaptures("after");
    const scenarioOf = new Map([...captures.values()].map((c) => [c.id, c.scenario]));
    const r = await run(["session", "scan", "--all", "--json", "--exit-zero", "--store", home]);
    const doc = parseJsonDocument(r.stdout) as ScanDoc;
    const errors = doc.sessions.flatMap((s) => s.findings.filter((f) => f.severity === "error").map((f) => `${scenarioOf.get(s.id)} ${f.rule}`)).sort();
    expect(errors).toEqual(
      [
        // The mock's fake contents share their first and last four characters, so the API's abbreviation names both.
        "bad-reasoning unverifiable-reasoning",
        "bad-reasoning unverifiable-reasoning",
        // The compaction item the stored answer names by id, in the compacted line's replacement history.
        "bad-compaction unverifiable-reasoning",
        "duplicate-output orphan-tool-result",
        "empty-call-id duplicate-tool-call-id",
      ].sort(),
    );
  });

  it("repair makes every damaged rollout one the Responses API accepts, the way the client would send it; restore puts back every byte", async () => {
    const { home, captures } = homeOfCaptures();
    const after = homeOfCaptures("after");
    const reasoning = captures.get("bad-reasoning")!.file;
    fs.copyFileSync(after.captures.get("bad-reasoning")!.file, reasoning);
    age(reasoning, WRITTEN);
    const before = snapshot(home);
    const damaged = [
      "killed-mid-call",
      "torn-tail",
      "nul-line",
      "duplicate-output",
      "empty-call-id",
      "orphan-output",
      "torn-output",
      "bad-reasoning",
      "tail-no-ordinal",
      "output-surrogate",
    ];
    const backups: string[] = [];
    for (const scenario of damaged) {
      const { id, file } = captures.get(scenario)!;
      const repaired = await run(["session", "repair", id, "--yes", "--json", "--store", home]);
      expect(repaired.status, `${scenario}: ${repaired.stderr}`).toBe(0);
      backups.push((parseJsonDocument(repaired.stdout) as { backup: { id: string } }).backup.id);
      expect(validateResponses(resumeInput(file)), scenario).toEqual([]);
      // Nothing left that the client would mend itself either: the file says what is sent.
      const input = resumeInput(file);
      expect(
        input.filter((i) => i.output === "aborted" && i.id === undefined),
        scenario,
      ).toEqual([]);
    }
    const rescan = await run(["session", "scan", "--all", "--json", "--store", home]);
    expect(rescan.status, rescan.stdout).toBe(0);
    // A repaired rollout keeps what the client wrote: an aborted call keeps its call, the bad reasoning only goes.
    const killed = resumeInput(captures.get("killed-mid-call")!.file);
    expect(killed.map((i) => `${i.type}${i.output !== undefined ? `=${i.output}` : ""}`).slice(-2)).toEqual(["function_call", "function_call_output=aborted"]);
    // The output Codex could not read, the lone surrogate stripped: read again, and sent as the tool printed it.
    const surrogate = resumeInput(captures.get("output-surrogate")!.file).filter((i) => i.type === "function_call_output");
    expect(surrogate.map((i) => String(i.output).endsWith("Output:\nhi\n"))).toEqual([true]);
    const reasoned = resumeInput(captures.get("bad-reasoning")!.file);
    expect(reasoned.filter((i) => i.type === "reasoning")).toEqual([]);
    expect(reasoned.filter((i) => i.type === "function_call" || i.type === "function_call_output")).toHaveLength(2);
    for (const backup of backups.reverse()) {
      const restored = await run(["session", "restore", backup, "--yes", "--store", home]);
      expect(restored.status, restored.stderr).toBe(0);
    }
    expectSameBytes(snapshot(home), before);
  });

  it("repair --error with the API's answer: input[N] names the line, a duplicate item its later copy", async () => {
    const { home, captures } = homeOfCaptures();
    const empty = captures.get("empty-call-id")!;
    const error = fs
      .readFileSync(path.join(FIXTURES, "empty-call-id.resume.stderr.txt"), "utf8")
      .split("\n")
      .find((l) => l.startsWith("ERROR: "))!
      .slice(7);
    const fixed = await run(["session", "repair", empty.id, "--error", error, "--yes", "--json", "--store", home]);
    expect(fixed.status, fixed.stderr).toBe(0);
    expect(validateResponses(resumeInput(empty.file))).toEqual([]);
    const twice = captures.get("duplicate-output")!;
    const duplicate = fs
      .readFileSync(path.join(FIXTURES, "duplicate-output.resume.stderr.txt"), "utf8")
      .split("\n")
      .find((l) => l.startsWith("ERROR: "))!
      .slice(7);
    const dropped = await run(["session", "repair", twice.id, "--error", duplicate, "--rule", "orphan-tool-result", "--yes", "--json", "--store", home]);
    expect(dropped.status, dropped.stderr).toBe(0);
    const doc = parseJsonDocument(dropped.stdout) as { sessions: { changes: { op: string; rules: string[] }[] }[] };
    expect(doc.sessions[0]!.changes.map((c) => c.op)).toEqual(["delete"]);
    expect(validateResponses(resumeInput(twice.file))).toEqual([]);
  });

  it("a resume the API refused two minutes ago is repaired with its answer right away, as on every store (issue 38)", async () => {
    const { home, captures } = homeOfCaptures("after");
    for (const scenario of ["bad-reasoning", "duplicate-output", "empty-call-id", "bad-compaction"]) {
      const { id, file } = captures.get(scenario)!;
      writtenAgo(file, 2 * 60_000);
      const error = fs
        .readFileSync(path.join(FIXTURES, `${scenario}.resume.stderr.txt`), "utf8")
        .split("\n")
        .find((l) => l.startsWith("ERROR: "))!
        .slice(7);
      const repaired = await run(["session", "repair", id, "--error", error, "--yes", "--json", "--store", home]);
      expect(repaired.status, `${scenario}: ${repaired.stderr}`).toBe(0);
      expect((parseJsonDocument(repaired.stdout) as { sessions: { changes: unknown[] }[] }).sessions[0]!.changes.length, scenario).toBeGreaterThan(0);
      expect(validateResponses(resumeInput(file)), scenario).toEqual([]);
    }
  });

  it("list, prefixes and the resume command: the uuid of the file name, `codex resume <uuid>`; `--format codex` finds CODEX_HOME", async () => {
    const { home, captures } = homeOfCaptures();
    const listed = await run(["session", "list", "--json", "--store", home]);
    const sessions = (parseJsonDocument(listed.stdout) as { sessions: { id: string; title: string; directory: string }[] }).sessions;
    expect(sessions).toHaveLength(captures.size);
    const tool = sessions.find((s) => s.id === captures.get("tool")!.id)!;
    expect(tool).toMatchObject({ title: "Run `echo hi` and tell me the output.", directory: "/tmp/codex-capture/project" });
    const killed = captures.get("killed-mid-call")!;
    const repaired = await run(["session", "repair", killed.id.slice(0, 13), "--resume", "--yes", "--store", home]);
    expect(repaired.status, repaired.stderr).toBe(0);
    expect(repaired.stdout).toContain(`codex resume ${killed.id}`);
    // The day dir, the sessions/ dir and one rollout work as --store too, and the home is found as CODEX_HOME.
    for (const store of [path.join(home, DAY), path.join(home, "sessions"), killed.file]) {
      const r = await run(["session", "list", "--json", "--store", store]);
      expect(r.status, `${store}: ${r.stderr}`).toBe(0);
    }
    const found = await run(["session", "list", "--json", "--format", "codex"], { env: { CODEX_HOME: home, HOME: tempDir() } });
    expect(found.status, found.stderr).toBe(0);
  });

  it("context trim brings a rollout over its window back under it in Codex's own shapes, calibrated by the token_count it stored; restore undoes it", async () => {
    const home = tempDir();
    fs.mkdirSync(path.join(home, DAY), { recursive: true });
    const id = "01a20ef4-0000-7000-8000-000000000001";
    const at = (s: number) => `2026-11-24T19:0${Math.floor(s / 10)}:${String(s % 10).padStart(2, "0")}.000Z`;
    const lines: unknown[] = [
      { timestamp: at(0), ordinal: 0, type: "session_meta", payload: { id, session_id: id, cwd: "/tmp/p", base_instructions: { text: "You are Codex." } } },
      {
        timestamp: at(1),
        ordinal: 1,
        type: "response_item",
        payload: { type: "message", role: "user", content: [{ type: "input_text", text: "Read the logs." }] },
      },
    ];
    for (let turn = 0; turn < 6; turn++) {
      const call = `call_${turn}`;
      lines.push(
        {
          timestamp: at(2 + turn),
          type: "response_item",
          payload: { type: "function_call", name: "exec_command", arguments: `{"cmd":"cat log${turn}"}`, call_id: call },
        },
        {
          timestamp: at(2 + turn),
          type: "response_item",
          payload: { type: "function_call_output", id: `fco_${turn}`, call_id: call, output: `line ${turn}\n`.repeat(6000) },
        },
      );
    }
    lines.push(
      { timestamp: at(9), type: "response_item", payload: { type: "message", role: "assistant", content: [{ type: "output_text", text: "Read them all." }] } },
      { timestamp: at(9), type: "event_msg", payload: { type: "token_count", info: { last_token_usage: { input_tokens: 61000 } } } },
      { timestamp: at(9), type: "response_item", payload: { type: "message", role: "user", content: [{ type: "input_text", text: "Summarise." }] } },
    );
    const file = path.join(home, DAY, `rollout-2026-11-24T19-00-00-${id}.jsonl`);
    fs.writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
    age(file, WRITTEN);
    const before = snapshot(home);
    const trimmed = await run(["context", "trim", id, "--limit", "20000", "--yes", "--json", "--store", home]);
    expect(trimmed.status, trimmed.stderr).toBe(0);
    const doc = parseJsonDocument(trimmed.stdout) as { backup: { id: string }; tokens: { before: number; after: number; calibration?: { source: string } } };
    expect(doc.tokens.after).toBeLessThan(20000);
    expect(JSON.stringify(doc)).toContain("Codex CLI stored");
    const input = resumeInput(file);
    expect(validateResponses(input)).toEqual([]);
    // Every call keeps its output; the last step is untouched, the older outputs shrank.
    expect(input.filter((i) => i.type === "function_call_output")).toHaveLength(6);
    expect(String(input.filter((i) => i.type === "function_call_output").at(-1)!.output)).toBe("line 5\n".repeat(6000));
    expect(String(input.find((i) => i.call_id === "call_0" && i.type === "function_call_output")!.output).length).toBeLessThan(42000);
    const restored = await run(["session", "restore", doc.backup.id, "--yes", "--store", home]);
    expect(restored.status, restored.stderr).toBe(0);
    expectSameBytes(snapshot(home), before);
  });

  it("the demo store (fixtures/demo/codex) is the captures the script lays out, and a scan finds what its manifest says", async () => {
    const tmp = tempDir();
    fs.mkdirSync(path.join(tmp, "fixtures", "demo"), { recursive: true });
    const manifest = writeDemoCodex(tmp);
    expect(fs.readFileSync(path.join(tmp, "fixtures/demo/expected-codex.json"), "utf8")).toBe(fs.readFileSync("fixtures/demo/expected-codex.json", "utf8"));
    for (const m of manifest) expect(fs.readFileSync(path.join(tmp, m.path)).equals(fs.readFileSync(m.path)), m.path).toBe(true);
    const r = await run(["session", "scan", "--all", "--json", "--exit-zero", "--store", "fixtures/demo/codex"]);
    const doc = parseJsonDocument(r.stdout) as ScanDoc;
    const found = Object.fromEntries(doc.sessions.map((s) => [s.id, s.findings.map((f) => `${f.rule} ${f.severity}`).sort()]));
    expect(found).toEqual(Object.fromEntries(manifest.map((m) => [m.sessionId, [...m.expect].sort()])));
    const empty = doc.sessions.flatMap((s) => s.findings).find((f) => f.rule === "duplicate-tool-call-id")!;
    expect(empty.message).toContain("Invalid 'input[6].call_id': empty string.");
  });

  it("Codex's index listing a session whose rollout is gone is said in a note; the index is read, never written", async () => {
    const { home, captures } = homeOfCaptures();
    const index = path.join(home, "state_5.sqlite");
    const db = new Database(index);
    db.exec("CREATE TABLE threads (id TEXT PRIMARY KEY, rollout_path TEXT NOT NULL, archived INTEGER NOT NULL DEFAULT 0)");
    const tool = captures.get("tool")!;
    db.prepare("INSERT INTO threads (id, rollout_path) VALUES (?, ?)").run(tool.id, tool.file);
    db.prepare("INSERT INTO threads (id, rollout_path) VALUES (?, ?)").run("01a20f00-dead-7000-8000-000000000000", path.join(home, DAY, "rollout-gone.jsonl"));
    db.close();
    const before = fs.readFileSync(index);
    const scan = await run(["session", "scan", "--all", "--json", "--exit-zero", "--store", home]);
    const notices = (parseJsonDocument(scan.stdout) as { store: { notices: string[] } }).store.notices;
    expect(notices).toEqual([
      "Codex's index state_5.sqlite lists a session whose rollout is gone (01a20f00-dead-7000-8000-000000000000): Codex answers \"no rollout found for thread id …\" for it and there is nothing to repair; recover does not write Codex's indexes",
    ]);
    const repaired = await run(["session", "repair", captures.get("killed-mid-call")!.id, "--yes", "--store", home]);
    expect(repaired.status, repaired.stderr).toBe(0);
    expect(repaired.stderr).toContain("lists a session whose rollout is gone");
    expect(fs.readFileSync(index).equals(before)).toBe(true);
    expect(fs.readdirSync(home).filter((f) => f.startsWith("state_5"))).toEqual(["state_5.sqlite"]);
  });

  it("--rule unverifiable-reasoning with no stored answer: every reasoning item goes (offline none can be verified), calls and outputs stay", async () => {
    const { home, captures } = homeOfCaptures();
    const { id, file } = captures.get("tool")!;
    const scan = await run(["session", "scan", id, "--json", "--store", home]);
    expect(scan.status, scan.stdout).toBe(0);
    const repaired = await run(["session", "repair", id, "--rule", "unverifiable-reasoning", "--yes", "--json", "--store", home]);
    expect(repaired.status, repaired.stderr).toBe(0);
    const input = resumeInput(file);
    expect(input.filter((i) => i.type === "reasoning")).toEqual([]);
    expect(input.filter((i) => i.type === "function_call" || i.type === "function_call_output")).toHaveLength(2);
    expect(validateResponses(input)).toEqual([]);
  });
});
