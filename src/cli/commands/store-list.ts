/**
 * `recover store list`: what was found where. Every agent's store at its default place (or the one `--store`
 * names): its agent, format, path, how many sessions and the newest update; what it holds that recover does not read
 * yet (its notices); where an absent one was looked for; and a store that is there but could not be read.
 */
import type { Command } from "commander";
import { ExitCode } from "../../errors.js";
import { action, withStores } from "../command-kit.js";
import type { Io } from "../io.js";
import { DOCUMENT_HEAD } from "../json-output.js";
import { safeMessage, safeValue } from "../safe-text.js";
import type { FoundStore } from "../../stores/discover.js";

interface Listed {
  agent: string;
  format: string;
  path: string;
  sessions: number;
  updated: string | null;
  notices: string[];
}

export function addStoreList(store: Command): void {
  store
    .command("list")
    .description("every agent's store found: agent, format, path, sessions, last update, and what recover cannot read there yet")
    .addHelpText(
      "after",
      `
Looks where each agent keeps its sessions (opencode: $XDG_DATA_HOME/opencode or OPENCODE_DB; Claude Code:
CLAUDE_CONFIG_DIR or ~/.claude; Codex: CODEX_HOME or ~/.codex; Gemini: ~/.gemini; openclaw: ~/.openclaw and its
older names). Every session command without --store works on these.

Examples:
  recover store list
  recover store list --json | jq '.stores[] | {agent, path, sessions}'`,
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

function listed({ agent, store }: FoundStore): Listed {
  const sessions = store.listSessions();
  const newest = sessions[0]?.updated;
  return {
    agent,
    format: store.info.format,
    path: store.info.path,
    sessions: sessions.length,
    updated: newest !== undefined && Number.isFinite(newest) && newest > 0 ? new Date(newest).toISOString() : null,
    notices: store.info.notices,
  };
}

function printStores(stores: readonly Listed[], io: Io): void {
  const c = io.color;
  const rows = stores.map((s) => [s.agent, s.format, String(s.sessions), s.updated?.replace("T", " ").slice(0, 16) ?? "", safeValue(s.path)]);
  const head = ["AGENT", "FORMAT", "SESSIONS", "UPDATED (UTC)", "PATH"];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!))).join("  ");
  io.out(`${c.bold(line(head))}\n`);
  for (const row of rows) io.out(`${line(row)}\n`);
  for (const s of stores) for (const notice of s.notices) io.out(`${c.yellow("note:")} ${s.agent}: ${safeMessage(notice)}\n`);
}
