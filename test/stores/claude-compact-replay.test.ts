// Issue 40 row 5: a second /compact in one Claude Code process re-appends the history the first one summarized away,
// the copies keeping their uuids (anthropics/claude-code#92089). The transcripts were written by the real client
// 2.1.277 (scenario repair-compact-replay: two turns, /compact, two turns, /compact, a turn, in one process);
// compact-replay-misparent.jsonl is the same session with the report's second effect built on it (the copies moved
// before the last prompt, which hangs from the last copy). fixtures/claude-code-2.1/README.md.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { expectSameBytes, parseJsonDocument, run, snapshot, tempDir } from "../cli/run.js";

const DIR = path.resolve("fixtures/claude-code-2.1/compact-replay");

type Rec = { uuid?: string; parentUuid?: string | null; type: string; message?: { content?: unknown } };
const records = (file: string): Rec[] =>
  fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Rec);
const repeated = (recs: Rec[]) => {
  const seen = new Set<string>();
  return recs.filter((r) => r.uuid !== undefined && (seen.has(r.uuid) || !seen.add(r.uuid))).length;
};

function store(name: string): { config: string; env: Record<string, string>; file: string; id: string } {
  const expected = JSON.parse(fs.readFileSync(path.join(DIR, `${name}.expected.json`), "utf8")) as { sessionId: string };
  const root = tempDir();
  const config = path.join(root, "claude");
  const file = path.join(config, "projects", "p", `${expected.sessionId}.jsonl`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.copyFileSync(path.join(DIR, `${name}.jsonl`), file);
  return { config, env: { XDG_STATE_HOME: path.join(root, "state") }, file, id: expected.sessionId };
}

type Doc = { backup?: { id: string }; sessions: { changes: { rules: string[] }[] }[] };

describe("Claude Code: the history a second compaction re-appended", () => {
  it("scan names the copies; repair deletes them, relinks nothing, restores byte for byte, and is done", async () => {
    const { config, env, file, id } = store("compact-replay");
    const before = snapshot(config);
    const copies = repeated(records(file));
    expect(copies).toBeGreaterThan(0);
    const scan = await run(["session", "scan", id, "--include-live", "--json", "--exit-zero", "--store", config], { env });
    const found = (parseJsonDocument(scan.stdout) as { sessions: { findings: { rule: string; message: string }[] }[] }).sessions[0]!.findings;
    expect(found.map((f) => f.rule)).toEqual(["replayed-history"]);
    expect(found[0]!.message).toContain(`${copies} records re-appended`);
    const r = await run(["session", "repair", id, "--yes", "--force", "--json", "--store", config], { env });
    expect(r.status, r.stderr).toBe(0);
    const after = records(file);
    expect(repeated(after)).toBe(0);
    expect(after).toHaveLength(records(path.join(DIR, "compact-replay.jsonl")).length - copies);
    // Only deletions: every line left is the client's own, parents unchanged.
    const kept = new Set(fs.readFileSync(path.join(DIR, "compact-replay.jsonl"), "utf8").split("\n"));
    for (const line of fs.readFileSync(file, "utf8").split("\n").filter(Boolean)) expect(kept.has(line)).toBe(true);
    const again = await run(["session", "repair", id, "--yes", "--force", "--json", "--store", config], { env });
    expect((parseJsonDocument(again.stdout) as unknown as Doc).sessions.flatMap((s) => s.changes)).toEqual([]);
    const doc = parseJsonDocument(r.stdout) as unknown as Doc;
    expect((await run(["session", "restore", doc.backup!.id, "--yes", "--store", config], { env })).status).toBe(0);
    expectSameBytes(before, snapshot(config));
  });

  it("the prompt parented to the last copy is relinked to the record before the copies, where the history continues", async () => {
    const { config, env, file, id } = store("compact-replay-misparent");
    const sayThree = (recs: Rec[]) => recs.find((r) => r.type === "user" && r.message?.content === "Say 3.1.")!;
    // The record written right before the copies: the client wrote the prompt after it (the edit moved the copies).
    const edited = records(file);
    const seen0 = new Set<string>();
    const firstCopy = edited.findIndex((x) => x.uuid !== undefined && (seen0.has(x.uuid) || !seen0.add(x.uuid)));
    const before = edited.slice(0, firstCopy).findLast((x) => x.uuid !== undefined)!;
    expect(sayThree(edited).parentUuid).not.toBe(before.uuid);
    const r = await run(["session", "repair", id, "--yes", "--force", "--json", "--store", config], { env });
    expect(r.status, r.stderr).toBe(0);
    const after = records(file);
    expect(repeated(after)).toBe(0);
    expect(sayThree(after).parentUuid).toBe(before.uuid);
    // Its chain now reaches the second compaction's boundary, not the first turn.
    const byUuid = new Map(after.filter((x) => x.uuid).map((x) => [x.uuid!, x]));
    let at: Rec | undefined = sayThree(after);
    const seen: Rec[] = [];
    while (at) {
      seen.push(at);
      at = at.parentUuid ? byUuid.get(at.parentUuid) : undefined;
    }
    expect(seen.at(-1)!.type).toBe("system");
    expect(seen.some((x) => x.message?.content === "Say 1.1.")).toBe(false);
  });
});
