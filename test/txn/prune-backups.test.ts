// Pruning backups goes through txn/ (prune-backups.ts): which backups may go, and deleting one so that it is
// never half there (manifest first), never one a transaction is applying, never a folder outside the root.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { listBackups, writeBackup, type Backup } from "../../src/txn/backup-store.js";
import type { Manifest } from "../../src/txn/manifest.js";
import { deleteBackup, prunableBackups } from "../../src/txn/prune-backups.js";

const DAY = 24 * 60 * 60 * 1000;
const NOW = Date.parse("2026-03-01T12:00:00.000Z");
const made: string[] = [];
afterAll(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function root(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "recover-prune-"));
  made.push(dir);
  return path.join(dir, "backups");
}

function backup(into: string, id: string, ageDays: number, state: Manifest["state"] = "done"): Backup {
  const manifest: Manifest = {
    schemaVersion: 1,
    id,
    kind: "repair",
    tool: { name: "recover", version: "test" },
    createdAt: new Date(NOW - ageDays * DAY).toISOString(),
    state,
    store: { format: "opencode-json", path: "/nowhere" },
    sessions: ["ses_1"],
    changes: [],
    images: [{ key: { record: "file", id: "a.json", sessionId: "ses_1", path: "/nowhere/a.json" }, before: "x", after: "y" }],
  };
  return writeBackup(into, manifest, [{ exists: true, bytes: Buffer.from("before") }]);
}

describe("prunableBackups", () => {
  it("older than the cutoff, strictly, and never one being applied", () => {
    const dir = root();
    backup(dir, "old-done", 40);
    backup(dir, "old-applying", 40, "applying");
    backup(dir, "old-rolled-back", 31, "rolled-back");
    backup(dir, "young", 29);
    const ids = prunableBackups(listBackups(dir), 30, NOW).map((b) => b.manifest.id);
    expect(ids).toEqual(["old-done", "old-rolled-back"]);
    expect(prunableBackups(listBackups(dir), 41, NOW)).toEqual([]);
  });
});

describe("deleteBackup", () => {
  it("removes the whole folder; the backup is no longer listed", () => {
    const dir = root();
    const b = backup(dir, "b1", 40);
    expect(deleteBackup(dir, b)).toBe(true);
    expect(fs.existsSync(b.dir)).toBe(false);
    expect(listBackups(dir)).toEqual([]);
  });

  it("leaves a backup a transaction took over since it was listed (its manifest now says applying)", () => {
    const dir = root();
    const b = backup(dir, "b2", 40);
    const [listed] = listBackups(dir);
    const file = path.join(b.dir, "manifest.json");
    fs.writeFileSync(file, JSON.stringify({ ...JSON.parse(fs.readFileSync(file, "utf8")), state: "applying" }));
    expect(deleteBackup(dir, listed!)).toBe(false);
    expect(fs.existsSync(path.join(b.dir, "images.bin"))).toBe(true);
  });

  it("leaves a folder that is not directly under the root, or whose manifest is gone", () => {
    const dir = root();
    const elsewhere = root();
    const b = backup(elsewhere, "b3", 40);
    expect(deleteBackup(dir, b)).toBe(false);
    expect(fs.existsSync(b.dir)).toBe(true);
    const c = backup(dir, "b4", 40);
    fs.rmSync(path.join(c.dir, "manifest.json"));
    expect(deleteBackup(dir, c)).toBe(false);
    expect(fs.existsSync(path.join(c.dir, "images.bin"))).toBe(true);
  });
});
