// When the machine, not the store, is the problem: a full disk under the backup dir, a store on a read-only
// filesystem, a store another user owns, an install without better-sqlite3's native module. Each is one line (or
// one JSON error document) saying what happened and what to do, with the right exit code, never "internal error";
// the store is untouched and no half-made backup is left behind. Real mounts and a real second user: root only.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  DEMO_DB,
  installWithoutNativeModule,
  IS_ROOT,
  NOBODY,
  ownedTempDir,
  readOnlyView,
  removeInstalls,
  runAs,
  sharedTempDir,
  tinyDisk,
  unmountAll,
  unreachableForOthers,
  walStore,
} from "./env-support.js";
import {
  BIN,
  childEnv,
  expectJsonError,
  expectNoStack,
  expectOneLineError,
  expectSameBytes,
  parseJsonDocument,
  run,
  snapshot,
  tempDir,
  type RunResult,
} from "./run.js";

const NEEDS_ROOT = "needs root: mounts a tmpfs / a read-only bind mount and spawns the CLI as uid 65534";

afterAll(() => {
  unmountAll();
  removeInstalls();
});

/** A private copy of the demo opencode store: its db, as --store names it. */
function demoCopy(dir = tempDir()): string {
  const db = path.join(dir, "opencode.db");
  fs.copyFileSync(DEMO_DB, db);
  return db;
}

/** opencode.db's bytes, and no -wal with content: a reader's empty -wal and its -shm are not writes. */
function expectDbUntouched(db: string): void {
  expect(fs.readFileSync(db).equals(fs.readFileSync(DEMO_DB)), `${db} changed`).toBe(true);
  if (fs.existsSync(`${db}-wal`)) expect(fs.statSync(`${db}-wal`).size).toBe(0);
}

function lastLineError(r: RunResult, pattern: RegExp): string {
  expectNoStack(r.stderr);
  const lines = r.stderr.trimEnd().split("\n");
  expect(
    lines.filter((l) => l.startsWith("recover: ")),
    r.stderr,
  ).toHaveLength(1);
  expect(lines.at(-1)).toMatch(pattern);
  return lines.at(-1)!;
}

function env(state: string, extra: Record<string, string> = {}) {
  return { env: { XDG_STATE_HOME: state, ...extra } };
}

describe.skipIf(!IS_ROOT)(`a full disk under --backup-dir (${NEEDS_ROOT})`, () => {
  it("repair: one line naming the disk and --backup-dir, exit 2, the store untouched, no backup folder left", async () => {
    // 16 KiB: the backup folder fits, images.bin (about 25 KiB of before-images) does not.
    const disk = tinyDisk("16k");
    const backups = path.join(disk, "backups");
    const db = demoCopy();
    const state = tempDir();
    for (const json of [false, true]) {
      const r = await run(["session", "repair", "--all", "--yes", "--store", db, "--backup-dir", backups, ...(json ? ["--json"] : [])], env(state));
      expect(r.status, r.stderr).toBe(2);
      // The plan was shown (its notes on stderr) before the disk filled up: the error is the one `recover:` line, last.
      const message = json ? expectJsonError(r, "no-space").message : lastLineError(r, /^recover: no space left on device while writing the backup to /);
      expect(message).toContain(backups);
      expect(message).toMatch(/nothing was changed; free space or pass --backup-dir/);
      expect(message).not.toMatch(/internal error|please report/);
      expectDbUntouched(db);
      // Not even an empty folder that `session backups` would not list.
      expect(fs.readdirSync(backups)).toEqual([]);
      const journal = path.join(state, "recover", "journal");
      expect(fs.existsSync(journal) ? fs.readdirSync(journal) : []).toEqual([]);
    }
    const listed = await run(["session", "backups", "--backup-dir", backups], env(state));
    expect(listed.status).toBe(0);
    expect(listed.stdout).toMatch(/no backups/);
  });
});

