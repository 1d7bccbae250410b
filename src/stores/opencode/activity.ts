/**
 * When an opencode session last moved, read from its records' own times: the session's `time.updated`, each
 * message's `time.created`/`time.completed`, each part's `time.start`/`time.end` (a tool's in `state.time`). These
 * travel with the records, so a copied store (`cp` without -p, git clone, unzip, a backup restore) reads the same
 * as the original. File times do not: a copy is "written" the moment it is made, and judging liveness by them
 * hid every interrupted call in a fresh copy as a turn still being written.
 */
import type { MessageRecord, PartRecord } from "../../model/opencode-records.js";
import type { RecordRef } from "../../model/record.js";

/**
 * The latest time the records carry. A record that holds no readable time (a torn or invalid file) asks `untimed`:
 * its store's own clue, if it has one, or 0.
 */
export function recordedActivity(
  sessionUpdated: number,
  messages: readonly MessageRecord[],
  parts: readonly PartRecord[],
  untimed: (ref: RecordRef) => number,
): number {
  let latest = sessionUpdated;
  for (const message of messages) {
    const time = message.info?.time;
    latest = Math.max(latest, time ? Math.max(time.created, "completed" in time ? (time.completed ?? 0) : 0) : untimed(message.ref));
  }
  for (const record of parts) latest = Math.max(latest, record.part ? partTime(record.part) : untimed(record.ref));
  return latest;
}

/** A part's latest time: text and reasoning keep `time`, a tool `state.time` (a pending tool, and step markers, none). */
function partTime(part: object): number {
  let latest = 0;
  const state = (part as { state?: unknown }).state;
  for (const time of [(part as { time?: unknown }).time, typeof state === "object" && state !== null ? (state as { time?: unknown }).time : undefined]) {
    if (typeof time !== "object" || time === null) continue;
    for (const value of [(time as { start?: unknown }).start, (time as { end?: unknown }).end]) {
      if (typeof value === "number" && Number.isFinite(value)) latest = Math.max(latest, value);
    }
  }
  return latest;
}
