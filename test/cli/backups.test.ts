// `recover session backups`: what the built CLI lists after a real repair and restore (table and --json), and
// pruning: only backups older than --older-than days, never one still being applied, never without --yes.
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { BACKUP_ID, changeDoc, editManifest, expectFailure, sandbox, writeDefectStore, type Sandbox } from "./repair-support.js";
import { expectOneLineError, parseJsonDocument, tempDir } from "./run.js";

const PACKAGE_VERSION = (JSON.parse(fs.readFileSync("package.json", "utf8")) as { version: string }).version;
const DAY = 24 * 60 * 60 * 1000;

interface BackupRow {
  id: string;
  createdAt: string;
  kind: string;
  state: string;
  store: { format: string; path: string };
  sessions: string[];
  changes: number;
  path: string;
  restoreOf?: string;
}
interface ListDoc {
  schemaVersion: number;
  tool: { name: string; version: string };
  root: string;
  backups: BackupRow[];
}
interface PruneDoc {
  schemaVersion: number;
  tool: { name: string; version: string };
  root: string;
  pruned: BackupRow[];
}

describe("session backups", () => {
  const fixture = writeDefectStore("opencode-sqlite");
  let sb: Sandbox;
  let repairId: string;
  let restoreId: string;

  beforeAll(async () => {
    sb = sandbox();
    const repair = await sb.run(["session", "repair", fixture.brokenId, "--yes", "--json", "--store", fixture.store]);
    expect(repair.status).toBe(0);
    repairId = changeDoc(repair).backup!.id;
    const restore = await sb.run(["session", "restore", repairId, "--yes", "--json"]);
    expect(restore.status).toBe(0);
    restoreId = changeDoc(restore).backup!.id;
  });

  /** A copy of the backups made in beforeAll, for a test that changes them; use with --backup-dir. */
  function copyOfBackups(): string {
    const dir = path.join(tempDir(), "backups");
    fs.cpSync(sb.backups, dir, { recursive: true });
    return dir;
  }

  const age = (dir: string, id: string, days: number) =>
    editManifest(path.join(dir, id), (m) => (m.createdAt = new Date(Date.now() - days * DAY).toISOString()));

  it("lists every backup, oldest first: id, time, kind, state, changes, the store it belongs to, sessions", async () => {
    const r = await sb.run(["session", "backups"]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines[0]!.split(/\s{2,}/)).toEqual(["ID", "CREATED (UTC)", "KIND", "STATE", "CHANGES", "STORE", "SESSIONS"]);
    const store = `opencode-sqlite ${fixture.readPath}`;
    expect(lines.slice(1).map((l) => l.split(/\s{2,}/))).toEqual([
      [repairId, expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/), "repair", "done", "3", store, fixture.brokenId],
      [restoreId, expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/), "restore", "done", "4", store, fixture.brokenId],
    ]);
  });

  it("--json: one document, root and one row per backup", async () => {
    const r = await sb.run(["session", "backups", "--json"]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const doc = parseJsonDocument(r.stdout) as unknown as ListDoc;
    expect(Object.keys(doc)).toEqual(["schemaVersion", "tool", "root", "backups"]);
    expect(doc.schemaVersion).toBe(1);
    expect(doc.tool).toEqual({ name: "recover", version: PACKAGE_VERSION });
    expect(doc.root).toBe(sb.backups);
    const [repair, restore] = doc.backups;
    expect(doc.backups).toHaveLength(2);
    for (const row of doc.backups) {
      expect(row.id).toMatch(BACKUP_ID);
      expect(new Date(row.createdAt).toISOString()).toBe(row.createdAt);
      expect(Date.now() - Date.parse(row.createdAt)).toBeLessThan(10 * 60_000);
      expect(row.path).toBe(path.join(sb.backups, row.id));
      expect(row.store).toEqual({ format: "opencode-sqlite", path: fixture.readPath });
      expect(row.sessions).toEqual([fixture.brokenId]);
    }
    expect(Object.keys(repair!)).toEqual(["id", "createdAt", "kind", "state", "store", "sessions", "changes", "path"]);
    expect(repair).toMatchObject({ id: repairId, kind: "repair", state: "done", changes: 3 });
    expect(Object.keys(restore!)).toEqual(["id", "createdAt", "kind", "state", "store", "sessions", "changes", "path", "restoreOf"]);
    expect(restore).toMatchObject({ id: restoreId, kind: "restore", state: "done", changes: 4, restoreOf: repairId });
  });

  it("no backups yet: says so, exit 0; --backup-dir lists that folder", async () => {
    const empty = sandbox();
    const r = await empty.run(["session", "backups"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe("no backups\n");
    expect(parseJsonDocument((await empty.run(["session", "backups", "--json"])).stdout)).toMatchObject({ root: empty.backups, backups: [] });
    // Listing does not create anything.
    expect(fs.existsSync(empty.stateHome) && fs.readdirSync(empty.stateHome)).toEqual([]);

    const dir = copyOfBackups();
    const doc = parseJsonDocument((await empty.run(["session", "backups", "--json", "--backup-dir", dir])).stdout) as unknown as ListDoc;
    expect(doc.root).toBe(dir);
    expect(doc.backups.map((b) => [b.id, b.path])).toEqual([
      [repairId, path.join(dir, repairId)],
      [restoreId, path.join(dir, restoreId)],
    ]);
  });

  it("a damaged or foreign folder among the backups is left out of the list", async () => {
    const dir = copyOfBackups();
    fs.cpSync(path.join(dir, repairId), path.join(dir, "20990101T000000Z-000001"), { recursive: true });
    fs.writeFileSync(path.join(dir, "20990101T000000Z-000001", "manifest.json"), "{ torn");
    fs.mkdirSync(path.join(dir, "not-a-backup"));
    fs.writeFileSync(path.join(dir, "README.txt"), "my notes\n");
    const r = await sb.run(["session", "backups", "--json", "--backup-dir", dir]);
    expect(r.status).toBe(0);
    expect((parseJsonDocument(r.stdout) as unknown as ListDoc).backups.map((b) => b.id)).toEqual([repairId, restoreId]);
  });

  it("--prune --older-than 1 --yes deletes only the backups older than a day", async () => {
    const dir = copyOfBackups();
    age(dir, repairId, 3);
    const r = await sb.run(["session", "backups", "--prune", "--older-than", "1", "--yes", "--backup-dir", dir]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`pruned 1 backup: ${repairId}\n`);
    expect(fs.readdirSync(dir)).toEqual([restoreId]);

    // Three days is not older than five; the fresh one is not older than one.
    age(dir, restoreId, 3);
    const none = await sb.run(["session", "backups", "--prune", "--older-than", "5", "--yes", "--backup-dir", dir]);
    expect(none.status).toBe(0);
    expect(none.stdout).toBe("nothing to prune\n");
    expect(fs.readdirSync(dir)).toEqual([restoreId]);

    const json = await sb.run(["session", "backups", "--prune", "--older-than", "2", "--yes", "--json", "--backup-dir", dir]);
    expect(json.status).toBe(0);
    const doc = parseJsonDocument(json.stdout) as unknown as PruneDoc;
    expect(Object.keys(doc)).toEqual(["schemaVersion", "tool", "root", "pruned"]);
    expect(doc).toMatchObject({ schemaVersion: 1, root: dir });
    expect(doc.pruned.map((b) => [b.id, b.kind, b.restoreOf])).toEqual([[restoreId, "restore", repairId]]);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it("never prunes a backup still being applied", async () => {
    const dir = copyOfBackups();
    age(dir, repairId, 10);
    editManifest(path.join(dir, repairId), (m) => (m.state = "applying"));
    const r = await sb.run(["session", "backups", "--prune", "--older-than", "1", "--yes", "--backup-dir", dir]);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe("nothing to prune\n");
    expect(fs.readdirSync(dir).sort()).toEqual([repairId, restoreId].sort());
  });

  it("--prune without --yes and without a terminal: exit 2, nothing deleted", async () => {
    const dir = copyOfBackups();
    age(dir, repairId, 3);
    await expectFailure(
      sb,
      ["session", "backups", "--prune", "--older-than", "1", "--backup-dir", dir],
      2,
      "needs-confirmation",
      /refusing to change .*: delete 1 backup older than 1 days without --yes/,
    );
    expect(fs.readdirSync(dir).sort()).toEqual([repairId, restoreId].sort());
  });

  it("--prune needs --older-than, --older-than needs --prune, and takes a positive whole number", async () => {
    await expectFailure(sb, ["session", "backups", "--prune", "--yes"], 2, "usage", /--prune needs --older-than <days>/);
    await expectFailure(sb, ["session", "backups", "--older-than", "1"], 2, "usage", /--older-than goes with --prune/);
    for (const bad of ["0", "-1", "1.5", "abc"]) {
      const r = await sb.run(["session", "backups", "--prune", "--older-than", bad, "--yes"]);
      expect(r.status).toBe(2);
      expectOneLineError(r, /--older-than takes a positive whole number/);
    }
    // Nothing was pruned by any of them.
    expect(fs.readdirSync(sb.backups).sort()).toEqual([repairId, restoreId].sort());
  });
});
