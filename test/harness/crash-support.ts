// Support for the crash-safety test: one large session full of fixable defects, killable CLI runs, and record
// snapshots of both store formats that can be compared with a repair's before and after images.
import Database from "better-sqlite3";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  buildStore,
  mulberry32,
  SECOND,
  Transcript,
  type BuiltStore,
  type MessageSpec,
  type PartSpec,
  type SessionSpec,
} from "../support/opencode-fixtures.js";
import { BIN, childEnv as cliEnv, run } from "../cli/run.js";

// ---------------------------------------------------------------------------------------------
// The session: many turns, defects spread over many records
// ---------------------------------------------------------------------------------------------

export interface CrashSessionShape {
  turns: number;
}

/**
 * A long session (the last turn healthy) with, spread over its turns:
 * - a bash call left `running` in three turns of four         → tool-call-interrupted (part updated)
 * - every fourth assistant reply never finished, not the last → incomplete-message (message updated)
 * - a whitespace-only text part beside real text, every 7th    → empty-text-part (part deleted)
 * Every turn also carries a completed tool call with a few KB of output, so records have a realistic size.
 */
export function crashSession(start: number, shape: CrashSessionShape): SessionSpec {
  const w = new Transcript({ start, seed: 4242 });
  const messages: MessageSpec[] = [];
  for (let i = 0; i < shape.turns; i++) {
    const last = i === shape.turns - 1;
    messages.push(w.user(`Step ${i + 1}: run check ${i} on the invoice service and tell me what it reports.`, { gap: i === 0 ? 2 * SECOND : 40 * SECOND }));
    const log = Array.from({ length: 40 }, (_, k) => `[check-${i}] line ${k}: invoice batch ${i * 40 + k} reconciled, ${k % 7} warnings`).join("\n");
    const parts: PartSpec[] = [
      w.stepStart(),
      w.reasoning(`Check ${i} needs the reconcile script; run it and then look at the warnings it prints.`),
      w.text(`Running check ${i} now.`),
      w.bash(`npm run reconcile -- --check ${i}`, `Run check ${i}`, log, { ms: 1_800 }),
    ];
    if (last) {
      parts.push(w.stepFinish("tool-calls"), w.stepStart(), w.text(`Check ${i} reconciled every batch.`), w.stepFinish("stop"));
      messages.push(w.assistant(parts));
      continue;
    }
    if (i % 7 === 3) parts.push(w.text("   "));
    const unfinished = i % 4 === 1;
    if (i % 4 !== 0) parts.push(w.running("bash", { command: `npm run verify -- --check ${i}`, description: `Verify check ${i}` }));
    if (unfinished) {
      messages.push(w.assistant(parts, { time: { completed: undefined }, finish: undefined }));
      continue;
    }
    parts.push(w.stepFinish("tool-calls"));
    messages.push(w.assistant(parts));
  }
  return { title: "Reconcile the invoice batches", directory: w.directory, created: start, messages };
}

export function crashStore(start: number, shape: CrashSessionShape): { built: BuiltStore; sessionId: string } {
  const built = buildStore({ seed: 97, sessions: [crashSession(start, shape)] });
  return { built, sessionId: built.sessions[0]!.id };
}

// ---------------------------------------------------------------------------------------------
// Runs of the built CLI, killed at a chosen moment
// ---------------------------------------------------------------------------------------------

/**
 * The environment of every run in a trial, killed or not: the one run.ts gives any CLI under test (no colour, CI,
 * no debugging switches, `recover` on PATH) with recover's state under `stateHome`.
 */
export function stateEnv(stateHome: string): Record<string, string> {
  return { XDG_STATE_HOME: stateHome };
}

export function childEnv(stateHome: string): NodeJS.ProcessEnv {
  return cliEnv(stateEnv(stateHome));
}

/**
 * A run that is not killed (the command after a kill that settles the journal, a scan, a restore, a repair run
 * to the end): main() of the build in this process (run.ts), with the environment a killed run gets. Only the
 * killed run needs a process of its own; this saves a node start and the CLI's module load per command.
 */
export function runSettled(args: string[], stateHome: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return run(args, { env: stateEnv(stateHome) });
}

