/** Tool call ids as the providers mint them, for a call that needs a new one. */
import { randomBase62 } from "./ids.js";

/** A new call id in the same family as `old` (ids are not signed; providers only need them unique). */
export function freshCallId(old: string | undefined): string {
  if (old === undefined || old === "" || old.startsWith("toolu_")) return `toolu_01${randomBase62(22)}`;
  if (old.startsWith("call_")) return `call_${randomBase62(24)}`;
  return `${old}_${randomBase62(8)}`;
}
