/**
 * `recover store list`: what was found where. Every agent's store at its default place (or the one `--store`
 * names): its agent, format, path, how many sessions and the newest update; the client version that wrote its newest
 * session and whether recover was checked with it (stores/checked-clients.ts); what it holds that recover does not
 * read yet (its notices); where an absent one was looked for; and a store that is there but could not be read.
 */
import type { Command } from "commander";
import { ExitCode } from "../../errors.js";
import { action, withStores } from "../command-kit.js";
import type { Io } from "../io.js";
import { DOCUMENT_HEAD } from "../json-output.js";
import { safeMessage, safeValue } from "../safe-text.js";
import { type ClientCheck, checkClient, checkedClient, checkedClients } from "../../stores/checked-clients.js";
import type { FoundStore } from "../../stores/discover.js";

interface Listed {
  agent: string;
  format: string;
  path: string;
  sessions: number;
  updated: string | null;
  /** The client that wrote the newest session (its version, when the store records one) against the one recover was checked with. */
  client: ClientCheck;
  notices: string[];
}

export function addStoreList(store: Command): void {
  store
    .command("list")
    .description("every agent's store found: agent, format, client version, path, sessions, last update, and what recover cannot read there yet")
    .addHelpText(
      "after",
      `
Looks where each agent keeps its sessions (opencode: $XDG_DATA_HOME/opencode or OPENCODE_DB; Claude Code:
CLAUDE_CONFIG_DIR or ~/.claude; Codex: CODEX_HOME or ~/.codex; Gemini: ~/.gemini; openclaw: ~/.openclaw and its
older names). Every session command without --store works on these.

CLIENT is the version of the agent's client that wrote the newest session, where the store records one (Claude
Code, Codex, opencode; Gemini CLI and openclaw record none: blank). A version newer than the one recover was
checked with gets a note: not yet checked. Checked with: ${checkedList()}.
--json: each store's client is {version, checked, status}, status "checked", "not yet checked", "older" or
"unknown" (no version, or one that is not a dotted number).

Examples:
  recover store list
  recover store list --json | jq '.stores[] | {agent, path, sessions}'
  recover store list --json | jq '.stores[] | select(.client.status == "not yet checked")'`,
    )
    .action(
      action(({ options, io }) =>
        withStores(options, io, (found, looked) => {
          const stores = found.map(listed);
          if (io.json) io.out(`${JSON.stringify({ ...DOCUMENT_HEAD, stores, absent: looked.lookedIn, unreadable: looked.problems })}\n`);
          else {
            printStores(stores, io);
            for (const absent of looked.lookedIn) io.out(`${io.color.dim(`not found: ${safeMessage(absent)}`)}\n`);
          }
          return ExitCode.ok;
        }),
      ),
    );
}

/** "opencode 1.18.33, Claude Code 2.1.332, …", the table's order. */
function checkedList(): string {
  return [...checkedClients().values()].map((c) => `${c.client} ${c.version}`).join(", ");
}

function listed({ agent, store }: FoundStore): Listed {
  const sessions = store.listSessions();
  const newest = sessions[0]?.updated;
  const clientVersion = sessions[0] !== undefined ? store.clientVersion?.(sessions[0].id) : undefined;
  return {
    agent,
    format: store.info.format,
    path: store.info.path,
    sessions: sessions.length,
    updated: newest !== undefined && Number.isFinite(newest) && newest > 0 ? new Date(newest).toISOString() : null,
    client: checkClient(agent, clientVersion),
    notices: store.info.notices,
  };
}

function printStores(stores: readonly Listed[], io: Io): void {
  const c = io.color;
  const rows = stores.map((s) => [
    s.agent,
    s.format,
    s.client.version === null ? "" : safeValue(s.client.version),
    String(s.sessions),
    s.updated?.replace("T", " ").slice(0, 16) ?? "",
    safeValue(s.path),
  ]);
  const head = ["AGENT", "FORMAT", "CLIENT", "SESSIONS", "UPDATED (UTC)", "PATH"];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!))).join("  ");
  io.out(`${c.bold(line(head))}\n`);
  for (const row of rows) io.out(`${line(row)}\n`);
  for (const s of stores) {
    const untried = untriedClient(s);
    if (untried !== undefined) io.out(`${c.yellow("note:")} ${s.agent}: ${untried}\n`);
    for (const notice of s.notices) io.out(`${c.yellow("note:")} ${s.agent}: ${safeMessage(notice)}\n`);
  }
}

/** One line when the newest session was written by a client newer than recover was checked with. */
function untriedClient({ agent, client }: Listed): string | undefined {
  if (client.status !== "not yet checked" || client.version === null) return undefined;
  const name = checkedClient(agent)?.client ?? agent;
  return `newest session written by ${name} ${safeValue(client.version)}, newer than recover was checked with (${client.checked}): not yet checked`;
}
