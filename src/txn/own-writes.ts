/**
 * The session update times recover itself wrote, per store, so the 60-second live-writer guard does not take
 * recover's own repair for a running agent: `repair --rule a` then `repair --rule b` is what scan suggests.
 * Best effort: losing this file only makes the guard more cautious.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { mkdirDurable, writeFileDurable } from "../fs/durable.js";
import { storeKey } from "./lock.js";

const KEEP = 1_000;

function fileFor(state: string, storePath: string): string {
  return join(state, "own-writes", `${storeKey(storePath)}.json`);
}

function read(file: string): Record<string, number> {
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, "utf8"));
    return parsed !== null && typeof parsed === "object" ? (parsed as Record<string, number>) : {};
  } catch {
    return {};
  }
}

export function rememberOwnWrites(state: string, storePath: string, sessions: readonly { id: string; updated: number }[]): void {
  const file = fileFor(state, storePath);
  const known = read(file);
  for (const s of sessions) {
    delete known[s.id];
    known[s.id] = s.updated;
  }
  const kept = Object.entries(known).slice(-KEEP);
  try {
    mkdirDurable(join(state, "own-writes"), 0o700);
    writeFileDurable(file, Buffer.from(JSON.stringify(Object.fromEntries(kept))), 0o600);
  } catch {
    /* see above: best effort */
  }
}

/** Whether the session's recorded update time is exactly one recover wrote (nobody has written it since). */
export function isOwnWrite(state: string, storePath: string, sessionId: string, updated: number): boolean {
  return read(fileFor(state, storePath))[sessionId] === updated;
}
