/** `recover session list`: the store's sessions, newest first. */
import type { Command } from "commander";
import { ExitCode } from "../../errors.js";
import type { SessionSummary } from "../../model/opencode-records.js";
import { action, withStores } from "../command-kit.js";
import type { Io } from "../io.js";
import { DOCUMENT_HEAD, storeJson } from "../json-output.js";
import { safeCommand, safeValue } from "../safe-text.js";

export function addSessionList(session: Command): void {
  session
    .command("list")
    .description("list sessions: id, title, directory, updated, message count, newest first")
    .addHelpText(
      "after",
      `
Examples:
  recover session list
  recover session list --store ./opencode.db --json | jq '.sessions[0].id'`,
    )
    .action(
      action(({ options, io }) =>
        withStores(options, io, (stores) => {
          // One list, newest first, whatever agent wrote the session.
          const sessions = stores
            .flatMap((f) => f.store.listSessions().map((s) => ({ ...s, agent: f.agent, format: f.store.info.format, store: f.store.info.path })))
            .sort((a, b) => b.updated - a.updated);
          const hidden = stores.flatMap((f) => (f.store.hiddenSessions?.() ?? []).map((h) => ({ ...h, into: f })));
          if (io.json) {
            const rows = (list: Listed[]) =>
              list.map((s) => ({
                id: s.id,
                title: s.title,
                directory: s.directory,
                updated: iso(s.updated),
                messages: s.messages,
                // The session this one was spawned by (a Claude Code subagent's, an opencode child session's).
                ...(s.parentId !== undefined ? { parent: s.parentId } : {}),
                agent: s.agent,
                format: s.format,
                store: s.store,
              }));
            const elsewhere =
              hidden.length > 0
                ? {
                    hidden: hidden.map((h) => ({
                      store: h.store,
                      sessions: rows(h.sessions.map((s) => ({ ...s, agent: h.into.agent, format: "opencode-json", store: h.store }))),
                      import: importCommand(h.store, io),
                    })),
                  }
                : {};
            const one = stores.length === 1 ? { store: storeJson(stores[0]!.store.info) } : {};
            const read = { stores: stores.map((f) => ({ agent: f.agent, ...storeJson(f.store.info) })) };
            io.out(`${JSON.stringify({ ...DOCUMENT_HEAD, ...one, ...read, sessions: rows(sessions), ...elsewhere })}\n`);
          } else {
            for (const f of stores) for (const notice of f.store.info.notices) io.note(notice);
            printTable(sessions, io);
            for (const { store: other, sessions: more, into } of hidden) {
              io.out(`\n${io.color.bold(`only in ${safeValue(other)}`)} (the agent reads ${safeValue(into.store.info.path)} and does not show these):\n`);
              printTable(
                more.map((s) => ({ ...s, agent: into.agent, format: "opencode-json", store: other })),
                io,
              );
              io.out(`bring them in: ${io.color.bold(safeCommand(importCommand(other, io)))}\n`);
            }
          }
          return ExitCode.ok;
        }),
      ),
    );
}

/** A session as the list shows it: with the agent and store it is in. */
type Listed = SessionSummary & { agent: string; format: string; store: string };

/**
 * The command that copies a store's hidden sessions into the database the agent reads: this run's --store, or (found
 * at its default place) the one `session import` opens by default.
 */
function importCommand(from: string, io: Io): string {
  return io.command(["session", "import", "--all", "--from", from]);
}

function iso(ms: number): string {
  return Number.isFinite(ms) && ms > 0 ? new Date(ms).toISOString() : "";
}

function printTable(sessions: Listed[], io: Io): void {
  if (sessions.length === 0) {
    io.out("no sessions\n");
    return;
  }
  const c = io.color;
  const rows = sessions.map((s) => [
    safeValue(s.id),
    s.agent,
    safeValue(truncate(s.parentId !== undefined ? `↳ ${s.parentId.slice(0, 8)}: ${s.title}` : s.title, 40)),
    iso(s.updated).replace("T", " ").slice(0, 16),
    String(s.messages),
    safeValue(s.directory),
  ]);
  const head = ["ID", "AGENT", "TITLE", "UPDATED (UTC)", "MSGS", "DIRECTORY"];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!))).join("  ");
  io.out(`${c.bold(line(head))}\n`);
  for (const row of rows) io.out(`${line(row)}\n`);
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
