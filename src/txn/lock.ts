/**
 * One mutating command per store at a time, whatever state dir each recover uses (a cron job and a terminal with
 * different HOMEs, sudo, a container and its host): the store's lock lives with the store, not in the state dir.
 * A directory store holds it as `<store>/.recover.lock` (no agent reads a dotfile at its store's top: Claude Code
 * reads `projects/*\/*.jsonl`, openclaw `agents/*\/sessions/*`, opencode's JSON tree its `session/`, `message/`,
 * `part/` … folders); a file store (opencode.db, one transcript) has `.<name>.recover.lock` beside it.
 *
 * The lock is created whole (written to a temp file, then hard-linked into place, which fails if a lock exists),
 * so another recover never reads a half-written one. It records who holds it (pid, host, pid namespace), since
 * when, the holder's state dir, and while a transaction is applying, its backup: a recover that finds a lock
 * whose holder is gone settles that transaction from the backup before touching the store.
 *
 * Stale: on this machine (same host name, same pid namespace), a lock whose pid is gone. A holder on another host
 * or in another pid namespace (a container) cannot be asked about its pid: it touches the lock every
 * HEARTBEAT_MS while it holds it, and its lock is stale once the lock has not been touched for FOREIGN_STALE_MS.
 *
 * Locks that are not a store's (a battle's checkpoint sidecar, before the file exists) stay in the state dir.
 */
import { createHash, randomBytes } from "node:crypto";
import {
  closeSync,
  existsSync,
  linkSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeSync,
} from "node:fs";
import { hostname } from "node:os";
import { basename, dirname, join } from "node:path";
import { errnoCode, ownWriteError, RecoverError } from "../errors.js";
import { mkdirDurable, TEMP_MARKER, writeFileDurable } from "../fs/durable.js";

export function storeKey(storePath: string): string {
  return createHash("sha256").update(realPath(storePath)).digest("hex").slice(0, 24);
}

function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path; // a store that vanished is still named by its path
  }
}

/** Who holds a lock (or writes a backup): enough to tell, from another recover, whether it is still there. */
export interface Owner {
  pid: number;
  host: string;
  /** Linux: the pid namespace (`pid:[4026531836]`); a pid means nothing outside its namespace. */
  pidNamespace?: string;
}

export interface LockHolder extends Owner {
  since: string;
  /** The holder's state dir, where its journal points at its backup. */
  stateDir: string;
  store: string;
  token: string;
  /** The backup of the transaction it is applying, if any: what a recover finding it dead must settle first. */
  applying?: string;
}

export const HEARTBEAT_MS = 30_000;
export const FOREIGN_STALE_MS = 10 * 60_000;
/** A lock's temp file (before it is linked into place) left by a killed recover: gone after this long. */
const TEMP_STALE_MS = 60_000;

let ownNamespace: string | undefined | null = null;
function pidNamespace(): string | undefined {
  if (ownNamespace === null) {
    try {
      ownNamespace = readlinkSync("/proc/self/ns/pid");
    } catch {
      ownNamespace = undefined;
    }
  }
  return ownNamespace;
}

export function currentOwner(): Owner {
  const ns = pidNamespace();
  return { pid: process.pid, host: hostname(), ...(ns !== undefined ? { pidNamespace: ns } : {}) };
}

/** Whether a process of this pid namespace is there (EPERM: it is, someone else's). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Whether `owner` can be asked about here: same host and pid namespace. */
function local(owner: Owner): boolean {
  return owner.host === hostname() && owner.pidNamespace === pidNamespace();
}

/** Whether the owner of a file last touched at `touchedMs` is gone (see the head of this file). */
export function ownerGone(owner: Owner, touchedMs: number, now = Date.now()): boolean {
  return local(owner) ? !alive(owner.pid) : now - touchedMs > FOREIGN_STALE_MS;
}

export function describeOwner(owner: Owner): string {
  return local(owner) ? `pid ${owner.pid}` : `pid ${owner.pid} on ${owner.host}${owner.host === hostname() ? " in another pid namespace" : ""}`;
}

/** Where the lock of the store at `storePath` lives (see the head of this file). */
export function storeLockFile(storePath: string): string {
  const real = realPath(storePath);
  let directory = false;
  try {
    directory = statSync(real).isDirectory();
  } catch {
    /* a store that is not there locks beside where it was */
  }
  return directory ? join(real, ".recover.lock") : join(dirname(real), `.${basename(real)}.recover.lock`);
}

