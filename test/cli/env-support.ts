// The machine failing under the CLI, for real: a full disk (a tiny tmpfs), a read-only filesystem (a read-only bind
// mount), another user (a child spawned as uid 65534, for whom chmod means something) and an install whose
// better-sqlite3 has no native module. Mounting needs root: tests skip without it.
import Database from "better-sqlite3";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { BIN, tempDir, type RunResult } from "./run.js";

export const IS_ROOT = process.getuid?.() === 0;
export const NOBODY = 65534;

/**
 * The first folder above the CLI that another user cannot enter (a clone in a mode-700 home, as root's), or
 * undefined: tests that run the CLI as NOBODY need it reachable, and say why they are skipped when it is not.
 */
export function unreachableForOthers(file: string = BIN): string | undefined {
  for (let dir = path.dirname(path.resolve(file)); ; dir = path.dirname(dir)) {
    if ((fs.statSync(dir).mode & 0o001) === 0) return dir;
    if (dir === path.dirname(dir)) return undefined;
  }
}

const mounted: string[] = [];

/** Mount points are not tempDir()s: its cleanup must never walk into a mount (a bind mount shows another dir). */
function mountPoint(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), "recover-mnt-"));
}

function mount(args: string[]): void {
  const result = spawnSync("mount", args, { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`mount ${args.join(" ")}: ${result.stderr}`);
}

/** A real filesystem of `size` (e.g. "16k") at a fresh temp dir: writes past it fail with ENOSPC. */
export function tinyDisk(size: string): string {
  const dir = mountPoint();
  mount(["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir]);
  mounted.push(dir);
  return dir;
}

/** `dir` seen through a read-only bind mount at a fresh temp dir: every write there fails with EROFS. */
export function readOnlyView(dir: string): string {
  const view = mountPoint();
  fs.chmodSync(view, 0o755);
  mount(["--bind", dir, view]);
  mounted.push(view);
  mount(["-o", "remount,bind,ro", view]);
  return view;
}

/** Undo every mount this file made (afterAll), newest first, and remove the mount points. */
export function unmountAll(): void {
  for (const dir of mounted.splice(0).reverse()) {
    const result = spawnSync("umount", [dir], { encoding: "utf8" });
    if (result.status === 0) fs.rmdirSync(dir);
    else process.stderr.write(`cannot umount ${dir}: ${result.stderr}\n`);
  }
}

/** Runs the built CLI (or `bin`) as another user (undefined: this one); its state dir must be given in env. */
export function runAs(uid: number | undefined, args: string[], env: Record<string, string>, bin = BIN): RunResult {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1", CI: "1", ...env };
  delete childEnv.RECOVER_DEBUG;
  const result = spawnSync(process.execPath, [bin, ...args], {
    ...(uid !== undefined ? { uid, gid: uid } : {}),
    encoding: "utf8",
    env: childEnv,
    timeout: 25_000,
  });
  if (result.error) throw result.error;
  return { status: result.status, signal: result.signal, stdout: result.stdout, stderr: result.stderr };
}

/** A temp dir another user can enter (tempDir makes them 0700). */
export function sharedTempDir(): string {
  const dir = tempDir();
  fs.chmodSync(dir, 0o755);
  return dir;
}

/** A temp dir owned by `uid`: its state dir, where it may write. */
export function ownedTempDir(uid: number): string {
  const dir = sharedTempDir();
  fs.chownSync(dir, uid, uid);
  return dir;
}

export const DEMO_DB = path.resolve("fixtures/demo/opencode/opencode.db");

/**
 * A copy of the demo opencode.db in WAL mode whose -wal holds a committed change the db file does not (a session
 * renamed to `walTitle`), and no -shm: what a crash (or a copy taken while opencode runs) leaves. Only a reader
 * that reads the -wal sees the new title.
 */
export function walStore(dir: string, sessionId: string, walTitle: string): string {
  const work = tempDir();
  const db = path.join(work, "opencode.db");
  fs.copyFileSync(DEMO_DB, db);
  const conn = new Database(db);
  conn.pragma("journal_mode = WAL");
  conn.pragma("wal_autocheckpoint = 0");
  conn.prepare("UPDATE session SET title = ? WHERE id = ?").run(walTitle, sessionId);
  // Copied while the connection is open: the change is in the -wal only.
  fs.copyFileSync(db, path.join(dir, "opencode.db"));
  fs.copyFileSync(`${db}-wal`, path.join(dir, "opencode.db-wal"));
  conn.close();
  return path.join(dir, "opencode.db");
}

const installs: string[] = [];

/** Remove the installs this file made (afterAll); rmSync removes links, never what they point at. */
export function removeInstalls(): void {
  for (const dir of installs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

/**
 * An install of the built CLI whose better-sqlite3 has no native module (as `npm install --ignore-scripts` leaves
 * it where no prebuilt binary was fetched): bin/, dist/ and package.json copied, every other package linked to the
 * real node_modules, better-sqlite3 copied without build/ (where `bindings` looks for better_sqlite3.node).
 */
export function installWithoutNativeModule(): string {
  // Not a tempDir(): its node_modules links into the real one, and nothing may walk into that to clean up.
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "recover-install-"));
  installs.push(root);
  for (const entry of ["bin", "dist", "package.json"]) fs.cpSync(path.resolve(entry), path.join(root, entry), { recursive: true });
  const modules = fs.realpathSync("node_modules");
  fs.mkdirSync(path.join(root, "node_modules"));
  for (const name of fs.readdirSync(modules)) {
    if (name === "better-sqlite3") continue;
    fs.symlinkSync(path.join(modules, name), path.join(root, "node_modules", name));
  }
  const sqlite = path.join(root, "node_modules", "better-sqlite3");
  fs.cpSync(path.join(modules, "better-sqlite3"), sqlite, {
    recursive: true,
    filter: (source) => !["build", "deps", "src"].includes(path.relative(path.join(modules, "better-sqlite3"), source).split(path.sep)[0]!),
  });
  return root;
}
