/**
 * `recover hooks install|uninstall|status <agent>`: recover inside the agents (hooks/agents.ts says what each hook
 * is and why). Installing writes one file of the agent's config folder through the transaction layer: a diff, a
 * backup, undone by `hooks uninstall` (byte for byte when the file was not changed since) or `session restore`.
 * `hooks record-failure` is what Claude Code's StopFailure hook runs: it records the refused session for
 * `session resume --last`, and never fails the agent's turn.
 */
import { existsSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import type { Command } from "commander";
import { ExitCode, RecoverError } from "../../errors.js";
import { HOOK_AGENTS } from "../../hooks/agents.js";
import { recordFailure } from "../../hooks/failures.js";
import { hookStatus, installHook, type HookChange, uninstallHook } from "../../hooks/install.js";
import { unifiedDiff } from "../../plan/diff.js";
import { stateDir } from "../../txn/state-dir.js";
import { action } from "../command-kit.js";
import type { GlobalOptions, Io } from "../io.js";
import { DOCUMENT_HEAD } from "../json-output.js";
import { confirmChange, runBackupRoot } from "../mutation.js";
import { TOP_COMMAND_SUMMARIES } from "../top-commands.js";
import { restoreCommand } from "../write-plans.js";

interface HookFlags {
  dryRun?: boolean;
  agent?: string;
}

export function addHooks(program: Command): void {
  const hooks = program.command("hooks").description(TOP_COMMAND_SUMMARIES.hooks.description);
  hooks
    .command("install")
    .description("install recover's hook into an agent: opencode repairs a refused session itself, Claude Code records it")
    .argument("<agent>", HOOK_AGENTS.join(" | "))
    .option("--dry-run", "show the change, write nothing")
    .addHelpText(
      "after",
      `
opencode: a plugin (plugin/recover.js in opencode's config folder). When the provider refuses a session with an
error recover knows, the plugin runs \`recover session repair <id> --error <text>\`: the next prompt is sent repaired.
claude: a StopFailure hook in settings.json. Claude Code reads a transcript before any hook runs, so no hook can
repair on resume: the hook records the refused session, and \`recover session resume --last\` repairs and continues it.
Undo with \`recover hooks uninstall <agent>\` (the file as it was, byte for byte, when nothing else changed it).`,
    )
    .action(action<HookFlags>(({ args, options, io }) => change(io, options, args[0]!, "install")));
  hooks
    .command("uninstall")
    .description("remove recover's hook from an agent (the config file as it was before the install)")
    .argument("<agent>", HOOK_AGENTS.join(" | "))
    .option("--dry-run", "show the change, write nothing")
    .action(action<HookFlags>(({ args, options, io }) => change(io, options, args[0]!, "uninstall")));
  hooks
    .command("status")
    .description("whether each agent has recover's hook")
    .argument("[agent]", HOOK_AGENTS.join(" | "))
    .action(action<HookFlags>(({ args, io }) => status(io, args[0])));
  // What the installed Claude Code hook runs; not for people.
  hooks
    .command("record-failure", { hidden: true })
    .option("--agent <agent>", "the agent whose hook this is")
    .action(
      action<HookFlags>(({ io }) => {
        try {
          recordFailure(stateDir(io.env), io.readInput(), Date.now());
        } catch (error) {
          // The agent's turn is over whatever happens here: say why on stderr (the agent's log), never fail it.
          io.err(`recover: ${error instanceof Error ? error.message : String(error)}\n`);
        }
        return ExitCode.ok;
      }),
    );
}

/** This recover as a hook runs it: this node, and the bin/recover this run started from. */
function recoverCommand(io: Io): { node: string; bin: string } {
  const bin = io.scriptPath ?? join(dirname(__filename), "..", "bin", "recover");
  if (!existsSync(bin)) throw new RecoverError("usage", `cannot find recover's own bin/recover (${bin}) to run from the hook`);
  return { node: process.execPath, bin };
}

async function change(io: Io, options: HookFlags & GlobalOptions, agent: string, verb: "install" | "uninstall"): Promise<number> {
  const where = { stateDir: stateDir(io.env), backupRoot: runBackupRoot(options, io) };
  const planned =
    verb === "install" ? installHook(agent, io.env, recoverCommand(io), { ...where, dryRun: true }) : uninstallHook(agent, io.env, { ...where, dryRun: true });
  const nothing = planned.before === planned.after;
  if (!nothing && !options.dryRun) await confirmChange(io, options, `${planned.file}: ${verb} recover's ${planned.agent} hook`);
  const done =
    nothing || options.dryRun ? planned : verb === "install" ? installHook(agent, io.env, recoverCommand(io), where) : uninstallHook(agent, io.env, where);
  report(io, done, verb, options.dryRun === true, nothing);
  return options.dryRun && !nothing ? ExitCode.findings : ExitCode.ok;
}

function report(io: Io, done: HookChange, verb: string, dryRun: boolean, nothing: boolean): void {
  // Named as git would name it, from the folder that holds the agent's config folder (`.claude/settings.json`).
  const key = { record: "file" as const, id: relative(dirname(dirname(done.file)), done.file), sessionId: done.agent, path: done.file };
  const diff = nothing ? "" : unifiedDiff(key, done.before ?? "", done.after ?? "", { before: done.before !== undefined, after: done.after !== undefined });
  const undo = done.backup ? restoreCommand(done.backup.manifest.id, io) : null;
  if (io.json) {
    const backup = done.backup ? { id: done.backup.manifest.id, path: done.backup.dir } : null;
    io.out(
      `${JSON.stringify({ ...DOCUMENT_HEAD, agent: done.agent, file: done.file, [verb === "install" ? "installed" : "uninstalled"]: !nothing && !dryRun, dryRun, diff, backup, undo })}\n`,
    );
    return;
  }
  const c = io.color;
  if (nothing) {
    io.out(`${c.green("✔")} ${done.agent}: recover's hook is ${verb === "install" ? "already installed" : "not installed"} (${done.file})\n`);
    return;
  }
  io.out(diff);
  if (dryRun) io.out(`${c.yellow("dry run:")} nothing was changed\n`);
  else
    io.out(
      `${c.green("✔")} ${done.agent}: recover's hook ${verb === "install" ? "installed" : "removed"} (${done.file})\n${undo ? `undo with: ${c.bold(undo)}\n` : ""}`,
    );
}

function status(io: Io, agent: string | undefined): number {
  const state = stateDir(io.env);
  const all = (agent !== undefined ? [agent] : HOOK_AGENTS).map((a) => hookStatus(a, io.env, state));
  if (io.json) {
    io.out(`${JSON.stringify({ ...DOCUMENT_HEAD, hooks: all })}\n`);
    return ExitCode.ok;
  }
  for (const s of all) {
    const what = s.state === "installed" ? "installed" : s.state === "changed" ? "installed (the file changed since recover wrote it)" : "not installed";
    io.out(`${s.agent.padEnd(9)} ${what.padEnd(14)} ${s.file}\n`);
  }
  return ExitCode.ok;
}