/** The backups a run under this XDG_STATE_HOME writes (no --backup-dir). */
export function backupRootOf(stateHome: string): string {
  return path.join(stateHome, "recover", "backups");
}

/**
 * When to SIGKILL: `delayMs` after the spawn ("spawn"), or after the run is first seen to have started writing its
 * backup ("backup": a backup folder exists) or to have started applying ("applying": its manifest says so).
 */
export interface KillPlan {
  anchor: "spawn" | "backup" | "applying";
  delayMs: number;
}

/** Moments a run reached, in ms after its spawn, as seen by polling its state dir. */
export interface Milestones {
  backup?: number;
  planned?: number;
  applying?: number;
  done?: number;
  exit: number;
}

export interface RunResult {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Whether our SIGKILL ended the process (false: it exited on its own first). */
  killed: boolean;
  /** When the kill was sent, ms after the spawn. */
  killedAt?: number;
  milestones: Milestones;
}

/** The state word of the (single) backup's manifest, reading only its head: "state" comes early. */
function manifestState(root: string): { dir?: string; state?: string } {
  let names: string[];
  try {
    names = fs.readdirSync(root);
  } catch {
    return {};
  }
  const dir = names.find((n) => !n.startsWith("."));
  if (dir === undefined) return {};
  let fd: number;
  try {
    fd = fs.openSync(path.join(root, dir, "manifest.json"), "r");
  } catch {
    return { dir };
  }
  try {
    const head = Buffer.alloc(1024);
    const n = fs.readSync(fd, head, 0, head.length, 0);
    const state = /"state": "([a-z-]+)"/.exec(head.subarray(0, n).toString("utf8"))?.[1];
    return state === undefined ? { dir } : { dir, state };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Runs `recover args…` with XDG_STATE_HOME=stateHome, watching its backup folder every millisecond for the
 * milestones of the transaction; with a kill plan, SIGKILLs it at the planned moment unless it already exited.
 */
export function runCli(args: string[], stateHome: string, kill?: KillPlan): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const root = backupRootOf(stateHome);
    const started = performance.now();
    const since = () => performance.now() - started;
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ["ignore", "pipe", "pipe"], env: childEnv(stateHome) });
    let stdout = "";
    let stderr = "";
    let killedAt: number | undefined;
    const milestones: Omit<Milestones, "exit"> = {};
    child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    const gone = () => child.exitCode !== null || child.signalCode !== null;
    const killNow = () => {
      if (killedAt !== undefined || gone()) return;
      killedAt = since();
      child.kill("SIGKILL");
    };
    let timer: NodeJS.Timeout | undefined;
    const arm = (delayMs: number) => {
      if (timer === undefined) timer = setTimeout(killNow, Math.max(0, delayMs));
    };
    if (kill?.anchor === "spawn") arm(kill.delayMs);
    // Poll only while something is still unknown: the milestones, or the anchor of the kill.
    const poll = setInterval(() => {
      if (milestones.done !== undefined) return;
      const { dir, state } = manifestState(root);
      const t = since();
      if (dir !== undefined) milestones.backup ??= t;
      if (state === "planned") milestones.planned ??= t;
      if (state === "applying") milestones.applying ??= t;
      if (state === "done") milestones.done ??= t;
      if (kill?.anchor === "backup" && dir !== undefined) arm(kill.delayMs);
      // Seen applying, or already past it: the kill lands as soon after as planned.
      if (kill?.anchor === "applying" && (state === "applying" || state === "done")) arm(kill.delayMs);
    }, 1);
    const watchdog = setTimeout(killNow, 60_000);
    child.on("error", reject);
    child.on("close", (status, signal) => {
      clearInterval(poll);
      clearTimeout(watchdog);
      if (timer !== undefined) clearTimeout(timer);
      const killed = killedAt !== undefined && signal === "SIGKILL";
      resolve({ status, signal, stdout, stderr, killed, ...(killedAt !== undefined ? { killedAt } : {}), milestones: { ...milestones, exit: since() } });
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Record snapshots
// ---------------------------------------------------------------------------------------------

/**
 * Every record of a store by where it lives (`session/<id>`, `message/<id>`, `part/<id>` for SQLite, the path under
 * storage/ for the JSON tree) → its content: every column as [name, SQLite type, base64 bytes], or `mode:base64`.
 */
export type Snapshot = Map<string, string>;

const TABLES = ["session", "message", "part"] as const;

/** Every column of every row of session/message/part, typed; text and blobs as exact bytes. */
export function sqliteSnapshot(dbFile: string): Snapshot {
  const db = new Database(dbFile, { readonly: true, fileMustExist: true });
  try {
    return sqliteRows(db);
  } finally {
    db.close();
  }
}

function sqliteRows(db: Database.Database): Snapshot {
  const out: Snapshot = new Map();
  for (const table of TABLES) {
    const names = (db.prepare(`PRAGMA table_info("${table}")`).all() as { name: string }[]).map((c) => c.name);
    const select = names.map((n) => `typeof("${n}"), CAST("${n}" AS BLOB)`).join(", ");
    const rows = db.prepare(`SELECT ${select} FROM "${table}" ORDER BY id`).raw(true).all() as unknown[][];
    for (const row of rows) {
      const columns = names.map((name, i) => {
        const type = row[i * 2] as string;
        const bytes = row[i * 2 + 1] as Buffer | null;
        return [name, type, bytes === null ? null : bytes.toString("base64")];
      });
      const id = Buffer.from(String(columns.find(([n]) => n === "id")![2]), "base64").toString("utf8");
      out.set(`${table}/${id}`, JSON.stringify(columns));
    }
  }
  return out;
}

/** PRAGMA integrity_check on a read-only connection; "ok" when the database is sound. */
export function sqliteIntegrity(dbFile: string): string {
  const db = new Database(dbFile, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare("PRAGMA integrity_check").pluck().all() as string[]).join("; ");
  } finally {
    db.close();
  }
}

/** Every file under storage/ with its bytes and mode (mtime is not part of a record's identity). */
/** `.recover.lock` and the temps of writing or breaking it (src/txn/lock.ts). */
export function isLockFile(name: string): boolean {
  return /^\.{1,2}recover\.lock/.test(name);
}

export function jsonSnapshot(storage: string): Snapshot {
  const out: Snapshot = new Map();
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = path.join(dir, entry.name);
      // The store's lock (and a lock's temp) is recover's own file beside the records, not a record: a killed run
      // leaves it for the next command to take over; the trials check that settling removes it.
      if (dir === storage && isLockFile(entry.name)) continue;
      if (entry.isDirectory()) walk(p);
      else out.set(path.relative(storage, p), `${(fs.statSync(p).mode & 0o7777).toString(8)}:${fs.readFileSync(p).toString("base64")}`);
    }
  };
  walk(storage);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Normalising a record's now-dependent fields, so a repair's after-image can be recognised from another run
