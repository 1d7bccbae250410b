// `recover hooks` (issue 41): installing recover's hook into the agents' real config files, through the transaction
// layer, and taking it out again byte for byte; what Claude Code's StopFailure hook records, and `session resume
// --last` taking that session; the opencode plugin's way through the live-writer guard (`--agent-pid`), with a real
// process holding the store open.
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { HOOK_MARKER } from "../../src/hooks/recover-command.js";
import { expectFailure, holdOpen, sandbox, writeDefectStore, type Holder } from "./repair-support.js";
import { parseJsonDocument, run, snapshot, expectSameBytes, tempDir } from "./run.js";

/** A home with its own config and state folders, as a user's. */
function home() {
  const root = tempDir();
  const env = {
    HOME: root,
    XDG_STATE_HOME: path.join(root, "state"),
    XDG_CONFIG_HOME: path.join(root, "config"),
    CLAUDE_CONFIG_DIR: path.join(root, ".claude"),
  };
  return { root, env, settings: path.join(env.CLAUDE_CONFIG_DIR, "settings.json"), plugin: path.join(env.XDG_CONFIG_HOME, "opencode", "plugin", "recover.js") };
}

/** The user's own settings, written their way (4 spaces, a hook of their own). */
const USER_SETTINGS = `{
    "model": "opus",
    "hooks": {
        "StopFailure": [ { "matcher": "rate_limit", "hooks": [ { "type": "command", "command": "notify-send limit" } ] } ],
        "Stop": [ { "hooks": [ { "type": "command", "command": "echo done" } ] } ]
    }
}
`;

describe("recover hooks (Claude Code)", () => {
  it("install adds recover's StopFailure hook and keeps every setting of the user's; uninstall gives the file back byte for byte", async () => {
    const h = home();
    fs.mkdirSync(path.dirname(h.settings), { recursive: true });
    fs.writeFileSync(h.settings, USER_SETTINGS);
    const dry = await run(["hooks", "install", "claude", "--dry-run"], { env: h.env });
    expect(dry.status).toBe(1);
    expect(fs.readFileSync(h.settings, "utf8")).toBe(USER_SETTINGS);
    const installed = await run(["hooks", "install", "claude", "--yes"], { env: h.env });
    expect(installed.status, installed.stderr).toBe(0);
    expect(installed.stdout).toMatch(/^undo with: .*session restore \S+/m);
    const settings = JSON.parse(fs.readFileSync(h.settings, "utf8")) as {
      model: string;
      hooks: Record<string, { matcher?: string; hooks: { command: string; timeout?: number }[] }[]>;
    };
    expect(settings.model).toBe("opus");
    expect(settings.hooks.Stop).toEqual([{ hooks: [{ type: "command", command: "echo done" }] }]);
    expect(settings.hooks.StopFailure![0]).toEqual({ matcher: "rate_limit", hooks: [{ type: "command", command: "notify-send limit" }] });
    const ours = settings.hooks.StopFailure![1]!.hooks[0]!;
    expect(ours.command).toContain("hooks record-failure --agent claude");
    expect(ours.command).toContain(HOOK_MARKER);
    expect(ours.timeout).toBe(5);
    // A second install changes nothing.
    const again = await run(["hooks", "install", "claude", "--yes"], { env: h.env });
    expect(again.stdout).toMatch(/already installed/);
    const status = parseJsonDocument((await run(["hooks", "status", "--json"], { env: h.env })).stdout) as { hooks: { agent: string; state: string }[] };
    expect(status.hooks.map((s) => `${s.agent} ${s.state}`)).toEqual(["opencode absent", "claude installed"]);
    const removed = await run(["hooks", "uninstall", "claude", "--yes"], { env: h.env });
    expect(removed.status, removed.stderr).toBe(0);
    expect(fs.readFileSync(h.settings, "utf8")).toBe(USER_SETTINGS);
  });

  it("settings.json changed after the install: uninstall takes out recover's hook only, the user's change stays", async () => {
    const h = home();
    expect((await run(["hooks", "install", "claude", "--yes"], { env: h.env })).status).toBe(0);
    const withHook = JSON.parse(fs.readFileSync(h.settings, "utf8")) as Record<string, unknown>;
    fs.writeFileSync(h.settings, `${JSON.stringify({ ...withHook, theme: "dark" }, null, 2)}\n`);
    const status = parseJsonDocument((await run(["hooks", "status", "claude", "--json"], { env: h.env })).stdout) as { hooks: { state: string }[] };
    expect(status.hooks[0]!.state).toBe("changed");
    expect((await run(["hooks", "uninstall", "claude", "--yes"], { env: h.env })).status).toBe(0);
    expect(JSON.parse(fs.readFileSync(h.settings, "utf8"))).toEqual({ theme: "dark" });
  });

  it("no settings.json before: install creates it (and its folder), uninstall leaves the home as it was", async () => {
    const h = home();
    const before = snapshot(h.root);
    expect((await run(["hooks", "install", "claude", "--yes"], { env: h.env })).status).toBe(0);
    expect(fs.existsSync(h.settings)).toBe(true);
    expect((await run(["hooks", "uninstall", "claude", "--yes"], { env: h.env })).status).toBe(0);
    const after = new Map(
      [...snapshot(h.root)].filter(([file]) => !file.startsWith(path.join(h.root, "state")) && !file.startsWith(path.join(h.root, ".cache"))),
    );
    expectSameBytes(after, before);
    expect(fs.existsSync(path.dirname(h.settings))).toBe(false);
  });

  it("a settings.json that is not JSON is refused, one line, nothing written", async () => {
    const h = home();
    fs.mkdirSync(path.dirname(h.settings), { recursive: true });
    fs.writeFileSync(h.settings, "{ not json");
    const r = await run(["hooks", "install", "claude", "--yes"], { env: h.env });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/settings\.json is not JSON .*recover writes only what it can read/);
    expect(fs.readFileSync(h.settings, "utf8")).toBe("{ not json");
  });

  it("the hook's command, as Claude Code runs it with the StopFailure input, records the refusal; session resume --last takes that session", async () => {
    const h = home();
    expect((await run(["hooks", "install", "claude", "--yes"], { env: h.env })).status).toBe(0);
    const command = (JSON.parse(fs.readFileSync(h.settings, "utf8")) as { hooks: { StopFailure: { hooks: { command: string }[] }[] } }).hooks.StopFailure[0]!
      .hooks[0]!.command;
    // Two sessions; the older one is the one the provider refused.
    const project = path.join(h.env.CLAUDE_CONFIG_DIR, "projects", "-work");
    fs.mkdirSync(project, { recursive: true });
    const line = (id: string, uuid: string, text: string, at: string) =>
      `${JSON.stringify({ type: "user", uuid, parentUuid: null, sessionId: id, cwd: h.root, timestamp: at, message: { role: "user", content: text } })}\n`;
    const refused = "11111111-1111-4111-8111-111111111111";
    const newer = "22222222-2222-4222-8222-222222222222";
    fs.writeFileSync(path.join(project, `${refused}.jsonl`), line(refused, "u1", "first", "2026-11-20T10:00:00.000Z"));
    fs.writeFileSync(path.join(project, `${newer}.jsonl`), line(newer, "u2", "second", "2026-11-21T10:00:00.000Z"));
    const input = JSON.stringify({
      session_id: refused,
      transcript_path: path.join(project, `${refused}.jsonl`),
      cwd: h.root,
      hook_event_name: "StopFailure",
      error: "unknown",
      last_assistant_message: "API Error: 400 messages.1: something is wrong",
    });
    const { spawnSync } = await import("node:child_process");
    const hook = spawnSync("sh", ["-c", command], { input, encoding: "utf8", env: { ...process.env, ...h.env } });
    expect(hook.status, hook.stderr).toBe(0);
    const printed = await run(["session", "resume", "--last", "--print", "--yes"], { env: h.env });
    expect(printed.status, printed.stderr).toBe(0);
    expect(printed.stderr).toContain(`the last refusal a hook recorded: session ${refused}`);
    expect(printed.stdout.trim().split("\n").at(-1)).toBe(`cd ${h.root} && claude --resume ${refused}`);
    // Input that is not the hook's: nothing recorded, and the agent's turn is not failed (exit 0).
    const junk = spawnSync("sh", ["-c", command], { input: "not json", encoding: "utf8", env: { ...process.env, ...h.env } });
    expect(junk.status).toBe(0);
    expect(junk.stderr).toMatch(/not JSON; nothing recorded/);
  });
});

