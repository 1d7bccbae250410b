// `session import`: sessions opencode cannot show (left in the legacy storage/ tree after its one-time JSON → SQLite
// import, or in another database of the data dir: anomalyco/opencode#13654, #2987) copied into the database it
// reads. Real stores: the tree the real opencode 1.1.65 wrote (fixtures/opencode-1.1.65), a database the real
// opencode 1.18.33 wrote (fixtures/opencode-1.18), the demo database.
import Database from "better-sqlite3";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { expectJsonError, expectSameBytes, parseJsonDocument, run, snapshot, tempDir } from "../cli/run.js";

const LEGACY_TREE = path.resolve("fixtures/opencode-1.1.65/storage");
const DB_1_18 = path.resolve("fixtures/opencode-1.18/tool-bash/opencode.db");
const DEMO_DB = path.resolve("fixtures/demo/opencode/opencode.db");
const LEGACY_IDS = ["ses_df0588b5bffeOwkpme3Bsbbixr", "ses_df0589caaffe0X1Vcs0ALv6VJk", "ses_df058ad95ffefkbZWczmLt9x2d"];

type Row = Record<string, unknown>;
type ImportDoc = {
  dryRun: boolean;
  backup: { id: string; path: string } | null;
  undo?: string;
  sessions: { id: string; title: string; changes: { op: string; record: string; id: string }[]; unfixed: { rule: string; severity: string }[] }[];
  store: { notices: string[] };
  summary: { sessions: number; changes: number };
};

/** Every row of opencode's four tables, every column, as SQLite holds it (blobs and texts as hex, so bytes count). */
function dump(db: string): Record<string, Row[]> {
  const conn = new Database(db, { readonly: true });
  try {
    const out: Record<string, Row[]> = {};
    for (const table of ["project", "session", "message", "part"]) {
      const columns = (conn.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name);
      const select = columns.map((c) => `typeof("${c}") AS "${c}:type", hex("${c}") AS "${c}"`).join(", ");
      out[table] = conn.prepare(`SELECT ${select} FROM ${table} ORDER BY id`).all() as Row[];
    }
    return out;
  } finally {
    conn.close();
  }
}

function rowsOf(db: string, sql: string, ...params: unknown[]): Row[] {
  const conn = new Database(db, { readonly: true });
  try {
    return conn.prepare(sql).all(...params) as Row[];
  } finally {
    conn.close();
  }
}

/** A data dir as an upgraded opencode leaves it: opencode.db (1.18.33's own) and the tree 1.1.65 wrote, never imported. */
function upgradedDataDir(): { dir: string; db: string; storage: string; state: string } {
  const dir = tempDir();
  const db = path.join(dir, "opencode.db");
  fs.copyFileSync(DB_1_18, db);
  fs.cpSync(LEGACY_TREE, path.join(dir, "storage"), { recursive: true });
  return { dir, db, storage: path.join(dir, "storage"), state: tempDir() };
}

const envOf = (state: string) => ({ XDG_STATE_HOME: state });

