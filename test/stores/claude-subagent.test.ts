// Issue 40 row 4: a Claude Code subagent's transcript, <project>/<session>/subagents/agent-<id>.jsonl, written by the
// real client 2.1.332 (scenario repair-subagent: a foreground subagent thinks and runs Bash; its thinking text was
// then emptied, and resuming it with SendMessage was refused with the error in subagent.expected.json). recover lists
// it under its session, scans it and repairs it by its id like any session; the main session is not touched.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { expectSameBytes, parseJsonDocument, run, snapshot, tempDir } from "../cli/run.js";

const DIR = path.resolve("fixtures/claude-code-2.1/subagent");
const expected = JSON.parse(fs.readFileSync(path.join(DIR, "subagent.expected.json"), "utf8")) as { sessionId: string; error: string };
const AGENT = fs
  .readdirSync(DIR)
  .find((f) => /^agent-.+\.jsonl$/.test(f))!
  .replace(/\.jsonl$/, "");

function store(): { config: string; env: Record<string, string>; main: string; agent: string } {
  const root = tempDir();
  const config = path.join(root, "claude");
  const project = path.join(config, "projects", "-tmp-cc-capture-agent-project");
  const main = path.join(project, `${expected.sessionId}.jsonl`);
  const agent = path.join(project, expected.sessionId, "subagents", `${AGENT}.jsonl`);
  fs.mkdirSync(path.dirname(agent), { recursive: true });
  fs.copyFileSync(path.join(DIR, "subagent.jsonl"), main);
  fs.copyFileSync(path.join(DIR, `${AGENT}.jsonl`), agent);
  return { config, env: { XDG_STATE_HOME: path.join(root, "state") }, main, agent };
}

const thinkingTexts = (file: string) =>
  fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .flatMap((l) => {
      const content = (JSON.parse(l) as { message?: { content?: unknown } }).message?.content;
      return Array.isArray(content) ? content.filter((b: { type?: string }) => b.type === "thinking").map((b: { thinking: string }) => b.thinking) : [];
    });

describe("a Claude Code subagent's transcript, as a session of its own", () => {
  it("session list shows it under the session that spawned it", async () => {
    const { config, env } = store();
    const r = await run(["session", "list", "--json", "--store", config], { env });
    expect(r.status, r.stderr).toBe(0);
    const sessions = (parseJsonDocument(r.stdout) as { sessions: { id: string; parent?: string; title: string }[] }).sessions;
    expect(sessions.map((s) => s.id).sort()).toEqual([AGENT, expected.sessionId].sort());
    const agent = sessions.find((s) => s.id === AGENT)!;
    expect(agent.parent).toBe(expected.sessionId);
    expect(agent.title).toBe("Run echo sub with Bash, then say done.");
    expect(sessions.find((s) => s.id === expected.sessionId)!.parent).toBeUndefined();
    const table = await run(["session", "list", "--store", config], { env });
    expect(table.stdout).toContain(`${AGENT}`);
    expect(table.stdout).toContain(`↳ ${expected.sessionId.slice(0, 8)}: Run echo sub`);
  });

  it("scan judges it (the emptied thinking the client sent) and nothing in the main session", async () => {
    const { config, env } = store();
    const r = await run(["session", "scan", "--all", "--include-live", "--json", "--exit-zero", "--store", config], { env });
    const doc = parseJsonDocument(r.stdout) as { sessions: { id: string; findings: { rule: string }[] }[] };
    const found = doc.sessions.flatMap((s) => s.findings.map((f) => `${s.id} ${f.rule}`));
    expect(found).toEqual([`${AGENT} empty-thinking`]);
  });

  it("repair <agent id> --error answers the refusal in the subagent's file only, and restores byte for byte", async () => {
    const { config, env, main, agent } = store();
    const before = snapshot(config);
    const mainBytes = fs.readFileSync(main);
    expect(thinkingTexts(agent)).toEqual([""]);
    const r = await run(["session", "repair", AGENT, "--error", expected.error, "--yes", "--force", "--json", "--store", config], { env });
    expect(r.status, r.stderr).toBe(0);
    expect(thinkingTexts(agent)).toEqual([]);
    expect(fs.readFileSync(main).equals(mainBytes)).toBe(true);
    const backup = (parseJsonDocument(r.stdout) as { backup: { id: string } }).backup.id;
    expect((await run(["session", "restore", backup, "--yes", "--store", config], { env })).status).toBe(0);
    expectSameBytes(before, snapshot(config));
  });
});
