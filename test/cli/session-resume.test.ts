// `recover session resume` (issue 41): the repair aimed at the error the agent recorded, then the agent's own resume
// command run in the session's directory. The agent here is a real process: a script on PATH named as the agent's
// command, which writes down where it ran and with what, and exits with a code of its own.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseJsonDocument, run, tempDir } from "./run.js";
import { writtenAgo } from "../support/captured-home.js";
import { openclawState, plant } from "../support/openclaw-db.js";

const FIXTURE = path.resolve("fixtures/claude-code-2.1/prefix-thinking/prefix-blank-prompt.jsonl");
/** The directory the capture ran in, as every line of the fixture names it. */
const CAPTURED_CWD = "/tmp/cc-prefix-w1/project";

/** A Claude Code store holding the fixture (its last entry: the API error Claude Code stored), run in `project`. */
function claudeStore(): { store: string; id: string; file: string; project: string } {
  const store = tempDir();
  const project = tempDir();
  const text = fs.readFileSync(FIXTURE, "utf8");
  const id = /"sessionId":"([^"]+)"/.exec(text)![1]!;
  const file = path.join(store, "projects", "-project", `${id}.jsonl`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text.split(CAPTURED_CWD).join(project));
  writtenAgo(file, 2 * 3_600_000);
  return { store, id, file, project };
}

/** A stand-in for the agent's command: records its working directory and arguments, exits `code`. */
function fakeAgent(name: string, code: number): { bin: string; calls: () => { cwd: string; args: string[] }[] } {
  const bin = tempDir();
  const log = path.join(bin, "calls.jsonl");
  fs.writeFileSync(
    path.join(bin, name),
    `#!/bin/sh\nnode -e 'console.log(JSON.stringify({ cwd: process.cwd(), args: process.argv.slice(1) }))' -- "$@" >> ${JSON.stringify(log)}\nexit ${code}\n`,
    { mode: 0o755 },
  );
  const calls = () =>
    fs.existsSync(log)
      ? fs
          .readFileSync(log, "utf8")
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l) as { cwd: string; args: string[] })
      : [];
  return { bin, calls };
}

const withPath = (bin: string) => ({ env: { PATH: `${bin}${path.delimiter}${process.env.PATH ?? ""}` } });

