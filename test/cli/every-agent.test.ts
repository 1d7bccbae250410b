// Every agent, found by default (issue 37): a HOME holding the five agents' stores (copies of the demo stores), and
// no --store or --format. One list, one scan, a bare id or --last reaching the session in whichever store holds it.
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { expectOneLineError, parseJsonDocument, paste, run, tempDir } from "./run.js";

const DEMO = path.resolve("fixtures/demo");

/** A HOME with the demo stores where each agent keeps its own (`only`: just these agents). */
function homeWith(only?: string[]): { home: string; env: Record<string, string> } {
  const home = tempDir();
  const places: Record<string, string> = {
    opencode: ".local/share/opencode",
    claude: ".claude",
    codex: ".codex",
    gemini: ".gemini",
    openclaw: ".openclaw",
  };
  for (const [agent, place] of Object.entries(places)) {
    if (only && !only.includes(agent)) continue;
    fs.mkdirSync(path.dirname(path.join(home, place)), { recursive: true });
    fs.cpSync(path.join(DEMO, agent), path.join(home, place), { recursive: true });
  }
  // Nothing of the run's own machine: every default place is under this HOME.
  return {
    home,
    env: {
      HOME: home,
      XDG_DATA_HOME: "",
      XDG_STATE_HOME: path.join(home, ".state"),
      CLAUDE_CONFIG_DIR: "",
      OPENCLAW_STATE_DIR: "",
      CODEX_HOME: "",
      GEMINI_CLI_HOME: "",
      OPENCODE_DB: "",
    },
  };
}

type Listed = { id: string; agent: string; format: string; store: string; updated: string };

