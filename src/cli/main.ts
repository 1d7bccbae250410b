/**
 * The command line: global options (accepted before or after the subcommand), the command tree, and the mapping
 * of commander's own failures onto our exit codes (usage errors exit 2, not commander's 1).
 */
import { Command, CommanderError, Option } from "commander";
import { ExitCode, RecoverError } from "../errors.js";
import { STORE_FORMATS } from "../stores/store.js";
import { reportError } from "./command-kit.js";
import { addRules } from "./commands/rules.js";
import { addSessionList } from "./commands/session-list.js";
import { addSessionScan } from "./commands/session-scan.js";
import { createIo } from "./io.js";
import { errorDocument } from "./json-output.js";
import { TOOL_VERSION } from "./version.js";

export function buildProgram(): Command {
  const program = new Command("recover")
    .description("bring broken AI coding-agent sessions back to life, offline, without losing a byte")
    .version(TOOL_VERSION, "-V, --version")
    .option("--store <path>", "opencode data dir, opencode.db file or storage/ folder (default: where opencode keeps it)")
    .addOption(new Option("--format <name>", "force the store format").choices([...STORE_FORMATS]))
    .option("--json", "print exactly one JSON document on stdout; never prompt")
    .option("-q, --quiet", "print only findings and errors")
    .option("--no-color", "no colour (also NO_COLOR, or when stdout is not a terminal)")
    .option("-y, --yes", "do not ask for confirmation (mutating commands)")
    .option("--backup-dir <dir>", "where backups go (default $XDG_STATE_HOME/recover/backups)")
    .showHelpAfterError("(run with --help for usage)")
    .addHelpText(
      "after",
      `
Examples:
  recover session list
  recover session scan --all --json
  recover rules

Exit codes: 0 ok, 1 error findings (or a change that could not be made), 2 usage or input error, 3 refused for safety.`,
    );

  const session = program.command("session").description("find, scan and repair agent sessions");
  addSessionList(session);
  addSessionScan(session);
  addRules(program);

  for (const command of [program, ...allSubcommands(program)]) {
    command.exitOverride();
    if (command.commands.length > 0 && command !== program) {
      // A group without a subcommand is a usage error (commander would print help and exit 1).
      command.action(() => {
        throw new RecoverError("usage", `${command.name()} needs a subcommand: ${command.commands.map((c) => c.name()).join(", ")}`);
      });
    }
  }
  return program;
}

function allSubcommands(command: Command): Command[] {
  return command.commands.flatMap((c) => [c, ...allSubcommands(c)]);
}

export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  const wantsJson = argv.includes("--json");
  if (wantsJson) {
    // Keep stdout a single JSON document even when commander itself rejects the command line.
    for (const command of [program, ...allSubcommands(program)]) command.configureOutput({ writeErr: () => {} });
  }
  try {
    await program.parseAsync(argv);
  } catch (error) {
    process.exitCode = handleCommanderError(error, wantsJson);
  }
}

function handleCommanderError(error: unknown, json: boolean): number {
  const io = createIo({ json });
  if (error instanceof CommanderError) {
    if (error.code === "commander.helpDisplayed" || error.code === "commander.version") return ExitCode.ok;
    if (json) io.out(errorDocument({ code: "usage", message: error.message.replace(/^error: /, "") }));
    return ExitCode.usage;
  }
  return reportError(error, io);
}