describe("recover hooks (opencode)", () => {
  let holders: Holder[] = [];
  afterEach(async () => {
    await Promise.all(holders.map((h) => h.stop()));
    holders = [];
  });

  it("install writes the plugin into opencode's config folder (a module running this recover); uninstall leaves the home as it was", async () => {
    const h = home();
    const before = snapshot(h.root);
    const installed = await run(["hooks", "install", "opencode", "--yes"], { env: h.env });
    expect(installed.status, installed.stderr).toBe(0);
    const plugin = fs.readFileSync(h.plugin, "utf8");
    expect(plugin).toContain(HOOK_MARKER);
    expect(plugin).toContain(JSON.stringify(process.execPath));
    expect(plugin).toContain(JSON.stringify(path.resolve("bin/recover")));
    expect(plugin).toMatch(/"--agent-pid", String\(process\.pid\)/);
    expect(plugin).toMatch(/^export const RecoverRepair = async/m);
    expect((await run(["hooks", "uninstall", "opencode", "--yes"], { env: h.env })).status).toBe(0);
    const after = new Map(
      [...snapshot(h.root)].filter(([file]) => !file.startsWith(path.join(h.root, "state")) && !file.startsWith(path.join(h.root, ".cache"))),
    );
    expectSameBytes(after, before);
    expect(fs.existsSync(h.env.XDG_CONFIG_HOME)).toBe(false);
  });

  it("--agent-pid: the agent asking holds the store open and is let through; any other process holding it still refuses", async () => {
    const sb = sandbox();
    const store = writeDefectStore("opencode-sqlite");
    const agent = await holdOpen(store.readPath);
    holders.push(agent);
    await expectFailure(
      sb,
      ["session", "repair", store.brokenId, "--yes", "--store", store.store],
      3,
      "live-writer",
      new RegExp(`\\(pid ${agent.pid}\\) has .*opencode\\.db open`),
    );
    const other = await holdOpen(store.readPath);
    holders.push(other);
    await expectFailure(
      sb,
      ["session", "repair", store.brokenId, "--yes", "--agent-pid", String(agent.pid), "--store", store.store],
      3,
      "live-writer",
      new RegExp(`\\(pid ${other.pid}\\) has`),
    );
    await other.stop();
    const asked = await sb.run(["session", "repair", store.brokenId, "--yes", "--agent-pid", String(agent.pid), "--store", store.store]);
    expect(asked.status, asked.stderr).toBe(0);
    const bad = await sb.run(["session", "repair", store.brokenId, "--yes", "--agent-pid", "x1", "--store", store.store]);
    expect(bad.status).toBe(2);
  });
});
