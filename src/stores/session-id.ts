/**
 * Session ids come from users and end up in SQL parameters and file paths: reject anything that could walk out
 * of a store, then resolve unique prefixes against the sessions the store lists.
 */
import { RecoverError } from "../errors.js";

export function assertSafeId(id: string, what = "session id"): void {
  if (id === "") throw new RecoverError("invalid-id", `empty ${what}: give an id or a unique prefix of one`);
  if (id.includes("/") || id.includes("\\") || id.includes("..") || id.includes("\0")) {
    throw new RecoverError("invalid-id", `invalid ${what} ${JSON.stringify(id)}: ids never contain "/", "\\", ".." or NUL`);
  }
}

export function resolveSessionId(wanted: string, known: readonly { id: string }[]): string {
  assertSafeId(wanted);
  if (known.some((s) => s.id === wanted)) return wanted;
  const matches = known.filter((s) => s.id.startsWith(wanted));
  if (matches.length === 1) return matches[0]!.id;
  if (matches.length === 0) {
    throw new RecoverError("session-not-found", `no session ${wanted} in this store`, { words: ["session", "list"], why: "to see them" });
  }
  const shown = matches
    .slice(0, 5)
    .map((s) => s.id)
    .join(", ");
  throw new RecoverError(
    "session-ambiguous",
    `session id prefix ${wanted} matches ${matches.length} sessions (${shown}${matches.length > 5 ? ", …" : ""}); give more characters`,
  );
}