export interface StoreLock {
  release(): void;
}

export interface HeldStoreLock extends StoreLock {
  readonly file: string;
  /** The stale holder this lock was taken over from, when it was applying a transaction: settle it first. */
  readonly tookOver?: LockHolder;
  /** Record (or clear) the backup of the transaction being applied, for whoever finds this lock if we die. */
  markApplying(backupDir: string | undefined): void;
}

type Read = { holder: LockHolder; touchedMs: number } | "absent" | "unreadable";

function readLock(file: string): Read {
  let text: string;
  let touchedMs: number;
  try {
    touchedMs = statSync(file).mtimeMs;
    text = readFileSync(file, "utf8");
  } catch (error) {
    return errnoCode(error) === "ENOENT" ? "absent" : "unreadable";
  }
  try {
    const holder = JSON.parse(text) as LockHolder;
    if (typeof holder.pid === "number" && typeof holder.host === "string" && typeof holder.token === "string") return { holder, touchedMs };
  } catch {
    /* below */
  }
  // Locks are linked into place whole: one that does not parse is not ours, or damaged on disk. Old enough, stale.
  return Date.now() - touchedMs > FOREIGN_STALE_MS
    ? { holder: { pid: 0, host: "?", since: "?", stateDir: "", store: "", token: "" }, touchedMs: 0 }
    : "unreadable";
}

/** Whether a lock on the store is held right now by a live recover (undefined), or left by a dead one, or absent. */
export function storeLockState(storePath: string): "absent" | "held" | "stale" {
  const read = readLock(storeLockFile(storePath));
  if (read === "absent") return "absent";
  if (read === "unreadable") return "held";
  return ownerGone(read.holder, read.touchedMs) ? "stale" : "held";
}

/** Take the store's own lock (refused with store-locked, exit 3, while another live recover holds it). */
export function lockStore(state: string, storePath: string): HeldStoreLock {
  const file = storeLockFile(storePath);
  const cannotLock = (error: unknown) => ownWriteError(error, `recover's lock ${file}`, "check that this user can write the store's folder", "store-read-only");
  const me: LockHolder = { ...currentOwner(), since: new Date().toISOString(), stateDir: state, store: storePath, token: randomBytes(8).toString("hex") };
  removeOldTemps(file);
  let tookOver: LockHolder | undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    const temp = `${file}.tmp-${process.pid}-${me.token}`;
    try {
      const fd = openSync(temp, "wx", 0o644);
      try {
        writeSync(fd, JSON.stringify(me));
      } finally {
        closeSync(fd);
      }
      try {
        linkSync(temp, file);
      } finally {
        rmSync(temp, { force: true });
      }
      return held(file, me, tookOver);
    } catch (error) {
      if (errnoCode(error) !== "EEXIST") throw cannotLock(error);
    }
    const read = readLock(file);
    if (read === "absent") continue;
    if (read === "unreadable") throw new RecoverError("store-locked", `the lock ${file} of ${storePath} cannot be read; another recover may hold it`);
    const { holder, touchedMs } = read;
    if (!ownerGone(holder, touchedMs)) {
      throw new RecoverError(
        "store-locked",
        `another recover (${describeOwner(holder)}, since ${holder.since ?? "?"}) is changing ${storePath}; wait for it to finish (its lock is ${file})`,
      );
    }
    // Its transaction was cut short and its backup is out of reach (another machine's state dir): leave the lock,
    // so no recover plans on a store that may be half written.
    if (holder.applying !== undefined && !existsSync(join(holder.applying, "manifest.json"))) {
      throw new RecoverError(
        "interrupted-transaction",
        `a recover (${describeOwner(holder)}) was cut short while changing ${storePath}, and its backup ${holder.applying} cannot be read from here; run any recover command on this store where it ran (state dir ${holder.stateDir}) to settle it, then run again`,
      );
    }
    if (breakStale(file, holder)) tookOver = holder.applying !== undefined ? holder : tookOver;
  }
  throw new RecoverError("store-locked", `cannot take the lock ${file} for ${storePath}; another recover may be starting`);
}

/**
 * Remove a stale lock, but only the one judged stale: moved aside first, checked to be that lock, then deleted. If
 * another recover replaced it in between, its lock is linked back. Returns whether the stale lock was removed.
 */
