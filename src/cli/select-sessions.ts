/**
 * Which sessions a command works on: explicit ids (unique prefixes accepted), `--last`, or every session.
 */
import { RecoverError } from "../errors.js";
import { resolveSessionId } from "../stores/session-id.js";
import type { SessionStore } from "../stores/store.js";

export interface Selection {
  ids: string[];
  last?: boolean;
  all?: boolean;
}

/** `acceptsAll: false` for a command that works on one session (context trim): its hints never offer --all. */
export function selectSessions(
  store: SessionStore,
  selection: Selection,
  { emptyMeansAll, acceptsAll = true }: { emptyMeansAll: boolean; acceptsAll?: boolean },
): string[] {
  // Only --last needs the summaries (which is newest); ids alone are enough for the rest.
  const sessions = selection.last || !store.listSessionIds ? store.listSessions() : store.listSessionIds().map((id) => ({ id }));
  if (selection.last) {
    if (selection.all) throw new RecoverError("usage", "--last cannot be combined with --all");
    if (selection.ids.length > 0) {
      // `--last 3` reads as "the last three", but --last takes no value: the 3 arrived as a session id.
      const given = selection.ids.map((id) => JSON.stringify(id)).join(", ");
      throw new RecoverError("usage", `--last is the one most recently updated session: it takes no value and no session ids (got ${given})`);
    }
    const newest = sessions[0];
    if (!newest) throw new RecoverError("session-not-found", "this store holds no sessions");
    return [newest.id];
  }
  if (selection.all || (selection.ids.length === 0 && emptyMeansAll)) {
    if (selection.ids.length > 0) throw new RecoverError("usage", "give session ids or --all, not both");
    // Records that point at a session with no session record are still the user's data: scan them too.
    return [...sessions.map((s) => s.id), ...store.listStraySessionIds()];
  }
  if (selection.ids.length === 0) throw new RecoverError("usage", acceptsAll ? "give a session id, --last or --all" : "give a session id or --last");
  // openclaw names sessions by key too (agent:main:main): a key is resolved to the session it points at now.
  const wanted = selection.ids.map((id) => store.resolveAlias?.(id) ?? id);
  const known: { id: string }[] = sessions;
  const prefixKnown = (id: string) => known.some((s) => s.id.startsWith(id));
  // Stray sessions (records without a session record) are only looked up when a listed one does not match.
  const all = wanted.every(prefixKnown) ? known : [...known, ...store.listStraySessionIds().map((id) => ({ id }))];
  const resolved = wanted.map((id) => resolveSessionId(id, all));
  return [...new Set(resolved)];
}
