// `session repair --error` on transcripts: the provider's text names a request position; the plan fixes what is
// there with the transcript rules and nothing else, and a plan that fixes nothing the error names is refused.
// Needs the built CLI (npm run build).
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CLAUDE_INTERRUPTED_RESULT } from "../../src/stores/transcript/claude.js";
import { OPENCLAW_MISSING_RESULT } from "../../src/stores/transcript/openclaw.js";
import { ClaudeTranscript } from "../support/transcript-fixtures.js";
import { writtenAgo } from "../support/captured-home.js";
import { parseJsonDocument, run, tempDir } from "./run.js";

const HOUR = 3_600_000;

/** A copy of a demo store whose files were last written an hour ago (not a live agent's). */
function copyOf(demo: "claude" | "openclaw"): string {
  const dir = path.join(tempDir(), demo);
  fs.cpSync(path.join("fixtures/demo", demo), dir, { recursive: true });
  const old = new Date(Date.now() - HOUR);
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) fs.utimesSync(path.join(entry.parentPath, entry.name), old, old);
  }
  return dir;
}

async function repair(store: string, session: string, error: string) {
  return await run(["session", "repair", session, "--store", store, "--json", "--yes", "--error", error], {
    env: { XDG_STATE_HOME: path.join(store, "..", "state") },
  });
}

const changedLines = (doc: Record<string, unknown>) =>
  ((doc.sessions as { changes: { op: string; rules: string[] }[] }[])[0]?.changes ?? []).map((c) => `${c.op}:${c.rules.join("+")}`);

