/**
 * The only place that knows about TTYs, colour, spinners and where output goes. Commands receive an Io and never
 * touch process.stdout/stderr themselves, so tests and pipes see exactly what a user would.
 */
import { Chalk, type ChalkInstance } from "chalk";
import type { Ora } from "ora";
import { ExitCode, RecoverError } from "../errors.js";
import { commandLine } from "./next-command.js";
import { safeMessage } from "./safe-text.js";

export interface GlobalOptions {
  store?: string;
  format?: string;
  json?: boolean;
  quiet?: boolean;
  color?: boolean;
  yes?: boolean;
  backupDir?: string;
}

export interface Io {
  json: boolean;
  quiet: boolean;
  /** Prompts are allowed only for a person at a terminal, never with --json. */
  interactive: boolean;
  color: ChalkInstance;
  out(text: string): void;
  err(text: string): void;
  /** Something the user should know that is not a finding, on stderr; `-q` leaves it out. */
  note(text: string): void;
  /** A spinner on stderr, or a no-op where a spinner would be noise (pipes, CI, --json, --quiet). */
  spinner(text: string): { update(text: string): void; stop(): void };
  /** A command for the user to run next (`["session", "restore", id]`), with the store flags given to this one. */
  command(words: readonly string[]): string;
  /** Ask a yes/no question on the terminal (only when `interactive`); a closed terminal or Ctrl-C answers no. */
  confirm(question: string): Promise<boolean>;
}

/**
 * --color and --no-color decide; else NO_COLOR turns colour off and FORCE_COLOR (1–3; 0 or "false" means off) on,
 * as chalk's own conventions have it; else colour only on a terminal.
 */
function colorLevel(flag: boolean | undefined, env: NodeJS.ProcessEnv, tty: boolean): 0 | 1 | 2 | 3 {
  if (flag === true) return forcedLevel(env.FORCE_COLOR) || 1;
  if (flag === false || "NO_COLOR" in env) return 0;
  if (env.FORCE_COLOR !== undefined) return forcedLevel(env.FORCE_COLOR);
  return tty ? 1 : 0;
}

function forcedLevel(value: string | undefined): 0 | 1 | 2 | 3 {
  if (value === undefined) return 0;
  if (value === "" || value === "true") return 1;
  const n = Number(value);
  return n === 1 || n === 2 || n === 3 ? n : 0;
}

let stdoutOpen = true;

/** The reader of stdout went away (EPIPE): nothing more is written there; the run goes on to its exit code. */
export function stdoutClosed(): void {
  stdoutOpen = false;
}

export function createIo(options: GlobalOptions, env: NodeJS.ProcessEnv = process.env): Io {
  const json = options.json === true;
  const quiet = options.quiet === true;
  const level = colorLevel(options.color, env, process.stdout.isTTY === true);
  const colorWanted = level > 0 || (options.color !== false && !("NO_COLOR" in env));
  const color = new Chalk({ level });
  // A spinner is escape codes too (colour, cursor, line clearing): whoever turns colour off gets none.
  const spinnerAllowed = process.stderr.isTTY === true && colorWanted && !json && !quiet && !env.CI;
  return {
    json,
    quiet,
    interactive: process.stdin.isTTY === true && process.stdout.isTTY === true && !json,
    color,
    out: (text) => void (stdoutOpen && process.stdout.write(text)),
    err: (text) => void process.stderr.write(text),
    command: (words) => commandLine(words, options),
    // A note quotes paths and ids from the store: escaped and shortened like every other store text.
    note: (text) => void (quiet || process.stderr.write(`${color.yellow("note:")} ${safeMessage(text)}\n`)),
    spinner(text) {
      if (!spinnerAllowed) return { update() {}, stop() {} };
      // ora and its dependencies take a noticeable share of start-up: load them only for a person at a terminal.
      let spinner: Ora | undefined;
      let stopped = false;
      void import("ora").then(({ default: ora }) => {
        if (!stopped) spinner = ora({ text, stream: process.stderr }).start();
      });
      return {
        update: (t) => {
          text = t;
          if (spinner) spinner.text = t;
        },
        stop: () => {
          stopped = true;
          spinner?.stop();
        },
      };
    },
    async confirm(question) {
      // inquirer is loaded only when a person is asked something; the prompt goes to stderr, beside the diffs.
      const { createPromptModule } = await import("inquirer");
      const prompt = createPromptModule({ output: process.stderr });
      try {
        const answer = await prompt<{ ok: boolean }>([{ type: "confirm", name: "ok", message: question, default: false }]);
        return answer.ok === true;
      } catch (error) {
        // Ctrl-C at the prompt is an interrupt, not a "no": exit 130 as a shell expects after SIGINT. A closed
        // terminal (Ctrl-D, end of input) is inquirer's ExitPromptError too, but without SIGINT: that is a "no".
        const { name, message } = (error ?? {}) as Partial<Error>;
        if (name === "ExitPromptError" && /SIGINT/.test(message ?? "")) throw new RecoverError("interrupted", "interrupted; nothing was changed", ExitCode.interrupted);
        return false;
      }
    },
  };
}