// ---------------------------------------------------------------------------------------------

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const NOW = "<now>";

/**
 * A repair stamps records with its own clock: a closed call's state.time.end, a finished message's
 * time.completed, the session's time.updated (and in SQLite a row's time_updated). Where such a field differs from
 * the record's before-image it becomes a marker, so two repairs of the same store run at different times produce
 * equal after-images. Every value replaced goes into `clock`: one repair stamps at most two instants (when it
 * planned, when it wrote), which the caller checks.
 */
function normaliseRecordJson(value: unknown, before: unknown, clock: Set<unknown>): unknown {
  if (!isObject(value)) return value;
  const out = structuredClone(value);
  const was = isObject(before) ? before : {};
  const stamp = (holder: Json, field: string, old: unknown) => {
    if (field in holder && holder[field] !== old) {
      clock.add(holder[field]);
      holder[field] = NOW;
    }
  };
  if (isObject(out.state) && isObject(out.state.time)) {
    const wasTime = isObject(was.state) && isObject(was.state.time) ? was.state.time : {};
    stamp(out.state.time, "end", wasTime.end);
  }
  if (isObject(out.time)) {
    const wasTime = isObject(was.time) ? was.time : {};
    stamp(out.time, "completed", wasTime.completed);
    stamp(out.time, "updated", wasTime.updated);
  }
  return out;
}