describe("session repair --error on transcripts", () => {
  it("Claude Code: the orphan tool_use the error names gets Claude Code's interrupted result, nothing else changes", async () => {
    const store = copyOf("claude");
    const error = "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01U8z6Su6URP4jRjBEqQxxLu";
    const result = await repair(store, "b08bc1fc", error);
    expect(result.status, result.stderr).toBe(0);
    expect(changedLines(parseJsonDocument(result.stdout)).sort()).toEqual(["insert:tool-result-missing", "update:tool-result-missing"]);
    const file = fs.readdirSync(path.join(store, "projects/-home-dana-code-invoice-api")).find((f) => f.startsWith("b08bc1fc"))!;
    const text = fs.readFileSync(path.join(store, "projects/-home-dana-code-invoice-api", file), "utf8");
    expect(text).toContain(`"tool_use_id":"toolu_01U8z6Su6URP4jRjBEqQxxLu"`);
    expect(text).toContain(CLAUDE_INTERRUPTED_RESULT);
  });

  it("openclaw (#8946): the orphan tool_result the error names is dropped, by session key", async () => {
    const store = copyOf("openclaw");
    const error = "LLM request rejected: messages.4.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_01KwZ5BHBdPWExZgXrshZ2Zc";
    const result = await repair(store, "agent:main:telegram:group:-100123", error);
    expect(result.status, result.stderr).toBe(0);
    const changes = changedLines(parseJsonDocument(result.stdout));
    expect(changes).toContain("delete:orphan-tool-result");
    // A repair with --error is a plain repair plus what the error names: the call left without result is answered too.
    expect(changes.some((c) => c.startsWith("insert:tool-result-missing"))).toBe(true);
    const text = fs.readFileSync(path.join(store, "agents/main/sessions/20f6387e-5d4b-4c5c-861b-32ab9eb04481.jsonl"), "utf8");
    expect(text).not.toContain("toolu_01KwZ5BHBdPWExZgXrshZ2Zc");
    expect(text).toContain(OPENCLAW_MISSING_RESULT);
  });

  it("an error naming a healthy position changes nothing and exits 1", async () => {
    const store = copyOf("claude");
    const before = fs.readFileSync(path.join(store, "projects/-home-dana-code-invoice-api/22c38aa4-62b1-46f6-ba13-62cb64e0791c.jsonl"));
    const result = await repair(store, "22c38aa4", "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01NOPE");
    expect(result.status).toBe(1);
    expect(fs.readFileSync(path.join(store, "projects/-home-dana-code-invoice-api/22c38aa4-62b1-46f6-ba13-62cb64e0791c.jsonl")).equals(before)).toBe(true);
  });

  // The live last turn (an assistant line written in the last 10 minutes) is judged when the error points into it:
  // the client sent it, so no agent is still writing it (issue 38). Without the error it is left alone.
  describe("an error pointing into a live last turn, repaired right away", () => {
    const SENT = /its last turn was written 2 min ago, but the provider refused a request that held it/;
    const ORPHAN_USE = (n: number, id: string) => `messages.${n}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${id}`;

    it("Claude Code: the call a killed agent left last gets the interrupted result", async () => {
      const t = new ClaudeTranscript({ seed: 21, start: Date.now() - 3 * 60_000 });
      t.user("Run the tests.");
      const call = t.toolUseId();
      t.assistant([
        { type: "text", text: "Running them." },
        { type: "tool_use", id: call, name: "Bash", input: { command: "npm test" } },
      ]);
      const dir = tempDir();
      writtenAgo(t.writeTo(dir), 2 * 60_000);
      const plain = parseJsonDocument((await run(["session", "repair", t.sessionId, "--store", dir, "--dry-run", "--json"])).stdout);
      expect(plain.skipped).toEqual([expect.objectContaining({ id: t.sessionId, reason: "live" })]);
      const result = await repair(dir, t.sessionId, ORPHAN_USE(1, call));
      expect(result.status, result.stderr).toBe(0);
      const doc = parseJsonDocument(result.stdout);
      expect(changedLines(doc)).toEqual(["insert:tool-result-missing"]);
      expect((doc.store as { notices: string[] }).notices.join("\n")).toMatch(SENT);
      expect(doc.skipped).toBeUndefined();
    });

    it("openclaw: the same, in a session of the demo store written two minutes ago (a call of an errored turn goes)", async () => {
      const store = copyOf("openclaw");
      const file = path.join(store, "agents/main/sessions/c6425a0e-acf5-42e7-bdbe-f7d44a37d7ce.jsonl");
      writtenAgo(file, 2 * 60_000);
      const call = "toolu_012SqlYBdvoxKs6Zy78hv4gm";
      const result = await repair(store, "c6425a0e", `LLM request rejected: ${ORPHAN_USE(3, call)}`);
      expect(result.status, result.stderr).toBe(0);
      const doc = parseJsonDocument(result.stdout);
      expect(changedLines(doc)).toEqual(["update:tool-result-missing"]);
      expect((doc.store as { notices: string[] }).notices.join("\n")).toMatch(SENT);
      expect(fs.readFileSync(file, "utf8")).not.toContain(call);
    });
  });
});

describe("session repair --error: a 413 Claude Code recovered from itself", () => {
  it("the media the stored error blames are out of every request since: nothing to change, and the answer says why", async () => {
    // Written by Claude Code 2.1.332 (fixtures/claude-code-2.1/media-413-healed): a Read result of 5 images refused
    // with a 413, then resumed and accepted without them (docs/research/claude-code-media-budget.md).
    const store = path.join(tempDir(), "healed");
    fs.mkdirSync(store);
    const fixture = fs.readFileSync("fixtures/claude-code-2.1/media-413-healed.jsonl", "utf8");
    const session = JSON.parse(fixture.split("\n").find((l) => l.includes('"sessionId"'))!).sessionId as string;
    const file = path.join(store, `${session}.jsonl`);
    fs.writeFileSync(file, fixture);
    const old = new Date(Date.now() - HOUR);
    fs.utimesSync(file, old, old);
    const result = await run(["session", "repair", session, "--store", file, "--error", "Request too large (max 32MB). Try with a smaller file."], {
      env: { XDG_STATE_HOME: path.join(store, "state") },
    });
    expect(result.status, result.stderr).toBe(1);
    expect(result.stderr).toMatch(/already under the byte limit .*: since the stored error the client leaves the media of line \S+ out of every request/);
    expect(result.stderr).toContain("nothing was changed");
    expect(fs.readFileSync(file)).toEqual(fs.readFileSync("fixtures/claude-code-2.1/media-413-healed.jsonl"));
  });
});
