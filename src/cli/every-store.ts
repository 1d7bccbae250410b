/**
 * Without `--store` and `--format`, recover works on every agent's store it finds at its default place
 * (stores/discover.ts): a session id (or a unique prefix of one) is looked up in all of them, `--last` is the most
 * recently updated session of any agent, and `--agent` narrows both to the agents named. The store that holds the
 * session is then used exactly as if `--store` had named it, printed commands included.
 */
import { RecoverError } from "../errors.js";
import type { Discovery, FoundStore } from "../stores/discover.js";
import { assertSafeId } from "../stores/session-id.js";
import type { SessionStore } from "../stores/store.js";
import type { Io } from "./io.js";

/** What a command is about, when it names sessions: ids or `--last`. */
export interface SessionsAbout {
  ids: readonly string[];
  last?: boolean;
  /** What the command does to the session, for the picker's question when none is named at a terminal. */
  verb?: string;
}

/** The found stores of the agents `--agent` names (all when it names none); an agent no adapter has is a usage error. */
export function ofAgents(found: readonly FoundStore[], agents: readonly string[] | undefined, known: readonly string[]): FoundStore[] {
  if (!agents || agents.length === 0) return [...found];
  for (const agent of agents) {
    if (!known.includes(agent)) throw new RecoverError("usage", `unknown --agent ${JSON.stringify(agent)} (expected one of: ${known.join(", ")})`);
  }
  return found.filter((f) => agents.includes(f.agent));
}

/** How messages name a found store: its agent and where it is. */
const named = (f: FoundStore) => `${f.agent} (${f.store.info.path})`;

/** One line saying which stores were read, or where none was found. */
export function whereLooked(discovery: Discovery, stores: readonly FoundStore[]): string {
  if (stores.length > 0) return `read ${stores.map(named).join(", ")}`;
  return discovery.lookedIn.length > 0 ? `no agent's store found (${discovery.lookedIn.join("; ")})` : "no agent's store found";
}

/** The ids a store would resolve `wanted` to: an exact id, else every id it starts (aliases resolved first). */
function matchesIn(store: SessionStore, wanted: string): { exact: boolean; ids: string[] } {
  const id = store.resolveAlias?.(wanted) ?? wanted;
  const listed = store.listSessionIds ? store.listSessionIds() : store.listSessions().map((s) => s.id);
  const all = listed.some((s) => s.startsWith(id)) ? listed : [...listed, ...store.listStraySessionIds()];
  if (all.includes(id)) return { exact: true, ids: [id] };
  return { exact: false, ids: all.filter((s) => s.startsWith(id)) };
}

/**
 * The one store the sessions a command names are in. Each id must be in exactly one store (an exact id wins over a
 * prefix elsewhere); all ids of one command must be in the same store.
 */
export function storeHolding(discovery: Discovery, stores: readonly FoundStore[], about: SessionsAbout, io: Pick<Io, "command">): FoundStore {
  if (stores.length === 0) throw new RecoverError("store-not-found", `${whereLooked(discovery, stores)}; pass --store <path>`);
  if (about.last) return newest(discovery, stores);
  let chosen: FoundStore | undefined;
  for (const wanted of about.ids) {
    assertSafeId(wanted);
    const hits = stores.map((f) => ({ f, ...matchesIn(f.store, wanted) })).filter((h) => h.ids.length > 0);
    const exact = hits.filter((h) => h.exact);
    const holding = exact.length > 0 ? exact : hits;
    if (holding.length === 0)
      throw new RecoverError("session-not-found", `no session ${wanted} in any agent's store (${whereLooked(discovery, stores)})`, {
        words: ["session", "list"],
        why: "to see them all",
      });
    if (holding.length > 1) {
      const each = holding.map((h) => `${named(h.f)}: \`${io.command(["session", "list", "--store", h.f.store.info.path])}\``).join("; ");
      throw new RecoverError("session-ambiguous", `session ${wanted} is in ${holding.length} stores; pick one with --store: ${each}`);
    }
    const here = holding[0]!.f;
    if (chosen && chosen !== here)
      throw new RecoverError("usage", `the sessions named are in different stores (${named(chosen)}, ${named(here)}): one store per command`);
    chosen = here;
  }
  if (!chosen) throw new RecoverError("usage", "give a session id or --last");
  return chosen;
}

/** The store whose most recently updated session is the newest of all. */
function newest(discovery: Discovery, stores: readonly FoundStore[]): FoundStore {
  let best: { f: FoundStore; updated: number } | undefined;
  for (const f of stores) {
    const top = f.store.listSessions()[0];
    if (top && (!best || top.updated > best.updated)) best = { f, updated: top.updated };
  }
  if (!best) throw new RecoverError("session-not-found", `no sessions in any agent's store (${whereLooked(discovery, stores)})`);
  return best.f;
}
