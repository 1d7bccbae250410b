// `recover session scan|repair|restore` on Claude Code and openclaw transcripts, run as a user runs them: the built
// CLI (npm run build first) on copies of the demo stores and on generated ones, every run with its own
// XDG_STATE_HOME. Scans find exactly what the demo planted; a repair rewrites only the lines its plan names (every
// other line byte for byte, in order, file mode kept), a second repair has nothing to do, and a restore gives the
// original file back byte for byte. Dry runs and refusals write nothing.
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/stores/discover.js";
import { ClaudeTranscript, OpenclawTranscript } from "../support/transcript-fixtures.js";
import { BACKUP_ID, changeDoc, deadPid, modeOf, sandbox, type ChangeDoc } from "./repair-support.js";
import { expectJsonError, expectNoStack, expectOneLineError, parseJsonDocument, tempDir } from "./run.js";

type Dialect = "claude" | "openclaw";

interface Expected {
  format: Dialect;
  sessionId: string;
  sessionKey?: string;
  path: string;
  expect: { rule: string; line: number }[];
}

const DEMO = path.resolve("fixtures/demo");
const EXPECTED = JSON.parse(fs.readFileSync(path.join(DEMO, "expected-transcripts.json"), "utf8")) as Expected[];
const DIALECTS: Dialect[] = ["claude", "openclaw"];

interface ScanDoc {
  sessions: { id: string; findings: { rule: string; severity: string; line?: number; path?: string }[] }[];
  summary: { sessions: number; findings: number; errors: number; warnings: number };
}

const HOUR = 60 * 60 * 1000;

/** Gives a file the time an agent that stopped an hour ago left on it (a file written just now is refused). */
function age(file: string, ms = HOUR): void {
  const then = new Date(Date.now() - ms);
  fs.utimesSync(file, then, then);
}

/** A copy of a demo store in a fresh temp dir, its transcripts last written an hour ago. */
function demoCopy(dialect: Dialect): string {
  const dir = path.join(tempDir(), dialect);
  fs.cpSync(path.join(DEMO, dialect), dir, { recursive: true });
  for (const file of jsonlFiles(dir)) age(file);
  return dir;
}

function jsonlFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".jsonl")) out.push(p);
    }
  };
  walk(dir);
  return out.sort();
}

/** Every file under dir: bytes, mode, mtime. */
function fileStates(dir: string): Map<string, { bytes: Buffer; mode: number; mtimeMs: number }> {
  const out = new Map<string, { bytes: Buffer; mode: number; mtimeMs: number }>();
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else {
        const st = fs.statSync(p);
        out.set(p, { bytes: fs.readFileSync(p), mode: st.mode & 0o7777, mtimeMs: st.mtimeMs });
      }
    }
  };
  walk(dir);
  return out;
}

function splitRaw(bytes: Buffer): Buffer[] {
  const lines: Buffer[] = [];
  let start = 0;
  for (let i = bytes.indexOf(0x0a); i !== -1; i = bytes.indexOf(0x0a, start)) {
    lines.push(bytes.subarray(start, i));
    start = i + 1;
  }
  if (start < bytes.length) lines.push(bytes.subarray(start));
  return lines;
}

function isRecordLine(line: Buffer): boolean {
  try {
    const v: unknown = JSON.parse(line.toString("utf8"));
    return v !== null && typeof v === "object" && !Array.isArray(v);
  } catch {
    return false;
  }
}

/** The record id of each line as the store names lines (uuid / entry id, else line-<n>). */
function lineIds(file: string, sessionId: string): string[] {
  const store = openStore({ store: file });
  return (store.loadSession(sessionId, "lean") as unknown as { lines: { ref: { id: string } }[] }).lines.map((l) => l.ref.id);
}

/**
 * Every original line the repair did not name is in the new file byte for byte and in the same order; the new file
 * holds nothing else but one line per inserted or updated record (a deleted line is gone), and each of those
 * carries the id the plan named.
 */
