/**
 * The command line: global options (accepted before or after the subcommand), the command tree, and the mapping
 * of commander's own failures onto our exit codes (usage errors exit 2, not commander's 1).
 */
import { Command, CommanderError, Help, Option } from "commander";
import { ExitCode, outputError } from "../errors.js";
import { storeFormats } from "../stores/formats.js";
import { bindRun, reportError } from "./command-kit.js";
import { safeMessage } from "./safe-text.js";
import { exitCodeOf, signalExitCode } from "./exit-codes.js";
import { createIo, stdoutFailed, writeStdout, type CliContext, type RunState } from "./io.js";
import { DOCUMENT_HEAD, errorDocument } from "./json-output.js";
import { TOP_COMMAND_SUMMARIES, type SummarisedCommand, type TopCommandSummary } from "./top-commands.js";
import { TOOL_VERSION } from "./version.js";

/** The top-level commands that can be loaded: those help lists, and the completion helper's hidden one. */
const TOP_COMMANDS = ["session", "battle", "rules", "explain", "context", "checkpoint", "store", "hooks", "completion", "__complete"] as const;
type TopCommand = (typeof TOP_COMMANDS)[number];

/** What adds one top-level command's subtree to its parent (the group, or the program for a single command). */
type AddCommands = (parent: Command) => void;

/** A group's subcommands, each with what adds it, in the order the group's help lists them. */
type SubcommandLoaders = Record<string, () => Promise<AddCommands>>;

/**
 * Each command's module, imported only when that command runs: `session scan` loads neither the battle and
 * checkpoint code (simple-git) nor the other session commands. Static specifiers, so tools still see every edge.
 */
const GROUP_LOADERS: Partial<Record<TopCommand, SubcommandLoaders>> = {
  session: {
    list: async () => (await import("./commands/session-list.js")).addSessionList,
    scan: async () => (await import("./commands/session-scan.js")).addSessionScan,
    repair: async () => (await import("./commands/session-repair.js")).addSessionRepair,
    resume: async () => (await import("./commands/session-resume.js")).addSessionResume,
    restore: async () => (await import("./commands/session-restore.js")).addSessionRestore,
    backups: async () => (await import("./commands/session-backups.js")).addSessionBackups,
    import: async () => (await import("./commands/session-import.js")).addSessionImport,
  },
  battle: {
    status: async () => (await import("./commands/battle-status.js")).addBattleStatus,
    resume: async () => (await import("./commands/battle-resume.js")).addBattleResume,
    fix: async () => (await import("./commands/battle-resume.js")).addBattleFix,
    rollback: async () => (await import("./commands/battle-rollback.js")).addBattleRollback,
  },
  store: {
    list: async () => (await import("./commands/store-list.js")).addStoreList,
    salvage: async () => (await import("./commands/store-salvage.js")).addStoreSalvage,
  },
};

const COMMAND_LOADERS: Partial<Record<TopCommand, () => Promise<AddCommands>>> = {
  rules: async () => (await import("./commands/rules.js")).addRules,
  explain: async () => (await import("./commands/explain.js")).addExplain,
  context: async () => (await import("./commands/context-trim.js")).addContextTrim,
  checkpoint: async () => (await import("./commands/checkpoint.js")).addCheckpoint,
  hooks: async () => (await import("./commands/hooks.js")).addHooks,
  // Both from one module, which adds both: completing a word needs the whole tree, so it loads every command.
  completion: async () => (await import("./commands/completion.js")).addCompletion,
  __complete: async () => () => {},
};

/** Commands that work on the whole tree: they load every other command too. */
const WHOLE_TREE = new Set<TopCommand>(["completion", "__complete"]);

/** Global options that take a value: their value is not the command word (`--store session scan`). */
const VALUE_OPTIONS = new Set(["--store", "--format", "--agent", "--backup-dir"]);

/**
 * The command words of this argv: the top-level command and the word after it, when the first names one
 * (`help <command>` names the command it asks about). Help, version, no command or an unknown word name none:
 * those are answered from the commands' summaries (top-commands.ts).
 */