function breakStale(file: string, stale: LockHolder): boolean {
  const aside = `${file}.stale-${process.pid}-${randomBytes(4).toString("hex")}`;
  try {
    renameSync(file, aside);
  } catch {
    return false; // another recover broke it first
  }
  const moved = readLock(aside);
  if (typeof moved === "object" && moved.holder.token === stale.token) {
    rmSync(aside, { force: true });
    return true;
  }
  try {
    linkSync(aside, file);
  } catch {
    /* a third recover got in: it holds the lock now */
  }
  rmSync(aside, { force: true });
  return false;
}

function held(file: string, me: LockHolder, tookOver: LockHolder | undefined): HeldStoreLock {
  const ours = () => {
    const read = readLock(file);
    return typeof read === "object" && read.holder.token === me.token;
  };
  // Recovers that cannot ask about our pid (another host, a container) judge us by the lock's time.
  const heartbeat = setInterval(() => {
    try {
      const now = new Date();
      utimesSync(file, now, now);
    } catch {
      /* the next beat tries again */
    }
  }, HEARTBEAT_MS);
  heartbeat.unref();
  return {
    file,
    ...(tookOver ? { tookOver } : {}),
    markApplying(backupDir) {
      if (!ours()) return;
      const { applying: _, ...rest } = me;
      const next: LockHolder = backupDir === undefined ? rest : { ...rest, applying: backupDir };
      writeFileDurable(file, Buffer.from(JSON.stringify(next)), 0o644);
    },
    release() {
      clearInterval(heartbeat);
      if (ours()) rmSync(file, { force: true });
    },
  };
}

/** Temp files of a lock that a recover killed before linking left beside the store. */
function removeOldTemps(file: string): void {
  const prefix = `${basename(file)}.`;
  let names: string[];
  try {
    names = readdirSync(dirname(file));
  } catch {
    return;
  }
  for (const name of names) {
    const ours = (name.startsWith(prefix) && /\.(tmp|stale)-\d+-/.test(name)) || name.startsWith(`.${basename(file)}${TEMP_MARKER}`);
    if (!ours) continue;
    const path = join(dirname(file), name);
    // Each temp names its writer's pid: one that is gone here left it (killed mid-write), whatever its age; a pid
    // alive here may be another host's writer (a shared folder), so its temp goes only once it is old.
    const writer = Number(/(?:\.tmp-|\.stale-|recover-tmp-)(\d+)-/.exec(name)?.[1]);
    try {
      if ((Number.isInteger(writer) && writer !== process.pid && !alive(writer)) || Date.now() - statSync(path).mtimeMs > TEMP_STALE_MS)
        rmSync(path, { force: true });
    } catch {
      /* gone already */
    }
  }
}

/**
 * A lock in the state dir, for what is not a store (a checkpoint sidecar that may not exist yet): one recover per
 * state dir at a time on it. A lock whose pid is gone is taken over.
 */
export function lockInStateDir(state: string, key: string): StoreLock {
  const dir = join(state, "locks");
  const cannotLock = (error: unknown) => ownWriteError(error, `recover's lock in ${dir}`, "set XDG_STATE_HOME to a folder you can write", "state-unwritable");
  try {
    mkdirDurable(dir, 0o700);
  } catch (error) {
    throw cannotLock(error);
  }
  const file = join(dir, `${storeKey(key)}.lock`);
  for (let attempt = 0; attempt < 2; attempt++) {
    let fd: number;
    try {
      fd = openSync(file, "wx", 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw cannotLock(error);
      let holder: { pid?: number; since?: string } = {};
      try {
        holder = JSON.parse(readFileSync(file, "utf8"));
      } catch {
        /* a lock torn by a crash is stale */
      }
      if (typeof holder.pid === "number" && alive(holder.pid)) {
        throw new RecoverError("store-locked", `another recover (pid ${holder.pid}, since ${holder.since ?? "?"}) is changing ${key}; wait for it to finish`);
      }
      rmSync(file, { force: true });
      continue;
    }
    try {
      writeSync(fd, JSON.stringify({ pid: process.pid, since: new Date().toISOString(), store: key }));
    } catch (error) {
      closeSync(fd);
      rmSync(file, { force: true });
      throw cannotLock(error);
    }
    closeSync(fd);
    return { release: () => rmSync(file, { force: true }) };
  }
  throw new RecoverError("store-locked", `cannot take the lock ${file} for ${key}; another recover may be starting`);
}