function expectOnlyPlannedLinesChanged(
  before: Buffer,
  after: Buffer,
  ids: string[],
  changes: ChangeDoc["sessions"][number]["changes"],
  dialect: Dialect,
): void {
  const old = splitRaw(before);
  const now = splitRaw(after);
  expect(ids).toHaveLength(old.length);
  const named = new Set(changes.map((c) => c.id));
  for (const c of changes) expect(c.record, JSON.stringify(c)).toBe("line");
  const keep = old.filter((_, i) => !named.has(ids[i]!));
  // Greedy subsequence match, in order.
  const matched: boolean[] = now.map(() => false);
  let j = 0;
  for (const line of keep) {
    while (j < now.length && !now[j]!.equals(line)) j++;
    expect(j < now.length, `untouched line ${line.toString("utf8").slice(0, 120)} is still there, in order`).toBe(true);
    matched[j] = true;
    j++;
  }
  const written = changes.filter((c) => c.op !== "delete").length;
  expect(now.length).toBe(keep.length + written);
  const idField = dialect === "claude" ? "uuid" : "id";
  for (let i = 0; i < now.length; i++) {
    if (matched[i]) continue;
    const record = JSON.parse(now[i]!.toString("utf8")) as Record<string, unknown>;
    expect(named.has(String(record[idField])), `new line ${i + 1} (${String(record[idField])}) is one the plan named`).toBe(true);
  }
}

// ---------------------------------------------------------------------------------------------
// Scanning the demo stores
// ---------------------------------------------------------------------------------------------

