import Database from "better-sqlite3";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildStore, healthySession, writeJsonStore } from "../support/opencode-fixtures.js";
import { expectJsonError, expectNoStack, expectOneLineError, expectSameBytes, parseJsonDocument, paste, run, snapshot, tempDir } from "./run.js";
import { addOpencode2Tables, DAY, healthyStore, T0, writeStore } from "./stores.js";

const isRoot = process.getuid?.() === 0;

/**
 * Runs `session list` and `session scan --all`, human and --json, against a bad store: every run exits 2 with one
 * line on stderr (or one JSON error document) and leaves the input's bytes as they were.
 */
async function expectRejected(
  store: string,
  opts: { code: string; pattern: RegExp; watch?: string | null; extra?: string[]; oneLine?: boolean },
): Promise<string> {
  const watch = opts.watch === undefined ? store : opts.watch;
  const before = watch !== null && fs.existsSync(watch) ? snapshot(watch) : undefined;
  let line = "";
  for (const command of [
    ["session", "list"],
    ["session", "scan", "--all"],
  ]) {
    const args = [...command, "--store", store, ...(opts.extra ?? [])];
    const r = await run(args);
    expect(r.status, `${args.join(" ")}: ${r.stderr}`).toBe(2);
    expect(r.stdout).toBe("");
    if (opts.oneLine === false) {
      expectNoStack(r.stderr);
      expect(r.stderr).toMatch(/^recover: /);
      expect(r.stderr.replace(/\n/g, " ")).toMatch(opts.pattern);
      line = r.stderr;
    } else {
      line = expectOneLineError(r, opts.pattern);
    }
    const json = await run([...args, "--json"]);
    expect(json.status).toBe(2);
    expect(expectJsonError(json, opts.code).message).toMatch(opts.pattern);
  }
  if (before) expectSameBytes(before, snapshot(watch!));
  else if (watch !== null) expect(fs.existsSync(watch)).toBe(false);
  return line;
}

/** Overwrites the b-tree root pages of the tables with noise; page 1 (header, schema) stays intact. */
function corruptPages(file: string, tables = ["session", "message", "part"]): void {
  const db = new Database(file, { readonly: true });
  const pageSize = db.pragma("page_size", { simple: true }) as number;
  const roots = tables.map((t) => db.prepare("SELECT rootpage FROM sqlite_schema WHERE type = 'table' AND name = ?").pluck().get(t) as number);
  db.close();
  const pages = fs.statSync(file).size / pageSize;
  const fd = fs.openSync(file, "r+");
  try {
    for (const root of roots) {
      expect(root).toBeGreaterThan(1);
      expect(root).toBeLessThanOrEqual(pages);
      // Keep the first bytes of the page, scramble the rest: cell pointers and cells become noise.
      const noise = Buffer.alloc(pageSize - 64, 0xa5);
      fs.writeSync(fd, noise, 0, noise.length, (root - 1) * pageSize + 64);
    }
  } finally {
    fs.closeSync(fd);
  }
}

