// `store salvage`: a database SQLite calls malformed (opencode will not start, anomalyco/opencode#30157) read row by
// row into a new one. Real damage: a leaf page of the part table overwritten by zeros in a copy of the demo database.
import Database from "better-sqlite3";
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { expectJsonError, parseJsonDocument, run, tempDir } from "../cli/run.js";

const DEMO = path.resolve("fixtures/demo/opencode");

type Row = Record<string, unknown>;
type SalvageDoc = {
  out: string;
  tables: { name: string; rows: number; unreadable: { from: number; to?: number; why: string }[] }[];
  backup: { id: string; path: string } | null;
  undo?: string;
  summary: { rows: number; unreadable: number };
};

/** The demo database as one file (its WAL checked in), with the `nth` page of `part` of this type zeroed; its cell count. */
function damagedCopy(
  nth = 3,
  pagetype: "leaf" | "overflow" = "leaf",
): { dir: string; db: string; lostCells: number; rows: Map<number, Row>; sessions: number } {
  const dir = tempDir();
  for (const name of fs.readdirSync(DEMO)) fs.copyFileSync(path.join(DEMO, name), path.join(dir, name));
  const db = path.join(dir, "opencode.db");
  const conn = new Database(db);
  conn.pragma("journal_mode = DELETE");
  const rows = new Map((conn.prepare("SELECT rowid AS _rowid, * FROM part").all() as Row[]).map((r) => [Number(r._rowid), r]));
  const sessions = conn.prepare("SELECT count(*) FROM session").pluck().get() as number;
  const page = conn.prepare("SELECT pageno, ncell FROM dbstat WHERE name = 'part' AND pagetype = ? ORDER BY pageno LIMIT 1 OFFSET ?").get(pagetype, nth) as {
    pageno: number;
    ncell: number;
  };
  const pageSize = conn.pragma("page_size", { simple: true }) as number;
  conn.close();
  const fd = fs.openSync(db, "r+");
  fs.writeSync(fd, Buffer.alloc(pageSize), 0, pageSize, (page.pageno - 1) * pageSize);
  fs.closeSync(fd);
  return { dir, db, lostCells: page.ncell, rows, sessions };
}

function partRows(db: string): Map<number, Row> {
  const conn = new Database(db, { readonly: true });
  try {
    return new Map((conn.prepare("SELECT rowid AS _rowid, * FROM part").all() as Row[]).map((r) => [Number(r._rowid), r]));
  } finally {
    conn.close();
  }
}

