// Codex CLI's storage beside the Responses API history (issue 40): the line numbers of its paginated rollouts
// (`ordinal`), its index of where rollouts are (`threads.rollout_path` in state_5.sqlite), and compaction items the
// API names by id. Rollouts and the index are the ones the real client wrote (fixtures/codex-0.169/README.md:
// tail-no-ordinal, duplicate-ordinal, moved-rollout); the compaction case is built from the public report
// (openai/codex#35334), as no offline run makes the API compact.
import Database from "better-sqlite3";
import { openStore } from "../../src/stores/discover.js";
import { indexImage } from "../../src/stores/transcript/layout.js";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { classifyProviderError } from "../../src/provider/classify-error.js";
import { assembleTranscript } from "../../src/stores/transcript/assemble.js";
import { codexResumeInput } from "../../src/stores/codex/request.js";
import { validateResponses } from "../../src/provider/validate-responses.js";
import { expectSameBytes, parseJsonDocument, run, snapshot, tempDir } from "../cli/run.js";
import { age } from "../support/captured-home.js";
import "../../src/stores/registry.js";

const FIXTURES = path.resolve("fixtures/codex-0.169");
const WRITTEN = new Date("2026-11-27T17:10:00Z");

type Finding = { rule: string; severity: string; message: string; line?: number; fixable: boolean };
type ScanDoc = { store: { notices: string[] }; sessions: { id: string; findings: Finding[] }[] };

/** A Codex home holding the capture `scenario` at `sessions/<day>/rollout-…-<uuid>.jsonl`. */
function homeWith(scenario: string, day = "2026/11/27", edit?: (text: string) => string) {
  const home = tempDir();
  const text = fs.readFileSync(path.join(FIXTURES, `${scenario}.jsonl`), "utf8");
  const id = (JSON.parse(text.slice(0, text.indexOf("\n"))) as { payload: { id: string } }).payload.id;
  const file = path.join(home, "sessions", ...day.split("/"), `rollout-2026-11-27T17-09-00-${id}.jsonl`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, edit ? edit(text) : text);
  age(file, WRITTEN);
  return { home, id, file };
}

const lastLine = (file: string) => fs.readFileSync(file, "utf8").trimEnd().split("\n").at(-1)!;
const stderrOf = (scenario: string) => fs.readFileSync(path.join(FIXTURES, `${scenario}.resume.stderr.txt`), "utf8");

