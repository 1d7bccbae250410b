/**
 * The one line that says which sessions were left unjudged because their last turn is being written, so a live
 * session is never skipped silently. Scan and repair print it the same way.
 */
import type { LiveSkip } from "../../scan/session-view.js";
import { safeValue } from "../safe-text.js";

/** For JSON documents: `[{"id","reason":"live","updatedAt"}]`, the time as ISO 8601 like every time recover prints. */
export function liveSkipJson(skips: readonly LiveSkip[]): { id: string; reason: "live"; updatedAt: string }[] {
  return skips.map((s) => ({ id: s.id, reason: s.reason, updatedAt: Number.isFinite(s.updatedAt) ? new Date(s.updatedAt).toISOString() : "" }));
}

export function liveSkipLine(skips: readonly LiveSkip[], now: number): string | undefined {
  if (skips.length === 0) return undefined;
  const ages = skips.map((s) => Math.max(0, now - s.updatedAt));
  if (skips.length === 1) {
    return `1 session is in progress (${safeValue(skips[0]!.id)}, written ${age(ages[0]!)} ago): its last turn is not judged; --include-live judges it`;
  }
  const newest = age(Math.min(...ages));
  const oldest = age(Math.max(...ages));
  const when = newest === oldest ? newest : `${newest} to ${oldest}`;
  return `${skips.length} sessions are in progress (written ${when} ago): their last turns are not judged; --include-live judges them`;
}

/** How long ago a live session was written, as the line above says it ("2 min"). */
export function liveAge(skip: LiveSkip, now: number): string {
  return age(Math.max(0, now - skip.updatedAt));
}

/**
 * For a message that ends in "nothing was changed": the session's last turn was left unjudged as in progress, and
 * how to judge it, so a user whose repair found nothing is not left guessing why.
 */
export function liveSkipClause(skip: LiveSkip, now: number): string {
  return `its last turn was written ${liveAge(skip, now)} ago and is left alone as in progress (not judged); --include-live judges it`;
}

function age(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min`;
}