describe("with every agent's store in its default place", () => {
  let env: Record<string, string>;
  let home: string;
  beforeAll(() => ({ home, env } = homeWith()));

  it("session list shows them all, newest first, each with its agent, format and store; --agent narrows it", async () => {
    const r = await run(["session", "list", "--json"], { env });
    expect(r.status, r.stderr).toBe(0);
    const doc = parseJsonDocument(r.stdout) as { stores: { agent: string; path: string }[]; sessions: Listed[] };
    expect(doc.stores.map((s) => s.agent)).toEqual(["opencode", "claude", "openclaw", "codex", "gemini"]);
    expect(new Set(doc.sessions.map((s) => s.agent))).toEqual(new Set(["opencode", "claude", "openclaw", "codex", "gemini"]));
    const updated = doc.sessions.map((s) => Date.parse(s.updated));
    expect([...updated].sort((a, b) => b - a)).toEqual(updated);
    const claude = doc.sessions.find((s) => s.agent === "claude")!;
    expect(claude).toMatchObject({ format: "claude", store: path.join(home, ".claude") });
    const table = await run(["session", "list"], { env });
    expect(table.stdout.split("\n")[0]).toMatch(/^ID\s+AGENT\s+TITLE/);
    const two = parseJsonDocument((await run(["session", "list", "--json", "--agent", "codex", "--agent", "gemini"], { env })).stdout) as {
      sessions: Listed[];
    };
    expect(new Set(two.sessions.map((s) => s.agent))).toEqual(new Set(["codex", "gemini"]));
    expectOneLineError(
      await run(["session", "list", "--agent", "cursor"], { env }),
      /unknown --agent "cursor" \(expected one of: opencode, claude, openclaw, codex, gemini\)/,
    );
  });

  it("session scan --all reads every store into one report with one exit code", async () => {
    const r = await run(["session", "scan", "--all", "--json"], { env });
    expect(r.status, r.stderr).toBe(1);
    const doc = parseJsonDocument(r.stdout) as { stores: { agent: string }[]; sessions: { agent: string; store: string }[]; summary: { sessions: number } };
    expect(doc.stores).toHaveLength(5);
    expect(doc.summary.sessions).toBe(doc.sessions.length);
    expect(new Set(doc.sessions.map((s) => s.agent)).size).toBe(5);
  });

  it("a bare id reaches the session in whichever store holds it, and every printed command pastes back to it", async () => {
    const id = "49f222e2";
    const r = await run(["session", "scan", id], { env });
    expect(r.status, r.stderr).toBe(1);
    // The repair it suggests names the store it is in.
    expect(r.stdout).toContain(`--store ${path.join(home, ".claude")}`);
    // Pasted as printed, it reaches that session (a dry run, so the demo copy stays as it is).
    const printed = /^ {2}→ (.+ session repair \S+ --store \S+)$/m.exec(r.stdout)?.[1];
    expect(printed, r.stdout).toBeDefined();
    const pasted = paste(`${printed} --dry-run --json`, { env });
    expect(pasted.status, pasted.stderr).toBe(1);
    expect((parseJsonDocument(pasted.stdout) as { sessions: { id: string }[] }).sessions.map((s) => s.id)).toEqual(["49f222e2-5335-4906-bd25-0b1539855e0e"]);
    const dry = await run(["session", "repair", id, "--dry-run", "--json"], { env });
    expect(dry.status, dry.stderr).toBe(1);
    expect((parseJsonDocument(dry.stdout) as { store: { path: string } }).store.path).toBe(path.join(home, ".claude"));
  });

  it("for each agent: a bare id of a damaged session plans its repair, and the command the scan prints pastes back to it", async () => {
    const scan = parseJsonDocument((await run(["session", "scan", "--all", "--json"], { env })).stdout) as {
      sessions: { id: string; agent: string; findings: { severity: string; fixable: boolean }[] }[];
    };
    for (const agent of ["opencode", "claude", "openclaw", "codex", "gemini"]) {
      const damaged = scan.sessions.find((s) => s.agent === agent && s.findings.some((f) => f.severity === "error" && f.fixable));
      expect(damaged, agent).toBeDefined();
      const dry = await run(["session", "repair", damaged!.id, "--dry-run", "--json", "--force"], { env });
      expect(dry.status, `${agent} ${dry.stderr}`).toBe(1);
      expect((parseJsonDocument(dry.stdout) as { sessions: { changes: unknown[] }[] }).sessions[0]!.changes.length, agent).toBeGreaterThan(0);
      const human = await run(["session", "scan", damaged!.id], { env });
      const printed = /^ {2}→ (.+ session repair \S+ --store .+)$/m.exec(human.stdout)?.[1];
      expect(printed, `${agent}: ${human.stdout}`).toBeDefined();
      const pasted = paste(`${printed} --dry-run --force`, { env: { ...env, HOME: tempDir() } });
      expect(pasted.status, `${agent}: ${printed}\n${pasted.stderr}`).toBe(1);
    }
  });

  it("--last is the most recently updated session of any agent, or of the agents --agent names", async () => {
    const listed = (parseJsonDocument((await run(["session", "list", "--json"], { env })).stdout) as { sessions: Listed[] }).sessions;
    const newest = (agent?: string) => listed.find((s) => agent === undefined || s.agent === agent)!.id;
    const last = parseJsonDocument((await run(["session", "scan", "--last", "--json", "--exit-zero"], { env })).stdout) as { sessions: { id: string }[] };
    expect(last.sessions.map((s) => s.id)).toEqual([newest()]);
    const claude = parseJsonDocument((await run(["session", "scan", "--last", "--agent", "claude", "--json", "--exit-zero"], { env })).stdout) as {
      sessions: { id: string }[];
    };
    expect(claude.sessions.map((s) => s.id)).toEqual([newest("claude")]);
  });

  it("an id in two stores is a usage error naming both; one in none says where it looked", async () => {
    const both = await run(["session", "scan", "70"], { env });
    expect(both.status).toBe(2);
    expectOneLineError(both, /session 70 is in 2 stores; pick one with --store: openclaw \(.*\.openclaw\): .*; gemini \(.*\.gemini\): /);
    const none = await run(["session", "scan", "zzz"], { env });
    expect(none.status).toBe(2);
    expectOneLineError(none, /no session zzz in any agent's store \(read opencode .*, claude .*, openclaw .*, codex .*, gemini .*\)/);
  });
});

describe("recover store list", () => {
  it("says what was found where: agent, format, path, sessions, newest update; and where each absent one was looked for", async () => {
    const all = homeWith();
    const r = await run(["store", "list", "--json"], { env: all.env });
    expect(r.status, r.stderr).toBe(0);
    const doc = parseJsonDocument(r.stdout) as {
      stores: { agent: string; format: string; path: string; sessions: number; updated: string }[];
      absent: string[];
    };
    expect(doc.stores.map((s) => `${s.agent} ${s.format}`)).toEqual([
      "opencode opencode-sqlite",
      "claude claude",
      "openclaw openclaw",
      "codex codex",
      "gemini gemini",
    ]);
    for (const s of doc.stores) {
      expect(s.sessions, s.agent).toBeGreaterThan(0);
      expect(Date.parse(s.updated), s.agent).toBeGreaterThan(0);
    }
    expect(doc.absent).toEqual([]);
    const one = homeWith(["claude"]);
    const table = await run(["store", "list"], { env: one.env });
    expect(table.status, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^AGENT\s+FORMAT\s+CLIENT\s+SESSIONS\s+UPDATED \(UTC\)\s+PATH\nclaude\s+claude\s+2\.1\.90\s+5\s/);
    expect(table.stdout.match(/^not found: (\w+):/gm)).toEqual(["not found: opencode:", "not found: openclaw:", "not found: codex:", "not found: gemini:"]);
  });

  it("--json: each store's client, the version that wrote its newest session against the one recover was checked with", async () => {
    const r = await run(["store", "list", "--json"], { env: homeWith().env });
    expect(r.status, r.stderr).toBe(0);
    const doc = parseJsonDocument(r.stdout) as { stores: { agent: string; client: unknown }[] };
    expect(Object.fromEntries(doc.stores.map((s) => [s.agent, s.client]))).toEqual({
      opencode: { version: "1.18.31", checked: "1.18.33", status: "older" },
      claude: { version: "2.1.90", checked: "2.1.332", status: "older" },
      // openclaw and Gemini CLI record no client version.
      openclaw: { version: null, checked: "2026.9.6", status: "unknown" },
      codex: { version: "0.169.0", checked: "0.171.0", status: "older" },
      gemini: { version: null, checked: "0.61.0", status: "unknown" },
    });
  });

  /** Only Claude Code's store, every transcript's records stamped `version` (its bytes kept otherwise). */
  function claudeWrittenBy(version: string): Record<string, string> {
    const { env, home } = homeWith(["claude"]);
    const projects = path.join(home, ".claude", "projects");
    for (const rel of fs.readdirSync(projects, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".jsonl"))) {
      const file = path.join(projects, rel);
      fs.writeFileSync(file, fs.readFileSync(file, "latin1").replaceAll('"version":"2.1.90"', `"version":"${version}"`), "latin1");
    }
    return env;
  }

  it("a newest session written by a newer client than recover was checked with: its version, and one note that it is not yet checked", async () => {
    const env = claudeWrittenBy("2.1.999");
    const table = await run(["store", "list"], { env });
    expect(table.status, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^claude\s+claude\s+2\.1\.999\s+5\s/m);
    expect(table.stdout.match(/^note: .*$/gm)).toEqual([
      "note: claude: newest session written by Claude Code 2.1.999, newer than recover was checked with (2.1.332): not yet checked",
    ]);
    const doc = parseJsonDocument((await run(["store", "list", "--json"], { env })).stdout) as { stores: { client: unknown }[] };
    expect(doc.stores[0]!.client).toEqual({ version: "2.1.999", checked: "2.1.332", status: "not yet checked" });
  });

  it("one written by the client recover was checked with: its version, and no note", async () => {
    const env = claudeWrittenBy("2.1.332");
    const table = await run(["store", "list"], { env });
    expect(table.status, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^claude\s+claude\s+2\.1\.332\s+5\s/m);
    expect(table.stdout).not.toMatch(/^note:/m);
    const doc = parseJsonDocument((await run(["store", "list", "--json"], { env })).stdout) as { stores: { client: unknown }[] };
    expect(doc.stores[0]!.client).toEqual({ version: "2.1.332", checked: "2.1.332", status: "checked" });
  });
});

