/**
 * The only place that knows about TTYs, colour, spinners and where output goes. Commands receive an Io and never
 * touch process.stdout/stderr themselves, so tests and pipes see exactly what a user would. Everything comes from
 * the CliContext the caller of main() gave (bin/recover gives the real process's): nothing here reads `process`.
 */
import { Chalk, type ChalkInstance } from "chalk";
import { RecoverError } from "../errors.js";
import { commandLine, invokedAs } from "./next-command.js";
import { safeMessage } from "./safe-text.js";

/** A stream main() writes to: the process's own, or a test's capture. */
export interface OutputStream {
  write(text: string): unknown;
  on?(event: "error", listener: (error: NodeJS.ErrnoException) => void): unknown;
  off?(event: "error", listener: (error: NodeJS.ErrnoException) => void): unknown;
  /** A Node stream's error once a write failed (set at once; its "error" event comes a tick later). */
  readonly errored?: Error | null;
}

/** Everything a run of the CLI gets from the outside world; bin/recover builds it from `process`. */
export interface CliContext {
  stdout: OutputStream;
  stderr: OutputStream;
  /** Where a prompt reads its answer (only read when stdin and stdout are terminals). */
  stdin?: NodeJS.ReadableStream;
  /** All of standard input as text, read only when an argument says `-` (bin/recover reads the process's). */
  readInput?: () => string;
  env: NodeJS.ProcessEnv;
  /** Relative paths given on the command line resolve against this. */
  cwd: string;
  isTTY: { stdin: boolean; stdout: boolean; stderr: boolean };
  /** The terminal's width when stdout is one (help text wraps to it). */
  columns?: number;
  /** How the program was started (argv[1]): the commands printed for the user start the same way. */
  script?: string;
}

/** One run's state: its context, and whether the reader of stdout is still there. */
export interface RunState {
  context: CliContext;
  /** How the program was started: context.script, else argv[1]. */
  script: string | undefined;
  /** False once the reader of stdout went away (EPIPE) or a write failed: nothing more is written there; the run goes on. */
  stdoutOpen: boolean;
  /** The first failed write to stdout other than a closed pipe (a full disk): the run ends with it (main.ts). */
  stdoutError?: unknown;
  /** The program name for printed commands, worked out once per run. */
  program?: string;
}

/**
 * Writes to stdout while it is open. A failed write closes it for the rest of the run: a closed pipe (`| head`) only
 * ends the output, any other failure (a full disk) is kept for the run's end.
 */
export function writeStdout(run: RunState, text: string): void {
  if (!run.stdoutOpen) return;
  try {
    run.context.stdout.write(text);
  } catch (error) {
    stdoutFailed(run, error);
    return;
  }
  // A Node stream knows at once that the write failed; it says so in an "error" event a tick later.
  const failed = run.context.stdout.errored;
  if (failed) stdoutFailed(run, failed);
}

/** Called for a failed write to stdout, thrown at once or reported as the stream's "error" event. */
export function stdoutFailed(run: RunState, error: unknown): void {
  run.stdoutOpen = false;
  if ((error as NodeJS.ErrnoException | undefined)?.code !== "EPIPE") run.stdoutError ??= error;
}

/** stderr is where failures are told: when it cannot be written either, the exit code is all there is to say. */
function writeStderr(stderr: OutputStream, text: string): void {
  try {
    stderr.write(text);
  } catch {
    // Nowhere left to say it.
  }
}

export interface PickChoice {
  value: string;
  /** The line shown. */
  name: string;
  /** Shown under the list for the highlighted choice. */
  description?: string;
  /** What typing searches (lower case); the name when absent. */
  search?: string;
}

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
  /** Whether stdout still takes output: false once its reader went away or a write to it failed (a full disk). */
  stdoutOpen(): boolean;
  err(text: string): void;
  /** Something the user should know that is not a finding, on stderr; `-q` leaves it out. */
  note(text: string): void;
  /** A spinner on stderr, or a no-op where a spinner would be noise (pipes, CI, --json, --quiet). */
  spinner(text: string): Promise<{ update(text: string): void; stop(): void }>;
  /** A command for the user to run next (`["session", "restore", id]`), with the store flags given to this one. */
  command(words: readonly string[]): string;
  /** Ask a yes/no question on the terminal (only when `interactive`); a closed terminal or Ctrl-C answers no. */
  confirm(question: string): Promise<boolean>;
  /**
   * A searchable list on the terminal (only when `interactive`): the choice picked. Typing narrows the list to the
   * choices whose `search` text holds what was typed. Ctrl-C is an interrupt (exit 130); a closed terminal, exit 2.
   */
  pick(question: string, choices: readonly PickChoice[]): Promise<string>;
  /** The environment of this run (never process.env directly). */
  env: NodeJS.ProcessEnv;
  /** The working directory of this run: relative paths resolve against it. */
  cwd: string;
  /** All of standard input, for an argument given as `-`. */
  readInput(): string;
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

