// Shared by the CLI tests of the mutating commands (session repair, session restore, session backups): an
// isolated state dir per test, store states compared record by record, a process holding a store open, a store
// lock held by someone else, and a terminal that answers the confirmation prompt.
import Database from "better-sqlite3";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "vitest";
import { buildStore, type BuiltStore } from "../support/opencode-fixtures.js";
import { BIN, expectJsonError, expectOneLineError, parseJsonDocument, run, tempDir, type RunOptions, type RunResult, childEnv } from "./run.js";
import { brokenTurnSession, defectStore, writeStore, type DefectStore, type Format } from "./stores.js";

// ---------------------------------------------------------------------------------------------
// Isolation: every command gets its own XDG_STATE_HOME (backups, locks and the journal live there)
// ---------------------------------------------------------------------------------------------

export interface Sandbox {
  /** $XDG_STATE_HOME */
  stateHome: string;
  /** $XDG_STATE_HOME/recover */
  state: string;
  /** $XDG_STATE_HOME/recover/backups */
  backups: string;
  env: Record<string, string>;
  run(args: string[], options?: RunOptions): Promise<RunResult>;
}

export function sandbox(): Sandbox {
  const stateHome = tempDir();
  const env = { XDG_STATE_HOME: stateHome };
  return {
    stateHome,
    state: path.join(stateHome, "recover"),
    backups: path.join(stateHome, "recover", "backups"),
    env,
    run: async (args, options = {}) => await run(args, { ...options, env: { ...env, ...options.env } }),
  };
}

/** A store written for one test: what --store names, what the CLI reports as the store path, and the format. */
export interface TestStore {
  format: Format;
  dataDir: string;
  store: string;
  readPath: string;
}

export function writeTestStore(built: BuiltStore, format: Format): TestStore {
  return { format, ...writeStore(built, format) };
}

/** The defect store (healthy, broken turn, warnings only), written in one format. */
export function writeDefectStore(format: Format): DefectStore & TestStore {
  const fixture = defectStore();
  return { ...fixture, ...writeTestStore(fixture.built, format) };
}

// ---------------------------------------------------------------------------------------------
// Store state, record by record
// ---------------------------------------------------------------------------------------------

/**
 * Everything a user could tell apart, as comparable strings. SQLite: every row of session/message/part, every
 * column with its storage class and exact bytes (the file itself changes on any write, even a restore). JSON tree:
 * every file under storage/ with its mode and content hash.
 */
export function storeState(store: TestStore): Record<string, string> {
  return store.format === "opencode-sqlite" ? sqliteRows(store.readPath) : treeFiles(store.readPath);
}

export function sqliteRows(dbFile: string): Record<string, string> {
  const db = new Database(dbFile, { readonly: true, fileMustExist: true });
  try {
    const rows: Record<string, string> = {};
    for (const table of ["session", "message", "part"]) {
      const columns = (db.prepare(`PRAGMA table_info("${table}")`).all() as { name: string }[]).map((c) => c.name);
      const select = columns.map((c) => `typeof("${c}") || ':' || coalesce(hex(CAST("${c}" AS BLOB)), '')`).join(", ");
      for (const row of db.prepare(`SELECT id, ${select} FROM "${table}" ORDER BY id`).raw(true).all() as string[][]) {
        const [id, ...cells] = row;
        rows[`${table}/${id}`] = columns.map((c, i) => `${c}=${cells[i]}`).join(" ");
      }
    }
    return rows;
  } finally {
    db.close();
  }
}

export function treeFiles(storage: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(p);
      else files[path.relative(storage, p)] = `${(fs.statSync(p).mode & 0o7777).toString(8)}:${createHash("sha256").update(fs.readFileSync(p)).digest("hex")}`;
    }
  };
  walk(storage);
  return files;
}

/** The record key storeState uses for a part (SQLite row or JSON file). */
export function partKey(store: TestStore, messageId: string, partId: string): string {
  return store.format === "opencode-sqlite" ? `part/${partId}` : path.join("part", messageId, `${partId}.json`);
}