describe.skipIf(!IS_ROOT)(`a store on a read-only filesystem (${NEEDS_ROOT})`, () => {
  const SESSION = "ses_f7e2e487fffeyD9zPBDK4Hxc8R";
  const WAL_TITLE = "Renamed in the WAL only";

  it("a WAL opencode.db without its -shm is scanned (the -wal read too), with a notice; repair is refused with exit 3", async () => {
    const source = tempDir();
    walStore(source, SESSION, WAL_TITLE);
    const view = readOnlyView(source);
    const db = path.join(view, "opencode.db");
    const before = snapshot(view);
    const state = tempDir();
    // The private copy goes to TMPDIR: it must be gone when the command ends.
    const tmp = tempDir();
    const opts = env(state, { TMPDIR: tmp });

    const list = await run(["session", "list", "--json", "--store", db], opts);
    expect(list.status, list.stderr).toBe(0);
    const listed = parseJsonDocument(list.stdout) as { sessions: { id: string; title: string }[]; store: { notices: string[] } };
    expect(listed.sessions.find((s) => s.id === SESSION)?.title).toBe(WAL_TITLE);
    expect(listed.store.notices.join("\n")).toMatch(/cannot be written \(read-only filesystem\).*private copy/);

    for (const store of [db, view]) {
      const scan = await run(["session", "scan", "--all", "--store", store], opts);
      expectNoStack(scan.stderr);
      expect(scan.status, scan.stderr).toBe(1);
      expect(scan.stdout).toMatch(/tool-call-interrupted/);
      expect(scan.stderr).toMatch(/note: the folder of .*opencode\.db cannot be written \(read-only filesystem\)/);
    }

    const backups = path.join(tempDir(), "backups");
    for (const json of [false, true]) {
      const r = await run(["session", "repair", "--all", "--yes", "--store", db, "--backup-dir", backups, ...(json ? ["--json"] : [])], opts);
      expect(r.status, r.stderr).toBe(3);
      const message = json ? expectJsonError(r, "store-read-only").message : expectOneLineError(r);
      expect(message).toBe(`${json ? "" : "recover: "}${db} is on a read-only filesystem: nothing was changed`);
    }
    expect(fs.existsSync(backups)).toBe(false);
    expectSameBytes(before, snapshot(view));
    expect(fs.readdirSync(tmp)).toEqual([]);
  });

  it.each([
    ["opencode JSON tree", "fixtures/demo/opencode-legacy/storage"],
    ["Claude Code transcripts", "fixtures/demo/claude"],
    ["openclaw transcripts", "fixtures/demo/openclaw"],
  ])("%s: scanned as usual; repair refused with exit 3 and a sentence", async (_name, fixture) => {
    const source = tempDir();
    const copy = path.join(source, path.basename(fixture));
    fs.cpSync(path.resolve(fixture), copy, { recursive: true, preserveTimestamps: true });
    const view = readOnlyView(source);
    const store = path.join(view, path.basename(fixture));
    const before = snapshot(view);
    const state = tempDir();

    const scan = await run(["session", "scan", "--all", "--store", store], env(state));
    expectNoStack(scan.stderr);
    expect(scan.status, scan.stderr).toBe(1);

    const backups = path.join(tempDir(), "backups");
    const r = await run(["session", "repair", "--all", "--yes", "--store", store, "--backup-dir", backups], env(state));
    expect(r.status, r.stderr).toBe(3);
    expectOneLineError(r, /^recover: \S+ is on a read-only filesystem: nothing was changed$/);
    expect(fs.existsSync(backups)).toBe(false);
    expectSameBytes(before, snapshot(view));
  });
});

// Run as another user, the CLI must be reachable: a clone in a folder others cannot enter skips these, saying why.
const BLOCKED = IS_ROOT ? unreachableForOthers() : undefined;
const SKIPPED_WHY = BLOCKED ? `; skipped: uid ${NOBODY} cannot enter ${BLOCKED}, where this clone is` : "";