describe("store salvage", () => {
  it("keeps every readable row of a database with a zeroed page, reports the unreadable rowids, never touches the original", async () => {
    const { dir, db, lostCells, rows, sessions } = damagedCopy();
    const damaged = fs.readFileSync(db);
    // As opencode would meet it: SQLite refuses to read the part table through.
    const probe = new Database(db, { readonly: true });
    expect(() => probe.prepare("SELECT sum(length(data)) FROM part").get()).toThrow(/malformed/);
    probe.close();

    const r = await run(["store", "salvage", "--store", db, "--json"], { env: { XDG_STATE_HOME: tempDir() } });
    expect(r.status, r.stderr).toBe(1);
    const doc = parseJsonDocument(r.stdout) as SalvageDoc;
    expect(doc.out).toBe(path.join(dir, "opencode.salvaged.db"));
    expect(Buffer.compare(fs.readFileSync(db), damaged)).toBe(0);

    const part = doc.tables.find((t) => t.name === "part")!;
    expect(part.unreadable.length).toBe(1);
    expect(part.unreadable[0]!.why).toMatch(/malformed/);
    const salvaged = partRows(doc.out);
    // Every row read is the original row, in every column; the rows not read are exactly the zeroed page's cells,
    // and each lies in the range reported.
    for (const [rowid, row] of salvaged) expect(row).toEqual(rows.get(rowid));
    const lost = [...rows.keys()].filter((rowid) => !salvaged.has(rowid));
    expect(lost).toHaveLength(lostCells);
    const range = part.unreadable[0]!;
    expect(lost.every((rowid) => rowid >= range.from && rowid <= (range.to ?? Number.POSITIVE_INFINITY))).toBe(true);
    expect(part.rows).toBe(rows.size - lostCells);
    // The other tables whole; the new database is sound and scans like any other store.
    expect(doc.tables.filter((t) => t.name !== "part").every((t) => t.unreadable.length === 0)).toBe(true);
    const check = new Database(doc.out, { readonly: true });
    expect(check.prepare("PRAGMA integrity_check").pluck().get()).toBe("ok");
    expect(check.prepare("SELECT count(*) FROM session").pluck().get()).toBe(sessions);
    check.close();
    const scan = await run(["session", "scan", "--all", "--store", doc.out, "--json"], { env: { XDG_STATE_HOME: tempDir() } });
    expect([0, 1]).toContain(scan.status);

    // Human output names the table and the rowids; a second salvage to the same place is refused.
    const again = await run(["store", "salvage", "--store", db], { env: { XDG_STATE_HOME: tempDir() } });
    expect(again.status).toBe(2);
    expect(again.stderr).toContain("already exists; name another with --out");
    const human = await run(["store", "salvage", "--store", db, "--out", path.join(dir, "other.db")], { env: { XDG_STATE_HOME: tempDir() } });
    expect(human.status).toBe(1);
    expect(human.stdout).toMatch(new RegExp(`part\\s+${part.rows} rows\\n\\s+unreadable rowids ${range.from}–${range.to}: `));
  });

  it("a row whose overflow page is zeroed is reported alone; the rows around it are kept", async () => {
    const { db, rows } = damagedCopy(2, "overflow");
    const out = `${db}.out`;
    const r = await run(["store", "salvage", "--store", db, "--out", out, "--json"], { env: { XDG_STATE_HOME: tempDir() } });
    const doc = parseJsonDocument(r.stdout) as SalvageDoc;
    const part = doc.tables.find((t) => t.name === "part")!;
    const salvaged = partRows(out);
    const lost = [...rows.keys()].filter((rowid) => !salvaged.has(rowid));
    // The chain ends early (a zeroed page points nowhere): SQLite finds the row but cannot read it. Only that row is
    // lost and reported, alone; every other row is the original.
    expect(r.status).toBe(1);
    expect(lost).toHaveLength(1);
    expect(part.unreadable).toEqual([{ from: lost[0], to: lost[0], why: expect.stringMatching(/malformed/) }]);
    for (const [rowid, row] of salvaged) expect(row).toEqual(rows.get(rowid));
  });

  it("a sound database is copied whole (exit 0)", async () => {
    const dir = tempDir();
    for (const name of fs.readdirSync(DEMO)) fs.copyFileSync(path.join(DEMO, name), path.join(dir, name));
    const out = path.join(dir, "copy.db");
    const r = await run(["store", "salvage", "--store", dir, "--out", out, "--json"], { env: { XDG_STATE_HOME: tempDir() } });
    expect(r.status, r.stderr).toBe(0);
    expect(partRows(out)).toEqual(partRows(path.join(dir, "opencode.db")));
    expect((parseJsonDocument(r.stdout) as SalvageDoc).summary.unreadable).toBe(0);
  });

  it("--replace swaps the salvaged database in after backing up the old one; session restore puts the damaged one back byte for byte", async () => {
    const { dir, db, rows, lostCells } = damagedCopy(5);
    const damaged = fs.readFileSync(db);
    const state = tempDir();
    const r = await run(["store", "salvage", "--store", db, "--replace", "--yes", "--json"], { env: { XDG_STATE_HOME: state } });
    expect(r.status, r.stderr).toBe(1);
    const doc = parseJsonDocument(r.stdout) as SalvageDoc;
    expect(doc.backup?.id).toBeDefined();
    expect(partRows(db).size).toBe(rows.size - lostCells);
    expect(fs.readdirSync(dir).filter((f) => f.includes(".recover-tmp-"))).toEqual([]);

    const undo = await run(["session", "restore", doc.backup!.id, "--store", db, "--yes"], { env: { XDG_STATE_HOME: state } });
    expect(undo.status, undo.stderr).toBe(0);
    expect(Buffer.compare(fs.readFileSync(db), damaged)).toBe(0);
  });

  it("--replace is refused while another process has the database open (exit 3), and without --yes off a terminal", async () => {
    const { db } = damagedCopy();
    const damaged = fs.readFileSync(db);
    const holder = spawn(process.execPath, [
      "-e",
      `require("fs").openSync(${JSON.stringify(db)}, "r"); process.stdout.write("open\\n"); setInterval(() => {}, 1000)`,
    ]);
    try {
      await new Promise<void>((resolve) => holder.stdout.once("data", () => resolve()));
      const r = await run(["store", "salvage", "--store", db, "--replace", "--yes", "--json"], { env: { XDG_STATE_HOME: tempDir() } });
      expect(r.status).toBe(3);
      expect(expectJsonError(r, "live-writer").message).toContain(`(pid ${holder.pid}) has ${db} open`);
    } finally {
      // Gone before the next run looks for holders: kill() only sends the signal.
      const exited = new Promise((resolve) => holder.once("exit", resolve));
      holder.kill();
      await exited;
    }
    const unconfirmed = await run(["store", "salvage", "--store", db, "--replace"], { env: { XDG_STATE_HOME: tempDir() } });
    expect(unconfirmed.status).toBe(2);
    expect(Buffer.compare(fs.readFileSync(db), damaged)).toBe(0);
  });

  it("what is not a database is refused in one line (exit 2)", async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, "opencode.db"), "not sqlite");
    const r = await run(["store", "salvage", "--store", path.join(dir, "opencode.db"), "--json"], { env: { XDG_STATE_HOME: tempDir() } });
    expect(r.status).toBe(2);
    expectJsonError(r, "not-a-store");
  });
});
