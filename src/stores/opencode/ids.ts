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
