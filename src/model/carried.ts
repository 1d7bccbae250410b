/**
 * A value worked out from an object that is not changed once built (a session view, its conversation, a request),
 * kept on that object under `key` and made on first use. Kept on the object, not in a WeakMap keyed by it: V8's
 * young-generation collections keep a WeakMap's values alive, and a scan's heap then grew session by session
 * (docs/performance.md). Not enumerable: a spread copy of the object (`{ ...view, … }`) is another object and must not
 * carry what was worked out from this one.
 */
export function carried<T>(holder: object, key: symbol, make: () => T): T {
  const slot = holder as Record<symbol, T | undefined>;
  const known = slot[key];
  if (known !== undefined) return known;
  const value = make();
  Object.defineProperty(holder, key, { value, enumerable: false, configurable: false, writable: false });
  return value;
}
