// What adding a store takes: a format invented here ("toyagent"), written as the one folder a new store is (its
// store and its adapter, below), registered only in this test, and then found, opened, scanned and repaired (dry
// run) on real files through the code the CLI runs: the registry, discovery, what-is-here, `--format`, the scan
// and repair commands in-process. Nothing in src/ names toyagent.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RecoverError } from "../../src/errors.js";
import type { LoadMode, SessionSummary } from "../../src/model/opencode-records.js";
import type { TranscriptRecords } from "../../src/model/transcript.js";
import { main } from "../../src/cli/main.js";
import type { StoreAdapter } from "../../src/stores/adapter.js";
import { openStore } from "../../src/stores/discover.js";
import { registerStore, storeAdapters, storeFormats } from "../../src/stores/registry.js";
import type { RecordCodec, SessionStore, StoreInfo, StoreWriter } from "../../src/stores/store.js";
import { assembleTranscript } from "../../src/stores/transcript/assemble.js";
import { TranscriptWriter } from "../../src/stores/transcript/transcript-writer.js";
import { transcriptFixing } from "../../src/stores/transcript/working.js";
import { whatIsAt } from "../../src/stores/what-is-here.js";
import { ClaudeTranscript, SECOND } from "../support/transcript-fixtures.js";

// ---------------------------------------------------------------------------------------------------------------
// src/stores/toyagent/ — as it would be written. toyagent is a Claude Code fork: it writes Claude Code's lines,
// but keeps its own layout, `<home>/toyagent.json` and one chat per file in `<home>/chats/<id>.toy`, and finds its
// home through TOYAGENT_HOME (else ~/.toyagent).
// ---------------------------------------------------------------------------------------------------------------

/** A chat line is its record as compact JSON. */
const toyCodec: RecordCodec = {
  encode: (stored) => Buffer.from(JSON.stringify(stored)),
  stored: (_ids, data) => data,
  partPath: () => undefined,
};

class ToyagentStore implements SessionStore {
  readonly info: StoreInfo;
  readonly codec = toyCodec;
  /** Its chats are JSONL transcripts, so the planner works on its lines as on any transcript's. */
  readonly fixing = transcriptFixing;

  constructor(home: string) {
    this.info = { format: "toyagent", path: home, notices: [] };
  }

  private chats(): Map<string, string> {
    const dir = path.join(this.info.path, "chats");
    const names = fs.existsSync(dir) ? fs.readdirSync(dir).filter((name) => name.endsWith(".toy")) : [];
    return new Map(names.sort().map((name) => [path.basename(name, ".toy"), path.join(dir, name)]));
  }

  listSessions(): SessionSummary[] {
    return [...this.chats().keys()].map((id) => this.loadSession(id, "lean").summary).sort((a, b) => b.updated - a.updated);
  }

  listStraySessionIds(): string[] {
    return [];
  }

  loadSession(id: string, mode: LoadMode): TranscriptRecords {
    const file = this.chats().get(id);
    if (file === undefined) throw new RecoverError("session-not-found", `no session ${id} in this store`);
    return assembleTranscript(fs.readFileSync(file), { path: file, sessionId: id, dialect: "claude", mtime: fs.statSync(file).mtimeMs }, mode === "full");
  }

  openWriter(): StoreWriter {
    return new TranscriptWriter(this.info, []);
  }

  close(): void {}
}

const HOME_DESCRIPTION = "a toyagent home (toyagent.json)";

const toyagentAdapter: StoreAdapter = {
  agent: "toyagent",
  format: "toyagent",
  noun: "a toyagent store",
  expects: "a toyagent home holding toyagent.json",
  signs: { folder: ["toyagent.json"] },
  detect: (probe) => (probe.kind === "folder" && probe.entries.includes("toyagent.json") ? HOME_DESCRIPTION : undefined),
  claim: (target, here) => (here.formats.includes("toyagent") ? new ToyagentStore(target) : undefined),
  open: ({ target }) => new ToyagentStore(target),
  locate: (env) => env.TOYAGENT_HOME ?? path.join(env.HOME ?? os.homedir(), ".toyagent"),
  resumeArgv: (id) => ["toyagent", "--resume", id],
  capabilities: { writesBesideStore: false },
};

