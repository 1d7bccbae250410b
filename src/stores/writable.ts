/**
 * Whether a store can be written at all, asked before a mutating command takes its backup: a store on a read-only
 * filesystem (a snapshot, a backup disk mounted ro) or owned by someone else is refused with a sentence, instead of
 * failing half-way with a SQLite or fs message. Scans never ask: they read such stores fine.
 */
import { statSync } from "node:fs";
import { dirname } from "node:path";
import { RecoverError } from "../errors.js";
import { storeAdapter } from "./registry.js";
import type { ImageTarget, StoreInfo } from "./store.js";
import { writeBlock } from "./write-block.js";

/** Refuse (exit 3) when the store, or a folder a target file lives in, cannot be written. */
export function refuseUnwritableStore(info: StoreInfo, targets: readonly ImageTarget[] = []): void {
  const reason = whyUnwritable(info, targets);
  if (reason) throw new RecoverError("store-read-only", `${reason}: nothing was changed`);
}

/** Why the store cannot be written, as the start of a sentence; undefined when it can. */
export function whyUnwritable(info: StoreInfo, targets: readonly ImageTarget[] = []): string | undefined {
  // A store that also writes beside itself (SQLite: its -journal, or -wal/-shm) needs its folder writable too.
  const besideStore = storeAdapter(info.format)?.capabilities.writesBesideStore === true;
  const paths = besideStore
    ? [info.path, dirname(info.path)]
    : [info.path, ...targets.flatMap((t) => (t.key.path !== undefined ? [existingAncestor(dirname(t.key.path))] : []))];
  for (const path of new Set(paths)) {
    const block = writeBlock(path);
    if (block === "read-only filesystem") return `${info.path} is on a read-only filesystem`;
    if (block === "permission denied") {
      if (path === info.path) return `${path} cannot be written by this user (permission denied)`;
      if (besideStore) return `the folder of ${info.path} cannot be written by this user (permission denied; SQLite keeps its journal there)`;
      return `${path}, a folder of ${info.path}, cannot be written by this user (permission denied)`;
    }
  }
  return undefined;
}

/** A file the plan creates may be in a folder that does not exist yet: its nearest existing parent is what gets written. */
function existingAncestor(dir: string): string {
  for (let d = dir; ; d = dirname(d)) {
    try {
      statSync(d);
      return d;
    } catch {
      if (dirname(d) === d) return d;
    }
  }
}
