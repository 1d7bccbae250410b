// Repair-test harness: a session description written as a real store (SQLite file or JSON tree) in a temp dir,
// repaired in-process exactly as `recover session repair` applies a plan (planSession → repairTargets →
// runTransaction), restored as `recover session restore` does, and snapshotted record by record so a test can say
// precisely which rows/files a repair touched and that a restore put every byte back.
import Database from "better-sqlite3";
import fs from "node:fs";
import path from "node:path";
import { expect } from "vitest";
import { repairRules } from "../../src/cli/commands/session-repair.js";
import type { RecordChange } from "../../src/model/change.js";
import type { SessionRecords } from "../../src/model/opencode-records.js";
import { planSession, type SessionPlan } from "../../src/plan/planner.js";
import { RULES } from "../../src/rules/index.js";
import { DEFAULT_RULE_OPTIONS, type Finding, type Rule } from "../../src/rules/rule.js";
import { scanSession } from "../../src/scan/scan.js";
import { openStore } from "../../src/stores/discover.js";
import { isOpencodeStore, type OpencodeStore } from "../../src/stores/store.js";
import { readBackup, type Backup } from "../../src/txn/backup-store.js";
import { hasJournal } from "../../src/txn/journal.js";
import { repairTargets, restoreTargets, changesOfTargets } from "../../src/txn/targets.js";
import { runTransaction } from "../../src/txn/transaction.js";
import type { BuiltStore, Json } from "../support/opencode-fixtures.js";
import { lastWrite, tempDir, writeStore, type Format } from "../rules/harness.js";

export { FORMATS, type Format } from "../rules/harness.js";

export const DAY = 24 * 60 * 60 * 1000;

/** opencode's id shape: prefix, 12 hex chars of time, 14 base62 chars. */
export const PART_ID = /^prt_[0-9a-f]{12}[0-9A-Za-z]{14}$/;
/** An Anthropic tool-use id as freshCallId mints it. */
export const TOOLU_ID = /^toolu_01[0-9A-Za-z]{22}$/;

/** Every rule `session repair` runs without --rule (what the CLI's default is). */
export const DEFAULT_REPAIR_RULES: readonly Rule[] = repairRules(undefined);

// ---------------------------------------------------------------------------------------------
// A store on disk
// ---------------------------------------------------------------------------------------------

export interface Fixture {
  format: Format;
  built: BuiltStore;
  /** What --store names (the data dir). */
  dir: string;
  /** The store's own path (opencode.db or storage/), as StoreInfo.path names it. */
  storePath: string;
  backupRoot: string;
  stateDir: string;
  sessionId: string;
  /** The pinned clock: a day after the fixture's last write, so no turn is a live tail. */
  now: number;
  /**
   * A time after every file the repair itself wrote (JSON-tree files get the real mtime of the write, and the
   * JSON reader takes mtimes as activity): rescans and re-plans use it, so a repaired last turn cannot pass for a
   * live one and hide a finding.
   */
  later: number;
}

const created: string[] = [];

export function setup(format: Format, built: BuiltStore, opts: { tamper?: (dir: string, format: Format) => void; sessionId?: string } = {}): Fixture {
  const dir = writeStore(format, built);
  opts.tamper?.(dir, format);
  const scratch = tempDir();
  created.push(dir, scratch);
  const now = lastWrite(built) + DAY;
  return {
    format,
    built,
    dir,
    storePath: format === "sqlite" ? path.join(dir, "opencode.db") : path.join(dir, "storage"),
    backupRoot: path.join(scratch, "backups"),
    stateDir: path.join(scratch, "state"),
    sessionId: opts.sessionId ?? built.sessions[0]!.id,
    now,
    later: Math.max(now, Date.now()) + DAY,
  };
}