describe("session import from the legacy JSON tree", () => {
  it("imports the 3 sessions the tree holds and the database lacks; listed after; a re-run imports nothing; restore takes them out", async () => {
    const { dir, db, storage, state } = upgradedDataDir();
    const original = dump(db);
    const treeBefore = snapshot(storage);

    const listed = await run(["session", "list", "--json", "--store", dir], { env: envOf(state) });
    const hidden = (parseJsonDocument(listed.stdout) as { hidden: { store: string; sessions: { id: string }[]; import: string }[] }).hidden;
    expect(hidden.map((h) => h.sessions.map((s) => s.id).sort())).toEqual([LEGACY_IDS]);
    expect(hidden[0]!.import).toMatch(/ session import --all --from \S+storage --store /);

    const r = await run(["session", "import", "--all", "--from", storage, "--store", dir, "--yes", "--json"], { env: envOf(state) });
    expect(r.status, r.stderr).toBe(0);
    const doc = parseJsonDocument(r.stdout) as ImportDoc;
    expect(doc.sessions.map((s) => s.id).sort()).toEqual(LEGACY_IDS);
    expect(doc.sessions.map((s) => s.title).sort()).toEqual(["Capital of France", "List project files", "Saying goodbye"]);
    // The project row once (the first session needs it), then each session's rows: 2 + 3 + 2 messages, 4 + 8 + 4 parts.
    expect(doc.summary).toMatchObject({ sessions: 3, changes: 1 + 3 + 7 + 16 });
    expect(doc.sessions.flatMap((s) => s.changes).every((c) => c.op === "insert")).toBe(true);
    expect(doc.sessions.flatMap((s) => s.unfixed)).toEqual([]);
    expect(doc.backup?.id).toMatch(/^\d{8}T\d{6}Z-/);

    // opencode's rows: ids in columns, `data` without them, times from the records.
    const [session] = rowsOf(db, "SELECT * FROM session WHERE id = ?", "ses_df0589caaffe0X1Vcs0ALv6VJk");
    const file = JSON.parse(
      fs.readFileSync(path.join(storage, "session", "378e2190e2e550ea2e5d4540ac6f1c3ba515c09c", "ses_df0589caaffe0X1Vcs0ALv6VJk.json"), "utf8"),
    );
    expect(session).toMatchObject({
      project_id: "378e2190e2e550ea2e5d4540ac6f1c3ba515c09c",
      slug: file.slug,
      title: "List project files",
      directory: file.directory,
      path: "",
      version: "1.1.65",
      // What newer opencode keeps on the session: the last prompt's agent, the last answer's model.
      agent: "build",
      model: JSON.stringify({ id: "claude-sonnet-4-5", providerID: "anthropic" }),
      time_created: file.time.created,
      time_updated: file.time.updated,
      // The rollups, summed over its two step-finish parts.
      tokens_input: 200,
      tokens_output: 20,
    });
    expect(session!.cost).toBeCloseTo(0.0009, 10);
    const messages = rowsOf(db, "SELECT * FROM message WHERE session_id = ? ORDER BY time_created, id", "ses_df0589caaffe0X1Vcs0ALv6VJk");
    expect(messages).toHaveLength(3);
    for (const message of messages) {
      const stored = JSON.parse(fs.readFileSync(path.join(storage, "message", "ses_df0589caaffe0X1Vcs0ALv6VJk", `${message.id}.json`), "utf8"));
      const { id: _id, sessionID: _sessionID, ...rest } = stored;
      expect(message.data).toBe(JSON.stringify(rest));
      expect(message.time_created).toBe(stored.time.created);
      expect(message.time_updated).toBe(stored.time.completed ?? stored.time.created);
    }
    const parts = rowsOf(db, "SELECT * FROM part WHERE session_id = ?", "ses_df0589caaffe0X1Vcs0ALv6VJk");
    expect(parts).toHaveLength(8);
    for (const part of parts) {
      const data = JSON.parse(String(part.data));
      expect(data).not.toHaveProperty("id");
      expect(data).not.toHaveProperty("messageID");
      expect(Number(part.time_updated)).toBeGreaterThanOrEqual(Number(part.time_created));
    }

    // opencode's own rows are untouched, and the tree too.
    const imported = dump(db);
    for (const table of ["session", "message", "part", "project"]) {
      for (const row of original[table]!) expect(imported[table]).toContainEqual(row);
    }
    expectSameBytes(snapshot(storage), treeBefore);

    const after = await run(["session", "list", "--json", "--store", dir], { env: envOf(state) });
    const afterDoc = parseJsonDocument(after.stdout) as { sessions: { id: string }[]; hidden?: unknown };
    expect(afterDoc.sessions.map((s) => s.id)).toEqual(expect.arrayContaining(LEGACY_IDS));
    expect(afterDoc.hidden).toBeUndefined();

    // A re-run finds nothing to import and writes nothing.
    const again = await run(["session", "import", "--all", "--from", storage, "--store", dir, "--yes", "--json"], { env: envOf(state) });
    expect(again.status, again.stderr).toBe(0);
    expect(parseJsonDocument(again.stdout)).toMatchObject({ backup: null, summary: { sessions: 0, changes: 0 } });
    expect(dump(db)).toEqual(imported);
    // Named, a session already there is skipped, never overwritten.
    const named = await run(["session", "import", LEGACY_IDS[0]!, "--from", storage, "--store", dir, "--yes", "--json"], { env: envOf(state) });
    expect(named.status).toBe(0);
    expect((parseJsonDocument(named.stdout) as ImportDoc).store.notices).toContain(`${LEGACY_IDS[0]} is not imported: already in ${db}`);

    // Importing the same tree into a fresh copy gives the same rows, byte for byte.
    const fresh = upgradedDataDir();
    const second = await run(["session", "import", "--all", "--from", fresh.storage, "--store", fresh.dir, "--yes", "--json"], { env: envOf(fresh.state) });
    expect(second.status, second.stderr).toBe(0);
    expect(dump(fresh.db)).toEqual(imported);

    // Restore deletes exactly what the import inserted: the database holds what it held before, row for row.
    const undo = await run(["session", "restore", doc.backup!.id, "--store", dir, "--yes"], { env: envOf(state) });
    expect(undo.status, undo.stderr).toBe(0);
    expect(dump(db)).toEqual(original);
  });

  it("a part file the tree holds torn is imported as it is, and scan reports it like any other damage", async () => {
    const { dir, db, storage, state } = upgradedDataDir();
    const partDir = path.join(storage, "part", "msg_20fa7660a001rWyqx7Gs6PtcRG");
    const textPart = fs.readdirSync(partDir).find((f) => fs.readFileSync(path.join(partDir, f), "utf8").includes('"type": "text"'))!;
    const torn = fs.readFileSync(path.join(partDir, textPart)).subarray(0, 60);
    fs.writeFileSync(path.join(partDir, textPart), torn);

    const r = await run(["session", "import", "ses_df0589caaffe0X1", "--from", storage, "--store", dir, "--yes", "--json"], { env: envOf(state) });
    expect(r.status, r.stderr).toBe(0);
    const doc = parseJsonDocument(r.stdout) as ImportDoc;
    expect(doc.sessions.map((s) => s.id)).toEqual(["ses_df0589caaffe0X1Vcs0ALv6VJk"]);
    expect(doc.sessions[0]!.unfixed.some((f) => f.severity === "error")).toBe(true);
    const [row] = rowsOf(db, "SELECT CAST(data AS BLOB) AS data FROM part WHERE id = ?", textPart.slice(0, -".json".length));
    expect(Buffer.compare(row!.data as Buffer, torn)).toBe(0);

    const scan = await run(["session", "scan", "ses_df0589caaffe0X1Vcs0ALv6VJk", "--store", dir, "--json"], { env: envOf(state) });
    expect(scan.status).toBe(1);
    const found = (parseJsonDocument(scan.stdout) as { sessions: { findings: { rule: string; partId?: string }[] }[] }).sessions[0]!.findings;
    expect(found.map((f) => f.partId)).toContain(textPart.slice(0, -".json".length));
  });

  it("--dry-run lists what would be imported and writes nothing (exit 1); naming nothing is a usage error that lists them", async () => {
    const { dir, storage, state } = upgradedDataDir();
    const before = snapshot(dir);
    const dry = await run(["session", "import", "--all", "--from", storage, "--store", dir, "--dry-run"], { env: envOf(state) });
    expect(dry.status, dry.stderr).toBe(1);
    expect(dry.stdout).toContain("insert project 378e2190e2e550ea2e5d4540ac6f1c3ba515c09c, session, ");
    expect(dry.stdout).toContain("dry run: 27 changes in 3 sessions planned; nothing was written");
    const none = await run(["session", "import", "--from", storage, "--store", dir, "--json"], { env: envOf(state) });
    expect(none.status).toBe(2);
    expect(expectJsonError(none, "usage").message).toContain(
      `name the sessions to import, or pass --all (3 of the 3 sessions of ${storage} are not in opencode.db`,
    );
    const unknown = await run(["session", "import", "ses_nope", "--from", storage, "--store", dir, "--json"], { env: envOf(state) });
    expect(unknown.status).toBe(2);
    expectJsonError(unknown, "session-not-found");
    const noScript = await run(["session", "import", "--all", "--from", storage, "--store", dir], { env: envOf(state) });
    expect(noScript.status).toBe(2);
    expect(noScript.stderr).toMatch(/without --yes/);
    expectSameBytes(new Map([...snapshot(dir)].filter(([f]) => !/-(wal|shm)$/.test(f))), new Map([...before].filter(([f]) => !/-(wal|shm)$/.test(f))));
  });

  it("refuses what it cannot import into or from (exit 2), writing nothing", async () => {
    const { dir, db, storage, state } = upgradedDataDir();
    const same = await run(["session", "import", "--all", "--from", db, "--store", db, "--json"], { env: envOf(state) });
    expect(same.status).toBe(2);
    expect(expectJsonError(same, "usage").message).toMatch(/same database/);
    const gone = await run(["session", "import", "--all", "--from", path.join(dir, "nope"), "--store", dir, "--json"], { env: envOf(state) });
    expect(gone.status).toBe(2);
    expectJsonError(gone, "store-not-found");
    const notTree = await run(["session", "import", "--all", "--from", tempDir(), "--store", dir, "--json"], { env: envOf(state) });
    expect(notTree.status).toBe(2);
    expectJsonError(notTree, "not-a-store");
    const intoTree = await run(["session", "import", "--all", "--from", db, "--store", storage, "--format", "opencode-json", "--json"], { env: envOf(state) });
    expect(intoTree.status).toBe(2);
    expect(expectJsonError(intoTree, "usage").message).toMatch(/imported into an opencode or openclaw database/);
  });
});