/** Parsed JSON plus how it was laid out, so a record in another layout never passes for its after-image. */
function parsedWithLayout(text: string): { value: unknown; layout: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { value: text, layout: "unparsable" };
  }
  const layout = text === JSON.stringify(value, null, 2) ? "pretty" : text === JSON.stringify(value) ? "compact" : "other";
  return { value, layout };
}

const utf8 = (b64: string | null | undefined) => (typeof b64 === "string" ? Buffer.from(b64, "base64").toString("utf8") : "");

/** A SQLite row image with its now-dependent values replaced (relative to the row's before-image, if any). */
export function normaliseSqliteRow(content: string, before: string | undefined, clock: Set<unknown>): string {
  const columns = JSON.parse(content) as [string, string, string | null][];
  const was = before === undefined ? undefined : (JSON.parse(before) as [string, string, string | null][]);
  const wasColumn = (name: string) => was?.find(([n]) => n === name);
  return JSON.stringify(
    columns.map(([name, type, value]) => {
      if (name === "time_updated" && wasColumn(name)?.[2] !== value) {
        clock.add(utf8(value));
        return [name, type, NOW];
      }
      if (name === "data") {
        const now = parsedWithLayout(utf8(value));
        const old = parsedWithLayout(utf8(wasColumn(name)?.[2]));
        return [name, type, now.layout, JSON.stringify(normaliseRecordJson(now.value, old.value, clock))];
      }
      return [name, type, value];
    }),
  );
}

/** A JSON-tree file image (`mode:base64`) with its now-dependent values replaced. */
export function normaliseJsonFile(content: string, before: string | undefined, clock: Set<unknown>): string {
  const split = (c: string) => {
    const at = c.indexOf(":");
    return { mode: c.slice(0, at), ...parsedWithLayout(utf8(c.slice(at + 1))) };
  };
  const now = split(content);
  const was = before === undefined ? undefined : split(before);
  return `${now.mode}:${now.layout}:${JSON.stringify(normaliseRecordJson(now.value, was?.value, clock))}`;
}

// ---------------------------------------------------------------------------------------------
// Comparing a store with a repair's before and after images
// ---------------------------------------------------------------------------------------------

export type Normalise = (content: string, before: string | undefined, clock: Set<unknown>) => string;

export interface Comparison {
  /** Records the repair changes (differ between the before and after images). */
  changed: number;
  atBefore: number;
  atAfter: number;
  /** Records in neither state, or untouched records that changed: described for the failure message. */
  strangers: string[];
  /** The instants the repair stamped into the records found in their after state. */
  clock: Set<unknown>;
}

export function compareWithImages(current: Snapshot, before: Snapshot, after: Snapshot, normalise: Normalise): Comparison {
  const keys = new Set([...before.keys(), ...after.keys(), ...current.keys()]);
  const result: Comparison = { changed: 0, atBefore: 0, atAfter: 0, strangers: [], clock: new Set() };
  for (const key of [...keys].sort()) {
    const now = current.get(key);
    const b = before.get(key);
    const a = after.get(key);
    if (b === a) {
      if (now !== b) result.strangers.push(`${key}: not touched by the repair, yet ${now === undefined ? "gone" : b === undefined ? "appeared" : "changed"}`);
      continue;
    }
    result.changed++;
    if (now === b) {
      result.atBefore++;
      continue;
    }
    const clock = new Set<unknown>();
    const isAfter = now === undefined || a === undefined ? now === a : normalise(now, b, clock) === normalise(a, b, new Set());
    if (isAfter) {
      result.atAfter++;
      for (const t of clock) result.clock.add(t);
    } else {
      result.strangers.push(`${key}: neither its before nor its after image (${now === undefined ? "absent" : `${now.slice(0, 160)}…`})`);
    }
  }
  return result;
}

/** "before", "after" or "mixed (x of n records repaired)". */
export function wholeState(c: Comparison): string {
  if (c.atBefore === c.changed) return "before";
  if (c.atAfter === c.changed) return "after";
  return `mixed (${c.atAfter} of ${c.changed} records repaired)`;
}

