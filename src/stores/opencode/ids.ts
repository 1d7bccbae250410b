/**
 * opencode's sortable ids (reference opencode.md §1.3): `<prefix>_` + 12 hex chars holding the low 48 bits of
 * `ms * 0x1000 + counter` + 14 random base62 chars. The 48 bits wrap every ~795 days (last on
 * 2026-08-14T11:19:55.136Z), so ids alone do not order records across the wrap: we unwrap the time field
 * against a nearby known time instead.
 */
const ID_TIME = /^[a-z]+_([0-9a-f]{12})/;
const WRAP = 2 ** 48;

/** The id's time field, unwrapped to the cycle closest to `nearMs`; undefined for ids not minted by opencode. */
export function unwrappedIdTime(id: string, nearMs: number): number | undefined {
  const hex = ID_TIME.exec(id)?.[1];
  if (hex === undefined) return undefined;
  const value = Number.parseInt(hex, 16);
  const cycles = Math.round((nearMs * 0x1000 - value) / WRAP);
  return value + cycles * WRAP;
}

/** Order parts within one message: by their unwrapped id time, then by id (opencode sorts by id). */
export function comparePartKeys(a: string, ta: number | undefined, b: string, tb: number | undefined): number {
  if (ta !== undefined && tb !== undefined && ta !== tb) return ta - tb;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Order messages as opencode does since the wrap: by (time.created, id), never by id alone. */
export function compareMessages(a: { created: number; ref: { id: string } }, b: { created: number; ref: { id: string } }): number {
  if (a.created !== b.created) return a.created - b.created;
  return a.ref.id < b.ref.id ? -1 : a.ref.id > b.ref.id ? 1 : 0;
}

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const OPENCODE_ID = /^([a-z]+)_([0-9a-f]{12})([0-9A-Za-z]{14})$/;

export function randomBase62(length: number, random: () => number = Math.random): string {
  let out = "";
  for (let i = 0; i < length; i++) out += BASE62[Math.floor(random() * 62)];
  return out;
}

/** Base62 string + 1 at the same width, or undefined when it is all "z". */
function incrementBase62(s: string): string | undefined {
  const digits = [...s];
  for (let i = digits.length - 1; i >= 0; i--) {
    const at = BASE62.indexOf(digits[i]!);
    if (at < 61) {
      digits[i] = BASE62[at + 1]!;
      return digits.join("");
    }
    digits[i] = "0";
  }
  return undefined;
}

/**
 * A new ascending id that sorts right after `previous` and before `next` (opencode orders a message's parts by
 * id), in opencode's own format so nothing downstream can tell it apart. The time field is the previous id's
 * plus one tick (1/4096 ms). Order is judged as parts are ordered on load: by id time unwrapped near the message's
 * time (`nearMs`), then by id, so a turn that straddles the 2026-08-14 wrap still gets its id in place.
 */
export function idAfter(prefix: string, previous: string | undefined, next: string | undefined, nearMs: number, random: () => number = Math.random): string {
  const prev = previous === undefined ? undefined : OPENCODE_ID.exec(previous);
  const base = prev ? Number.parseInt(prev[2]!, 16) + 1 : (nearMs * 0x1000 + 1) % 2 ** 48;
  const before = (id: string) => next === undefined || comparePartKeys(id, unwrappedIdTime(id, nearMs), next, unwrappedIdTime(next, nearMs)) < 0;
  const candidate = `${prefix}_${(base % 2 ** 48).toString(16).padStart(12, "0")}${randomBase62(14, random)}`;
  if (before(candidate)) return candidate;
  // No room in the time field: keep previous's time and step its random tail instead.
  const tail = prev ? incrementBase62(prev[3]!) : undefined;
  const squeezed = prev && tail ? `${prev[1]}_${prev[2]}${tail}` : undefined;
  if (squeezed && before(squeezed)) return squeezed;
  throw new Error(`no id sorts between ${previous} and ${next}`);
}