describe("session import from another database of the data dir", () => {
  it("brings back the sessions opencode-stable.db holds and opencode.db lacks, every column as stored; restore undoes it", async () => {
    const dir = tempDir();
    const state = tempDir();
    const stable = path.join(dir, "opencode-stable.db");
    const db = path.join(dir, "opencode.db");
    fs.copyFileSync(DEMO_DB, stable);
    fs.copyFileSync(DEMO_DB, db);
    const all = dump(stable);
    const gone = (all.session!.map((s) => Buffer.from(String(s.id), "hex").toString()) as string[]).slice(0, 2);
    const conn = new Database(db);
    for (const id of gone) {
      conn.prepare("DELETE FROM part WHERE session_id = ?").run(id);
      conn.prepare("DELETE FROM message WHERE session_id = ?").run(id);
      conn.prepare("DELETE FROM session WHERE id = ?").run(id);
    }
    conn.close();
    const without = dump(db);

    const r = await run(["session", "import", "--all", "--from", stable, "--store", dir, "--yes", "--json"], { env: envOf(state) });
    expect(r.status, r.stderr).toBe(0);
    const doc = parseJsonDocument(r.stdout) as ImportDoc;
    expect(doc.sessions.map((s) => s.id).sort()).toEqual([...gone].sort());
    expect(doc.sessions.flatMap((s) => s.changes).some((c) => c.record === "project")).toBe(false);
    // Every row of both sessions is back as opencode-stable.db holds it, in every column.
    expect(dump(db)).toEqual(all);

    const undo = await run(["session", "restore", doc.backup!.id, "--store", dir, "--yes", "--json"], { env: envOf(state) });
    expect(undo.status, undo.stderr).toBe(0);
    expect(dump(db)).toEqual(without);
  });
});

