// context trim of a session whose overflowing output sits on a branch beside the chain, written by the real client
// (Claude Code 2.1.332, scenario repair-trim-parallel of scripts/clients/scenarios/claude-code.mjs): four parallel
// Bash calls, the first one slowest, so the chain from the leaf runs through its result and its call line only; the
// other three call lines and their results hang beside it, and the client still sends them (issue 40, row 15). One of
// them was made 160,000 characters; the mock refused the resume with the error below. (--force: the records are stamped
// with the capture's time, which the live-writer guard reads as a running agent until a minute has passed.)
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { expectSameBytes, parseJsonDocument, run, snapshot, tempDir } from "../cli/run.js";

const FIXTURE = path.resolve("fixtures/claude-code-2.1/parallel/trim-parallel.jsonl");
const expected = JSON.parse(fs.readFileSync(path.resolve("fixtures/claude-code-2.1/parallel/trim-parallel.expected.json"), "utf8")) as {
  sessionId: string;
  error: string;
};

function written(): { config: string; env: Record<string, string>; file: string } {
  const root = tempDir();
  const config = path.join(root, "claude");
  const file = path.join(config, "projects", "p", `${expected.sessionId}.jsonl`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.copyFileSync(FIXTURE, file);
  const hourAgo = new Date(Date.now() - 3_600_000);
  fs.utimesSync(file, hourAgo, hourAgo);
  return { config, env: { XDG_STATE_HOME: path.join(root, "state") }, file };
}

/** The stored result of a call, as the line holds it. */
function resultOf(file: string, callId: string): { line: Record<string, unknown>; content: string } {
  for (const text of fs.readFileSync(file, "utf8").split("\n")) {
    if (!text.includes(`"tool_use_id":"${callId}"`)) continue;
    const line = JSON.parse(text) as { type: string; message?: { content?: { type: string; tool_use_id?: string; content?: unknown }[] } };
    const block = line.type === "user" ? line.message?.content?.find((b) => b.tool_use_id === callId) : undefined;
    if (block) return { line, content: typeof block.content === "string" ? block.content : JSON.stringify(block.content) };
  }
  throw new Error(`no result of ${callId}`);
}

type TrimDoc = { stillOver: boolean; backup?: { id: string }; tokens: { before: number; after: number; limit: number; method: string } };

describe("context trim of parallel results beside the chain", () => {
  it("the fixture has the shape: the big result is not on the chain from the leaf", () => {
    const lines = fs
      .readFileSync(FIXTURE, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { uuid?: string; parentUuid?: string | null; type: string; isSidechain?: boolean });
    const byUuid = new Map(lines.filter((l) => l.uuid).map((l) => [l.uuid!, l]));
    const chain = new Set<string>();
    let at = lines.filter((l) => (l.type === "user" || l.type === "assistant") && !l.isSidechain).at(-1);
    while (at?.uuid && !chain.has(at.uuid)) {
      chain.add(at.uuid);
      at = at.parentUuid ? byUuid.get(at.parentUuid) : undefined;
    }
    const big = resultOf(FIXTURE, "toolu_mock_bash_03");
    expect(big.content.length).toBeGreaterThan(150_000);
    expect(chain.has(big.line.uuid as string)).toBe(false);
    expect(chain.has(big.line.parentUuid as string)).toBe(false);
  });

  it("estimates what the client sends (the result beside the chain included), trims it under the target, and restores", async () => {
    const { config, env, file } = written();
    const before = snapshot(config);
    const r = await run(["context", "trim", expected.sessionId, "--error", expected.error, "--yes", "--force", "--json", "--store", config], { env });
    expect(r.status, r.stderr).toBe(0);
    const doc = parseJsonDocument(r.stdout) as unknown as TrimDoc;
    // The 160,000 characters alone are 40,000 tokens: the messages estimate must hold them.
    const messages = Number(/our estimate of the messages: ([\d,]+)/.exec(doc.tokens.method)?.[1]?.replaceAll(",", ""));
    expect(messages).toBeGreaterThan(40_000);
    expect(doc.stillOver).toBe(false);
    expect(doc.tokens.after).toBeLessThanOrEqual(doc.tokens.limit * 0.8);
    expect(resultOf(file, "toolu_mock_bash_03").content.length).toBeLessThan(60_000);
    const restored = await run(["session", "restore", doc.backup!.id, "--yes", "--store", config], { env });
    expect(restored.status, restored.stderr).toBe(0);
    expectSameBytes(before, snapshot(config));
  });
});