describe.skipIf(!IS_ROOT || BLOCKED !== undefined)(`a store another user owns (${NEEDS_ROOT}${SKIPPED_WHY})`, () => {
  it("cannot be read: permission denied naming the path, exit 2", () => {
    const parent = sharedTempDir();
    const locked = path.join(parent, "locked");
    fs.mkdirSync(path.join(locked, "data"), { recursive: true, mode: 0o700 });
    fs.chmodSync(locked, 0o700);
    demoCopy(path.join(locked, "data"));
    const state = ownedTempDir(NOBODY);
    for (const store of [locked, path.join(locked, "data"), path.join(locked, "data", "opencode.db")]) {
      const r = runAs(NOBODY, ["session", "scan", "--all", "--store", store], { XDG_STATE_HOME: state });
      expect(r.status, r.stderr).toBe(2);
      expect(expectOneLineError(r)).toBe(`recover: permission denied: ${store}`);
      const json = runAs(NOBODY, ["session", "scan", "--all", "--json", "--store", store], { XDG_STATE_HOME: state });
      expect(json.status).toBe(2);
      expectJsonError(json, "permission-denied");
    }
  });

  it("can be read but not written: scanned; repair refused with exit 3 and a sentence, nothing written, no backup", () => {
    const dir = sharedTempDir();
    const db = demoCopy(dir);
    fs.chmodSync(db, 0o644);
    const state = ownedTempDir(NOBODY);
    const backups = path.join(state, "backups");

    const scan = runAs(NOBODY, ["session", "scan", "--all", "--store", db], { XDG_STATE_HOME: state });
    expectNoStack(scan.stderr);
    expect(scan.status, scan.stderr).toBe(1);

    for (const json of [false, true]) {
      const r = runAs(NOBODY, ["session", "repair", "--all", "--yes", "--store", db, "--backup-dir", backups, ...(json ? ["--json"] : [])], {
        XDG_STATE_HOME: state,
      });
      expect(r.status, r.stderr).toBe(3);
      const message = json ? expectJsonError(r, "store-read-only").message : expectOneLineError(r);
      expect(message).toBe(`${json ? "" : "recover: "}${db} cannot be written by this user (permission denied): nothing was changed`);
      expect(message).not.toMatch(/SQLITE|readonly database|internal error/);
    }
    expect(fs.existsSync(backups)).toBe(false);
    expectDbUntouched(db);
  });
});

describe("better-sqlite3 installed without its native module", () => {
  it("an opencode.db: one line saying how to rebuild it, in the folder recover is installed in; exit 2", () => {
    const install = installWithoutNativeModule();
    const db = demoCopy();
    const bin = path.join(install, "bin", "recover");
    for (const json of [false, true]) {
      const r = runAs(undefined, ["session", "scan", "--all", "--store", db, ...(json ? ["--json"] : [])], { XDG_STATE_HOME: tempDir() }, bin);
      expect(r.status, r.stderr).toBe(2);
      const message = json ? expectJsonError(r, "native-module-missing").message : expectOneLineError(r);
      expect(message).toContain(`cd ${install} && npm rebuild better-sqlite3`);
      expect(message).toMatch(/better-sqlite3's native module.*is missing/);
      expect(message).not.toMatch(/internal error|please report/);
    }
  });
});

/** The CLI as a process whose stdout (and, with `stderrFull`, stderr) is /dev/full: every write fails with ENOSPC. */
function toFullDisk(args: string[], { state = tempDir(), stderrFull = false } = {}) {
  const full = fs.openSync("/dev/full", "w");
  try {
    const r = spawnSync(process.execPath, [BIN, ...args], {
      encoding: "utf8",
      env: childEnv({ XDG_STATE_HOME: state }),
      stdio: ["ignore", full, stderrFull ? full : "pipe"],
      timeout: 25_000,
    });
    return { status: r.status, signal: r.signal, stderr: r.stderr ?? "" };
  } finally {
    fs.closeSync(full);
  }
}

const FULL_OUTPUT =
  /^recover: could not write the output to stdout \(no space left on device\): the command ran to its end, but what it printed is incomplete$/;

describe.skipIf(!fs.existsSync("/dev/full"))("stdout sent to a full disk (`> /dev/full`)", () => {
  it.each([
    [["session", "scan", "--all", "--json", "--store", DEMO_DB]],
    [["session", "scan", "--all", "--store", DEMO_DB]],
    [["session", "list", "--store", DEMO_DB]],
    [["--help"]],
    [["completion", "bash"]],
  ])("%j: one line saying so, exit 2, no stack", (args) => {
    const r = toFullDisk(args);
    expect(r.signal).toBeNull();
    expect(r.status, r.stderr).toBe(2);
    expect(lastLineError({ status: r.status, signal: null, stdout: "", stderr: r.stderr }, FULL_OUTPUT)).toMatch(FULL_OUTPUT);
  });

  it("a repair still runs to its end, as the line says: the store is repaired, and its backup puts it back", async () => {
    const state = tempDir();
    const db = demoCopy();
    const changesLeft = async () =>
      (
        parseJsonDocument((await run(["session", "repair", "--all", "--dry-run", "--json", "--store", db], env(state))).stdout) as {
          summary: { changes: number };
        }
      ).summary.changes;
    const before = await changesLeft();
    expect(before).toBeGreaterThan(0);
    const r = toFullDisk(["session", "repair", "--all", "--yes", "--store", db], { state });
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr.trimEnd().split("\n").at(-1)).toMatch(FULL_OUTPUT);
    expect(await changesLeft()).toBe(0);
    const backups = parseJsonDocument((await run(["session", "backups", "--json"], env(state))).stdout) as { backups: { id: string }[] };
    expect(backups.backups).toHaveLength(1);
    const restored = await run(["session", "restore", backups.backups[0]!.id, "--yes"], env(state));
    expect(restored.status, restored.stderr).toBe(0);
    expect(await changesLeft()).toBe(before);
  });

  it("--json and a refusal: the reason its JSON document could not carry is said on stderr, and the refusal keeps exit 3", () => {
    // Copied just now: a transcript written seconds ago may belong to a running agent, so repair refuses it.
    const store = path.join(tempDir(), "claude");
    fs.cpSync(path.resolve("fixtures/demo/claude"), store, { recursive: true });
    const r = toFullDisk(["session", "repair", "--all", "--yes", "--json", "--store", store]);
    expect(r.status, r.stderr).toBe(3);
    expectNoStack(r.stderr);
    const lines = r.stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^recover: session \S+ was written \d+ s ago: its agent may still be running/);
    expect(lines[1]).toMatch(FULL_OUTPUT);
  });

  it("with stderr full too, nothing is left to say it: exit 2 all the same, no crash", () => {
    const r = toFullDisk(["session", "scan", "--all", "--json", "--store", DEMO_DB], { stderrFull: true });
    expect(r.signal).toBeNull();
    expect(r.status).toBe(2);
  });
});

