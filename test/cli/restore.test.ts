// `recover session restore`: the built CLI puts back what a repair changed, record for record (SQLite: every column
// of every row; JSON tree: every file's bytes and mode), backs up what it overwrites (so a restore is undone the same
// way), and refuses, naming the records, when something changed after the repair.
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  BACKUP_ID,
  brokenRecords,
  changeDoc,
  editManifest,
  expectFailure,
  expectStoreBytes,
  holdOpen,
  partKey,
  printedBackup,
  readManifest,
  rewritePart,
  sandbox,
  storeBytes,
  storeState,
  writeDefectStore,
  type Holder,
  type Sandbox,
  type TestStore,
} from "./repair-support.js";
import { expectOneLineError, tempDir } from "./run.js";
import { FORMATS, type Format } from "./stores.js";

/** Repairs with --yes --json and returns the backup id. */
async function repair(sb: Sandbox, store: TestStore, args: string[]): Promise<{ id: string; path: string }> {
  const r = await sb.run(["session", "repair", ...args, "--yes", "--json", "--store", store.store]);
  expect(r.status, r.stdout + r.stderr).toBe(0);
  const doc = changeDoc(r);
  expect(doc.backup).not.toBeNull();
  return doc.backup!;
}

describe.each(FORMATS)("session restore (%s)", (format: Format) => {
  it("puts back every record the repair changed, exactly; the restore is itself undoable", async () => {
    const fixture = writeDefectStore(format);
    const records = brokenRecords(fixture.built, fixture.brokenId);
    const sb = sandbox();
    const original = storeState(fixture);
    const { id } = await repair(sb, fixture, ["--all"]);
    const repaired = storeState(fixture);
    expect(repaired).not.toEqual(original);

    // --dry-run: the diffs of putting it back, nothing written, exit 1.
    const bytes = storeBytes(fixture);
    const dry = await sb.run(["session", "restore", id, "--dry-run"]);
    expect(dry.stderr).toBe("");
    expect(dry.status).toBe(1);
    const running = `${fixture.brokenId}/${records.assistantId}/${records.runningPartId}`;
    expect(dry.stdout).toContain(`\n--- a/${running}\n+++ b/${running}\n`);
    expect(dry.stdout).toMatch(/^-\s+"status": "error",$/m);
    expect(dry.stdout).toMatch(/^\+\s+"status": "running",$/m);
    // The deleted blank part comes back.
    expect(dry.stdout).toContain(`\n--- /dev/null\n+++ b/${fixture.brokenId}/${records.assistantId}/${records.blankPartId}\n`);
    expect(dry.stdout).toContain(`  insert part ${records.blankPartId} [restore]  put back from backup ${id}`);
    expect(dry.stdout.trimEnd().split("\n").at(-1)).toBe("dry run: 6 changes in 2 sessions planned; nothing was written");
    expectStoreBytes(fixture, bytes);
    expect(fs.readdirSync(sb.backups)).toEqual([id]);

    const r = await sb.run(["session", "restore", id, "--yes"]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("✔ restored: 6 changes in 2 sessions");
    const undo = printedBackup(r.stdout);
    expect(undo.id).not.toBe(id);
    expect(undo.undo).toBe(`recover session restore ${undo.id}`);
    expect(storeState(fixture)).toEqual(original);
    expect(readManifest(undo.path)).toMatchObject({ kind: "restore", state: "done", restoreOf: id });

    // Nothing left to put back.
    const again = await sb.run(["session", "restore", id, "--yes"]);
    expect(again.status).toBe(0);
    expect(again.stdout.trim()).toBe("✔ nothing to restore");
    expect(fs.readdirSync(sb.backups).sort()).toEqual([id, undo.id].sort());

    // Restoring the restore's own backup brings the repair back, as JSON this time.
    const redo = await sb.run(["session", "restore", undo.id, "--yes", "--json"]);
    expect(redo.stderr).toBe("");
    expect(redo.status).toBe(0);
    const doc = changeDoc(redo);
    expect(Object.keys(doc)).toEqual(["schemaVersion", "tool", "store", "dryRun", "restoreOf", "backup", "undo", "sessions", "summary"]);
    expect(doc).toMatchObject({ schemaVersion: 1, dryRun: false, restoreOf: undo.id, store: { format, path: fixture.readPath } });
    expect(doc.backup!.id).toMatch(BACKUP_ID);
    expect(doc.undo).toBe(`recover session restore ${doc.backup!.id}`);
    expect(doc.sessions.map((s) => s.id).sort()).toEqual([fixture.brokenId, fixture.warningsId].sort());
    for (const change of doc.sessions.flatMap((s) => s.changes)) {
      expect(change.rules).toEqual(["restore"]);
      expect(change.reasons).toEqual([`put back from backup ${undo.id}`]);
    }
    expect(doc.summary).toEqual({ sessions: 2, changes: 6, unfixed: 0 });
    expect(storeState(fixture)).toEqual(repaired);
  });

  it("a record changed after the repair: exit 3 naming it; --force restores, backing the later change up first", async () => {
    const fixture = writeDefectStore(format);
    const records = brokenRecords(fixture.built, fixture.brokenId);
    const sb = sandbox();
    const original = storeState(fixture);
    const { id } = await repair(sb, fixture, [fixture.brokenId]);
    rewritePart(fixture, records.assistantId, records.runningPartId, (data) => {
      (data.state as Record<string, unknown>).title = "edited after the repair";
    });
    const edited = storeState(fixture);
    const bytes = storeBytes(fixture);

    await expectFailure(
      sb,
      ["session", "restore", id, "--yes"],
      3,
      "restore-conflict",
      new RegExp(`1 record changed after backup ${id} .*part ${records.runningPartId}.*--force`),
    );
    expectStoreBytes(fixture, bytes);
    expect(fs.readdirSync(sb.backups)).toEqual([id]);

    const forced = await sb.run(["session", "restore", id, "--yes", "--force", "--json"]);
    expect(forced.stderr).toBe("");
    expect(forced.status).toBe(0);
    expect(storeState(fixture)).toEqual(original);
    // The edit is in the new backup: undoing the forced restore brings it back.
    const undo = changeDoc(forced).backup!.id;
    const back = await sb.run(["session", "restore", undo, "--yes"]);
    expect(back.status).toBe(0);
    expect(storeState(fixture)).toEqual(edited);
    expect(edited[partKey(fixture, records.assistantId, records.runningPartId)]).toBeDefined();
  });

  it("--session restores one session's records; a session the backup does not hold is exit 2", async () => {
    const fixture = writeDefectStore(format);
    const sb = sandbox();
    const original = storeState(fixture);
    const { id } = await repair(sb, fixture, ["--all"]);
    const repaired = storeState(fixture);

    await expectFailure(
      sb,
      ["session", "restore", id, "--session", fixture.healthyId, "--yes"],
      2,
      "session-not-found",
      new RegExp(`backup ${id} holds no records of session ${fixture.healthyId}`),
    );
    expectOneLineError(await sb.run(["session", "restore", id, "--session", "../x", "--yes"]), /invalid session id/);

    const r = await sb.run(["session", "restore", id, "--session", fixture.brokenId, "--yes", "--json"]);
    expect(r.status).toBe(0);
    expect(changeDoc(r).sessions.map((s) => s.id)).toEqual([fixture.brokenId]);
    const now = storeState(fixture);
    const warnings = fixture.built.sessions.find((s) => s.id === fixture.warningsId)!;
    const ofWarnings = (key: string) => key.includes(fixture.warningsId) || warnings.messages.some((m) => key.includes(m.id));
    for (const key of Object.keys({ ...original, ...now })) {
      // The broken session is back as it was; the other session keeps its repair.
      expect(now[key], key).toBe(ofWarnings(key) ? repaired[key] : original[key]);
    }
  });

  it("--backup-dir: the repair's backup goes there, the undo line names it, and restore finds it only there", async () => {
    const fixture = writeDefectStore(format);
    const sb = sandbox();
    const cwd = tempDir();
    const original = storeState(fixture);
    const r = await sb.run(["session", "repair", fixture.brokenId, "--yes", "--backup-dir", "my-backups", "--store", fixture.store], { cwd });
    expect(r.status).toBe(0);
    const backup = printedBackup(r.stdout);
    expect(backup.path).toBe(path.join(fs.realpathSync(cwd), "my-backups", backup.id));
    expect(backup.undo).toBe(`recover session restore ${backup.id} --store ${fixture.store} --backup-dir my-backups`);
    expect(fs.existsSync(sb.backups)).toBe(false);

    expectOneLineError(await sb.run(["session", "restore", backup.id, "--yes"], { cwd }), new RegExp(`no backup ${backup.id}`));
    const restore = await sb.run(["session", "restore", backup.id, "--yes", "--backup-dir", "my-backups"], { cwd });
    expect(restore.stderr).toBe("");
    expect(restore.status).toBe(0);
    expect(storeState(fixture)).toEqual(original);
    const undo = printedBackup(restore.stdout);
    expect(undo.undo).toBe(`recover session restore ${undo.id} --backup-dir my-backups`);
    expect(fs.readdirSync(path.join(cwd, "my-backups")).sort()).toEqual([backup.id, undo.id].sort());
  });

  it("bad backup ids, a damaged manifest, a tampered before-image: exit 2, store unchanged", async () => {
    const fixture = writeDefectStore(format);
    const sb = sandbox();
    const { id, path: dir } = await repair(sb, fixture, [fixture.brokenId]);
    const bytes = storeBytes(fixture);
    const copy = (name: string) => {
      fs.cpSync(dir, path.join(sb.backups, name), { recursive: true });
      return path.join(sb.backups, name);
    };

    await expectFailure(sb, ["session", "restore", "20990101T000000Z-abcdef", "--yes"], 2, "backup-not-found", /no backup 20990101T000000Z-abcdef/);
    for (const bad of [`${id}/../${id}`, "x/y", ".."]) expectOneLineError(await sb.run(["session", "restore", bad, "--yes"]), /invalid backup id/);

    fs.writeFileSync(path.join(copy("20990101T000000Z-000001"), "manifest.json"), '{"schemaVersion":1,"id":');
    await expectFailure(sb, ["session", "restore", "20990101T000000Z-000001", "--yes"], 2, "backup-unreadable", /manifest .*manifest\.json cannot be read/);
    editManifest(copy("20990101T000000Z-000002"), (m) => delete m.images);
    expectOneLineError(await sb.run(["session", "restore", "20990101T000000Z-000002", "--yes"]), /manifest .*manifest\.json is not valid \(images/);

    const tampered = copy("20990101T000000Z-000003");
    const image = readManifest(tampered).images.find((e) => e.length !== undefined && e.key.record === "part")!;
    const pack = fs.readFileSync(path.join(tampered, "images.bin"));
    const at = image.offset! + Math.floor(image.length! / 2);
    pack[at] = pack[at]! ^ 0x20;
    fs.writeFileSync(path.join(tampered, "images.bin"), pack);
    const r = await sb.run(["session", "restore", "20990101T000000Z-000003", "--yes"]);
    expect(r.status).toBe(2);
    expectOneLineError(r, /does not match its recorded fingerprint/);
    expectStoreBytes(fixture, bytes);
  });

  it("without a terminal and without --yes: exit 2, nothing restored", async () => {
    const fixture = writeDefectStore(format);
    const sb = sandbox();
    const { id } = await repair(sb, fixture, [fixture.brokenId]);
    const bytes = storeBytes(fixture);
    await expectFailure(sb, ["session", "restore", id], 2, "needs-confirmation", /refusing to change 4 records of .* back to backup .* without --yes/);
    expectStoreBytes(fixture, bytes);
  });

  it("a backup taken from the other format is refused", async () => {
    const fixture = writeDefectStore(format);
    const other = writeDefectStore(format === "opencode-sqlite" ? "opencode-json" : "opencode-sqlite");
    const sb = sandbox();
    const { id } = await repair(sb, fixture, [fixture.brokenId]);
    const bytes = storeBytes(other);
    expectOneLineError(
      await sb.run(["session", "restore", id, "--yes", "--store", other.store]),
      new RegExp(`backup ${id} was taken from a store of format ${format}`),
    );
    expectStoreBytes(other, bytes);
  });

  // The manifest names JSON records by absolute path: restoring into a copy must touch the copy's files only.
  it("--store names a copy of the store: the copy is restored, the original left alone", async () => {
    const fixture = writeDefectStore(format);
    const sb = sandbox();
    const original = storeState(fixture);
    const { id } = await repair(sb, fixture, [fixture.brokenId]);
    const repaired = storeState(fixture);
    const copyDir = tempDir();
    fs.cpSync(fixture.dataDir, copyDir, { recursive: true, preserveTimestamps: true });
    const copy: TestStore = { ...fixture, dataDir: copyDir, store: copyDir, readPath: path.join(copyDir, path.basename(fixture.readPath)) };

    const r = await sb.run(["session", "restore", id, "--yes", "--store", copy.store]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(storeState(fixture), "the original store").toEqual(repaired);
    expect(storeState(copy), "the copy").toEqual(original);
  });
});

describe("session restore (opencode-sqlite only)", () => {
  let holder: Holder | undefined;
  afterEach(async () => {
    await holder?.stop();
    holder = undefined;
  });

  it("another process holding opencode.db open: exit 3; --force restores anyway", async () => {
    const fixture = writeDefectStore("opencode-sqlite");
    const sb = sandbox();
    const original = storeState(fixture);
    const { id } = await repair(sb, fixture, [fixture.brokenId]);
    const bytes = storeBytes(fixture);
    holder = await holdOpen(fixture.readPath);
    await expectFailure(sb, ["session", "restore", id, "--yes"], 3, "live-writer", new RegExp(`\\(pid ${holder.pid}\\) has .*opencode\\.db open`));
    expectStoreBytes(fixture, bytes);
    const forced = await sb.run(["session", "restore", id, "--yes", "--force"]);
    expect(forced.status).toBe(0);
    expect(storeState(fixture)).toEqual(original);
  });
});