describe("with only Claude Code", () => {
  it("the first commands a new user types work without --store or --format", async () => {
    const { env, home } = homeWith(["claude"]);
    const list = await run(["session", "list", "--json"], { env });
    expect(list.status, list.stderr).toBe(0);
    const doc = parseJsonDocument(list.stdout) as { store: { path: string }; sessions: Listed[] };
    expect(doc.store.path).toBe(path.join(home, ".claude"));
    expect(doc.sessions.every((s) => s.agent === "claude")).toBe(true);
    const scan = await run(["session", "scan", "--json"], { env });
    expect([0, 1]).toContain(scan.status);
    const repair = await run(["session", "repair", "49f222e2-5335-4906-bd25-0b1539855e0e", "--dry-run"], { env });
    expect(repair.status, repair.stderr).toBe(1);
  });

  it("a store that is there but cannot be read is one note, not the end of the run", async () => {
    const { env, home } = homeWith(["claude"]);
    fs.mkdirSync(path.join(home, ".local/share/opencode"), { recursive: true });
    fs.writeFileSync(path.join(home, ".local/share/opencode/opencode.db"), Buffer.alloc(4096, 7));
    const r = await run(["session", "list"], { env });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr.trimEnd().split("\n")).toEqual([expect.stringMatching(/^note: opencode: .*opencode\.db is not a SQLite database$/)]);
    expect(r.stdout).toMatch(/\bclaude\b/);
    const stores = parseJsonDocument((await run(["store", "list", "--json"], { env })).stdout) as { unreadable: string[] };
    expect(stores.unreadable).toEqual([expect.stringMatching(/^opencode: .*is not a SQLite database$/)]);
  });

  it("with no agent's store at all: one line that says where it looked (exit 2)", async () => {
    const home = tempDir();
    const r = await run(["session", "list"], {
      env: { HOME: home, XDG_DATA_HOME: "", CLAUDE_CONFIG_DIR: "", OPENCLAW_STATE_DIR: "", CODEX_HOME: "", GEMINI_CLI_HOME: "", OPENCODE_DB: "" },
    });
    expect(r.status).toBe(2);
    expectOneLineError(r, /no agent's store found \(opencode: no opencode store found \(looked in .*\); claude: .*\); pass --store <path>/);
  });
});