describe("recover session resume (Claude Code)", () => {
  it("repairs with the API error Claude Code recorded, then runs `claude --resume <id>` in the session's directory; its exit code is the run's", async () => {
    const { store, id, file, project } = claudeStore();
    const agent = fakeAgent("claude", 7);
    const r = await run(["session", "resume", id, "--yes", "--store", store], withPath(agent.bin));
    expect(r.status, r.stderr).toBe(7);
    expect(r.stderr).toContain(`session ${id}: the agent recorded the provider's refusal at line`);
    expect(r.stderr).toContain("the error the agent recorded (empty_content)");
    expect(r.stdout).toMatch(/✔ repaired: \d+ changes? in 1 session/);
    expect(agent.calls()).toEqual([{ cwd: fs.realpathSync(project), args: ["--resume", id] }]);
    // The session it continued is one a scan passes.
    const scan = await run(["session", "scan", id, "--store", store]);
    expect(scan.status, scan.stdout).toBe(0);
    expect(fs.readFileSync(file, "utf8")).not.toBe("");
  });

  it("nothing to repair: it just continues, without asking (no --yes needed)", async () => {
    const { store, id } = claudeStore();
    const agent = fakeAgent("claude", 0);
    expect((await run(["session", "repair", id, "--yes", "--store", store])).status).toBe(0);
    const r = await run(["session", "resume", id, "--store", store], withPath(agent.bin));
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/repaired:/);
    expect(agent.calls().map((c) => c.args)).toEqual([["--resume", id]]);
  });

  it("--print prints the command that continues it, as a shell runs it, and starts nothing", async () => {
    const { store, id, project } = claudeStore();
    const agent = fakeAgent("claude", 0);
    const r = await run(["session", "resume", id, "--yes", "--print", "--store", store], withPath(agent.bin));
    expect(r.status, r.stderr).toBe(0);
    const printed = r.stdout.trim().split("\n").at(-1)!;
    expect(printed).toBe(`cd ${project} && claude --resume ${id}`);
    expect(agent.calls()).toEqual([]);
  });

  it("the agent not on PATH: one line naming it and the command to run; the repair stands", async () => {
    const { store, id, project } = claudeStore();
    const r = await run(["session", "resume", id, "--yes", "--store", store], { env: { PATH: tempDir() } });
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split("\n").at(-1)).toBe(`recover: claude is not on PATH; continue the session with: cd ${project} && claude --resume ${id}`);
    expect((await run(["session", "scan", id, "--store", store])).status).toBe(0);
  });

  it("without a terminal and without --yes, a repair to make is refused (exit 2) and the agent is not started", async () => {
    const { store, id } = claudeStore();
    const agent = fakeAgent("claude", 0);
    const r = await run(["session", "resume", id, "--store", store], withPath(agent.bin));
    expect(r.status).toBe(2);
    expect(agent.calls()).toEqual([]);
  });

  it("--json: one JSON document, the repair's, naming the command that continues the session; the agent is not run", async () => {
    const { store, id, project } = claudeStore();
    const agent = fakeAgent("claude", 0);
    const r = await run(["session", "resume", id, "--yes", "--json", "--store", store], withPath(agent.bin));
    expect(r.status, r.stderr).toBe(0);
    const doc = parseJsonDocument(r.stdout) as { backup: { id: string } | null; resume: string[] };
    expect(doc.backup).not.toBeNull();
    expect(doc.resume).toEqual([`cd ${project} && claude --resume ${id}`]);
    expect(agent.calls()).toEqual([]);
    // Nothing left to repair: the document still names the command.
    const again = await run(["session", "resume", id, "--json", "--store", store], withPath(agent.bin));
    expect(again.status, again.stderr).toBe(0);
    expect((parseJsonDocument(again.stdout) as { backup: null; resume: string[] }).resume).toEqual([`cd ${project} && claude --resume ${id}`]);
  });
});

describe("recover session resume (openclaw: by its session key)", () => {
  it("SQLite store (2026.9): runs `openclaw chat --session <key>` with the key that points at the session", async () => {
    const { state, db } = openclawState("healthy-sqlite");
    const [key, id] = plant(db, (c) => c.prepare("SELECT session_key, current_session_id FROM session_nodes").raw().get() as [string, string]);
    const agent = fakeAgent("openclaw", 0);
    const r = await run(["session", "resume", id, "--yes", "--store", state], withPath(agent.bin));
    expect(r.status, r.stderr).toBe(0);
    expect(agent.calls().map((c) => c.args)).toEqual([["chat", "--session", key]]);
  });

  it("JSONL store (2026.7): the key sessions.json gives it; a session no key points at any more cannot be continued, and says so", async () => {
    const store = path.join(tempDir(), "openclaw");
    fs.cpSync(path.resolve("fixtures/demo/openclaw"), store, { recursive: true });
    const index = path.join(store, "agents", "main", "sessions", "sessions.json");
    const keys = JSON.parse(fs.readFileSync(index, "utf8")) as Record<string, { sessionId: string }>;
    const main = keys["agent:main:main"]!.sessionId;
    const agent = fakeAgent("openclaw", 0);
    const printed = await run(["session", "resume", main, "--print", "--yes", "--force", "--store", store], withPath(agent.bin));
    expect(printed.status, printed.stderr).toBe(0);
    expect(printed.stdout.trim().split("\n").at(-1)).toBe("openclaw chat --session agent:main:main");
    // A newer session took its key over: the old one is only history.
    keys["agent:main:main"] = { ...keys["agent:main:main"]!, sessionId: "00000000-0000-4000-8000-000000000000" };
    fs.writeFileSync(index, JSON.stringify(keys));
    const orphaned = await run(["session", "resume", main, "--yes", "--force", "--store", store], withPath(agent.bin));
    expect(orphaned.status, orphaned.stderr).toBe(0);
    expect(orphaned.stderr).toContain(`openclaw continues a session by its key, and no key names session ${main} now`);
    expect(agent.calls()).toEqual([]);
  });
});
