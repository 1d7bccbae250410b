/**
 * A change shown as a unified diff of the record's pretty-printed JSON (the `diff` package: the same algorithm and
 * format as git and patch, which a hand-written differ would only approximate).
 */
import { createTwoFilesPatch } from "diff";
import type { RecordChange, RecordKey } from "../model/change.js";
import { payloadText } from "../model/payload-text.js";

const pretty = (value: Record<string, unknown> | undefined) => (value ? `${JSON.stringify(value, null, 2)}\n` : "");

export function recordLabel(key: RecordKey): string {
  if (key.record === "session" || key.record === "file") return key.id;
  return key.messageId !== undefined && key.record === "part" ? `${key.sessionId}/${key.messageId}/${key.id}` : `${key.sessionId}/${key.id}`;
}

/**
 * `exists`: whether the record is there before and after (default: whether its text is non-empty). An empty file that
 * goes shows as git shows it: its name against /dev/null, and no hunk.
 */
export function unifiedDiff(key: RecordKey, before: string, after: string, exists = { before: before !== "", after: after !== "" }): string {
  const label = recordLabel(key);
  const patch = createTwoFilesPatch(exists.before ? `a/${label}` : "/dev/null", exists.after ? `b/${label}` : "/dev/null", before, after, "", "", {
    context: 3,
  });
  // Drop the "Index"/"====" preamble: what remains is exactly what `git diff` shows for a file.
  // and no tab after the labels (we pass no timestamps).
  return patch
    .replace(/^=+\n/m, "")
    .replace(/^Index: .*\n/m, "")
    .replace(/^(---|\+\+\+) (.*)\t$/gm, "$1 $2");
}

export function changeDiff(change: RecordChange): string {
  const before = change.before ? pretty(change.before) : change.beforeText !== undefined ? payloadText(change.beforeBytes) : "";
  return unifiedDiff(change.key, before, pretty(change.after), { before: change.op !== "insert", after: change.op !== "delete" });
}