describe("bad input: one line on stderr, exit 2, input unchanged", () => {
  it("no such store path", async () => {
    const missing = path.join(tempDir(), "does-not-exist");
    await expectRejected(missing, { code: "store-not-found", pattern: /no such store: .*does-not-exist/ });
  });

  it("a directory that is not a store", async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, "notes.txt"), "nothing to see\n");
    fs.mkdirSync(path.join(dir, "log"));
    await expectRejected(dir, { code: "not-a-store", pattern: /is a folder holding no store recover knows \(no opencode\.db, .*projects\/.*\)/ });
  });

  it("an empty folder (an agent's home before its first session): said as it is, not as a missing opencode store", async () => {
    const dir = tempDir();
    await expectRejected(dir, {
      code: "not-a-store",
      pattern: /is an empty folder, not a store recover knows; --format <format> says what one format expects$/,
    });
  });

  it("a file of random bytes", async () => {
    const file = path.join(tempDir(), "opencode.db");
    fs.writeFileSync(file, randomBytes(8192));
    await expectRejected(file, { code: "not-a-store", pattern: /is not a store recover knows: neither a SQLite database nor an agent's transcript/ });
  });

  it.each([
    ["x.json", '{"a":1}\n'],
    ["notes.jsonl", '{"foo":1}\n{"bar":2}\n'],
  ])("JSON lines of no agent's records (%s): not taken for a transcript", async (name, text) => {
    const file = path.join(tempDir(), name);
    fs.writeFileSync(file, text);
    await expectRejected(file, { code: "not-a-store", pattern: /is not a store recover knows/ });
  });

  it("an empty file", async () => {
    const file = path.join(tempDir(), "opencode.db");
    fs.writeFileSync(file, "");
    await expectRejected(file, { code: "not-a-store", pattern: /neither a SQLite database nor an agent's transcript \(empty file\)/ });
  });

  it("a data dir whose opencode.db is random bytes", async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, "opencode.db"), randomBytes(4096));
    await expectRejected(dir, { code: "not-a-store", pattern: /not a SQLite database/ });
  });

  it("a SQLite database without opencode's tables", async () => {
    const file = path.join(tempDir(), "notes.db");
    const db = new Database(file);
    db.exec("CREATE TABLE note (id integer PRIMARY KEY, body text); INSERT INTO note (body) VALUES ('hello');");
    db.close();
    await expectRejected(file, { code: "not-a-store", pattern: /SQLite database but not an opencode store/ });
  });

  function corruptedStore(tables?: string[]): { store: string; readPath: string } {
    const built = buildStore({ seed: 9, sessions: Array.from({ length: 6 }, (_, i) => healthySession({ start: T0 + i * DAY, turns: 4 })) });
    const { store, readPath } = writeStore(built, "opencode-sqlite");
    corruptPages(readPath, tables);
    return { store, readPath };
  }

  it("damage found mid-scan (part table only) still ends in one JSON document and exit 2", async () => {
    const { store, readPath } = corruptedStore(["part"]);
    const before = snapshot(readPath);
    const json = await run(["session", "scan", "--all", "--json", "--store", store]);
    expect(json.status).toBe(2);
    const error = expectJsonError(json, "store-corrupt");
    expect(error.message).toMatch(/\(run `recover store salvage --store \S+` to read every row it still gives into a new database, leaving it as it is\)$/);
    const human = await run(["session", "scan", "--all", "--store", store]);
    expect(human.status).toBe(2);
    expectNoStack(human.stderr);
    expect(human.stderr).toMatch(/^recover: .*damaged/m);
    expect(human.stdout).not.toMatch(/no findings/);
    expectSameBytes(before, snapshot(readPath));
  });

  it("a corrupted opencode.db names the damage and `store salvage` for it, which works pasted", async () => {
    const { store, readPath } = corruptedStore();
    // Only opencode.db is watched: SQLite may create the -wal/-shm companions of a WAL database to read it.
    // One line is checked in the next test; here the content.
    const text = await expectRejected(store, { code: "store-corrupt", pattern: /damaged|corrupt|malformed/i, watch: readPath, oneLine: false });
    expect(text).toContain(readPath);
    const hint = /\(run `([^`]+)` to read every row it still gives into a new database/.exec(text)?.[1];
    expect(hint).toBe(`recover store salvage --store ${store}`);
    // The same through the file itself.
    await expectRejected(readPath, { code: "store-corrupt", pattern: /store salvage --store/, watch: readPath, oneLine: false });
    // Pasted: a new database beside it with every row it still gives; the damaged one untouched.
    const before = snapshot(readPath);
    const salvaged = paste(hint!);
    expect([0, 1], salvaged.stderr).toContain(salvaged.status);
    expect(salvaged.stdout).toMatch(/^salvaged .* → .*\.salvaged\.db$/m);
    expectSameBytes(before, snapshot(readPath));
  });

  // BUG (src/stores/opencode/sqlite-store.ts, describeDamage): the rows of PRAGMA quick_check carry newlines
  // ("*** in database main ***\nTree 8 page 8 cell 28: Offset … out of range …"), and they are joined into the
  // message as they are, so the "one line" error is four lines on stderr.
  it("a corrupted opencode.db is reported on one line", async () => {
    const { store, readPath } = corruptedStore();
    await expectRejected(store, { code: "store-corrupt", pattern: /damaged.*store salvage/, watch: readPath });
  });

  it("an OpenCode 2 database (session_v2, session_message, no part table) is refused clearly", async () => {
    const { store, readPath } = writeStore(healthyStore(1), "opencode-sqlite");
    addOpencode2Tables(readPath, { dropV1: true });
    await expectRejected(store, { code: "unsupported-store", pattern: /OpenCode 2/, watch: readPath });
  });

  it("--format opencode-json on a database file", async () => {
    const { readPath } = writeStore(healthyStore(1), "opencode-sqlite");
    await expectRejected(readPath, { code: "not-a-store", pattern: /opencode-json/, extra: ["--format", "opencode-json"], watch: readPath });
  });

  it.skipIf(isRoot)("a store file without read permission", async () => {
    const { store, readPath } = writeStore(healthyStore(1), "opencode-sqlite");
    const before = snapshot(store);
    fs.chmodSync(readPath, 0o000);
    try {
      await expectRejected(store, { code: "permission-denied", pattern: /permission denied/i, watch: null });
      await expectRejected(readPath, { code: "permission-denied", pattern: /permission denied/i, watch: null });
    } finally {
      fs.chmodSync(readPath, 0o644);
    }
    expectSameBytes(before, snapshot(store));
  });

  // BUG (src/stores/discover.ts, openAt): existsSync() answers false when the data dir cannot be searched, so a
  // chmod 000 data dir is reported as "not an opencode store: … holds neither opencode.db nor a storage/ folder"
  // (code not-a-store) instead of permission denied. Checked by hand as uid 65534; skipped as root.
  it.skipIf(isRoot).fails("a data dir without permissions", async () => {
    const { store } = writeStore(healthyStore(1), "opencode-sqlite");
    const before = snapshot(store);
    fs.chmodSync(store, 0o000);
    try {
      await expectRejected(store, { code: "permission-denied", pattern: /permission denied/i, watch: null });
    } finally {
      fs.chmodSync(store, 0o755);
    }
    expectSameBytes(before, snapshot(store));
  });
});

describe("stores with something beside them", () => {
  it("a database with OpenCode 2 tables beside the V1 tables scans fine and says so in store.notices", async () => {
    const built = healthyStore(2);
    const { store, readPath } = writeStore(built, "opencode-sqlite");
    addOpencode2Tables(readPath);
    const before = snapshot(readPath);
    const r = await run(["session", "scan", "--all", "--json", "--store", store]);
    expectNoStack(r.stderr);
    expect(r.status).toBe(0);
    const doc = parseJsonDocument(r.stdout);
    const notices = (doc.store as { notices: string[] }).notices;
    expect(notices.some((n) => /OpenCode 2|session_v2/.test(n))).toBe(true);
    expect((doc.sessions as { id: string }[]).map((s) => s.id).sort()).toEqual(built.sessions.map((s) => s.id).sort());
    expect(doc.summary).toMatchObject({ sessions: 2, findings: 0 });
    // session list says it too: in store.notices with --json, as a note on stderr without.
    expect((parseJsonDocument((await run(["session", "list", "--json", "--store", store])).stdout).store as { notices: string[] }).notices).toEqual(notices);
    const human = await run(["session", "list", "--store", store]);
    expect(human.status).toBe(0);
    expect(human.stderr).toMatch(/OpenCode 2|session_v2/);
    expectSameBytes(before, snapshot(readPath));
  });

  it("a data dir with opencode.db and a legacy storage/ tree reads the db and mentions the tree", async () => {
    const inDb = buildStore({ seed: 31, sessions: [healthySession({ start: T0 + 10 * DAY, title: "From the database" })] });
    const inTree = buildStore({ seed: 32, sessions: [healthySession({ start: T0, title: "From the legacy tree" })] });
    const { dataDir, readPath: db } = writeStore(inDb, "opencode-sqlite");
    const storage = writeJsonStore(dataDir, inTree);

    const r = await run(["session", "list", "--json", "--store", dataDir]);
    expect(r.status).toBe(0);
    const doc = parseJsonDocument(r.stdout);
    expect(doc.store).toMatchObject({ format: "opencode-sqlite", path: db });
    expect((doc.sessions as { title: string }[]).map((s) => s.title)).toEqual(["From the database"]);
    const notices = (doc.store as { notices: string[] }).notices;
    expect(notices.some((n) => n.includes(storage))).toBe(true);

    const scan = await run(["session", "scan", "--all", "--store", dataDir]);
    expect(scan.status).toBe(0);
    expect(scan.stderr).toContain(storage);

    const tree = await run(["session", "list", "--json", "--format", "opencode-json", "--store", dataDir]);
    expect(tree.status).toBe(0);
    const treeDoc = parseJsonDocument(tree.stdout);
    expect(treeDoc.store).toMatchObject({ format: "opencode-json", path: storage });
    expect((treeDoc.sessions as { title: string }[]).map((s) => s.title)).toEqual(["From the legacy tree"]);
    const treeScan = await run(["session", "scan", "--all", "--json", "--format", "opencode-json", "--store", dataDir]);
    expect(treeScan.status).toBe(0);
    expect((parseJsonDocument(treeScan.stdout).sessions as { id: string }[]).map((s) => s.id)).toEqual([inTree.sessions[0]!.id]);
  });
});