describe("Codex rollout ordinals (rule rollout-ordinal)", () => {
  it("the last record without an ordinal, which the real client refuses to resume, gets the next number where Codex writes it; restore gives the bytes back", async () => {
    const { home, id, file } = homeWith("tail-no-ordinal");
    const refused = stderrOf("tail-no-ordinal");
    expect(refused).toMatch(/final paginated rollout record at \S+ is missing an ordinal/);
    const scan = await run(["session", "scan", id, "--json", "--store", home]);
    expect(scan.status).toBe(1);
    const [finding] = (parseJsonDocument(scan.stdout) as ScanDoc).sessions[0]!.findings;
    expect(finding).toMatchObject({ rule: "rollout-ordinal", severity: "error", line: 25, fixable: true });
    const before = snapshot(home);
    const error = refused.split("\n").find((l) => l.startsWith("Error: "))!;
    const repaired = await run(["session", "repair", id, "--error", error, "--yes", "--json", "--store", home]);
    expect(repaired.status, repaired.stderr + repaired.stdout).toBe(0);
    const last = lastLine(file);
    expect(last).toMatch(/^\{"timestamp":"[^"]+","ordinal":24,"type":"event_msg","payload":\{"type":"task_complete"/);
    // The rest of the file is the client's, byte for byte.
    const was = fs.readFileSync(path.join(FIXTURES, "tail-no-ordinal.jsonl"), "utf8").trimEnd().split("\n");
    expect(fs.readFileSync(file, "utf8").trimEnd().split("\n").slice(0, -1)).toEqual(was.slice(0, -1));
    expect(JSON.parse(last)).toEqual({ ...JSON.parse(was.at(-1)!), ordinal: 24 });
    const again = await run(["session", "scan", id, "--json", "--store", home]);
    expect(again.status, again.stdout).toBe(0);
    const restored = await run(["session", "restore", (parseJsonDocument(repaired.stdout) as { backup: { id: string } }).backup.id, "--yes", "--store", home]);
    expect(restored.status, restored.stderr).toBe(0);
    expectSameBytes(snapshot(home), before);
  });

  it("an ordinal that repeats the line before, which the real client resumes past (0.154+), is a warning left alone", async () => {
    const { home, id, file } = homeWith("duplicate-ordinal");
    // The client accepted the resume: no stderr kept, and it appended after the line.
    expect(fs.existsSync(path.join(FIXTURES, "duplicate-ordinal.resume.stderr.txt"))).toBe(false);
    const scan = await run(["session", "scan", id, "--json", "--store", home]);
    expect(scan.status).toBe(0);
    const findings = (parseJsonDocument(scan.stdout) as ScanDoc).sessions[0]!.findings;
    expect(findings.map((f) => [f.rule, f.severity, f.line, f.fixable])).toEqual([["rollout-ordinal", "warning", 25, false]]);
    expect(findings[0]!.message).toMatch(/^ordinal 23 repeats the line before: Codex 0\.154 and later leave this line out/);
    const before = fs.readFileSync(file);
    const repaired = await run(["session", "repair", id, "--yes", "--store", home]);
    expect(repaired.status, repaired.stderr).toBe(0);
    expect(fs.readFileSync(file).equals(before)).toBe(true);
  });

  it("the aborted output recover gives a call that ends the rollout carries the next ordinal (a killed client wrote nothing after the call)", async () => {
    // killed-mid-call as the client wrote it, cut after the function_call line (the kill came before its next write).
    const { home, id, file } = homeWith("killed-mid-call", "2026/11/27", (text) => {
      const lines = text.trimEnd().split("\n");
      const call = lines.findIndex((l) => l.includes('"type":"function_call"'));
      return `${lines.slice(0, call + 1).join("\n")}\n`;
    });
    const callOrdinal = (JSON.parse(lastLine(file)) as { ordinal: number }).ordinal;
    const repaired = await run(["session", "repair", id, "--yes", "--store", home]);
    expect(repaired.status, repaired.stderr).toBe(0);
    const output = JSON.parse(lastLine(file)) as { ordinal?: number; payload: { type: string; output: string } };
    expect(output).toMatchObject({ ordinal: callOrdinal + 1, payload: { type: "function_call_output", output: "aborted" } });
    expect(Object.keys(output)).toEqual(["timestamp", "ordinal", "type", "payload"]);
    const scan = await run(["session", "scan", id, "--json", "--store", home]);
    expect(scan.status, scan.stdout).toBe(0);
  });

  it("explain and classify know the client's texts", () => {
    expect(
      classifyProviderError(
        stderrOf("tail-no-ordinal")
          .split("\n")
          .find((l) => l.startsWith("Error: "))!,
      ).kind,
    ).toBe("rollout_ordinal");
    expect(
      classifyProviderError(
        "failed to project durable rollout for t: thread-store internal error: thread history projection for t expected ordinal 3802, got 3801",
      ).kind,
    ).toBe("rollout_ordinal");
    expect(
      classifyProviderError(
        stderrOf("moved-rollout")
          .split("\n")
          .find((l) => l.startsWith("Error: "))!,
      ).kind,
    ).toBe("rollout_missing");
  });
});

describe("Codex's index of rollouts (state_5.sqlite threads.rollout_path)", () => {
  /** The moved-rollout capture where the client's index does not say it is, with the index the client wrote. */
  function movedHome() {
    const moved = homeWith("moved-rollout", "2020/01/01");
    fs.copyFileSync(path.join(FIXTURES, "moved-rollout.codex-home", "state_5.sqlite"), path.join(moved.home, "state_5.sqlite"));
    return moved;
  }

  /** Every row of the index's threads table, as the client reads it. */
  function threads(index: string): unknown[] {
    const db = new Database(index, { readonly: true });
    try {
      return db.prepare("SELECT * FROM threads ORDER BY id").all();
    } finally {
      db.close();
    }
  }
  const rolloutPathOf = (index: string, id: string) => (threads(index) as { id: string; rollout_path: string }[]).find((row) => row.id === id)?.rollout_path;

  it("a rollout the index names at a path where there is none is an error naming the client's answer; repair sets the row, restore puts it back", async () => {
    const { home, id, file } = movedHome();
    expect(stderrOf("moved-rollout")).toContain(`no rollout found for thread id ${id}`);
    const index = path.join(home, "state_5.sqlite");
    const rows = threads(index);
    const stale = rolloutPathOf(index, id);
    const rollout = fs.readFileSync(file);
    const scan = await run(["session", "scan", id, "--json", "--store", home]);
    expect(scan.status).toBe(1);
    const doc = parseJsonDocument(scan.stdout) as ScanDoc;
    // The rollout is here, so it is not said to be gone.
    expect(doc.store.notices).toEqual([]);
    const [finding] = doc.sessions[0]!.findings;
    expect(finding).toMatchObject({ rule: "stale-bookkeeping", severity: "error", line: 1, fixable: true });
    expect(finding!.message).toContain(`answers "no rollout found for thread id ${id}"`);
    expect(finding!.message).toContain(`the repair sets threads.rollout_path to ${file}`);
    const explained = await run(["explain", `thread/resume failed: no rollout found for thread id ${id} (code -32600)`]);
    expect(explained.status).toBe(0);
    expect(explained.stdout).toMatch(/^rollout_missing/);

    const dry = await run(["session", "repair", id, "--dry-run", "--store", home]);
    expect(dry.stdout).toContain(`update index ${id} [stale-bookkeeping]`);
    expect(dry.stdout).toContain(`-  "rollout_path": "${stale}"`);
    expect(dry.stdout).toContain(`+  "rollout_path": "${file}"`);
    const repaired = await run(["session", "repair", id, "--yes", "--json", "--store", home]);
    expect(repaired.status, repaired.stderr).toBe(0);
    const report = parseJsonDocument(repaired.stdout) as { backup: { id: string }; sessions: { changes: { op: string; record: string }[] }[] };
    expect(report.sessions[0]!.changes.map((c) => `${c.op} ${c.record}`)).toEqual(["update index"]);
    // The row says where the rollout is, every other row and column as it was; the rollout is not written.
    expect(rolloutPathOf(index, id)).toBe(file);
    expect(threads(index)).toEqual(rows.map((row) => ((row as { id: string }).id === id ? { ...(row as object), rollout_path: file } : row)));
    expect(fs.readFileSync(file).equals(rollout)).toBe(true);
    const again = await run(["session", "scan", id, "--json", "--store", home]);
    expect(again.status, again.stdout).toBe(0);

    const restored = await run(["session", "restore", report.backup.id, "--yes", "--store", home]);
    expect(restored.status, restored.stderr).toBe(0);
    expect(threads(index)).toEqual(rows);
    expect(fs.readFileSync(file).equals(rollout)).toBe(true);

    // What the client printed, as `--error`: the same row, set the same way.
    const printed = stderrOf("moved-rollout")
      .split("\n")
      .find((l) => l.startsWith("Error: "))!;
    const aimed = await run(["session", "repair", id, "--error", printed, "--yes", "--json", "--store", home]);
    expect(aimed.status, aimed.stderr).toBe(0);
    expect(rolloutPathOf(index, id)).toBe(file);
    const twice = await run(["session", "repair", id, "--error", printed, "--yes", "--store", home]);
    expect(twice.status).toBe(1);
    expect(rolloutPathOf(index, id)).toBe(file);
  });

  it("a row that changed after it was read is not overwritten: the write is refused as a store that changed", () => {
    const { home, id, file } = movedHome();
    const index = path.join(home, "state_5.sqlite");
    const store = openStore({ store: home, format: "codex" });
    const writer = store.openWriter();
    try {
      const key = { record: "index" as const, id, sessionId: id, path: index };
      const before = writer.read(key);
      expect(before.exists).toBe(true);
      // A Codex that resumed the session from elsewhere meanwhile.
      const db = new Database(index);
      db.prepare("UPDATE threads SET rollout_path = ? WHERE id = ?").run("/elsewhere/rollout.jsonl", id);
      db.close();
      expect(() => writer.apply([{ key, before, after: { exists: true, bytes: indexImage({ rollout_path: file }) } }])).toThrow(/changed since it was read/);
      expect(rolloutPathOf(index, id)).toBe("/elsewhere/rollout.jsonl");
    } finally {
      writer.close();
      store.close();
    }
  });

  it("session_index.jsonl naming a session with no rollout is said in a note (newest name wins); it is never written", async () => {
    // Built: the pinned clients' exec runs write no session_index.jsonl; its lines are {id, thread_name, updated_at}.
    const { home } = homeWith("tool", "2026/11/24");
    const index = path.join(home, "session_index.jsonl");
    const gone = "01a20f00-dead-7000-8000-000000000000";
    const lines = [
      { id: gone, thread_name: "old name", updated_at: "2026-11-24T19:00:00Z" },
      { id: gone, thread_name: "fix the build", updated_at: "2026-11-24T19:05:00Z" },
    ];
    fs.writeFileSync(index, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n{"id":"torn`);
    const before = fs.readFileSync(index);
    const scan = await run(["session", "scan", "--all", "--json", "--store", home]);
    expect((parseJsonDocument(scan.stdout) as ScanDoc).store.notices).toEqual([
      `session_index.jsonl names a session whose rollout is gone (fix the build = ${gone}): Codex answers "no rollout found for thread id …" for it and there is nothing to repair; recover does not write Codex's indexes`,
    ]);
    expect(fs.readFileSync(index).equals(before)).toBe(true);
  });

  it("a Codex home copied from elsewhere (the index names the old home's paths) is the same finding", async () => {
    const { home, id } = homeWith("moved-rollout");
    fs.copyFileSync(path.join(FIXTURES, "moved-rollout.codex-home", "state_5.sqlite"), path.join(home, "state_5.sqlite"));
    // The index names /tmp/codex-fx-moved-rollout/…, this home is elsewhere: the finding is there, with the path.
    const scan = await run(["session", "scan", id, "--json", "--store", home]);
    expect((parseJsonDocument(scan.stdout) as ScanDoc).sessions[0]!.findings.map((f) => f.rule)).toEqual(["stale-bookkeeping"]);
  });
});

describe("a compaction (compacted line with its replacement_history), as the real client 0.169 wrote it", () => {
  it("what came before the compaction is not sent, so not judged: an output without its call there is no finding; the same after it is", async () => {
    // An output whose call is gone (orphan-tool-result), put after the line with ordinal `n`.
    const orphanAfter = (n: number) => (text: string) =>
      text
        .split("\n")
        .flatMap((line) => {
          if (!line.includes(`"ordinal":${n},`)) return [line];
          const orphan = {
            timestamp: "2026-11-24T19:07:12.000Z",
            type: "response_item",
            payload: { type: "function_call_output", call_id: "call_gone", output: "hi" },
          };
          return [line, JSON.stringify(orphan)];
        })
        .join("\n");
    const rulesOf = async (home: string, id: string) => {
      const scan = await run(["session", "scan", id, "--include-live", "--json", "--store", home]);
      return (parseJsonDocument(scan.stdout) as ScanDoc).sessions[0]!.findings.map((f) => f.rule);
    };
    const before = homeWith("compacted", "2026/11/24", orphanAfter(10));
    expect(await rulesOf(before.home, before.id)).toEqual([]);
    const after = homeWith("compacted", "2026/11/24", orphanAfter(29));
    expect(await rulesOf(after.home, after.id)).toEqual(["orphan-tool-result"]);
  });
});

describe("compaction items the API names by id (openai/codex#35334)", () => {
  const report = "The encrypted content for item cmp_34....b7bd could not be verified. Reason: Encrypted content could not be decrypted or parsed.";

  it("a compaction item in the replacement history the client sent and the API refused (bad-compaction, real client): it goes from the list with its metadata entry; the compaction still applies", async () => {
    const { home, id, file } = homeWith("bad-compaction", "2026/11/24");
    const records = () => assembleTranscript(fs.readFileSync(file), { path: file, sessionId: id, dialect: "codex", mtime: 0 }, false);
    const sentBefore = codexResumeInput(records().lines).map((s) => s.item);
    // What recover models is what the client sent: the item second, after the base instructions.
    const request = JSON.parse(fs.readFileSync(path.join(FIXTURES, "bad-compaction.resume-request.json"), "utf8")) as {
      input: { type: string; id?: string }[];
    };
    expect(request.input[1]).toMatchObject({ type: "compaction", id: "cmp_3400aa11ffee22b7bd" });
    expect(sentBefore[1]).toMatchObject({ type: "compaction", id: "cmp_3400aa11ffee22b7bd" });
    const refused = stderrOf("bad-compaction");
    expect(refused).toContain(report);
    const before = snapshot(home);
    const repaired = await run(["session", "repair", id, "--error", report, "--yes", "--json", "--store", home]);
    expect(repaired.status, repaired.stderr).toBe(0);
    const sentAfter = codexResumeInput(records().lines).map((s) => s.item);
    expect(sentAfter).toEqual([sentBefore[0], ...sentBefore.slice(2)]);
    const payload = records().lines.find((l) => l.value?.type === "compacted")!.value!.payload as {
      message: string;
      replacement_history: unknown[];
      replacement_history_metadata: unknown[];
    };
    expect(payload.replacement_history_metadata).toHaveLength(payload.replacement_history.length);
    expect(payload.message).toContain("The user asked for a greeting; I said hello.");
    const restored = await run(["session", "restore", (parseJsonDocument(repaired.stdout) as { backup: { id: string } }).backup.id, "--yes", "--store", home]);
    expect(restored.status, restored.stderr).toBe(0);
    expectSameBytes(snapshot(home), before);
  });

  it("a compaction whose metadata list counts other entries than its history is passed over by Codex: recover sends the raw history too", () => {
    // bad-compaction's compaction item without its metadata entry: the client sent every item as if there were no
    // compaction (measured while building the scenario; the request is not kept).
    const { id, file } = homeWith("bad-compaction", "2026/11/24", (text) =>
      text
        .split("\n")
        .map((line) => {
          if (!line.includes('"type":"compacted"')) return line;
          const value = JSON.parse(line) as { payload: { replacement_history_metadata: unknown[] } };
          value.payload.replacement_history_metadata.shift();
          return JSON.stringify(value);
        })
        .join("\n"),
    );
    const sent = codexResumeInput(assembleTranscript(fs.readFileSync(file), { path: file, sessionId: id, dialect: "codex", mtime: 0 }, false).lines);
    expect(sent.map((s) => s.item.type)).not.toContain("compaction");
    expect(sent.map((s) => (s.item.content as { text?: string }[] | undefined)?.[0]?.text)).toContain("Hello! How can I help?");
  });

  it("a compaction item stored as its own line (built from the report): --error drops the one it names, and only that one; reasoning stays", async () => {
    // tool, with a compaction item (as Codex stores a remote compaction's output) after the first turn.
    const compaction = (id: string, n: number) =>
      JSON.stringify({
        timestamp: "2026-11-24T19:07:12.700Z",
        type: "response_item",
        payload: { type: "compaction", id, encrypted_content: `gAAAAABmockCompaction${n}QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo==` },
      });
    const { home, id, file } = homeWith("tool", "2026/11/24", (text) => {
      const lines = text.trimEnd().split("\n");
      lines.splice(lines.length - 1, 0, compaction("cmp_3400aa11ffee22b7bd", 1), compaction("cmp_9900aa11ffee22c0de", 2));
      return `${lines.join("\n")}\n`;
    });
    expect(classifyProviderError(report).kind).toBe("reasoning_invalid");
    const before = snapshot(home);
    const repaired = await run(["session", "repair", id, "--error", report, "--yes", "--json", "--store", home]);
    expect(repaired.status, repaired.stderr).toBe(0);
    const text = fs.readFileSync(file, "utf8");
    expect(text).not.toContain("cmp_3400aa11ffee22b7bd");
    expect(text).toContain("cmp_9900aa11ffee22c0de");
    const records = assembleTranscript(fs.readFileSync(file), { path: file, sessionId: id, dialect: "codex", mtime: 0 }, false);
    const input = codexResumeInput(records.lines).map((s) => s.item);
    expect(input.filter((i) => i.type === "reasoning")).toHaveLength(2);
    expect(validateResponses(input)).toEqual([]);
    const restored = await run(["session", "restore", (parseJsonDocument(repaired.stdout) as { backup: { id: string } }).backup.id, "--yes", "--store", home]);
    expect(restored.status, restored.stderr).toBe(0);
    expectSameBytes(snapshot(home), before);
  });
});