// ---------------------------------------------------------------------------------------------------------------
// The test: the one registry line is this registration.
// ---------------------------------------------------------------------------------------------------------------

const START = Date.UTC(2026, 1, 2, 8, 0, 0);
const dirs: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "recover-toyagent-"));
  dirs.push(dir);
  return dir;
}

/** A toyagent home with two chats: one whole, one whose tool call never got its result (the agent was killed). */
function toyagentHome(): { home: string; whole: string; interrupted: string; interruptedFile: string } {
  const home = tempDir();
  fs.writeFileSync(path.join(home, "toyagent.json"), `${JSON.stringify({ toyagent: 1 })}\n`);
  fs.mkdirSync(path.join(home, "chats"));

  const whole = new ClaudeTranscript({ seed: 31, start: START, cwd: "/home/dana/code/toy" });
  whole.user("Say hello");
  whole.assistant([{ type: "text", text: "Hello." }]);
  fs.writeFileSync(path.join(home, "chats", `${whole.sessionId}.toy`), whole.toBuffer());

  const cut = new ClaudeTranscript({ seed: 32, start: START + 60 * SECOND, cwd: "/home/dana/code/toy" });
  cut.user("List the files");
  cut.assistant([{ type: "tool_use", id: cut.toolUseId(), name: "Bash", input: { command: "ls" } }]);
  cut.user("Are you still there?");
  const interruptedFile = path.join(home, "chats", `${cut.sessionId}.toy`);
  fs.writeFileSync(interruptedFile, cut.toBuffer());
  return { home, whole: whole.sessionId, interrupted: cut.sessionId, interruptedFile };
}

/** `recover <args>` run in-process through main(), as bin/recover runs it, with stdout and stderr captured. */
async function recover(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await main(["node", "recover", ...args], {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: { ...process.env, NO_COLOR: "1", CI: "1" },
    cwd: process.cwd(),
    isTTY: { stdin: false, stdout: false, stderr: false },
  });
  return { code, stdout, stderr };
}