/** Removes every temp dir made by setup() (call from afterAll). */
export function cleanupAll(): void {
  for (const dir of created.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

export function withOpen<T>(fx: Pick<Fixture, "dir" | "format">, use: (store: OpencodeStore) => T): T {
  const store = openStore({ store: fx.dir });
  try {
    const wanted = fx.format === "sqlite" ? "opencode-sqlite" : "opencode-json";
    if (store.info.format !== wanted || !isOpencodeStore(store)) throw new Error(`openStore picked ${store.info.format}, expected ${wanted}`);
    return use(store);
  } finally {
    store.close();
  }
}

/** The session as the store loads it now (full mode: originals and bytes). */
export function load(fx: Fixture, sessionId = fx.sessionId): SessionRecords {
  return withOpen(fx, (store) => store.loadSession(sessionId, "full"));
}

// ---------------------------------------------------------------------------------------------
// Plan, repair, restore: in-process, the way the commands do it
// ---------------------------------------------------------------------------------------------

export interface PlanArgs {
  rules?: readonly Rule[];
  now?: number;
  sessionId?: string;
  /** `--keep-thinking`: refuse a plan that must drop prefix-bound thinking. */
  keepThinking?: boolean;
}

export function plan(fx: Fixture, args: PlanArgs = {}): SessionPlan {
  return withOpen(fx, (store) => {
    const records = store.loadSession(args.sessionId ?? fx.sessionId, "full");
    return planSession(records, store.fixing, {
      ...DEFAULT_RULE_OPTIONS,
      now: args.now ?? fx.now,
      rules: args.rules ?? DEFAULT_REPAIR_RULES,
      ...(args.keepThinking ? { keepThinking: true } : {}),
    });
  });
}

export interface Repaired {
  plan: SessionPlan;
  backup: Backup;
}

/** Plan one session and apply the plan in one transaction, as `session repair` does. */
export function repair(fx: Fixture, args: PlanArgs = {}): Repaired {
  const sessionId = args.sessionId ?? fx.sessionId;
  const now = args.now ?? fx.now;
  return withOpen(fx, (store) => {
    const records = store.loadSession(sessionId, "full");
    const planned = planSession(records, store.fixing, { ...DEFAULT_RULE_OPTIONS, now, rules: args.rules ?? DEFAULT_REPAIR_RULES });
    if (planned.changes.length === 0) throw new Error(`repair: nothing planned for ${sessionId}`);
    const writer = store.openWriter();
    try {
      const { targets, changes } = repairTargets([{ sessionRef: records.sessionRef, changes: planned.changes }], writer, store.codec, now);
      const backup = runTransaction({ kind: "repair", writer, backupRoot: fx.backupRoot, stateDir: fx.stateDir, sessions: [sessionId], changes, targets, now });
      return { plan: planned, backup };
    } finally {
      writer.close();
    }
  });
}

/** Put back everything a backup holds, as `session restore` does (itself a transaction with its own backup). */
export function restore(fx: Fixture, backupId: string, now = fx.later): Backup {
  return withOpen(fx, (store) => {
    const writer = store.openWriter();
    try {
      const backup = readBackup(fx.backupRoot, backupId);
      const { targets, conflicts } = restoreTargets(backup, writer);
      expect(conflicts, "records changed after the repair").toEqual([]);
      const sessions = [...new Set(targets.map((t) => t.key.sessionId))];
      return runTransaction({
        kind: "restore",
        restoreOf: backupId,
        writer,
        backupRoot: fx.backupRoot,
        stateDir: fx.stateDir,
        sessions,
        changes: changesOfTargets(targets, "restore"),
        targets,
        now,
      });
    } finally {
      writer.close();
    }
  });
}

/** Every rule over the session as a scan sees it (lean load), at `later`. */
export function rescan(fx: Fixture, sessionId = fx.sessionId): Finding[] {
  return withOpen(fx, (store) => scanSession(store, sessionId, { rules: RULES, now: fx.later, ...DEFAULT_RULE_OPTIONS }).findings);
}

// ---------------------------------------------------------------------------------------------
// Snapshots: every record's exact stored state
// ---------------------------------------------------------------------------------------------

export interface Snapshot {
  /** `session:<id>` / `message:<id>` / `part:<id>` (JSON tree: other files as `file:<relative path>`) → exact state. */
  records: Map<string, string>;
  /** SQLite: `SELECT * … ORDER BY id` per table, raw, 64-bit safe, plus `CAST(data AS BLOB)`. JSON tree: empty. */
  rows: Record<string, unknown[][]>;
  /** JSON tree: each file's mtime (ms). */
  mtimes: Map<string, number>;
}

const TABLES = ["session", "message", "part"] as const;

export function snapshot(fx: Pick<Fixture, "format" | "storePath">): Snapshot {
  return fx.format === "sqlite" ? sqliteSnapshot(fx.storePath) : jsonSnapshot(fx.storePath);
}

function sqliteSnapshot(file: string): Snapshot {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const records = new Map<string, string>();
    const rows: Record<string, unknown[][]> = {};
    for (const table of TABLES) {
      const names = (db.prepare(`PRAGMA table_info("${table}")`).all() as { name: string }[]).map((c) => c.name);
      const hasData = names.includes("data");
      rows[table] = db
        .prepare(`SELECT *${hasData ? ", typeof(data), CAST(data AS BLOB)" : ""} FROM "${table}" ORDER BY id`)
        .raw(true)
        .safeIntegers(true)
        .all() as unknown[][];
      // Every column, typed, as exact bytes: what "identical in every column" means.
      const select = names.map((n) => `typeof("${n}"), hex(CAST("${n}" AS BLOB))`).join(", ");
      for (const row of db.prepare(`SELECT id, ${select} FROM "${table}" ORDER BY id`).raw(true).all() as string[][]) {
        const [id, ...cells] = row;
        records.set(`${table}:${id}`, JSON.stringify(names.map((n, i) => [n, cells[2 * i], cells[2 * i + 1]])));
      }
    }
    return { records, rows, mtimes: new Map() };
  } finally {
    db.close();
  }
}

function jsonKey(rel: string): string {
  const m = /^(session|message|part)\/[^/]+\/([^/]+)\.json$/.exec(rel);
  return m ? `${m[1]}:${m[2]}` : `file:${rel}`;
}

function jsonSnapshot(root: string): Snapshot {
  const records = new Map<string, string>();
  const mtimes = new Map<string, number>();
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        walk(full);
        continue;
      }
      const rel = path.relative(root, full).split(path.sep).join("/");
      const stat = fs.statSync(full);
      const key = jsonKey(rel);
      records.set(key, `${rel} ${(stat.mode & 0o7777).toString(8)} ${fs.readFileSync(full).toString("hex")}`);
      mtimes.set(key, stat.mtimeMs);
    }
  };
  walk(root);
  return { records, rows: {}, mtimes };
}

