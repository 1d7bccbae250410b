/**
 * A session whose record (SQLite row, JSON-tree file) is gone while its messages are intact is not lost: opencode
 * just cannot list it. Its record is recreated from what the messages say (reference opencode.md §2 Session, §3.3
 * columns), so the agent lists it again; nothing in it is invented beyond the marks of a recovered session.
 */
import { isObject, type Json } from "../../model/edit.js";
import type { MessageRecord, SessionRecords } from "../../model/opencode-records.js";

/** Where the session ran, from its latest assistant message: opencode stamps each one with its cwd and worktree. */
export function sessionPaths(messages: readonly MessageRecord[]): { directory?: string; worktree?: string } {
  for (let i = messages.length - 1; i >= 0; i--) {
    const info = messages[i]!.info;
    if (info?.role === "assistant" && info.path.cwd !== "") return { directory: info.path.cwd, worktree: info.path.root };
  }
  return {};
}

const TITLE_CHARS = 60;

/** Marked as recovered, and named by its first prompt so its user knows it again in a list. */
function recoveredTitle(messages: readonly MessageRecord[], created: number): string {
  for (const message of messages) {
    if (message.info?.role !== "user") continue;
    for (const record of message.parts) {
      const part = record.part as { type?: string; text?: unknown; synthetic?: boolean } | undefined;
      if (part?.type !== "text" || part.synthetic || typeof part.text !== "string") continue;
      const line = part.text.trim().split("\n")[0]!.trim();
      if (line !== "") return `(recovered) ${line.length > TITLE_CHARS ? `${line.slice(0, TITLE_CHARS - 1)}…` : line}`;
    }
  }
  return `(recovered) session of ${new Date(created).toISOString()}`;
}

/** The relative path from the worktree to the directory (SQLite `session.path`, 1.17+: "" is the worktree itself). */
export function pathInWorktree(directory: string, worktree: string | undefined): string {
  if (worktree === undefined || worktree === "/" || directory === worktree) return "";
  return directory.startsWith(`${worktree}/`) ? directory.slice(worktree.length + 1) : "";
}

/** The session's agent and model columns (1.16+), as opencode keeps them: its last prompt's agent, its last answer's model. */
export function lastAgentAndModel(messages: readonly MessageRecord[]): { agent?: string; model?: Json } {
  let agent: string | undefined;
  let model: Json | undefined;
  for (const { info } of messages) {
    if (info?.role === "user") agent = info.agent;
    if (info?.role === "assistant") model = { id: info.modelID, providerID: info.providerID };
  }
  return { ...(agent !== undefined ? { agent } : {}), ...(model !== undefined ? { model } : {}) };
}

/**
 * The session record as opencode 1.18 reads it (Session.Info with the columns 1.16+ added: path, cost, tokens,
 * agent, model); the JSON tree's codec keeps only the fields opencode ≤1.1.65 wrote. Undefined when the session
 * has a record, or no message to recreate it from.
 */
export function recreatedSession(records: SessionRecords): Json | undefined {
  const home = records.home;
  const messages = records.messages;
  if (!records.missingSessionRecord || !home || messages.length === 0) return undefined;
  const created = Math.round(Math.min(...messages.map((m) => m.created)));
  const updated = Math.max(created, Math.round(records.lastActivity));
  const paths = sessionPaths(messages);
  const directory = paths.directory ?? home.worktree ?? "";
  const tokens = { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } };
  let cost = 0;
  const { agent, model } = lastAgentAndModel(messages);
  for (const { info } of messages) {
    if (info?.role !== "assistant") continue;
    // opencode's session rollup (cost and token columns, 1.16+): the sum over its assistant messages.
    cost += info.cost;
    tokens.input += info.tokens.input;
    tokens.output += info.tokens.output;
    tokens.reasoning += info.tokens.reasoning;
    tokens.cache.read += info.tokens.cache.read;
    tokens.cache.write += info.tokens.cache.write;
  }
  const id = records.summary.id;
  return {
    id,
    // opencode's slugs are two random words; this one says where it came from.
    slug: `recovered-${id.slice(-8).toLowerCase()}`,
    version: home.version,
    projectID: home.projectID,
    directory,
    path: pathInWorktree(directory, paths.worktree ?? home.worktree),
    title: recoveredTitle(messages, created),
    time: { created, updated },
    cost: Math.round(cost * 1e6) / 1e6,
    tokens,
    ...(agent !== undefined ? { agent } : {}),
    ...(model !== undefined ? { model } : {}),
  };
}

/** The fields of a session file of the JSON tree (opencode ≤1.1.65 Session.Info), in the order opencode writes them. */
export function jsonTreeSession(session: Json): Json {
  const { id, slug, version, projectID, directory, parentID, title, time } = session;
  return { id, slug, version, projectID, directory, ...(parentID !== undefined ? { parentID } : {}), title, time: isObject(time) ? time : {} };
}
