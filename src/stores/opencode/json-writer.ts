/** An opencode JSON tree: whole-file records, plus opencode's own bookkeeping (a session's update time). */
import type { RecordKey, StoredImage } from "../../model/change.js";
import { FileWriter, NEW_FILE_MODE } from "../file-writer.js";

export class OpencodeJsonWriter extends FileWriter {
  override touched(_key: RecordKey, before: StoredImage, now: number): StoredImage | undefined {
    if (!before.exists) return undefined;
    let session: { time?: { updated?: unknown } };
    try {
      session = JSON.parse(before.bytes.toString("utf8"));
    } catch {
      return undefined; // an unreadable session file is reported, never rewritten on the side
    }
    if (typeof session.time?.updated !== "number") return undefined;
    session.time.updated = Math.max(session.time.updated, now);
    return { exists: true, bytes: Buffer.from(JSON.stringify(session, null, 2)), mode: before.mode ?? NEW_FILE_MODE };
  }
}