export interface SnapshotDiff {
  added: string[];
  removed: string[];
  changed: string[];
}

export function diff(before: Snapshot, after: Snapshot): SnapshotDiff {
  const added = [...after.records.keys()].filter((k) => !before.records.has(k)).sort();
  const removed = [...before.records.keys()].filter((k) => !after.records.has(k)).sort();
  const changed = [...before.records.keys()].filter((k) => after.records.has(k) && after.records.get(k) !== before.records.get(k)).sort();
  return { added, removed, changed };
}

export const NO_DIFF: SnapshotDiff = { added: [], removed: [], changed: [] };

export const sorted = (...keys: string[]) => [...keys].sort();

// ---------------------------------------------------------------------------------------------
// Reading records back
// ---------------------------------------------------------------------------------------------

export function withoutIds(value: Json | undefined): Json {
  if (!value) throw new Error("record has no parsed value");
  const { id: _id, sessionID: _s, messageID: _m, ...rest } = value;
  return rest;
}

/** A part's stored object (ids stripped, so both formats compare alike). */
export function storedPart(records: SessionRecords, partId: string): Json {
  for (const m of records.messages) for (const p of m.parts) if (p.ref.id === partId) return withoutIds(p.original);
  throw new Error(`no part ${partId} in the loaded session`);
}

