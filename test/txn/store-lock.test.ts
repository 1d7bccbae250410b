// The store's own lock (src/txn/lock.ts), end to end: two real `recover session repair --all --yes` processes (the
// built bin: npm run build first) started together on the same store, each with its own XDG_STATE_HOME as a cron job
// and a terminal with different HOMEs would have, on every store format. Exactly one writes; the other is refused
// (exit 3) or, started late, finds nothing left to do; the store is then one complete repair, and restoring the
// winner's backup gives the original back. A dead recover's lock from another state dir is taken over and the
// transaction it was applying settled first; a lock from another host is honoured until its heartbeat stops.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openStore } from "../../src/stores/discover.js";
import { fingerprint, readManifest } from "../../src/txn/backup-store.js";
import { BIN, childEnv, expectOneLineError, run, snapshot, tempDir, type RunResult } from "../cli/run.js";
import { deadPid, lockFile, sqliteRows, writeLock } from "../cli/repair-support.js";
import { defectStore, writeStore } from "../cli/stores.js";
import { ClaudeTranscript } from "../support/transcript-fixtures.js";

const DEMO = path.resolve("fixtures/demo");
const HOUR = 60 * 60_000;

interface Demo {
  /** The file or folder the store's lock is kept by (the store path the CLI reports). */
  storePath: (copy: string) => string;
}

const FORMATS: Record<string, Demo> = {
  "opencode-sqlite": { storePath: (copy) => path.join(copy, "opencode.db") },
  "opencode-json": { storePath: (copy) => path.join(copy, "storage") },
  claude: { storePath: (copy) => copy },
  openclaw: { storePath: (copy) => copy },
};

/**
 * A store with defects to repair: opencode's small generated defect store (the demo ones are megabytes), a copy of
 * a demo transcript store, its transcripts last written an hour ago (a file written just now is refused).
 */
function demoCopy(format: string): string {
  if (format === "opencode-sqlite" || format === "opencode-json") return writeStore(defectStore().built, format).dataDir;
  const copy = path.join(tempDir(), "store");
  fs.cpSync(path.join(DEMO, format), copy, { recursive: true });
  // The demo's Claude Code store is small enough for one run to be done before the other has read it: sessions
  // of some length, each with calls the user interrupted, keep both runs reading while either writes.
  if (format === "claude") for (let k = 0; k < 2; k++) interruptedSession(k).writeTo(copy);
  const then = new Date(Date.now() - HOUR);
  const walk = (p: string) => {
    for (const e of fs.readdirSync(p, { withFileTypes: true })) {
      const child = path.join(p, e.name);
      if (e.isDirectory()) walk(child);
      else if (e.name.endsWith(".jsonl")) fs.utimesSync(child, then, then);
    }
  };
  walk(copy);
  return copy;
}

function interruptedSession(seed: number): ClaudeTranscript {
  const t = new ClaudeTranscript({ seed: 7_100 + seed * 13, start: Date.UTC(2026, 6, 1, 8, 0, 0), cwd: `/home/dana/code/service-${seed}` });
  for (let i = 0; i < 60; i++) {
    t.user(`Step ${i + 1}: run check ${i} and tell me what it reports.`);
    const call = t.toolUseId();
    t.assistant([{ type: "tool_use", id: call, name: "Bash", input: { command: `npm run check -- ${i}` } }]);
    t.toolResult(call, `check ${i}: ok\n`.repeat(40));
    // Every other turn the user typed the next prompt while a second call ran: tool-result-missing.
    if (i % 2 === 0 && i < 59) t.assistant([{ type: "tool_use", name: "Bash", input: { command: `npm run verify -- ${i}` } }]);
    else t.assistant([{ type: "text", text: `Check ${i} passed.` }]);
  }
  return t;
}

/** What the store holds, for "given back": SQLite by its rows (a restore need not give back the same pages), files by bytes. */
function contents(format: string, copy: string): Record<string, string> {
  if (format === "opencode-sqlite") return sqliteRows(path.join(copy, "opencode.db"));
  const files: Record<string, string> = {};
  // A lock some recover holds is not the store's data (each test checks its lock itself).
  for (const [file, bytes] of snapshot(copy)) if (!file.endsWith(".recover.lock")) files[path.relative(copy, file)] = bytes.toString("base64");
  return files;
}

function spawnRepair(store: string, stateHome: string): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, "session", "repair", "--all", "--yes", "--store", store], {
      stdio: ["ignore", "pipe", "pipe"],
      env: childEnv({ XDG_STATE_HOME: stateHome }),
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    child.on("error", reject);
    child.on("close", (status, signal) => resolve({ status, signal, stdout, stderr }));
  });
}

function backupsOf(stateHome: string): string[] {
  const root = path.join(stateHome, "recover", "backups");
  return fs.existsSync(root) ? fs.readdirSync(root).map((id) => path.join(root, id)) : [];
}

// One round per format in npm test (two spawned repairs each); LOCK_ROUNDS=<n> races more (the soak runs 10).
const ROUNDS = Number(process.env.LOCK_ROUNDS ?? 1);

