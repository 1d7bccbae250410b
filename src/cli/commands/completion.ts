/**
 * `recover completion bash|zsh|fish` prints the shell's completion script; the script asks
 * `recover __complete -- <words…>` (hidden) for the candidates, so every shell completes from the same command tree.
 */
import { isAbsolute, resolve } from "node:path";
import { Argument, type Command } from "commander";
import { complete, completionScript, type CompletionSources } from "../completion.js";
import { ExitCode } from "../../errors.js";
import { openStore } from "../../stores/discover.js";
import { findPokeralph, listBattleIds } from "../../stores/pokeralph/discover.js";
import { listBackups } from "../../txn/backup-store.js";
import { backupRoot } from "../../txn/state-dir.js";
import { action } from "../command-kit.js";
import type { Io } from "../io.js";
import { DOCUMENT_HEAD } from "../json-output.js";
import { TOP_COMMAND_SUMMARIES } from "../top-commands.js";

/** Candidates are a convenience: a store or project that cannot be read offers none, and says nothing. */
function quietly(list: () => string[]): string[] {
  try {
    return list();
  } catch {
    return [];
  }
}

function sources(io: Io): CompletionSources {
  return {
    sessionIds: (globals) =>
      quietly(() => {
        const store = openStore({ ...globals, env: io.env, cwd: io.cwd });
        try {
          return store.listSessions().map((s) => s.id);
        } finally {
          store.close();
        }
      }),
    backupIds: (globals) =>
      quietly(() =>
        listBackups(backupRoot(globals.backupDir, io.env, io.cwd))
          .map((b) => b.manifest.id)
          .reverse(),
      ),
    taskIds: (repo) => quietly(() => listBattleIds(findPokeralph({ cwd: io.cwd, ...(repo !== undefined ? { repo } : {}) }))),
  };
}

/**
 * How the script calls recover: as this run was called, but with an absolute path (`node bin/recover` from a
 * checkout would break in any other directory the script is sourced from).
 */
function absoluteProgram(io: Io): string {
  const program = io.command([]).trim();
  if (/['"\\]/.test(program)) return program;
  return program
    .split(" ")
    .map((word) => (word.includes("/") && !isAbsolute(word) ? resolve(io.cwd, word) : word))
    .join(" ");
}

function rootOf(command: Command): Command {
  let root = command;
  while (root.parent) root = root.parent;
  return root;
}

export function addCompletion(program: Command): void {
  program
    .command("completion")
    .description(TOP_COMMAND_SUMMARIES.completion.description)
    .addArgument(new Argument("<shell>", "the shell").choices(["bash", "zsh", "fish"]))
    .addHelpText(
      "after",
      `
It completes commands, options, --format values, session ids of the store for <id> arguments, backup ids for
session restore and battle task ids.

Install:
  bash   echo 'source <(recover completion bash)' >> ~/.bashrc
  zsh    echo 'source <(recover completion zsh)' >> ~/.zshrc
  fish   recover completion fish > ~/.config/fish/completions/recover.fish`,
    )
    .action(
      action(async ({ args, io }) => {
        const shell = args[0] as "bash" | "zsh" | "fish";
        const script = completionScript(shell, absoluteProgram(io));
        // --json promises one JSON document on stdout, whatever the command: the script is its field.
        io.out(io.json ? `${JSON.stringify({ ...DOCUMENT_HEAD, shell, script })}\n` : script);
        return ExitCode.ok;
      }),
    );

  program
    .command("__complete", { hidden: true })
    .argument("[words...]", "the command line after recover, the word being completed last")
    .allowUnknownOption()
    .action(
      action(async ({ args, io, command }) => {
        const words = args.length === 0 ? [""] : args;
        const candidates = complete(rootOf(command), words, sources(io));
        if (candidates.length > 0) io.out(`${candidates.join("\n")}\n`);
        return ExitCode.ok;
      }),
    );
}