function commandWords(argv: readonly string[]): { top: TopCommand; next?: string } | undefined {
  const words: string[] = [];
  const given = argv.slice(2);
  for (let i = 0; i < given.length && words.length < 2; i++) {
    const word = given[i]!;
    if (VALUE_OPTIONS.has(word)) i++;
    else if (!word.startsWith("-")) words.push(word);
    else if (words.length === 0 && (word === "--help" || word === "-h" || word === "--version" || word === "-V")) return undefined;
  }
  if (words[0] === "help") words.shift();
  const [top, next] = words;
  if (!(TOP_COMMANDS as readonly string[]).includes(top ?? "")) return undefined;
  return { top: top as TopCommand, ...(next !== undefined ? { next } : {}) };
}

type LoadedCommands = Partial<Record<TopCommand, AddCommands>>;

/** One top-level command's subtree: a group's one subcommand when the argv names it, else all of them. */
async function loadCommand(name: TopCommand, next: string | undefined): Promise<AddCommands> {
  const group = GROUP_LOADERS[name];
  if (!group) return COMMAND_LOADERS[name]!();
  const chosen = next !== undefined && Object.hasOwn(group, next) ? [group[next]!] : Object.values(group);
  const adders = await Promise.all(chosen.map((load) => load()));
  return (parent) => {
    for (const add of adders) add(parent);
  };
}

/** The commands this argv needs: the one it runs, every one for completion, none for help and version. */
async function loadCommands(argv: readonly string[]): Promise<LoadedCommands> {
  const words = commandWords(argv);
  if (!words) return {};
  return WHOLE_TREE.has(words.top) ? loadAllCommands() : { [words.top]: await loadCommand(words.top, words.next) };
}

export async function loadAllCommands(): Promise<LoadedCommands> {
  const adders = await Promise.all(TOP_COMMANDS.map((name) => loadCommand(name, undefined)));
  return Object.fromEntries(TOP_COMMANDS.map((name, i) => [name, adders[i]!]));
}

/** `json`: the run asked for --json (wherever on the line: `--version --json` is answered before --json is parsed). */
export function buildProgram(run: RunState, commands: LoadedCommands, { json = false } = {}): Command {
  // A command this run did not load is listed from its summary: help shows the term the loaded one would show.
  const summarised = new WeakSet<Command>();
  const program = new Command("recover")
    .description("bring broken AI coding-agent sessions back to life, offline, without losing a byte")
    // Not commander's .version(): with --json the answer is a JSON document like every other command's.
    .option("-V, --version", "output the version number")
    .on("option:version", () => {
      writeStdout(run, json ? `${JSON.stringify(DOCUMENT_HEAD)}\n` : `${TOOL_VERSION}\n`);
      throw new CommanderError(0, "commander.version", TOOL_VERSION);
    })
    // Every subcommand's --help lists these too: they are accepted everywhere, before or after the subcommand.
    .configureHelp({
      showGlobalOptions: true,
      subcommandTerm(command) {
        if (!summarised.has(command)) return Help.prototype.subcommandTerm.call(this, command);
        const { term } = TOP_COMMAND_SUMMARIES[command.name() as SummarisedCommand] as TopCommandSummary;
        return term ? `${command.name()} ${term}` : command.name();
      },
    })
    .option(
      "--store <path>",
      "one agent's store: an opencode data dir, opencode.db or storage/ folder, a Claude Code, Codex, Gemini or openclaw home or transcript (default: every agent's own place)",
    )
    .option("--agent <name>", "only this agent's store (opencode, claude, codex, gemini, openclaw); repeatable", (value: string, before: string[] = []) => [
      ...before,
      value,
    ])
    .addOption(new Option("--format <name>", "force the store format").choices(storeFormats()))
    .option("--json", "print exactly one JSON document on stdout; never prompt")
    .option("-q, --quiet", "print only findings and errors")
    .option("--color", "colour even when stdout is not a terminal (also FORCE_COLOR)")
    .option("--no-color", "no colour (also NO_COLOR; off by default when stdout is not a terminal)")
    .option("-y, --yes", "do not ask for confirmation (mutating commands)")
    .option("--backup-dir <dir>", "where backups go (default $XDG_STATE_HOME/recover/backups)")
    .addHelpText(
      "after",
      `
Examples:
  recover session list
  recover session scan --all --json
  recover rules

Exit codes: 0 ok, 1 error findings (or a change that could not be made), 2 usage or input error, 3 refused for safety.`,
    );

  for (const name of Object.keys(TOP_COMMAND_SUMMARIES) as SummarisedCommand[]) {
    const add = commands[name];
    if (!add) summarised.add(program.command(name).description(TOP_COMMAND_SUMMARIES[name].description));
    else if (Object.hasOwn(GROUPS, name)) addGroup(program, name as keyof typeof GROUPS, add);
    else add(program);
  }

  for (const command of [program, ...allSubcommands(program)]) {
    // Commander's own error printing is replaced by ours (one line, or one JSON document): remember which
    // command failed so the message can name it and its subcommands.
    // Help and version go to this run's stdout, wrapped to its terminal's width, as commander would do for process's.
    command.configureOutput({
      writeOut: (text) => writeStdout(run, text),
      writeErr: () => {},
      // Commander's own default: undefined (not a terminal) means its 80 columns.
      getOutHelpWidth: () => (run.context.isTTY.stdout ? run.context.columns : undefined) as number,
      getErrHelpWidth: () => undefined as unknown as number,
      getOutHasColors: () => false,
      getErrHasColors: () => false,
    });
    command.exitOverride((error) => {
      throw Object.assign(error, { command });
    });
  }
  return program;
}