// ---------------------------------------------------------------------------------------------
// Which kills a test file makes: a fixed set always, randomized ones as many as CRASH_TRIALS asks
// ---------------------------------------------------------------------------------------------

export type Anchor = KillPlan["anchor"];

/** One trial's kill: `at` of the way (0…1) into the span its anchor starts (the test file sizes the spans). */
export interface KillSpec {
  name: string;
  anchor: Anchor;
  at: number;
  /** The randomized trial's index (its seed), absent for a fixed kill. */
  trial?: number;
}

/**
 * The kills every `npm run test:harness` makes, per store format: each anchor, early and late in its span, in the proportions
 * of the randomized trials (a third from the spawn, a sixth while the backup is written, half around apply). Early
 * kills leave the store as it was (the trial then repairs it again), late ones after apply (it then restores the
 * finished backup), the ones in between land inside the transaction.
 */
export const FIXED_KILLS: readonly KillSpec[] = [
  { anchor: "spawn", at: 0.2 },
  { anchor: "spawn", at: 0.7 },
  { anchor: "backup", at: 0.5 },
  { anchor: "applying", at: 0 },
  { anchor: "applying", at: 0.5 },
  { anchor: "applying", at: 0.95 },
].map((k) => ({ ...k, anchor: k.anchor as Anchor, name: `fixed kill ${Math.round(k.at * 100)}% into ${k.anchor}` }));

/**
 * The randomized trials (as many as `count`: CRASH_TRIALS): trial i's kill moment is drawn
 * from `seed` and i, its anchor taken in turn from spawn, spawn, backup, applying, applying, applying.
 */
/**
 * When to kill, from the median phase times of the clean runs: anywhere in the run (from the spawn, a little past its
 * end), while the backup is written, or from the manifest's "applying" until a little after apply should be done
 * (never shorter than `applyFloorMs`). The trial's name for its folder, too.
 */
export function killPlanFor(
  kill: KillSpec,
  timing: { run: number; backupWriting: number; applying: number },
  applyFloorMs = 0,
): { trial: string; plan: KillPlan } {
  const { anchor } = kill;
  const trial = kill.trial === undefined ? `${anchor}-${Math.round(kill.at * 100)}` : String(kill.trial);
  const delayMs =
    anchor === "spawn"
      ? kill.at * timing.run * 1.05
      : anchor === "backup"
        ? kill.at * timing.backupWriting
        : kill.at * Math.max(applyFloorMs, timing.applying) * 1.25;
  return { trial, plan: { anchor, delayMs } };
}

export function randomKills(seed: number, count: number): KillSpec[] {
  return Array.from({ length: count }, (_, trial) => {
    const rand = mulberry32((seed + trial * 0x2545f491) >>> 0);
    const anchor = (["spawn", "spawn", "backup", "applying", "applying", "applying"] as const)[trial % 6]!;
    return { name: `random trial ${trial}`, anchor, at: rand(), trial };
  });
}

/** A trial-count knob from the environment: unset means none beyond the fixed set. */
export function trialCount(name: string): number {
  const value = process.env[name];
  if (value === undefined || value === "") return 0;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name}=${value}: expected a whole number of trials`);
  return n;
}

/**
 * A scratch root for one kind of trial, one folder per format under it, kept when a trial failed. Each format's
 * trials clean up their own folder and then the root once it is empty: test files share the trials module within a
 * worker (isolate: false), so a module-level afterAll would run after the first file only, and the next file's
 * trials would recreate the folder and leave it behind.
 */
export function scratchSpace(prefix: string, label: string): { root: string; failed(): void; cleanUp(name: string): void } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  let failures = 0;
  return {
    root,
    failed: () => {
      failures++;
    },
    cleanUp(name) {
      if (failures === 0) fs.rmSync(path.join(root, name), { recursive: true, force: true });
      else console.log(`${label}: ${failures} failed trial(s); their stores are kept under ${root}`);
      try {
        fs.rmdirSync(root);
      } catch {
        // Not empty: another format's trials, or kept failures.
      }
    },
  };
}