describe("session import of rows whose ids are not text (issue 35)", () => {
  it("imports every row an id names (a blob message_id by its label), names the rows none can, and restore takes out exactly what it put in", async () => {
    const dir = tempDir();
    const state = tempDir();
    const stable = path.join(dir, "opencode-stable.db");
    const db = path.join(dir, "opencode.db");
    fs.copyFileSync(DEMO_DB, stable);
    fs.copyFileSync(DEMO_DB, db);
    const [gone] = rowsOf(db, "SELECT id FROM session ORDER BY time_updated DESC LIMIT 1").map((r) => String(r.id));
    const source = new Database(stable);
    source.pragma("foreign_keys = OFF");
    const parts = source.prepare("SELECT id FROM part WHERE session_id = ? ORDER BY rowid").pluck().all(gone) as string[];
    const messages = source.prepare("SELECT id FROM message WHERE session_id = ? ORDER BY rowid").pluck().all(gone) as string[];
    source.prepare("UPDATE part SET message_id = CAST(message_id AS BLOB) WHERE id = ?").run(parts[0]);
    source.prepare("UPDATE message SET id = NULL WHERE id = ?").run(messages.at(-1));
    source.close();
    const conn = new Database(db);
    conn.prepare("DELETE FROM part WHERE session_id = ?").run(gone);
    conn.prepare("DELETE FROM message WHERE session_id = ?").run(gone);
    conn.prepare("DELETE FROM session WHERE id = ?").run(gone);
    conn.close();
    const without = dump(db);

    const r = await run(["session", "import", gone!, "--from", stable, "--store", dir, "--yes", "--json"], { env: envOf(state) });
    expect(r.status, r.stderr).toBe(0);
    const doc = parseJsonDocument(r.stdout) as ImportDoc;
    const changes = doc.sessions.flatMap((s) => s.changes) as { messageId?: unknown }[];
    expect(changes).toHaveLength(1 + messages.length - 1 + parts.length);
    expect(changes.some((c) => typeof c.messageId === "string" && c.messageId.startsWith("(blob 'msg_"))).toBe(true);
    expect(doc.store.notices.join("\n")).toMatch(/is imported without some rows: message \(null\) is left in \S+opencode-stable\.db: its id is not text/);
    const imported = rowsOf(db, "SELECT typeof(message_id) AS t FROM part WHERE id = ?", parts[0]);
    expect(imported).toEqual([{ t: "blob" }]);

    const undo = await run(["session", "restore", doc.backup!.id, "--store", dir, "--yes", "--json"], { env: envOf(state) });
    expect(undo.status, undo.stderr).toBe(0);
    expect(dump(db)).toEqual(without);
  });
});