/** The command groups: the examples `recover <group> --help` ends with; their subcommands come from GROUP_LOADERS. */
const GROUPS = {
  session: {
    examples: `
Examples:
  recover session list
  recover session scan --all --json
  recover session scan ses_52f1 --rule tool-call-interrupted
  recover session repair ses_52f1 --dry-run
  recover session restore <backup-id>
  recover session import --all --from ~/.local/share/opencode/storage --dry-run`,
  },
  store: {
    examples: `
Examples:
  recover store salvage --store ~/.local/share/opencode/opencode.db
  recover store salvage --store ./opencode.db --replace --yes`,
  },
  battle: {
    examples: `
Examples:
  recover battle status                              every battle in this repository, with its failure type
  recover battle status 002-auth-system --json
  recover battle rollback 002-auth-system --iteration 2 --dry-run
  recover battle resume 002-auth-system              the command that continues it, the way its failure allows
  recover battle fix 002-auth-system --verify        after fixing it by hand: check, then --continue`,
  },
} as const;

function addGroup(program: Command, name: keyof typeof GROUPS, addCommands: AddCommands): void {
  const group = program.command(name).description(TOP_COMMAND_SUMMARIES[name].description).addHelpText("after", GROUPS[name].examples);
  addCommands(group);
}

function allSubcommands(command: Command): Command[] {
  return command.commands.flatMap((c) => [c, ...allSubcommands(c)]);
}

/**
 * recover(1), for scripts/build.mjs: every command's help as `--help` prints it (72 columns, no colour), rendered
 * by man-page.ts (imported only here: no run loads it).
 */
export async function manPage(): Promise<string> {
  const { renderManPage } = await import("./man-page.js");
  let text = "";
  const sink = {
    write: (chunk: string) => {
      text += chunk;
      return true;
    },
  };
  // 72 columns: man indents a section by 7, and the page must fit an 80-column terminal.
  const context = { stdout: sink, stderr: sink, env: {}, cwd: "/", isTTY: { stdin: false, stdout: true, stderr: false }, columns: 72 } as unknown as CliContext;
  const program = buildProgram({ context, script: "recover", stdoutOpen: true }, await loadAllCommands());
  return renderManPage(program, TOOL_VERSION, (command) => {
    text = "";
    command.outputHelp();
    return text;
  });
}

/**
 * One run of the CLI: `argv` as node gives it (node, script, words…), everything else from `context`. Returns the
 * exit code; nothing here or below touches `process` (bin/recover does, for the real one).
 */
