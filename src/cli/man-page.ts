/**
 * recover(1): the man page, made at build time (scripts/build.mjs) from the same command tree `--help` prints, so
 * the two never disagree. Each command's section is its help text as `recover <command> --help` prints it on a
 * 72-column terminal (usage, options, examples, exit codes), set as a preformatted block; `recover help <command>` stays the
 * primary help.
 */
import type { Command } from "commander";
import { shownSubcommands } from "./completion.js";

/** roff-safe text: backslashes and hyphens escaped, a leading dot or quote kept literal. */
function roff(text: string): string {
  return text
    .replace(/\\/g, "\\e")
    .replace(/-/g, "\\-")
    .split("\n")
    .map((line) => (/^[.']/.test(line) ? `\\&${line}` : line))
    .join("\n");
}

function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c; c = c.parent) names.unshift(c.name());
  return names.join(" ");
}

/** Every command help lists. */
function everyCommand(command: Command): Command[] {
  return [command, ...shownSubcommands(command).flatMap(everyCommand)];
}

/** `helpOf(command)`: what `--help` prints for it. */
export function renderManPage(program: Command, version: string, helpOf: (command: Command) => string): string {
  const lines = [
    `.TH RECOVER 1 "" "recover ${roff(version)}" "User Commands"`,
    ".SH NAME",
    `recover \\- ${roff(program.description())}`,
    ".SH SYNOPSIS",
    ".B recover",
    "[\\fIglobal options\\fR] \\fIcommand\\fR [\\fIsubcommand\\fR] [\\fIoptions\\fR] [\\fIarguments\\fR]",
    ".SH DESCRIPTION",
    "recover reads an AI coding agent's own session store (opencode, Claude Code, openclaw, Codex CLI, Gemini CLI),",
    "finds every known corruption that makes the provider reject the session, and repairs it: a diff, a backup, an",
    "atomic apply, and a byte-identical restore. It also reads pokeralph battles and Claude Code ralph loops.",
    ".PP",
    "Each section below is what \\fBrecover help\\fR \\fIcommand\\fR (or \\fIcommand\\fR \\fB\\-\\-help\\fR) prints.",
    ".SH COMMANDS",
  ];
  for (const command of everyCommand(program)) {
    lines.push(`.SS "${roff(commandPath(command))}"`, ".nf", roff(helpOf(command).trimEnd()), ".fi");
  }
  lines.push(
    ".SH EXIT STATUS",
    ".TP",
    ".B 0",
    "nothing wrong (or every requested change made)",
    ".TP",
    ".B 1",
    "error findings, a dry run with changes, or a change that could not be made",
    ".TP",
    ".B 2",
    "usage or input error",
    ".TP",
    ".B 3",
    "refused for safety (a store in use, changed underneath, a repository mid-merge)",
    ".TP",
    ".B 130",
    "interrupted (Ctrl-C at a prompt or while it runs; 143 and 129 for SIGTERM and SIGHUP): nothing half written",
    ".SH ENVIRONMENT",
    ".TP",
    ".B XDG_STATE_HOME",
    "recover's state: backups under \\fI$XDG_STATE_HOME/recover/backups\\fR (default \\fI~/.local/state\\fR; a relative path is ignored)",
    ".TP",
    ".B XDG_CACHE_HOME",
    "where V8's compiled code of recover is kept: \\fI$XDG_CACHE_HOME/recover\\fR (default \\fI~/.cache\\fR; a relative path is ignored); \\fBNODE_DISABLE_COMPILE_CACHE=1\\fR keeps none",
    ".TP",
    '.BR NO_COLOR ", " FORCE_COLOR',
    "colour off, or on even when stdout is not a terminal",
    ".TP",
    '.BR OPENCODE_DB ", " XDG_DATA_HOME',
    "where opencode's store is found without \\fB\\-\\-store\\fR (its database, else \\fI$XDG_DATA_HOME/opencode\\fR, default \\fI~/.local/share/opencode\\fR)",
    ".TP",
    ".B CLAUDE_CONFIG_DIR",
    "Claude Code's config dir (default \\fI~/.claude\\fR, else \\fI~/.config/claude\\fR)",
    ".TP",
    ".B OPENCLAW_STATE_DIR",
    "openclaw's state dir (default \\fI~/.openclaw\\fR): its agent databases, and the JSONL transcripts of older versions",
    ".TP",
    ".B CODEX_HOME",
    "Codex CLI's home (default \\fI~/.codex\\fR)",
    ".TP",
    ".B GEMINI_CLI_HOME",
    "the folder holding Gemini CLI's \\fI.gemini\\fR (default the home folder)",
    ".TP",
    ".B RECOVER_DEBUG",
    "set: an error also prints its stack (for a bug report)",
    ".SH FILES",
    ".TP",
    ".I ~/.local/state/recover/backups/<id>/",
    "a backup: \\fImanifest.json\\fR and \\fIimages.bin\\fR; \\fBrecover session restore\\fR \\fI<id>\\fR puts it back",
    ".TP",
    ".I ~/.cache/recover/main.cjs-<build>-<node version>-<arch>.v8cache",
    "the code cache of the installed build, written by its first run; safe to delete",
    ".SH SEE ALSO",
    "\\fBrecover \\-\\-help\\fR and \\fBrecover\\fR \\fIcommand\\fR \\fB\\-\\-help\\fR (every command, with examples), \\fBrecover rules\\fR (every rule), \\fBrecover explain\\fR (an error text), \\fBrecover store list\\fR (the stores found, and which client version wrote them).",
    "",
  );
  return lines.join("\n");
}
