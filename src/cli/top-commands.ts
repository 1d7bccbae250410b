/**
 * The top-level commands as `recover --help` lists them, in its order: what follows the name there, and the
 * description. This is all a run knows of a command it has not loaded: `--help`, `--version`, no command and a
 * misspelt one are answered from here without loading any command's code (cli/main.ts), which is most of the
 * start-up time a run would otherwise pay. Each command's module takes its description from here, and
 * test/cli/lazy-commands.test.ts checks that this listing is the one the loaded commands give.
 */
export interface TopCommandSummary {
  description: string;
  /** What `--help` shows after the name: `[options]` when it has options of its own, then its arguments. */
  term?: string;
}

export const TOP_COMMAND_SUMMARIES = {
  session: { description: "find, scan and repair agent sessions" },
  battle: { description: "read and recover pokeralph battles (.pokeralph/)" },
  store: { description: "whole stores: every agent's store found, and salvaging a damaged opencode database" },
  rules: { description: "list every detection rule (id, severity, description, fix), or describe one", term: "[id]" },
  explain: { description: "say what a provider error means, where it points in a session, and the command that fixes it", term: "[options] [text]" },
  context: { description: "fit sessions into the model's context window" },
  checkpoint: { description: "snapshot a pokeralph battle's working tree into private git refs, list and prune the snapshots" },
  hooks: { description: "install recover's hooks into opencode and Claude Code, remove them, or see which are there" },
  completion: { description: "print the shell completion script for bash, zsh or fish", term: "<shell>" },
} as const satisfies Record<string, TopCommandSummary>;

export type SummarisedCommand = keyof typeof TOP_COMMAND_SUMMARIES;
