/**
 * Writes transcripts as whole files (temp file beside it with the original's mode, fsync, rename, fsync the
 * directory: FileWriter). A transcript's lines are not records the file system can replace one by one, so a plan's
 * line changes become one file image per session (plan/transcript-plan.ts) and this writer puts it in place.
 *
 * openclaw takes a per-file write lock (`<session>.jsonl.lock`, JSON `{pid, createdAt}`, stale after 30 minutes):
 * a live lock means the agent is writing that session right now.
 */
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { FileWriter } from "../file-writer.js";
import { ABSENT, type RecordKey, type StoredImage } from "../../model/change.js";
import { storeChanged } from "../../errors.js";
import type { ImageTarget, StoreInfo } from "../store.js";
import { indexImage, type IndexRows } from "./layout.js";
import { obj } from "./dialect.js";

const OPENCLAW_LOCK_STALE_MS = 30 * 60_000;

export class TranscriptWriter extends FileWriter {
  constructor(
    info: StoreInfo,
    /** Session files whose agent takes a write lock (openclaw). */
    private readonly lockedFiles: readonly string[],
    /** The agent's index rows a plan may set (`index` records), when its layout has them (Codex). */
    private readonly indexRows?: IndexRows,
  ) {
    super(info);
  }

  private rows(key: RecordKey): IndexRows {
    if (!this.indexRows || key.path === undefined) throw new Error(`this store keeps no index row ${key.id}`);
    return this.indexRows;
  }

  /** An index row reads as the columns recover sets, as JSON; every other record is a file. */
  override read(key: RecordKey): StoredImage {
    if (key.record !== "index") return super.read(key);
    const columns = this.rows(key).read(key.path!, key.id);
    return columns ? { exists: true, bytes: indexImage(columns) } : ABSENT;
  }

  /**
   * Files first (their own checks refuse a store that changed), then each index row, set only while it still holds
   * its before-image. A row that changed meanwhile is refused like a file: the transaction puts back what was written.
   */
  override apply(targets: readonly ImageTarget[]): void {
    super.apply(targets.filter((t) => t.key.record !== "index"));
    for (const target of targets) {
      if (target.key.record !== "index") continue;
      if (!target.before.exists || !target.after.exists) throw new Error(`an index row is only ever updated (${target.key.id})`);
      const [before, after] = [JSON.parse(target.before.bytes.toString("utf8")), JSON.parse(target.after.bytes.toString("utf8"))];
      if (!this.rows(target.key).write(target.key.path!, target.key.id, before, after)) {
        throw storeChanged(`the row ${target.key.id} of ${target.key.path} changed since it was read`);
      }
    }
  }

  /** The file's time becomes the write time exactly, so recover knows its own write when it sees it (own-writes.ts). */
  override withPayload(key: RecordKey, before: StoredImage, bytes: Buffer, now?: number): StoredImage {
    if (key.record === "index") return { exists: true, bytes };
    const image = super.withPayload(key, before, bytes);
    return image.exists && now !== undefined ? { ...image, mtimeMs: now } : image;
  }

  override openers(): { pid: number; name: string }[] {
    const holders: { pid: number; name: string }[] = [];
    for (const file of this.lockedFiles) {
      const holder = lockHolder(`${file}.lock`);
      if (holder) holders.push({ pid: holder, name: `openclaw (write lock on ${file})` });
    }
    return holders;
  }
}

function lockHolder(lockPath: string): number | undefined {
  let payload: Record<string, unknown> | undefined;
  try {
    payload = obj(JSON.parse(readFileSync(lockPath, "utf8")));
  } catch {
    return undefined;
  }
  const pid = payload?.pid;
  if (typeof pid !== "number" || !Number.isInteger(pid) || pid <= 0) return undefined;
  const created = typeof payload?.createdAt === "string" ? Date.parse(payload.createdAt) : NaN;
  if (!Number.isNaN(created) && Date.now() - created > OPENCLAW_LOCK_STALE_MS) return undefined;
  if (typeof payload?.hostname === "string" && payload.hostname !== hostname()) return pid;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM" ? pid : undefined;
  }
}