describe.each(DIALECTS)("session scan --json on the %s demo store", (dialect) => {
  it("finds exactly the planted findings (rule + line per session); healthy sessions are clean", async () => {
    const sb = sandbox();
    const r = await sb.run(["session", "scan", "--all", "--json", "--store", path.join(DEMO, dialect)]);
    expectNoStack(r.stderr);
    expect(r.stderr).toBe("");
    expect(r.status, r.stdout).toBe(1);
    const doc = parseJsonDocument(r.stdout) as unknown as ScanDoc;
    const expected = EXPECTED.filter((e) => e.format === dialect);
    expect(doc.sessions.map((s) => s.id).sort()).toEqual(expected.map((e) => e.sessionId).sort());
    for (const e of expected) {
      const session = doc.sessions.find((s) => s.id === e.sessionId)!;
      const got = session.findings.map((f) => ({ rule: f.rule, line: f.line }));
      const sort = (xs: { rule: string; line?: number }[]) => [...xs].sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || a.rule.localeCompare(b.rule));
      expect(sort(got), e.sessionId).toEqual(sort(e.expect));
      for (const f of session.findings) expect(f.path).toBe(path.resolve(e.path));
    }
    expect(doc.summary.findings).toBe(expected.reduce((n, e) => n + e.expect.length, 0));
    expect(fs.existsSync(sb.backups)).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------
// Repair, again, restore on copies of the demo stores
// ---------------------------------------------------------------------------------------------

const LEFT_ALONE: Record<string, ReadonlySet<string>> = { claude: new Set(["orphan-tool-result"]) };

describe.each(DIALECTS)("session repair --all --yes on a copy of the %s demo store", (dialect) => {
  const sb = sandbox();
  let store: string;
  let original: Map<string, { bytes: Buffer; mode: number; mtimeMs: number }>;
  let ids: Map<string, string[]>;
  let doc: ChangeDoc;
  // What the client mends on every resume is reported but left alone (Claude Code: an orphan result, which it sends
  // as "(no content)"; issue 40): a session damaged only so is not changed.
  const damaged = EXPECTED.filter((e) => e.format === dialect && e.expect.some((x) => !LEFT_ALONE[dialect]?.has(x.rule)));

  beforeAll(async () => {
    store = demoCopy(dialect);
    for (const file of jsonlFiles(store)) {
      // Every readable line gets a trailing space: still the same record, but no longer what JSON.stringify writes,
      // so a line re-serialised instead of copied shows up as changed.
      const lines = splitRaw(fs.readFileSync(file)).map((l) => (isRecordLine(l) ? Buffer.concat([l, Buffer.from(" ")]) : l));
      fs.writeFileSync(file, Buffer.concat(lines.flatMap((l) => [l, Buffer.from("\n")])));
      // A mode the agent would not pick: the rewrite must keep whatever the file had.
      fs.chmodSync(file, 0o640);
      age(file);
    }
    original = fileStates(store);
    ids = new Map(jsonlFiles(store).map((f) => [f, lineIds(f, path.basename(f, ".jsonl"))]));
    const r = await sb.run(["session", "repair", "--all", "--yes", "--json", "--store", store]);
    expectNoStack(r.stderr);
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
    doc = changeDoc(r);
  });

  it("repairs every damaged session with one backup, and scan finds no error afterwards", async () => {
    expect(doc.backup?.id).toMatch(BACKUP_ID);
    for (const file of jsonlFiles(store)) expect(original.get(file)!.bytes.includes(Buffer.from("} \n")), file).toBe(true);
    expect(
      doc.sessions
        .filter((s) => s.changes.length > 0)
        .map((s) => s.id)
        .sort(),
    ).toEqual(damaged.map((e) => e.sessionId).sort());
    const scan = await sb.run(["session", "scan", "--all", "--json", "--store", store]);
    const after = parseJsonDocument(scan.stdout) as unknown as ScanDoc;
    expect(after.summary.errors).toBe(0);
    expect(scan.status).toBe(0);
  });

  it("every line the plan did not name is byte-identical and in the same order; healthy files are untouched", () => {
    for (const file of jsonlFiles(store)) {
      const id = path.basename(file, ".jsonl");
      const before = original.get(file)!;
      const now = fs.readFileSync(file);
      const session = doc.sessions.find((s) => s.id === id);
      if (!session || session.changes.length === 0) {
        expect(now.equals(before.bytes), `${id} untouched`).toBe(true);
        continue;
      }
      expect(now.equals(before.bytes), `${id} changed`).toBe(false);
      expectOnlyPlannedLinesChanged(before.bytes, now, ids.get(file)!, session.changes, dialect);
    }
    // openclaw's index is never rewritten.
    for (const [file, state] of original) if (!file.endsWith(".jsonl")) expect(fs.readFileSync(file).equals(state.bytes), file).toBe(true);
  });

  it("keeps each rewritten file's mode and leaves no temp file", () => {
    for (const file of jsonlFiles(store)) expect(modeOf(file), file).toBe(0o640);
    const names = [...fileStates(store).keys()].map((p) => path.basename(p));
    expect(names.filter((n) => n.includes(".recover-tmp-"))).toEqual([]);
    expect(names.filter((n) => n.endsWith(".jsonl")).length).toBe(jsonlFiles(path.join(DEMO, dialect)).length);
  });

  it("a second repair has nothing to do: exit 0, no backup, nothing written", async () => {
    const before = fileStates(store);
    const r = await sb.run(["session", "repair", "--all", "--yes", "--store", store]);
    expectNoStack(r.stderr);
    expect(r.status, r.stdout).toBe(0);
    expect(r.stdout).toMatch(/nothing to repair/);
    const json = changeDoc(await sb.run(["session", "repair", "--all", "--yes", "--json", "--store", store]));
    expect(json.summary.changes).toBe(0);
    expect(json.backup).toBeNull();
    const after = fileStates(store);
    for (const [file, state] of before) {
      expect(after.get(file)!.bytes.equals(state.bytes), file).toBe(true);
      expect(after.get(file)!.mtimeMs, file).toBe(state.mtimeMs);
    }
  });

  it("session restore <backup-id> gives back every original file byte for byte, mode included", async () => {
    const r = await sb.run(["session", "restore", doc.backup!.id, "--yes", "--json"]);
    expectNoStack(r.stderr);
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
    const restored = fileStates(store);
    expect([...restored.keys()]).toEqual([...original.keys()]);
    for (const [file, state] of original) {
      expect(restored.get(file)!.bytes.equals(state.bytes), `${file} is back`).toBe(true);
      expect(restored.get(file)!.mode, file).toBe(state.mode);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Dry run, session keys, locks, bad ids and paths
// ---------------------------------------------------------------------------------------------

describe("session repair: dry runs and how a session is named", () => {
  it.each(DIALECTS)("--dry-run (%s) writes nothing (bytes and mtimes) and exits 1 when there is something to fix", async (dialect) => {
    const sb = sandbox();
    const store = demoCopy(dialect);
    const before = fileStates(store);
    const target = EXPECTED.find((e) => e.format === dialect && e.expect.length > 0)!;
    for (const json of [false, true]) {
      const r = await sb.run(["session", "repair", target.sessionId, "--dry-run", "--store", store, ...(json ? ["--json"] : [])]);
      expectNoStack(r.stderr);
      expect(r.status, r.stdout).toBe(1);
      if (json) {
        const doc = changeDoc(r);
        expect(doc.dryRun).toBe(true);
        expect(doc.backup).toBeNull();
        expect(doc.summary.changes).toBeGreaterThan(0);
      } else {
        expect(r.stdout).toMatch(/nothing was written/);
      }
    }
    const after = fileStates(store);
    expect([...after.keys()]).toEqual([...before.keys()]);
    for (const [file, state] of before) {
      expect(after.get(file)!.bytes.equals(state.bytes), file).toBe(true);
      expect(after.get(file)!.mtimeMs, file).toBe(state.mtimeMs);
    }
    expect(fs.existsSync(sb.backups)).toBe(false);
  });

  it("an openclaw session key works as the session id (scan and repair), from the state dir and from the sessions/ dir", async () => {
    const keyed = EXPECTED.find((e) => e.format === "openclaw" && e.sessionKey && e.expect.length > 0)!;
    const healthy = EXPECTED.find((e) => e.format === "openclaw" && e.sessionKey && e.expect.length === 0)!;
    const sb = sandbox();
    const store = demoCopy("openclaw");
    const healthyScan = await sb.run(["session", "scan", healthy.sessionKey!, "--json", "--store", store]);
    expect(healthyScan.status, healthyScan.stdout).toBe(0);
    expect((parseJsonDocument(healthyScan.stdout) as unknown as ScanDoc).sessions.map((s) => s.id)).toEqual([healthy.sessionId]);
    const sessionsDir = path.join(store, "agents", "main", "sessions");
    const scan = await sb.run(["session", "scan", keyed.sessionKey!, "--json", "--store", sessionsDir]);
    expect(scan.status).toBe(1);
    expect((parseJsonDocument(scan.stdout) as unknown as ScanDoc).sessions.map((s) => s.id)).toEqual([keyed.sessionId]);
    const r = await sb.run(["session", "repair", keyed.sessionKey!, "--yes", "--json", "--store", store]);
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
    const doc = changeDoc(r);
    expect(doc.sessions.map((s) => s.id)).toEqual([keyed.sessionId]);
    expect(doc.summary.changes).toBeGreaterThan(0);
    const other = EXPECTED.filter((e) => e.format === "openclaw" && e.sessionId !== keyed.sessionId);
    for (const e of other)
      expect(
        fs.readFileSync(path.join(store, path.relative("fixtures/demo/openclaw", e.path))).equals(fs.readFileSync(path.resolve(e.path))),
        e.sessionId,
      ).toBe(true);
  });

  it("trailing-assistant is fixed only when named: the default repair keeps the aborted turn, --rule trailing-assistant removes it", async () => {
    const cron = EXPECTED.find((e) => e.format === "openclaw" && e.expect.some((x) => x.rule === "trailing-assistant"))!;
    const turn = cron.expect.find((x) => x.rule === "trailing-assistant")!.line;
    const sb = sandbox();
    const store = demoCopy("openclaw");
    const file = path.join(store, path.relative("fixtures/demo/openclaw", cron.path));
    const lineCount = () => splitRaw(fs.readFileSync(file)).length;
    const lines = lineCount();
    expect(lines).toBe(turn);
    const first = await sb.run(["session", "repair", cron.sessionKey!, "--yes", "--json", "--store", store]);
    expect(first.status, first.stdout).toBe(0);
    expect(changeDoc(first).sessions[0]!.changes.map((c) => c.rules)).toEqual([["tool-result-missing"]]);
    expect(lineCount()).toBe(lines);
    const named = await sb.run(["session", "repair", cron.sessionKey!, "--rule", "trailing-assistant", "--yes", "--json", "--store", store]);
    expect(named.status, named.stdout).toBe(0);
    expect(changeDoc(named).sessions[0]!.changes.map((c) => [c.op, c.rules])).toEqual([["delete", ["trailing-assistant"]]]);
    expect(lineCount()).toBe(lines - 1);
    const scan = await sb.run(["session", "scan", cron.sessionKey!, "--json", "--store", store]);
    expect(scan.status).toBe(0);
    expect((parseJsonDocument(scan.stdout) as unknown as ScanDoc).summary.findings).toBe(0);
  });

  it("a unique prefix of a Claude Code session id works; an unknown id is exit 2 with one line", async () => {
    const sb = sandbox();
    const store = demoCopy("claude");
    const target = EXPECTED.find((e) => e.format === "claude" && e.expect.some((x) => x.rule === "tool-result-missing"))!;
    const r = await sb.run(["session", "repair", target.sessionId.slice(0, 8), "--dry-run", "--json", "--store", store]);
    expect(r.status).toBe(1);
    expect(changeDoc(r).sessions.map((s) => s.id)).toEqual([target.sessionId]);
    const missing = await sb.run(["session", "repair", "00000000-0000-4000-8000-000000000000", "--yes", "--store", store]);
    expect(missing.status).toBe(2);
    expectOneLineError(missing, /no session 00000000-0000-4000-8000-000000000000/);
  });
});

describe("session repair: refusals", () => {
  const keyed = EXPECTED.find((e) => e.format === "openclaw" && e.sessionKey && e.expect.length > 0)!;

  function lockedCopy(payload: Record<string, unknown>): { sb: ReturnType<typeof sandbox>; store: string; file: string } {
    const sb = sandbox();
    const store = demoCopy("openclaw");
    const file = path.join(store, path.relative("fixtures/demo/openclaw", keyed.path));
    fs.writeFileSync(`${file}.lock`, JSON.stringify(payload));
    return { sb, store, file };
  }

  it("openclaw's write lock held by a live process: exit 3, one line naming it, nothing written; --force proceeds", async () => {
    const { sb, store, file } = lockedCopy({ pid: process.pid, createdAt: new Date().toISOString() });
    const before = fs.readFileSync(file);
    const r = await sb.run(["session", "repair", keyed.sessionId, "--yes", "--store", store]);
    expect(r.status, r.stdout).toBe(3);
    expectOneLineError(r, new RegExp(`openclaw \\(write lock on ${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\) \\(pid ${process.pid}\\).*--force`));
    const json = await sb.run(["session", "repair", keyed.sessionId, "--yes", "--json", "--store", store]);
    expect(json.status).toBe(3);
    expectJsonError(json, "live-writer");
    expect(fs.readFileSync(file).equals(before)).toBe(true);
    expect(fs.existsSync(sb.backups)).toBe(false);
    const forced = await sb.run(["session", "repair", keyed.sessionId, "--yes", "--force", "--json", "--store", store]);
    expect(forced.status, `${forced.stdout}${forced.stderr}`).toBe(0);
    expect(changeDoc(forced).backup?.id).toMatch(BACKUP_ID);
    expect(fs.readFileSync(file).equals(before)).toBe(false);
  });

  it("a lock whose process is gone, or older than openclaw's 30 minutes, does not stand in the way", async () => {
    for (const payload of [
      { pid: deadPid(), createdAt: new Date().toISOString() },
      { pid: process.pid, createdAt: new Date(Date.now() - 31 * 60_000).toISOString() },
    ]) {
      const { sb, store, file } = lockedCopy(payload);
      const before = fs.readFileSync(file);
      const r = await sb.run(["session", "repair", keyed.sessionId, "--yes", "--json", "--store", store]);
      expect(r.status, `${JSON.stringify(payload)}: ${r.stdout}${r.stderr}`).toBe(0);
      expect(fs.readFileSync(file).equals(before)).toBe(false);
    }
  });

  it("a Claude Code session written less than 60 s ago: exit 3, nothing written; --force proceeds", async () => {
    const build = (start: number) => {
      const t = new ClaudeTranscript({ seed: 61, start, cwd: "/home/dana/app" });
      t.user("run the migration");
      t.assistant([{ type: "tool_use", name: "Bash", input: { command: "prisma migrate deploy" } }]);
      t.user("it hangs; stop");
      return t;
    };
    const probe = build(0);
    const span = Date.parse(JSON.parse(probe.lines.at(-1) as string).timestamp as string);
    const t = build(Date.now() - 20_000 - span);
    const sb = sandbox();
    const config = tempDir();
    const file = t.writeTo(config);
    // Only the records say it is recent: the file's own time is an hour back.
    age(file);
    const before = fs.readFileSync(file);
    const r = await sb.run(["session", "repair", t.sessionId, "--yes", "--store", config]);
    expect(r.status, r.stdout).toBe(3);
    expectOneLineError(r, new RegExp(`session ${t.sessionId} was written \\d+ s ago: its agent may still be running.*--force`));
    expect(fs.readFileSync(file).equals(before)).toBe(true);
    const forced = await sb.run(["session", "repair", t.sessionId, "--yes", "--force", "--json", "--store", config]);
    expect(forced.status, `${forced.stdout}${forced.stderr}`).toBe(0);
    expect(changeDoc(forced).sessions[0]!.changes.map((c) => c.rules)).toContainEqual(["tool-result-missing"]);
  });

  it("a Claude Code file modified less than 60 s ago (an append without a timestamp) is refused too, unless --force", async () => {
    const t = new ClaudeTranscript({ seed: 62, start: Date.UTC(2026, 4, 1), cwd: "/home/dana/app" });
    t.user("run the migration");
    t.assistant([{ type: "tool_use", name: "Bash", input: { command: "prisma migrate deploy" } }]);
    t.user("it hangs; stop");
    const sb = sandbox();
    const config = tempDir();
    const file = t.writeTo(config);
    // Records from May; the agent has just appended a record that carries no timestamp.
    fs.appendFileSync(file, `${JSON.stringify({ type: "custom-title", customTitle: "migration", sessionId: t.sessionId })}\n`);
    const before = fs.readFileSync(file);
    const r = await sb.run(["session", "repair", t.sessionId, "--yes", "--store", config]);
    expect(r.status, r.stdout).toBe(3);
    expectOneLineError(r, new RegExp(`session ${t.sessionId} was written \\d+ s ago: its agent may still be running.*--force`));
    expect(fs.readFileSync(file).equals(before)).toBe(true);
    const forced = await sb.run(["session", "repair", t.sessionId, "--yes", "--force", "--json", "--store", config]);
    expect(forced.status, `${forced.stdout}${forced.stderr}`).toBe(0);
    expect(fs.readFileSync(file).equals(before)).toBe(false);
  });

  it.each([
    ["claude", "../escape"],
    ["claude", "a/b"],
    ["openclaw", ".."],
    ["openclaw", "agents/main"],
  ] as const)("a session id that could leave the store (%s: %s): exit 2, one line, no stack, nothing written", async (dialect, id) => {
    const sb = sandbox();
    const store = demoCopy(dialect);
    const before = fileStates(store);
    for (const command of ["repair", "scan"]) {
      const r = await sb.run(["session", command, id, "--yes", "--store", store].filter((a) => command === "repair" || a !== "--yes"));
      expect(r.status, `${command}: ${r.stdout}${r.stderr}`).toBe(2);
      expectOneLineError(r, /invalid session id .*ids never contain/);
      expect(r.stdout).toBe("");
    }
    const after = fileStates(store);
    for (const [file, state] of before) expect(after.get(file)!.bytes.equals(state.bytes)).toBe(true);
  });

  it("a store path that does not exist: exit 2, one line; with --json, an error document", async () => {
    const sb = sandbox();
    const missing = path.join(tempDir(), "no-such-config");
    for (const args of [
      ["session", "repair", "--all", "--yes", "--store", missing],
      ["session", "scan", "--all", "--store", missing, "--format", "claude"],
      ["session", "list", "--store", missing, "--format", "openclaw"],
    ]) {
      const r = await sb.run(args);
      expect(r.status, args.join(" ")).toBe(2);
      expectOneLineError(r, /no such store/);
    }
    const json = await sb.run(["session", "list", "--json", "--store", missing]);
    expect(json.status).toBe(2);
    expectJsonError(json, "store-not-found");
  });

  it("--format that does not match the store: exit 2 with one line saying what the format needs", async () => {
    const sb = sandbox();
    const r = await sb.run(["session", "list", "--store", path.join(DEMO, "claude"), "--format", "openclaw"]);
    expect(r.status).toBe(2);
    expectOneLineError(r, /not an? openclaw store \(expected a state dir with agents\//);
    const s = await sb.run(["session", "scan", "--all", "--store", path.join(DEMO, "openclaw"), "--format", "claude"]);
    expect(s.status).toBe(2);
    expectOneLineError(s, /not a Claude Code store \(expected a config dir with projects\//);
  });
});

describe("session list on transcript stores", () => {
  it("lists the sessions of every --store form the CLI takes, for both formats", async () => {
    const sb = sandbox();
    const claude = tempDir();
    const a = new ClaudeTranscript({ seed: 71, start: Date.UTC(2026, 4, 1), cwd: "/home/dana/a" });
    a.user("first");
    a.assistant([{ type: "text", text: "ok" }]);
    const aFile = a.writeTo(claude);
    const oc = tempDir();
    const o = new OpenclawTranscript({ seed: 72, start: Date.UTC(2026, 4, 2) });
    o.user("hello");
    o.assistant([{ type: "text", text: "hi" }]);
    const oFile = o.writeTo(oc, "main", "agent:main:main");
    const cases: [string, string, string][] = [
      [claude, "claude", a.sessionId],
      [path.join(claude, "projects"), "claude", a.sessionId],
      [path.dirname(aFile), "claude", a.sessionId],
      [aFile, "claude", a.sessionId],
      [oc, "openclaw", o.sessionId],
      [path.dirname(oFile), "openclaw", o.sessionId],
      [oFile, "openclaw", o.sessionId],
    ];
    for (const [store, format, id] of cases) {
      const r = await sb.run(["session", "list", "--json", "--store", store]);
      expect(r.status, `${store}: ${r.stderr}`).toBe(0);
      const doc = parseJsonDocument(r.stdout) as { store: { format: string }; sessions: { id: string; updated: string; messages: number }[] };
      expect(doc.store.format, store).toBe(format);
      expect(
        doc.sessions.map((s) => s.id),
        store,
      ).toEqual([id]);
      expect(doc.sessions[0]!.messages).toBe(2);
    }
  });
});