/** The CLI started by a shell standing in a folder that was removed under it (`rm -rf` of one's own worktree). */
function inRemovedFolder(args: string[], { keepPwd = true } = {}) {
  const gone = path.join(tempDir(), "gone");
  fs.mkdirSync(gone);
  const quoted = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
  const r = spawnSync("bash", ["-c", `cd '${gone}' && rmdir '${gone}' && ${keepPwd ? "" : "unset PWD; "}exec ${quoted}`], {
    encoding: "utf8",
    env: childEnv({ XDG_STATE_HOME: tempDir() }),
    timeout: 25_000,
  });
  return { gone, status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

describe("run from a folder that was removed under the shell", () => {
  const claude = path.resolve("fixtures/demo/claude");

  it("--help and commands on absolute paths work as anywhere else", async () => {
    expect(inRemovedFolder(["--help"]).status).toBe(0);
    const here = await run(["session", "scan", "--all", "--json", "--store", claude]);
    const there = inRemovedFolder(["session", "scan", "--all", "--json", "--store", claude]);
    expectNoStack(there.stderr);
    expect([there.status, there.stdout]).toEqual([here.status, here.stdout]);
  });

  it("a relative path is the missing path it names: one line, exit 2", () => {
    const r = inRemovedFolder(["session", "scan", "--all", "--store", "claude"]);
    expect(r.status).toBe(2);
    expect(lastLineError({ status: r.status, signal: null, stdout: r.stdout, stderr: r.stderr }, /^recover: /)).toBe(
      `recover: no such store: ${path.join(r.gone, "claude")}`,
    );
  });

  it("without $PWD either, there is no folder to name: one line, exit 2", () => {
    const r = inRemovedFolder(["--help"], { keepPwd: false });
    expect(r.status).toBe(2);
    expect(lastLineError({ status: r.status, signal: null, stdout: r.stdout, stderr: r.stderr }, /^recover: /)).toMatch(
      /^recover: cannot tell which folder this is \(ENOENT\); cd to one that exists$/,
    );
  });
});

describe("paths the filesystem cannot resolve", () => {
  it("symbolic links that loop, a name too long: one line naming the path, exit 2, never an internal error", async () => {
    const dir = tempDir();
    fs.symlinkSync(path.join(dir, "b"), path.join(dir, "a"));
    fs.symlinkSync(path.join(dir, "a"), path.join(dir, "b"));
    const loop = path.join(dir, "a");
    const long = path.join(dir, "x".repeat(300));
    for (const [args, line] of [
      [["session", "scan", "--store", loop], `recover: symbolic links that loop: ${loop}`],
      [["session", "scan", "--all", "--store", path.join(loop, "projects")], `recover: symbolic links that loop: ${path.join(loop, "projects")}`],
      [["explain", "--error-file", loop], `recover: symbolic links that loop: ${loop}`],
      [["session", "scan", "--json", "--store", long], undefined],
    ] as const) {
      const r = await run([...args]);
      expect(r.status, r.stderr).toBe(2);
      if (line) expect(expectOneLineError(r)).toBe(line);
      else expect(expectJsonError(r, "store-unreadable").message).toBe(`file name too long: ${long}`);
    }
  });
});