export function storedMessage(records: SessionRecords, messageId: string): Json {
  const m = records.messages.find((x) => x.ref.id === messageId);
  if (!m) throw new Error(`no message ${messageId} in the loaded session`);
  return withoutIds(m.original);
}

export function partIds(records: SessionRecords, messageId: string): string[] {
  const m = records.messages.find((x) => x.ref.id === messageId);
  if (!m) throw new Error(`no message ${messageId} in the loaded session`);
  return m.parts.map((p) => p.ref.id);
}

/** The planned changes as `op record id`, for exact assertions. */
export function ops(changes: readonly RecordChange[]): string[] {
  return changes.map((c) => `${c.op} ${c.key.record} ${c.key.id}`).sort();
}

// ---------------------------------------------------------------------------------------------
// The checks every fix must pass afterwards
// ---------------------------------------------------------------------------------------------

export interface AfterRepair {
  /** The rule(s) whose findings the repair was for. */
  rules: string[];
  /** The snapshot taken before the repair. */
  original: Snapshot;
  backup: Backup;
  /** The rule set to re-plan with (defaults to the CLI default). */
  replanRules?: readonly Rule[];
  /** Findings (`rule messageId partId`) a rescan still reports, of other rules; none by default. */
  remaining?: string[];
}

/**
 * A fresh scan has no finding of the fixed rule(s); planning again changes nothing (at the pinned clock and at a
 * later one); the backup is done and no journal is left; restoring it gives back every record exactly, with no
 * stray file.
 */
export function expectSettledAndRestorable(fx: Fixture, a: AfterRepair): void {
  const findings = rescan(fx).map((f) => `${f.rule} ${f.messageId ?? "-"} ${f.partId ?? "-"}`);
  expect(
    findings.filter((f) => a.rules.includes(f.split(" ")[0]!)),
    "findings of the fixed rules",
  ).toEqual([]);
  expect(findings.sort(), "every finding of a rescan").toEqual([...(a.remaining ?? [])].sort());
  const rules = a.replanRules ?? DEFAULT_REPAIR_RULES;
  expect(ops(plan(fx, { rules, now: fx.now }).changes), "re-plan at the pinned clock").toEqual([]);
  expect(ops(plan(fx, { rules, now: fx.later }).changes), "re-plan later").toEqual([]);
  expect(readBackup(fx.backupRoot, a.backup.manifest.id).manifest.state).toBe("done");
  expect(hasJournal(fx.stateDir, fx.storePath)).toBe(false);
  expectRestoresExactly(fx, a.backup, a.original);
}

export function expectSameMtimes(actual: Snapshot, expected: Snapshot): void {
  expect([...actual.mtimes.keys()].sort()).toEqual([...expected.mtimes.keys()].sort());
  const off = [...expected.mtimes]
    .filter(([key, ms]) => Math.abs(actual.mtimes.get(key)! - ms) >= 2)
    .map(([key, ms]) => `${key}: ${ms} → ${actual.mtimes.get(key)}`);
  expect(off, "files whose mtime did not come back").toEqual([]);
}

export function expectRestoresExactly(fx: Fixture, backup: Backup, original: Snapshot): void {
  const undo = restore(fx, backup.manifest.id);
  expect(undo.manifest.state).toBe("done");
  expect(undo.manifest.restoreOf).toBe(backup.manifest.id);
  const back = snapshot(fx);
  expect(diff(original, back)).toEqual(NO_DIFF);
  if (fx.format === "sqlite") {
    expect(back.rows).toEqual(original.rows);
  } else {
    // Same files, same bytes and modes (checked above through the records map), and no temp file anywhere.
    expect([...back.records.keys()].sort()).toEqual([...original.records.keys()].sort());
    expect([...back.records.keys()].filter((k) => k.includes(".recover-tmp-"))).toEqual([]);
    // A restored file also reads as written when it was: its mtime is the original one, to the millisecond
    // (utimes through a Date keeps whole milliseconds only, so a sub-millisecond mtime comes back up to 1 ms early).
    expectSameMtimes(back, original);
  }
}
