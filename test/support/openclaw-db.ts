// openclaw agent databases written by the real client (fixtures/openclaw-2026.9-sqlite/*.sqlite.gz), unpacked into a
// state dir of their own, and the damage users report planted in them the way it happens (a torn write, a lost row, a
// pointer left behind), with better-sqlite3 as any other writer of the file would.
import Database from "better-sqlite3";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { expect } from "vitest";
import { expectNoStack, parseJsonDocument, run, tempDir } from "../cli/run.js";

export const OPENCLAW_SQLITE_FIXTURES = path.resolve("fixtures/openclaw-2026.9-sqlite");

/** `<state>/agents/main/agent/openclaw-agent.sqlite` holding fixture `name`; returns the state dir and the database. */
export function openclawState(name: string): { state: string; db: string } {
  const state = tempDir();
  const dir = path.join(state, "agents", "main", "agent");
  fs.mkdirSync(dir, { recursive: true });
  const db = path.join(dir, "openclaw-agent.sqlite");
  fs.writeFileSync(db, zlib.gunzipSync(fs.readFileSync(path.join(OPENCLAW_SQLITE_FIXTURES, `${name}.sqlite.gz`))));
  return { state, db };
}

/** Run `work` on a writable connection with foreign keys off (the damage is what the client's own checks catch). */
export function plant<T>(db: string, work: (db: Database.Database) => T): T {
  const connection = new Database(db);
  try {
    connection.pragma("foreign_keys = OFF");
    return work(connection);
  } finally {
    connection.close();
  }
}

/**
 * The session tables, every row, every column (blobs as hex), ordered by primary key: what "the database as it was"
 * means for restore. Not the hidden rowid of a table whose key is no INTEGER PRIMARY KEY: SQLite itself does not keep it
 * (VACUUM renumbers it), and no reader of these tables uses it.
 */
export function sessionRows(db: string): string {
  const connection = new Database(db, { readonly: true });
  try {
    const tables = [
      "session_nodes",
      "session_windows",
      "session_canonical_validation_pending",
      "transcript_events",
      "transcript_event_identities",
      "session_transcript_active_events",
      "session_transcript_index_state",
      "transcript_rewrite_watermarks",
      "session_transcript_fts_rows",
    ];
    const keyOf = (t: string) =>
      (connection.prepare(`PRAGMA table_info(${t})`).all() as { name: string; pk: number }[])
        .filter((c) => c.pk > 0)
        .sort((a, b) => a.pk - b.pk)
        .map((c) => c.name)
        .join(", ");
    const rows = Object.fromEntries(tables.map((t) => [t, connection.prepare(`SELECT * FROM ${t} ORDER BY ${keyOf(t)}`).all()]));
    // The search index's texts, named by the rowid its rows table gives them.
    rows.session_transcript_fts = connection.prepare("SELECT rowid, * FROM session_transcript_fts ORDER BY rowid").all();
    return JSON.stringify(rows, (_k, v) => (Buffer.isBuffer(v) ? v.toString("hex") : v));
  } finally {
    connection.close();
  }
}

/** The only session id of a fixture. */
export function onlySession(db: string): string {
  const connection = new Database(db, { readonly: true });
  try {
    return connection.prepare("SELECT DISTINCT session_id FROM transcript_events").pluck().get() as string;
  } finally {
    connection.close();
  }
}

/** An event cut short, as a crash in the middle of writing it leaves it. */
export function tearEvent(db: string, seq: number, keep: number): void {
  plant(db, (c) => {
    const json = c.prepare("SELECT event_json FROM transcript_events WHERE seq = ?").pluck().get(seq) as string;
    c.prepare("UPDATE transcript_events SET event_json = ? WHERE seq = ?").run(json.slice(0, keep), seq);
  });
}

export interface ScannedFinding {
  rule: string;
  severity: string;
  message: string;
  fixable: boolean;
}

/** Every finding of every session of the state dir, live ones included. */
export async function scanFindings(state: string): Promise<ScannedFinding[]> {
  const r = await run(["session", "scan", "--all", "--include-live", "--json", "--exit-zero", "--store", state]);
  expect(r.status, r.stderr).toBe(0);
  return (parseJsonDocument(r.stdout) as { sessions: { findings: ScannedFinding[] }[] }).sessions.flatMap((s) => s.findings);
}

/** Repair every finding of the only session, then check it is gone, that repairing again plans nothing, and that restore gives every row back. */
export async function repairAndRestore(state: string, db: string): Promise<{ before: string; after: string }> {
  const before = sessionRows(db);
  const id = onlySession(db);
  const repaired = await run(["session", "repair", id, "--yes", "--force", "--include-live", "--store", state]);
  expect(repaired.status, repaired.stderr).toBe(0);
  expectNoStack(repaired.stderr);
  expect(await scanFindings(state)).toEqual([]);
  const after = sessionRows(db);
  const again = await run(["session", "repair", id, "--yes", "--force", "--include-live", "--store", state]);
  expect(again.status, again.stderr).toBe(0);
  expect(sessionRows(db)).toBe(after);
  const restored = await run(["session", "restore", "--last", "--yes", "--store", state]);
  expect(restored.status, restored.stderr).toBe(0);
  expect(sessionRows(db)).toBe(before);
  return { before, after };
}
