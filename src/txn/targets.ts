/**
 * Turn a plan into store targets (before and after images), and a backup back into targets for a restore. Both
 * read the store's current state first: a plan is only valid while the store still holds what it was made from.
 */
import { isAbsolute, join, relative } from "node:path";
import { RecoverError, storeChanged } from "../errors.js";
import { ABSENT, keyOf, summariseChange, type ChangeSummary, type FileImage, type RecordChange, type RecordKey } from "../model/change.js";
import type { RecordRef } from "../model/record.js";
import type { ImageTarget, RecordCodec, StoreWriter } from "../stores/store.js";
import { beforeImage, fingerprint, modeOf, type Backup } from "./backup-store.js";

export interface PlannedSession {
  sessionRef: RecordRef;
  changes: RecordChange[];
  /** Transcripts: the line changes come to one new image of the whole file, written as one. */
  files?: FileImage[];
}

export function repairTargets(
  sessions: readonly PlannedSession[],
  writer: StoreWriter,
  codec: RecordCodec,
  now: number,
): { targets: ImageTarget[]; changes: ChangeSummary[] } {
  const targets: ImageTarget[] = [];
  const changes: ChangeSummary[] = [];
  for (const { sessionRef, changes: planned, files } of sessions) {
    if (planned.length === 0) continue;
    if (files) {
      for (const file of files) {
        const before = writer.read(file.key);
        if (!before.exists || writer.payload(before)?.equals(file.before) !== true) {
          throw storeChanged(`${file.key.path ?? file.key.id} changed since it was read; is its agent running?`);
        }
        targets.push({ key: file.key, before, after: file.after === null ? ABSENT : writer.withPayload(file.key, before, file.after, now) });
      }
      changes.push(...planned.map(summariseChange));
      continue;
    }
    for (const change of planned) {
      const before = writer.read(change.key);
      const stillThere =
        change.op === "insert" ? !before.exists : before.exists && writer.payload(before)?.equals(change.beforeBytes ?? Buffer.alloc(0)) === true;
      if (!stillThere) {
        throw storeChanged(`${change.key.record} ${change.key.id} changed since it was read; is opencode running?`);
      }
      const after = change.op === "delete" || !change.after ? ABSENT : writer.withPayload(change.key, before, codec.encode(change.after), now);
      targets.push({ key: change.key, before, after });
      changes.push(summariseChange(change));
    }
    // opencode moves a session's update time on every write to it; so does a repair (and a restore puts it back).
    const sessionKey: RecordKey = keyOf(sessionRef);
    const before = writer.read(sessionKey);
    const after = writer.touched(sessionKey, before, now);
    if (after) targets.push({ key: sessionKey, before, after });
  }
  return { targets, changes };
}

export interface RestoreTargets {
  targets: ImageTarget[];
  /** Records that changed after the transaction being undone: restoring them loses those later changes. */
  conflicts: RecordKey[];
}

/**
 * Keys as recorded name files of the store the backup was taken from; restoring into another copy of it
 * (`--store`) must touch that copy's files, never the original's.
 */
function relocate(key: RecordKey, from: string, to: string): RecordKey {
  if (key.path === undefined || from === to) return key;
  const rel = relative(from, key.path);
  if (rel.startsWith("..") || isAbsolute(rel))
    throw new RecoverError("backup-unreadable", `backup record ${key.path} is not inside the store ${from} it names`);
  return { ...key, path: join(to, rel) };
}

export function restoreTargets(backup: Backup, writer: StoreWriter, onlySession?: string): RestoreTargets {
  const targets: ImageTarget[] = [];
  const conflicts: RecordKey[] = [];
  for (const recorded of backup.manifest.images) {
    if (onlySession !== undefined && recorded.key.sessionId !== onlySession) continue;
    const entry = { ...recorded, key: relocate(recorded.key, backup.manifest.store.path, writer.info.path) };
    const now = writer.read(entry.key);
    if (fingerprint(now) === entry.before) continue; // already as it was
    if (fingerprint(now) !== entry.after) conflicts.push(entry.key);
    const after = beforeImage(backup, entry, modeOf(entry.before));
    targets.push({ key: entry.key, before: now, after });
  }
  return { targets, conflicts };
}

/** How a restore reports its targets: what each one does to the store. */
export function changesOfTargets(targets: readonly ImageTarget[], rule: string): ChangeSummary[] {
  return targets.map((t) => {
    const { record, id, sessionId, messageId } = t.key;
    const op = !t.before.exists ? "insert" : !t.after.exists ? "delete" : "update";
    return { op, record, id, sessionId, ...(messageId !== undefined ? { messageId } : {}), rules: [rule] };
  });
}
