/**
 * Lean (scan) records keep sizes, not contents: once a part is validated and measured into `content`, its long
 * strings are emptied so a session's tool outputs are not kept alive until its rules have run.
 */
/** Strings longer than this are measured into `content` and then dropped from lean records. */
export const HEAVY_CHARS = 1024;
const HEAVY_PATHS: ReadonlyArray<readonly string[]> = [
  ["text"],
  ["url"],
  ["state", "output"],
  ["state", "error"],
  ["state", "raw"],
  ["state", "metadata", "output"],
  ["state", "metadata", "diff"],
  ["state", "metadata", "preview"],
];
/** Objects whose long string members are dropped the same way (a `write` input holds a whole file). */
const HEAVY_OBJECTS: ReadonlyArray<readonly string[]> = [
  ["state", "input"],
  ["state", "metadata", "filediff"],
];

function at(value: Record<string, unknown>, path: readonly string[]): Record<string, unknown> | undefined {
  let node: unknown = value;
  for (const key of path) node = node !== null && typeof node === "object" ? (node as Record<string, unknown>)[key] : undefined;
  return node !== null && typeof node === "object" && !Array.isArray(node) ? (node as Record<string, unknown>) : undefined;
}

function emptyLongString(holder: Record<string, unknown> | undefined, key: string): boolean {
  const current = holder?.[key];
  if (typeof current !== "string" || current.length <= HEAVY_CHARS) return false;
  holder![key] = "";
  return true;
}

/**
 * A lean (scan) load keeps sizes, not contents: a session's tool outputs can run to hundreds of megabytes, and
 * holding them until the session is checked made the garbage collector copy them over and over. Schema
 * validation and measurement have already seen the real values. Returns whether anything was dropped.
 */
export function dropHeavyStrings(value: Record<string, unknown>): boolean {
  let dropped = false;
  for (const path of HEAVY_PATHS) if (emptyLongString(at(value, path.slice(0, -1)), path[path.length - 1]!)) dropped = true;
  for (const path of HEAVY_OBJECTS) {
    const holder = at(value, path);
    for (const key in holder) if (emptyLongString(holder, key)) dropped = true;
  }
  return dropped;
}