/**
 * Every file of the data dir with its bytes, for "nothing was written". SQLite's -shm is shared memory (any reader
 * touches it) and an empty -wal is what a reader of a WAL database may leave: neither is a write. Nor is another
 * recover's lock (`.recover.lock`, `.opencode.db.recover.lock`): a test that plants one checks it on its own.
 */
export function storeBytes(store: TestStore): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const walk = (p: string) => {
    const stat = fs.statSync(p);
    if (stat.isDirectory()) for (const name of fs.readdirSync(p).sort()) walk(path.join(p, name));
    else if (p.endsWith("-shm") || (p.endsWith("-wal") && stat.size === 0) || p.endsWith(".recover.lock")) return;
    else files.set(p, fs.readFileSync(p));
  };
  walk(store.dataDir);
  return files;
}

export function expectStoreBytes(store: TestStore, before: Map<string, Buffer>): void {
  const after = storeBytes(store);
  expect([...after.keys()]).toEqual([...before.keys()]);
  for (const [file, bytes] of before) expect(after.get(file)!.equals(bytes), `${file} changed`).toBe(true);
}

/** Changes a stored part behind recover's back, as a running agent would (the record keeps its id). */
export function rewritePart(store: TestStore, messageId: string, partId: string, edit: (data: Record<string, unknown>) => void): void {
  if (store.format === "opencode-sqlite") {
    const db = new Database(store.readPath);
    try {
      const data = JSON.parse(db.prepare("SELECT data FROM part WHERE id = ?").pluck().get(partId) as string) as Record<string, unknown>;
      edit(data);
      expect(db.prepare("UPDATE part SET data = ?, time_updated = time_updated + 1 WHERE id = ?").run(JSON.stringify(data), partId).changes).toBe(1);
    } finally {
      db.close();
    }
    return;
  }
  const file = path.join(store.readPath, "part", messageId, `${partId}.json`);
  const data = JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>;
  edit(data);
  fs.writeFileSync(file, JSON.stringify(data, null, 2));
}

// ---------------------------------------------------------------------------------------------
// Documents and outputs
// ---------------------------------------------------------------------------------------------

export const BACKUP_ID = /^\d{8}T\d{6}Z-[0-9a-f]{6}$/;

export interface ChangeDoc {
  schemaVersion: number;
  tool: { name: string; version: string };
  store: { format: string; path: string; notices: string[] };
  dryRun: boolean;
  restoreOf?: string;
  backup: { id: string; path: string } | null;
  undo?: string;
  sessions: {
    id: string;
    title: string;
    changes: { op: string; record: string; id: string; sessionId: string; messageId?: string; rules: string[]; reasons: string[] }[];
    unfixed: { rule: string; severity: string; messageId?: string; partId?: string; message: string }[];
  }[];
  summary: { sessions: number; changes: number; unfixed: number; errorsLeft?: number };
}

export function changeDoc(result: RunResult): ChangeDoc {
  return parseJsonDocument(result.stdout) as unknown as ChangeDoc;
}

/** The backup a human-readable repair or restore printed, checked against its undo line. */
export function printedBackup(stdout: string): { id: string; path: string; undo: string } {
  const backup = /^backup (\S+) \((.+)\)$/m.exec(stdout);
  expect(backup, `a backup line in:\n${stdout}`).not.toBeNull();
  const undo = /^undo with: (.+)$/m.exec(stdout);
  expect(undo, `an undo line in:\n${stdout}`).not.toBeNull();
  expect(backup![1]).toMatch(BACKUP_ID);
  return { id: backup![1]!, path: backup![2]!, undo: undo![1]! };
}

/** A failure: one line on stderr without --json, one error document with it; same exit code. */
export async function expectFailure(sandboxed: Sandbox, args: string[], status: number, code: string, pattern: RegExp): Promise<string> {
  const human = await sandboxed.run(args);
  expect(human.status, `${args.join(" ")}\n${human.stdout}${human.stderr}`).toBe(status);
  const line = expectOneLineError(human, pattern);
  const json = await sandboxed.run([...args, "--json"]);
  expect(json.status, `${args.join(" ")} --json\n${json.stdout}${json.stderr}`).toBe(status);
  expect(json.stderr).toBe("");
  expect(expectJsonError(json, code).message).toMatch(pattern);
  return line;
}

