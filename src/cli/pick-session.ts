/**
 * No session named and a person at a terminal: `session repair`, `session scan` and `context trim` let them pick
 * one from a searchable list (newest first: title, directory, last update, messages, error findings), instead of
 * the usage error a script gets. `session scan` offers "all sessions" first, its answer without a terminal.
 */
import { basename } from "node:path";
import { RecoverError } from "../errors.js";
import { formatAge } from "../battle/classify.js";
import { RULES } from "../rules/index.js";
import { DEFAULT_RULE_OPTIONS } from "../rules/rule.js";
import { scanSessions } from "../scan/scan.js";
import type { SessionStore } from "../stores/store.js";
import type { FoundStore } from "../stores/discover.js";
import type { Io, PickChoice } from "./io.js";
import { safeValue } from "./safe-text.js";
import { selectSessions, type Selection } from "./select-sessions.js";
import { sessionProgress } from "./session-progress.js";

const ALL = "\u0000all";

/** Error findings per session, by a scan of every session (the same rules a scan runs). */
async function errorCounts(store: SessionStore, ids: string[], io: Io): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  const progress = await sessionProgress(io, "reading", ids);
  try {
    for await (const result of scanSessions(store, ids, { rules: RULES, now: Date.now(), ...DEFAULT_RULE_OPTIONS, env: io.env })) {
      counts.set(result.summary.id, result.findings.filter((f) => f.severity === "error").length);
      progress.done();
    }
  } finally {
    progress.stop();
  }
  return counts;
}

export async function chooseSessions(
  store: SessionStore,
  selection: Selection,
  rules: { emptyMeansAll: boolean; acceptsAll?: boolean },
  io: Io,
  verb: string,
): Promise<string[]> {
  const named = selection.ids.length > 0 || selection.last === true || selection.all === true;
  if (named || !io.interactive) return selectSessions(store, selection, rules);
  const sessions = store.listSessions();
  if (sessions.length === 0) throw new RecoverError("session-not-found", `${store.info.path} holds no sessions`);
  const errors = await errorCounts(
    store,
    sessions.map((s) => s.id),
    io,
  );
  const c = io.color;
  const now = Date.now();
  const choices: PickChoice[] = sessions.map((s) => {
    const n = errors.get(s.id) ?? 0;
    const title = safeValue(s.title || "(untitled)");
    return {
      value: s.id,
      name: `${title}  ${c.dim(safeValue(basename(s.directory) || s.directory))}  ${c.dim(`${formatAge(now - s.updated)} ago`)}  ${s.messages} msg${s.messages === 1 ? "" : "s"}  ${n > 0 ? c.red(`${n} error${n === 1 ? "" : "s"}`) : c.green("no errors")}`,
      description: `${s.id} · ${safeValue(s.directory)}`,
      search: `${s.title} ${s.directory} ${s.id}`.toLowerCase(),
    };
  });
  if (rules.emptyMeansAll) choices.unshift({ value: ALL, name: `all ${sessions.length} sessions`, search: "all sessions" });
  const picked = await io.pick(`Which session to ${verb}? (type to search)`, choices);
  return picked === ALL ? selectSessions(store, { ids: [], all: true }, rules) : [picked];
}

/**
 * No session named, several agents' stores found, a person at a terminal: one searchable list of every store's
 * sessions, newest first, each with its agent. The answer is the store and the session.
 */
export async function pickAcrossStores(stores: readonly FoundStore[], io: Io, verb: string): Promise<{ found: FoundStore; id: string }> {
  const c = io.color;
  const now = Date.now();
  const listed = stores.flatMap((found, at) => found.store.listSessions().map((s) => ({ at, found, s }))).sort((a, b) => b.s.updated - a.s.updated);
  if (listed.length === 0) throw new RecoverError("session-not-found", `no sessions in ${stores.map((f) => f.store.info.path).join(", ")}`);
  const errors = new Map<string, number>();
  for (const [at, found] of stores.entries()) {
    const ids = listed.filter((l) => l.at === at).map((l) => l.s.id);
    for (const [id, n] of await errorCounts(found.store, ids, io)) errors.set(`${at}\u0000${id}`, n);
  }
  const choices: PickChoice[] = listed.map(({ at, found, s }) => {
    const n = errors.get(`${at}\u0000${s.id}`) ?? 0;
    return {
      value: `${at}\u0000${s.id}`,
      name: `${c.dim(found.agent.padEnd(8))} ${safeValue(s.title || "(untitled)")}  ${c.dim(safeValue(basename(s.directory) || s.directory))}  ${c.dim(`${formatAge(now - s.updated)} ago`)}  ${n > 0 ? c.red(`${n} error${n === 1 ? "" : "s"}`) : c.green("no errors")}`,
      description: `${found.agent} · ${s.id} · ${safeValue(s.directory)}`,
      search: `${found.agent} ${s.title} ${s.directory} ${s.id}`.toLowerCase(),
    };
  });
  const picked = await io.pick(`Which session to ${verb}? (type to search)`, choices);
  const [at, id] = picked.split("\u0000");
  return { found: stores[Number(at)]!, id: id! };
}
