// A data dir holding more than one opencode store (anomalyco/opencode#2987, #13654, #16885): opencode.db, a channel
// database, the legacy storage/ tree. recover says which database opencode reads (its log, else opencode.db) and
// which sessions the others hold that it lacks, writing nothing.
import Database from "better-sqlite3";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { expectSameBytes, parseJsonDocument, run, snapshot, tempDir } from "../cli/run.js";

const DEMO_DB = path.resolve("fixtures/demo/opencode/opencode.db");
const DEMO_TREE = path.resolve("fixtures/demo/opencode-legacy/storage");

function sessionIds(db: string): string[] {
  const conn = new Database(db, { readonly: true });
  try {
    return conn.prepare("SELECT id FROM session ORDER BY id").pluck().all() as string[];
  } finally {
    conn.close();
  }
}

/** A data dir: the demo database as opencode-stable.db, and as opencode.db without its first two sessions. */
function dataDir(): { dir: string; gone: string[] } {
  const dir = tempDir();
  fs.copyFileSync(DEMO_DB, path.join(dir, "opencode-stable.db"));
  fs.copyFileSync(DEMO_DB, path.join(dir, "opencode.db"));
  const gone = sessionIds(DEMO_DB).slice(0, 2);
  const conn = new Database(path.join(dir, "opencode.db"));
  conn.prepare(`DELETE FROM session WHERE id IN (${gone.map(() => "?").join(",")})`).run(...gone);
  conn.close();
  return { dir, gone };
}

function withoutSqliteSidecars(files: Map<string, Buffer>): Map<string, Buffer> {
  return new Map([...files].filter(([file]) => !/\.db-(wal|shm)$/.test(file)));
}

type ScanDoc = { store: { path: string; notices: string[] } };

describe("a data dir with several opencode stores", () => {
  it("says opencode reads opencode.db, and which sessions opencode-stable.db and storage/ hold that it lacks", async () => {
    const { dir, gone } = dataDir();
    fs.cpSync(DEMO_TREE, path.join(dir, "storage"), { recursive: true });
    const before = snapshot(dir);
    const r = await run(["session", "scan", "--all", "--json", "--exit-zero", "--store", dir]);
    expect(r.status, r.stderr).toBe(0);
    const doc = parseJsonDocument(r.stdout) as ScanDoc;
    expect(doc.store.path).toBe(path.join(dir, "opencode.db"));
    const listed = gone.join(", ");
    expect(doc.store.notices).toEqual([
      `a legacy JSON tree also exists at ${path.join(dir, "storage")} (opencode ≤1.1 data, frozen since the move to SQLite); read it with --format opencode-json`,
      "opencode reads opencode.db here (no log of opencode says otherwise; its latest, beta and prod builds read opencode.db); --store <file> reads another",
      `${path.join(dir, "opencode-stable.db")} holds 2 sessions that opencode.db lacks (${listed}): opencode does not show them`,
      `${path.join(dir, "storage")} holds 2 sessions that opencode.db lacks (${listed}): opencode does not show them`,
    ]);
    const list = await run(["session", "list", "--store", dir]);
    expect(list.stderr).toContain(`opencode-stable.db holds 2 sessions that opencode.db lacks`);
    expect(list.stdout).toContain(
      `only in ${path.join(dir, "opencode-stable.db")} (the agent reads ${path.join(dir, "opencode.db")} and does not show these):`,
    );
    // The sessions themselves, listed under the store that holds them.
    const listed2 = await run(["session", "list", "--json", "--store", dir]);
    const hidden = (parseJsonDocument(listed2.stdout) as { hidden: { store: string; sessions: { id: string; title: string }[] }[] }).hidden;
    expect(hidden.map((h) => [h.store, h.sessions.map((x) => x.id).sort()])).toEqual([
      [path.join(dir, "opencode-stable.db"), [...gone].sort()],
      [path.join(dir, "storage"), [...gone].sort()],
    ]);
    expect(hidden[0]!.sessions.every((x) => x.title !== "")).toBe(true);
    // Every byte of every store is as it was; SQLite itself leaves an empty -wal/-shm beside a WAL database it read.
    expectSameBytes(withoutSqliteSidecars(snapshot(dir)), withoutSqliteSidecars(before));
  });

  it("opencode's own log names the database it opened: that one is read, and the other lacks nothing of it", async () => {
    const { dir } = dataDir();
    fs.mkdirSync(path.join(dir, "log"));
    fs.writeFileSync(
      path.join(dir, "log", "2026-11-24T090000.log"),
      `INFO  2026-11-24T09:00:00 +0ms service=default version=1.2.27 args=[] opencode\nINFO  2026-11-24T09:00:00 +56ms service=db path=${path.join(dir, "opencode-stable.db")} opening database\n`,
    );
    const r = await run(["session", "scan", "--all", "--json", "--exit-zero", "--store", dir]);
    const doc = parseJsonDocument(r.stdout) as ScanDoc;
    expect(doc.store.path).toBe(path.join(dir, "opencode-stable.db"));
    expect(doc.store.notices).toEqual([
      "opencode reads opencode-stable.db here (opencode's log 2026-11-24T090000.log says it opened it); --store <file> reads another",
    ]);
  });

  it("two channel databases, no opencode.db and no log: which one is the user's to say (exit 2, both named)", async () => {
    const dir = tempDir();
    fs.copyFileSync(DEMO_DB, path.join(dir, "opencode-stable.db"));
    fs.copyFileSync(DEMO_DB, path.join(dir, "opencode-local.db"));
    const r = await run(["session", "list", "--store", dir]);
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toBe(
      `recover: ${dir} holds 2 opencode databases (opencode-local.db, opencode-stable.db) and no log of opencode saying which it reads: pass --store <one of them>`,
    );
    const one = await run(["session", "list", "--json", "--store", path.join(dir, "opencode-local.db")]);
    expect(one.status, one.stderr).toBe(0);
  });
});
