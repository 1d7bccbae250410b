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

function fileFor(state: string, storePath: string, kind = "own-writes"): string {
  return join(state, kind, `${storeKey(storePath)}.json`);
}

function read(file: string): Record<string, number> {
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, "utf8"));
    return parsed !== null && typeof parsed === "object" ? (parsed as Record<string, number>) : {};
  } catch {
    return {};
  }
}

function remember(state: string, storePath: string, kind: string, values: readonly { id: string; value: number }[]): void {
  const file = fileFor(state, storePath, kind);
  const known = read(file);
  for (const v of values) {
    delete known[v.id];
    known[v.id] = v.value;
  }
  const kept = Object.entries(known).slice(-KEEP);
  try {
    mkdirDurable(join(state, kind), 0o700);
    writeFileDurable(file, Buffer.from(JSON.stringify(Object.fromEntries(kept))), 0o600);
  } catch {
    /* see above: best effort */
  }
}

export function rememberOwnWrites(state: string, storePath: string, sessions: readonly { id: string; updated: number }[]): void {
  remember(
    state,
    storePath,
    "own-writes",
    sessions.map((s) => ({ id: s.id, value: s.updated })),
  );
}

/**
 * The calibration a trim used for a session. Once a trim has shrunk the history, the counts opencode stored for
 * earlier replies no longer match what is left, and a fresh calibration would ask for more: a second trim reuses
 * the first one's, so trimming twice trims once.
 */
export function rememberCalibration(state: string, storePath: string, sessionId: string, { factor, overhead, counted }: RememberedCalibration): void {
  // The overhead (tokens sent outside the messages) and the error's count under keys of their own, so a file of
  // factors stays one.
  remember(state, storePath, "calibration", [
    { id: sessionId, value: factor },
    ...(overhead ? [{ id: `${sessionId} overhead`, value: overhead }] : []),
    ...(counted ? [{ id: `${sessionId} counted`, value: counted }] : []),
  ]);
}

export interface RememberedCalibration {
  factor: number;
  overhead?: number;
  /** The size the provider's error counted, when the calibration came from one: the same error again is no news. */
  counted?: number;
}

export function recalledCalibration(state: string, storePath: string, sessionId: string): RememberedCalibration | undefined {
  const known = read(fileFor(state, storePath, "calibration"));
  const factor = known[sessionId];
  if (typeof factor !== "number" || !Number.isFinite(factor)) return undefined;
  const positive = (key: string) => {
    const value = known[`${sessionId} ${key}`];
    return typeof value === "number" && Number.isFinite(value) && value > 0 ? { [key]: value } : {};
  };
  return { factor, ...positive("overhead"), ...positive("counted") };
}

/** Whether the session's recorded update time is exactly one recover wrote (nobody has written it since). */
export function isOwnWrite(state: string, storePath: string, sessionId: string, updated: number): boolean {
  const recorded = read(fileFor(state, storePath))[sessionId];
  // A file's modification time comes back from the file system with sub-millisecond noise.
  return typeof recorded === "number" && Math.abs(recorded - updated) < 1;
}