describe.each(Object.keys(FORMATS))("two repairs with different state dirs on one %s store", (format) => {
  it(`exactly one writes, the other refuses (exit 3) or finds nothing to do; ${ROUNDS} rounds`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const copy = demoCopy(format);
      const original = contents(format, copy);
      const homes = [tempDir(), tempDir()];
      const results = await Promise.all(homes.map((home) => spawnRepair(copy, home)));
      const why = `round ${round}: ${results.map((r) => `exit ${r.status}: ${r.stderr.trim().split("\n").at(-1)}`).join(" | ")}`;

      const written = homes.map(backupsOf);
      expect(written.flat(), `one backup in all (${why})`).toHaveLength(1);
      const winner = written.findIndex((b) => b.length === 1);
      const loser = results[1 - winner]!;
      expect(results[winner]!.status, why).toBe(0);
      // Refused for safety, or started after the winner was done and found nothing left to repair.
      if (loser.status === 3) expectOneLineError(loser, /another recover .* is changing|the store changed while recover worked|\(pid \d+\) has \S+ open/);
      else expect([0, 1], why).toContain(loser.status);
      expect(fs.existsSync(lockFile("", FORMATS[format]!.storePath(copy))), "no lock is left").toBe(false);

      // The store is the winner's repair, complete: every record it wrote holds its after-image.
      const backup = written[winner]![0]!;
      const manifest = readManifest(backup);
      expect(manifest.state).toBe("done");
      const store = openStore({ store: copy });
      const writer = store.openWriter();
      try {
        for (const entry of manifest.images) expect(fingerprint(writer.read(entry.key)), `${entry.key.record} ${entry.key.id}`).toBe(entry.after);
      } finally {
        writer.close();
        store.close();
      }

      // Restoring the winner's backup gives the original back.
      const restore = await run(["session", "restore", manifest.id, "--yes", "--store", copy], { env: { XDG_STATE_HOME: homes[winner]! } });
      expect(restore.status, restore.stderr).toBe(0);
      expect(contents(format, copy)).toEqual(original);
    }
  }, 30_000);
});

/** Plants a lock as a recover on this machine holding it would, with extra fields (applying, another host). */
function plantLock(storePath: string, fields: Record<string, unknown>, ageMs = 0): string {
  const file = writeLock("", storePath, deadPid());
  fs.writeFileSync(file, JSON.stringify({ ...JSON.parse(fs.readFileSync(file, "utf8")), ...fields }));
  const then = new Date(Date.now() - ageMs);
  fs.utimesSync(file, then, then);
  return file;
}

describe("a lock another recover left", () => {
  it("from another state dir, dead while applying: the next command (a scan) settles its transaction first", async () => {
    const copy = demoCopy("claude");
    const [a, b] = [tempDir(), tempDir()];
    const repaired = await run(["session", "repair", "--all", "--yes", "--store", copy], { env: { XDG_STATE_HOME: a } });
    expect(repaired.status, repaired.stderr).toBe(0);
    const [backup] = backupsOf(a);
    // As a recover killed right after its last file was replaced leaves it: manifest applying, journal pointing
    // at it (in its own state dir), its lock beside the store naming the backup.
    const manifestFile = path.join(backup!, "manifest.json");
    fs.writeFileSync(manifestFile, fs.readFileSync(manifestFile, "utf8").replace('"state": "done"', '"state": "applying"'));
    const journalDir = path.join(a, "recover", "journal");
    fs.mkdirSync(journalDir, { recursive: true });
    const key = createHash("sha256").update(fs.realpathSync(copy)).digest("hex").slice(0, 24);
    const pointer = path.join(journalDir, `${key}.json`);
    fs.writeFileSync(pointer, JSON.stringify({ backup: backup, store: copy }));
    const lock = plantLock(copy, { stateDir: path.join(a, "recover"), applying: backup });

    const scan = await run(["session", "scan", "--store", copy], { env: { XDG_STATE_HOME: b } });
    expect(scan.stderr).toMatch(/an interrupted repair \(backup \S+\) had completed; it is now marked done/);
    expect(readManifest(backup!).state).toBe("done");
    expect(fs.existsSync(lock)).toBe(false);
    expect(fs.existsSync(pointer), "its journal pointer is settled too").toBe(false);
  });

  it("from another host: honoured while its heartbeat is fresh (exit 3), taken over once it stops", async () => {
    const copy = demoCopy("openclaw");
    const before = contents("openclaw", copy);
    const home = tempDir();
    const lock = plantLock(copy, { host: `not-${os.hostname()}`, pid: 1 });
    const refused = await run(["session", "repair", "--all", "--yes", "--store", copy], { env: { XDG_STATE_HOME: home } });
    expect(refused.status).toBe(3);
    expectOneLineError(refused, new RegExp(`another recover \\(pid 1 on not-${os.hostname()}, since .*\\) is changing`));
    expect(contents("openclaw", copy)).toEqual(before);

    plantLock(copy, { host: `not-${os.hostname()}`, pid: 1 }, 11 * 60_000);
    const taken = await run(["session", "repair", "--all", "--yes", "--store", copy], { env: { XDG_STATE_HOME: home } });
    expect(taken.status, taken.stderr).toBe(0);
    expect(backupsOf(home)).toHaveLength(1);
    expect(fs.existsSync(lock)).toBe(false);
  });

  it("dead while applying, its backup out of reach: refused (exit 3), the lock kept for where it ran", async () => {
    const copy = demoCopy("claude");
    const before = contents("claude", copy);
    const lock = plantLock(copy, { stateDir: "/elsewhere/recover", applying: "/elsewhere/recover/backups/20260101T000000Z-abcdef" });
    const r = await run(["session", "repair", "--all", "--yes", "--store", copy], { env: { XDG_STATE_HOME: tempDir() } });
    expect(r.status).toBe(3);
    expectOneLineError(
      r,
      /was cut short while changing .* its backup \/elsewhere\S+ cannot be read from here; run any recover command on this store where it ran \(state dir \/elsewhere\/recover\)/,
    );
    expect(contents("claude", copy)).toEqual(before);
    expect(fs.existsSync(lock)).toBe(true);
  });
});