export async function main(argv: string[], context: CliContext): Promise<number> {
  const run: RunState = { context, script: context.script ?? argv[1], stdoutOpen: true };
  // A reader that stops early (`| head`) closes the pipe: that is not an error. Output stops, the run does not:
  // the exit code is still the one the run decides (`scan | head -1` fails when the scan finds errors). Any other
  // failed write (stdout sent to a full disk) stops the output too, and the run ends with it, below.
  const onStdoutError = (error: NodeJS.ErrnoException) => stdoutFailed(run, error);
  context.stdout.on?.("error", onStdoutError);
  const wantsJson = argv.includes("--json");
  const asked = helpAsFlag(argv);
  const program = buildProgram(run, await loadCommands(asked), { json: wantsJson });
  // `recover help session nope`: `session nope --help` would show session's help; without --help, the unknown name
  // is the error it is ("unknown command 'nope' for recover session").
  const parsed = asked !== argv && namesUnknownCommand(program, asked.slice(2, -1)) ? asked.slice(0, -1) : asked;
  const bound = bindRun(program, run);
  let code: number;
  try {
    await program.parseAsync(parsed);
    code = bound.exitCode();
  } catch (error) {
    code = handleCommanderError(error, wantsJson, run);
  } finally {
    context.stdout.off?.("error", onStdoutError);
  }
  // A stream that failed a write knows it at once; its "error" event may still be a tick away.
  if (context.stdout.errored) stdoutFailed(run, context.stdout.errored);
  // A run asked to end (SIGTERM, SIGHUP: CliContext.signal) ends as the signal would have ended it, whatever it was
  // doing when it stopped (a prompt cancelled, a loop left, a write it let finish).
  const ended = context.signal?.aborted ? signalExitCode(context.signal.reason) : undefined;
  if (run.stdoutError === undefined) return ended ?? code;
  // What was printed is incomplete: said on stderr (stdout is what failed), and a run that would have ended 0 or 1
  // ends as the error; a refusal (3) keeps its code, since it says more (nothing was written).
  createIo({}, run).err(outputFailureLine(run.stdoutError));
  return ended ?? (code === ExitCode.refused ? code : exitCodeOf(outputError(run.stdoutError)));
}

/** The line a run whose stdout failed ends with; bin/recover prints it too, for a write that fails after main(). */
export function outputFailureLine(error: unknown): string {
  return `recover: ${outputError(error).message}\n`;
}

/**
 * `recover help session repair` is `recover session repair --help`: commander's own help command takes one name,
 * so it would show the help of `session` instead (and of a name it does not know, the program's help as an error).
 */
function helpAsFlag(argv: string[]): string[] {
  const [node, script, first, ...rest] = argv;
  if (first !== "help" || rest.length === 0 || rest.some((a) => a.startsWith("-"))) return argv;
  return [node!, script!, ...rest, "--help"];
}

/** Whether command words name a command that does not exist (past a command without subcommands, words are its arguments). */
function namesUnknownCommand(program: Command, words: readonly string[]): boolean {
  let current = program;
  for (const word of words) {
    if (current.commands.length === 0) return false;
    const next = current.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!next) return true;
    current = next;
  }
  return false;
}

function usageMessage(error: CommanderError, command: Command | undefined): string {
  const path = command ? commandPath(command) : "recover";
  const subcommands = command?.commands.map((c) => c.name()).join(", ");
  // A group called without a subcommand shows its help as an error ("(outputHelp)"): say what is missing instead.
  if (error.code === "commander.help") return `${path} needs a subcommand: ${subcommands} (see ${path} --help)`;
  // Commander puts its suggestion on a line of its own ("\n(Did you mean session?)"): one line, as every error is.
  const [text, suggestion] = error.message.replace(/^error: /, "").split(/\s*\n\(Did you mean ([^)]*)\)/);
  const hint = suggestion !== undefined ? ` (did you mean ${suggestion})` : "";
  if (error.code === "commander.unknownCommand") {
    // `recover scan`: the word a subcommand of a group is called (`recover session scan`).
    const word = /unknown command '([^']*)'/.exec(text ?? "")?.[1];
    const group = path === "recover" && word !== undefined ? groupOf(word) : undefined;
    if (group) return `${text} for ${path} (did you mean ${path} ${group} ${word}?)`;
    return `${text} for ${path}${hint || ` (expected one of: ${subcommands})`}`;
  }
  if (hint) return `${text}${hint}`;
  return `${text} (see ${path} --help)`;
}

/** The group a subcommand name belongs to (the first that has it: `list` is a session's before a store's). */
function groupOf(word: string): string | undefined {
  if (word === "trim") return "context";
  return (Object.keys(GROUP_LOADERS) as TopCommand[]).find((group) => Object.hasOwn(GROUP_LOADERS[group]!, word));
}

function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c; c = c.parent) names.unshift(c.name());
  return names.join(" ");
}

function handleCommanderError(error: unknown, json: boolean, run: RunState): number {
  const io = createIo({ json }, run);
  if (error instanceof CommanderError) {
    // Help and version asked for succeed; everything else commander rejects is a usage error (its own exit is 1).
    if (error.exitCode === 0) return ExitCode.ok;
    const message = usageMessage(error, (error as CommanderError & { command?: Command }).command);
    if (json) io.out(errorDocument({ code: "usage", message }));
    else io.err(`recover: ${safeMessage(message)}\n`);
    return ExitCode.usage;
  }
  return reportError(error, io);
}
