/**
 * Shell completion: what `recover __complete -- <words…>` answers, one candidate per line, for the scripts
 * `recover completion bash|zsh|fish` prints. The answer comes from the command tree itself (subcommands, options,
 * an option's choices) and, for an argument, from what it names: session ids of the store the words select,
 * backup ids for `session restore`, battle task ids. An empty answer lets the shell complete file names (paths for
 * --store, --repo, --backup-dir …).
 */
import type { Command, Option } from "commander";

export interface CompletionSources {
  /** Session ids of the store `--store`/`--format` in the words select (the default store without them). */
  sessionIds(globals: { store?: string; format?: string }): string[];
  /** Backup ids, newest first. */
  backupIds(globals: { backupDir?: string }): string[];
  /** Battle task ids of the pokeralph project found from `--repo` or the working directory. */
  taskIds(repo: string | undefined): string[];
}

/** The subcommands help lists: hidden ones (`__complete`) and commander's own `help` left out. */
export function shownSubcommands(command: Command): Command[] {
  return command.commands.filter((c) => !(c as Command & { _hidden?: boolean })._hidden && c.name() !== "help");
}

function optionsOf(command: Command): Option[] {
  const all: Option[] = [];
  for (let c: Command | null = command; c; c = c.parent) all.push(...c.options);
  return all.filter((o) => !o.hidden);
}

function findOption(command: Command, flag: string): Option | undefined {
  return optionsOf(command).find((o) => o.long === flag || o.short === flag);
}

const takesValue = (o: Option) => o.required || o.optional;

/** `words`: the command line after `recover`, the last one the word being completed (possibly empty). */
export function complete(program: Command, words: readonly string[], sources: CompletionSources): string[] {
  const current = words.at(-1) ?? "";
  const before = words.slice(0, -1);
  let command = program;
  let positional = 0;
  const values: Record<string, string> = {};
  let pending: Option | undefined;
  for (const word of before) {
    if (pending) {
      values[pending.attributeName()] = word;
      pending = undefined;
      continue;
    }
    if (word === "--") continue;
    if (word.startsWith("-")) {
      const [flag] = word.split("=", 1);
      const option = findOption(command, flag!);
      if (option && takesValue(option) && !word.includes("=")) pending = option;
      else if (option && word.includes("=")) values[option.attributeName()] = word.slice(flag!.length + 1);
      continue;
    }
    const sub = shownSubcommands(command).find((c) => c.name() === word || c.aliases().includes(word));
    if (sub && positional === 0) command = sub;
    else positional++;
  }
  const matching = (candidates: readonly string[]) => [...new Set(candidates)].filter((c) => c.startsWith(current));

  // The value of an option: its choices, or nothing (a path: the shell's own file completion).
  if (pending) return matching(pending.argChoices ?? []);
  if (current.startsWith("-"))
    return matching(
      optionsOf(command)
        .flatMap((o) => [o.long ?? o.short ?? ""])
        .filter((f) => f !== ""),
    );
  const subcommands = shownSubcommands(command);
  if (subcommands.length > 0) return matching(subcommands.map((c) => c.name()));

  const args = command.registeredArguments;
  const argument = args[positional] ?? (args.at(-1)?.variadic ? args.at(-1) : undefined);
  if (!argument) return [];
  const name = argument.name();
  const globals = {
    ...(values.store !== undefined ? { store: values.store } : {}),
    ...(values.format !== undefined ? { format: values.format } : {}),
    ...(values.backupDir !== undefined ? { backupDir: values.backupDir } : {}),
  };
  if (/backup/i.test(name)) return matching(sources.backupIds(globals));
  if (/task/i.test(name)) return matching(sources.taskIds(values.repo));
  if (/^(id|ids|session|sessions)$/i.test(name)) return matching(sources.sessionIds(globals));
  return [];
}

/** The script each shell sources; `program` is how to call this recover (`recover`, or `node …/bin/recover`). */
export function completionScript(shell: "bash" | "zsh" | "fish", program: string): string {
  switch (shell) {
    case "bash":
      return `# recover completion for bash: source it, e.g. from ~/.bashrc:  source <(recover completion bash)
_recover_complete() {
  local IFS=$'\\n'
  COMPREPLY=($(${program} __complete -- "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null))
}
complete -o default -F _recover_complete recover
`;
    case "zsh":
      return `#compdef recover
# recover completion for zsh: source it, e.g. from ~/.zshrc:  source <(recover completion zsh)
_recover_complete() {
  local -a candidates
  candidates=("\${(@f)$(${program} __complete -- "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  if [[ -n "\${candidates[1]}" ]]; then compadd -- "\${candidates[@]}"; else _files; fi
}
(( $+functions[compdef] )) && compdef _recover_complete recover
`;
    case "fish":
      return `# recover completion for fish: save it as ~/.config/fish/completions/recover.fish
complete -c recover -a '(${program.replace(/'/g, "\\'")} __complete -- (commandline -opc)[2..-1] (commandline -ct) 2>/dev/null)'
`;
  }
}