// ---------------------------------------------------------------------------------------------
// Backups on disk
// ---------------------------------------------------------------------------------------------

export interface ManifestFile {
  id: string;
  kind: string;
  state: string;
  createdAt: string;
  store: { format: string; path: string };
  sessions: string[];
  restoreOf?: string;
  changes: { op: string; record: string; id: string }[];
  images: { key: { record: string; id: string }; offset?: number; length?: number; before: string | null; after: string | null }[];
}

export function readManifest(backupDir: string): ManifestFile {
  return JSON.parse(fs.readFileSync(path.join(backupDir, "manifest.json"), "utf8")) as ManifestFile;
}

export function editManifest(backupDir: string, edit: (m: Record<string, unknown>) => void): void {
  const file = path.join(backupDir, "manifest.json");
  const manifest = JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>;
  edit(manifest);
  fs.writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`);
}

export const modeOf = (p: string) => fs.statSync(p).mode & 0o777;

// ---------------------------------------------------------------------------------------------
// Other processes: a store held open, a store lock held
// ---------------------------------------------------------------------------------------------

export interface Holder {
  pid: number;
  stop(): Promise<void>;
}

/** A node process that opens `file` and keeps it open (as a running opencode keeps opencode.db), until stopped. */
export function holdOpen(file: string): Promise<Holder> {
  const child = spawn(process.execPath, ["-e", "require('fs').openSync(process.argv[1], 'r'); console.log('ready'); setInterval(() => {}, 1000);", file], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const stop = () => stopChild(child);
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => {
      void stop();
      reject(new Error("the holder never said ready"));
    }, 10_000);
    child.on("error", reject);
    child.stdout!.setEncoding("utf8");
    child.stdout!.on("data", (chunk: string) => {
      out += chunk;
      if (out.includes("ready")) {
        clearTimeout(timer);
        resolve({ pid: child.pid!, stop });
      }
    });
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });
}

/** The lock file recover takes for a store: src/txn/lock.ts names it by the sha256 of the store's real path. */
/** Where a store's own lock lives (txn/lock.ts): in a directory store, beside a file store; the state dir has none. */
export function lockFile(_state: string, storePath: string): string {
  const real = fs.realpathSync(storePath);
  return fs.statSync(real).isDirectory() ? path.join(real, ".recover.lock") : path.join(path.dirname(real), `.${path.basename(real)}.recover.lock`);
}

/** A lock as another recover on this machine writes it, held by `pid`. */
export function writeLock(state: string, storePath: string, pid: number): string {
  const file = lockFile(state, storePath);
  const holder = { pid, host: os.hostname(), since: new Date(Date.now() - 5_000).toISOString(), stateDir: state, store: storePath, token: `t${pid}` };
  const ns = pidNamespace();
  fs.writeFileSync(file, JSON.stringify(ns === undefined ? holder : { ...holder, pidNamespace: ns }));
  return file;
}

function pidNamespace(): string | undefined {
  try {
    return fs.readlinkSync("/proc/self/ns/pid");
  } catch {
    return undefined;
  }
}

/** The pid of a process that has exited (its owner was killed, say). */
export function deadPid(): number {
  const result = spawnSync(process.execPath, ["-e", ""]);
  return result.pid;
}

// ---------------------------------------------------------------------------------------------
// A session written moments ago
// ---------------------------------------------------------------------------------------------

/**
 * The broken-turn session, ending (its session record's updated time) `agoMs` before now. Its last turn is
 * finished, so no rule takes it for a live turn: only the repair's 60-second guard stands in the way.
 */
export function recentBrokenStore(agoMs: number): { built: BuiltStore; id: string } {
  const probe = buildStore({ seed: 41, sessions: [brokenTurnSession(0)] }).sessions[0]!;
  const span = (probe.info.time as { updated: number }).updated;
  const built = buildStore({ seed: 41, sessions: [brokenTurnSession(Date.now() - agoMs - span)] });
  const updated = (built.sessions[0]!.info.time as { updated: number }).updated;
  expect(Math.abs(Date.now() - agoMs - updated)).toBeLessThan(2_000);
  return { built, id: built.sessions[0]!.id };
}

// ---------------------------------------------------------------------------------------------
// A terminal that answers
// ---------------------------------------------------------------------------------------------

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * Runs the CLI on a pseudo-terminal (util-linux `script`) and types `keys` once the yes/no prompt (or what `when`
 * matches) is on screen;
 * resolves with the exit status and everything the terminal showed. `script` does not pass an end of file on its
 * stdin to the terminal, so a prompt never answered would wait: the run is killed after 20 s (status null).
 */
export function runInTerminalAnswering(
  args: string[],
  keys: string | readonly string[],
  options: { env?: Record<string, string>; when?: RegExp } = {},
): Promise<{ status: number | null; output: string; prompted: boolean }> {
  const when = options.when ?? /\(y\/N\)/;
  // Several keystrokes go a moment apart: a search prompt redraws its list between them.
  const sequence = typeof keys === "string" ? [keys] : keys;
  const command = `stty cols 120 rows 40; exec ${[process.execPath, BIN, ...args].map(shellQuote).join(" ")}`;
  const child = spawn("script", ["-qec", command, "/dev/null"], { env: childEnv(options.env), stdio: ["pipe", "pipe", "pipe"], detached: true });
  return new Promise((resolve, reject) => {
    let output = "";
    let prompted = false;
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        /* gone already */
      }
    }, 20_000);
    child.on("error", reject);
    child.stdout!.setEncoding("utf8");
    child.stdout!.on("data", (chunk: string) => {
      output += chunk;
      if (!prompted && when.test(output)) {
        prompted = true;
        // Let the prompt switch the terminal to raw mode before the key arrives.
        for (const [i, key] of sequence.entries()) setTimeout(() => child.stdin!.write(key), 150 + i * 400);
      }
    });
    child.stdin!.on("error", () => {});
    child.on("close", (status) => {
      clearTimeout(timer);
      child.stdin!.destroy();
      resolve({ status, output: output.replace(/\r\n/g, "\n"), prompted });
    });
  });
}

/** Where the broken-turn session's three defects are (see brokenTurnSession). */
export function brokenRecords(
  built: BuiltStore,
  sessionId: string,
): {
  assistantId: string;
  blankPartId: string;
  runningPartId: string;
  tornMessageId: string;
  tornPartId: string;
} {
  const session = built.sessions.find((s) => s.id === sessionId)!;
  const assistant = session.messages[1]!;
  const blank = assistant.parts.find((p) => p.data?.type === "text" && p.data.text === "   ")!;
  const running = assistant.parts.find((p) => p.data?.type === "tool")!;
  const tornTurn = session.messages[3]!;
  const torn = tornTurn.parts.find((p) => p.corrupt)!;
  return { assistantId: assistant.id, blankPartId: blank.id, runningPartId: running.id, tornMessageId: tornTurn.id, tornPartId: torn.id };
}

/** Overwrites the b-tree root pages of `tables` with noise (page 1, the header and schema, stays intact). */
export function corruptPages(file: string, tables: string[]): void {
  const db = new Database(file, { readonly: true });
  const pageSize = db.pragma("page_size", { simple: true }) as number;
  const roots = tables.map((t) => db.prepare("SELECT rootpage FROM sqlite_schema WHERE type = 'table' AND name = ?").pluck().get(t) as number);
  db.close();
  const fd = fs.openSync(file, "r+");
  try {
    for (const root of roots) {
      expect(root).toBeGreaterThan(1);
      const noise = Buffer.alloc(pageSize - 64, 0xa5);
      fs.writeSync(fd, noise, 0, noise.length, (root - 1) * pageSize + 64);
    }
  } finally {
    fs.closeSync(fd);
  }
}