let unregister: () => void;
beforeAll(() => {
  unregister = registerStore(toyagentAdapter);
});
afterAll(() => {
  unregister();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe("a store format registered only here takes part in everything the registry feeds", () => {
  it("is a --format choice, and an unknown format's message lists it", async () => {
    expect(storeFormats()).toEqual(["opencode-sqlite", "opencode-json", "claude", "openclaw-sqlite", "openclaw", "codex", "gemini", "toyagent"]);
    expect((await recover(["--help"])).stdout).toMatch(/--format <name>[\s\S]*"toyagent"/);
    expect(() => openStore({ format: "toyagent-2" })).toThrow(
      /expected one of: opencode-sqlite, opencode-json, claude, openclaw-sqlite, openclaw, codex, gemini, toyagent\)/,
    );
  });

  it("what-is-here recognises its layout, and names its sign when a folder holds nothing known", () => {
    const { home } = toyagentHome();
    expect(whatIsAt(home, storeAdapters())).toEqual({ description: HOME_DESCRIPTION, formats: ["toyagent"] });
    const other = tempDir();
    fs.writeFileSync(path.join(other, "notes.txt"), "hello\n");
    expect(whatIsAt(other, storeAdapters()).description).toBe(
      "a folder holding no store recover knows (no opencode.db, storage/, projects/, agents/, sessions/, tmp/, .jsonl or toyagent.json)",
    );
  });

  it("is discovered from --store, from its default location, and a forced --format is checked against the disk", () => {
    const { home, whole, interrupted } = toyagentHome();
    const found = openStore({ store: home });
    expect(found.info).toEqual({ format: "toyagent", path: home, notices: [] });
    expect(
      found
        .listSessions()
        .map((s) => s.id)
        .sort(),
    ).toEqual([whole, interrupted].sort());

    const located = openStore({ format: "toyagent", env: { TOYAGENT_HOME: home } });
    expect(located.info.path).toBe(home);

    const claude = tempDir();
    fs.mkdirSync(path.join(claude, "projects"));
    let refused: unknown;
    try {
      openStore({ store: claude, format: "toyagent" });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(RecoverError);
    expect((refused as RecoverError).message).toBe(
      `--format toyagent: ${claude} is a Claude Code config dir (projects/), not a toyagent store (expected a toyagent home holding toyagent.json)`,
    );
    // And the built-in formats do not take it for theirs.
    expect(() => openStore({ store: home, format: "claude" })).toThrow(/is a toyagent home \(toyagent\.json\), not a Claude Code store/);
  });

  it("recover session list and scan read it through the CLI", async () => {
    const { home, whole, interrupted } = toyagentHome();
    const list = await recover(["session", "list", "--store", home, "--json"]);
    expect(list.code).toBe(0);
    const listed = JSON.parse(list.stdout) as { store: StoreInfo; sessions: { id: string }[] };
    expect(listed.store.format).toBe("toyagent");
    expect(listed.sessions.map((s) => s.id).sort()).toEqual([whole, interrupted].sort());

    const scan = await recover(["session", "scan", "--all", "--store", home, "--json"]);
    expect(scan.code).toBe(1);
    const scanned = JSON.parse(scan.stdout) as { sessions: { id: string; findings: { rule: string }[] }[] };
    const rules = (id: string) => scanned.sessions.find((s) => s.id === id)?.findings.map((f) => f.rule) ?? [];
    expect(rules(interrupted)).toEqual(["tool-result-missing"]);
    expect(rules(whole)).toEqual([]);
  });

  it("recover session repair --dry-run plans the fix on its file and writes nothing", async () => {
    const { home, interrupted, interruptedFile } = toyagentHome();
    const before = fs.readFileSync(interruptedFile);
    const dry = await recover(["session", "repair", interrupted, "--store", home, "--dry-run", "--json"]);
    expect(dry.code).toBe(1);
    type Change = { op: string; record: string; rules: string[] };
    const report = JSON.parse(dry.stdout) as { store: StoreInfo; dryRun: boolean; sessions: { id: string; changes: Change[] }[] };
    expect(report.store.format).toBe("toyagent");
    expect(report.dryRun).toBe(true);
    expect(report.sessions.map((s) => s.id)).toEqual([interrupted]);
    // The missing result goes in after the call; the next line's parent moves to it.
    expect(report.sessions[0]!.changes.map((c) => [c.op, c.record, c.rules])).toEqual([
      ["insert", "line", ["tool-result-missing"]],
      ["update", "line", ["tool-result-missing"]],
    ]);
    expect(fs.readFileSync(interruptedFile).equals(before)).toBe(true);
  });

  it("recover session repair writes through its writer, backs up, and --resume prints its agent's command", async () => {
    const { home, interrupted, interruptedFile } = toyagentHome();
    // Written an hour ago, so the guard against racing a live agent (60 s) lets the repair through.
    const anHourAgo = new Date(Date.now() - 3600 * SECOND);
    fs.utimesSync(interruptedFile, anHourAgo, anHourAgo);
    const lines = (text: string) => text.split("\n").filter(Boolean).length;
    const linesBefore = lines(fs.readFileSync(interruptedFile, "utf8"));
    const backups = tempDir();
    const repair = await recover(["session", "repair", interrupted, "--store", home, "--backup-dir", backups, "--yes", "--resume", "--json"]);
    expect(repair.code, repair.stderr).toBe(0);
    const report = JSON.parse(repair.stdout) as { backup: { id: string } | null; resume?: string[] };
    expect(report.backup).not.toBeNull();
    expect(report.resume).toEqual([`toyagent --resume ${interrupted}`]);
    expect(lines(fs.readFileSync(interruptedFile, "utf8"))).toBe(linesBefore + 1);

    const rescan = await recover(["session", "scan", interrupted, "--store", home, "--json"]);
    expect(rescan.code, rescan.stdout).toBe(0);
  });
});
