/**
 * One mutating command per store at a time: a lock file in the state dir, keyed by the store's real path, holding
 * the owner's pid and start time. A lock whose pid is gone is stale (its owner was killed) and is taken over.
 */
import { createHash } from "node:crypto";
import { closeSync, openSync, readFileSync, realpathSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { ownWriteError, RecoverError } from "../errors.js";
import { mkdirDurable } from "../fs/durable.js";

export function storeKey(storePath: string): string {
  let real = storePath;
  try {
    real = realpathSync(storePath);
  } catch {
    /* a store that vanished is still named by its path */
  }
  return createHash("sha256").update(real).digest("hex").slice(0, 24);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

export interface StoreLock {
  release(): void;
}

export function lockStore(state: string, storePath: string): StoreLock {
  const dir = join(state, "locks");
  const cannotLock = (error: unknown) => ownWriteError(error, `recover's lock in ${dir}`, "set XDG_STATE_HOME to a folder you can write", "state-unwritable");
  try {
    mkdirDurable(dir, 0o700);
  } catch (error) {
    throw cannotLock(error);
  }
  const file = join(dir, `${storeKey(storePath)}.lock`);
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
        throw new RecoverError(
          "store-locked",
          `another recover (pid ${holder.pid}, since ${holder.since ?? "?"}) is changing ${storePath}; wait for it to finish`,
        );
      }
      rmSync(file, { force: true });
      continue;
    }
    try {
      writeSync(fd, JSON.stringify({ pid: process.pid, since: new Date().toISOString(), store: storePath }));
    } catch (error) {
      closeSync(fd);
      rmSync(file, { force: true });
      throw cannotLock(error);
    }
    closeSync(fd);
    return { release: () => rmSync(file, { force: true }) };
  }
  throw new RecoverError("store-locked", `cannot take the lock ${file} for ${storePath}; another recover may be starting`);
}