export function createIo(options: GlobalOptions, run: RunState): Io {
  const { context } = run;
  const { env, stderr, isTTY } = context;
  const json = options.json === true;
  const quiet = options.quiet === true;
  const level = colorLevel(options.color, env, isTTY.stdout);
  const colorWanted = level > 0 || (options.color !== false && !("NO_COLOR" in env));
  const color = new Chalk({ level });
  // A spinner is escape codes too (colour, cursor, line clearing): whoever turns colour off gets none.
  const spinnerAllowed = isTTY.stderr && colorWanted && !json && !quiet && !env.CI;
  // inquirer is loaded only when a person is asked something; its prompts go to stderr, beside the diffs.
  const promptOnStderr = async () => {
    const { createPromptModule } = await import("inquirer");
    return createPromptModule({ output: stderr as NodeJS.WritableStream, ...(context.stdin ? { input: context.stdin } : {}) });
  };
  return {
    json,
    quiet,
    interactive: isTTY.stdin && isTTY.stdout && !json,
    color,
    env,
    cwd: context.cwd,
    readInput: () => {
      if (!context.readInput) throw new RecoverError("usage", "this run has no standard input to read `-` from");
      return context.readInput();
    },
    out: (text) => writeStdout(run, text),
    stdoutOpen: () => run.stdoutOpen,
    err: (text) => writeStderr(stderr, text),
    command: (words) => {
      run.program ??= invokedAs(run.script, env, context.cwd);
      return commandLine(words, options, run.program);
    },
    // A note quotes paths and ids from the store: escaped and shortened like every other store text.
    note: (text) => void (quiet || writeStderr(stderr, `${color.yellow("note:")} ${safeMessage(text)}\n`)),
    async spinner(text) {
      if (!spinnerAllowed) return { update() {}, stop() {} };
      // ora and its dependencies take a noticeable share of start-up: load them only for a person at a terminal.
      const { default: ora } = await import("ora");
      const spinner = ora({ text, stream: stderr as NodeJS.WritableStream }).start();
      let drawn = 0;
      return {
        update: (t) => {
          spinner.text = t;
          // ora draws on a timer, which a loop that reads session after session rarely lets run: draw here too, the
          // first change at once, then at most every 100 ms.
          const now = Date.now();
          if (now - drawn >= 100) {
            drawn = now;
            spinner.render();
          }
        },
        stop: () => spinner.stop(),
      };
    },
    async confirm(question) {
      const prompt = await promptOnStderr();
      try {
        const answer = await prompt<{ ok: boolean }>([{ type: "confirm", name: "ok", message: question, default: false }]);
        return answer.ok === true;
      } catch (error) {
        refuseInterrupt(error);
        // A closed terminal (Ctrl-D, end of input) is a "no".
        return false;
      }
    },
    async pick(question, choices) {
      const prompt = await promptOnStderr();
      const source = async (term: string | undefined) => {
        const wanted = (term ?? "").trim().toLowerCase();
        return choices
          .filter((c) => wanted === "" || (c.search ?? c.name.toLowerCase()).includes(wanted))
          .map((c) => ({ value: c.value, name: c.name, ...(c.description !== undefined ? { description: c.description } : {}) }));
      };
      try {
        const answer = await prompt<{ picked: string }>([{ type: "search", name: "picked", message: question, source, pageSize: 12 }]);
        return answer.picked;
      } catch (error) {
        refuseInterrupt(error);
        throw new RecoverError("usage", "no session picked (the terminal closed); give a session id");
      }
    },
  };
}

/**
 * Ctrl-C at a prompt is an interrupt, not an answer: exit 130 as a shell expects after SIGINT. A closed terminal is
 * inquirer's ExitPromptError too, but without SIGINT: each prompt says what that means for it.
 */
function refuseInterrupt(error: unknown): void {
  const { name, message } = (error ?? {}) as Partial<Error>;
  if (name === "ExitPromptError" && /SIGINT/.test(message ?? "")) throw new RecoverError("interrupted", "interrupted; nothing was changed");
}
