/**
 * The only place that knows about TTYs, colour, spinners and where output goes. Commands receive an Io and never
 * touch process.stdout/stderr themselves, so tests and pipes see exactly what a user would. Everything comes from
 * the CliContext the caller of main() gave (bin/recover gives the real process's): nothing here reads `process`.
 */
import { resolve as resolvePath } from "node:path";
import { isatty, type ReadStream } from "node:tty";
import { Chalk, type ChalkInstance } from "chalk";
import type { createPromptModule as createPromptModuleType } from "inquirer";
import { RecoverError } from "../errors.js";
import { commandLine, invokedAs } from "./next-command.js";
import { safeMessage } from "./safe-text.js";

/** A stream main() writes to: the process's own, or a test's capture. */
export interface OutputStream {
  write(text: string): unknown;
  on?(event: "error", listener: (error: NodeJS.ErrnoException) => void): unknown;
  /** A terminal's "resize": its columns and rows changed (SIGWINCH). */
  on?(event: "resize", listener: () => void): unknown;
  off?(event: "error", listener: (error: NodeJS.ErrnoException) => void): unknown;
  off?(event: "resize", listener: () => void): unknown;
  /** A Node stream's error once a write failed (set at once; its "error" event comes a tick later). */
  readonly errored?: Error | null;
  /** A terminal's size as it last said (0 or absent: unknown, as on a pseudo-terminal whose size was never set). */
  readonly columns?: number;
  readonly rows?: number;
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
  /**
   * Aborted when the process is asked to end (bin/recover: SIGTERM, or SIGHUP, which a closing terminal sends); its
   * reason is the signal's name. The run stops at its next step: a prompt is cancelled, a spinner stops, a loop over
   * sessions ends, nothing more is written (a write under way is one synchronous step: it finishes first). main()
   * then returns 128 + the signal's number, as a shell reports a process the signal ended.
   */
  signal?: AbortSignal;
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
  /** `--agent`, repeatable: only these agents' stores, when none is named with --store. */
  agent?: string[];
  json?: boolean;
  quiet?: boolean;
  color?: boolean;
  yes?: boolean;
  backupDir?: string;
  /** Not a flag: `session restore` opens a store its repair may have left with no session (StoreOptions.emptyAllowed). */
  restoring?: true;
}

export interface Io {
  json: boolean;
  quiet: boolean;
  /** Prompts are allowed only for a person at a terminal (stdin, stdout and stderr, where they go), never with --json. */
  interactive: boolean;
  color: ChalkInstance;
  out(text: string): void;
  /** Whether stdout still takes output: false once its reader went away or a write to it failed (a full disk). */
  stdoutOpen(): boolean;
  err(text: string): void;
  /** Something the user should know that is not a finding, on stderr; `-q` leaves it out. */
  note(text: string): void;
  /**
   * A spinner on stderr, or a no-op where a spinner would be noise (pipes, CI, --json, --quiet) or cannot be drawn
   * (a terminal of unknown or too small a size). It stops by itself when the terminal shrinks below that while it
   * turns, and when the run is asked to end.
   */
  spinner(text: string): Promise<{ update(text: string): void; stop(): void }>;
  /** The program's own file as started (bin/recover), absolute: what a hook recover installs runs. */
  scriptPath?: string;
  /** Throws (an `interrupted` error) once the run was asked to end (CliContext.signal): called between steps. */
  throwIfEnded(): void;
  /** A command for the user to run next (`["session", "restore", id]`), with the store flags given to this one. */
  command(words: readonly string[]): string;
  /**
   * Ask a yes/no question on the terminal (only when `interactive`); a closed terminal answers no, Ctrl-C is an
   * interrupt (exit 130), and a run asked to end (SIGTERM, SIGHUP) stops there.
   */
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
  const ending = context.signal ?? new AbortController().signal;
  const throwIfEnded = () => {
    if (ending.aborted) throw endedError(ending.reason);
  };
  // A spinner is escape codes too (colour, cursor, line clearing): whoever turns colour off gets none.
  const spinnerAllowed = isTTY.stderr && colorWanted && !json && !quiet && !env.CI;
  // Whoever turns colour off (--no-color, NO_COLOR, not a terminal) gets prompts without it too: inquirer styles
  // with node's styleText, which on Node 20 colours whatever it is told.
  const plain = colorWanted ? {} : { theme: PLAIN_PROMPT_THEME };
  // inquirer is loaded only when a person is asked something; its prompts go to stderr, beside the diffs.
  const ask = async <T>(question: (prompt: PromptModule) => Promise<T>): Promise<T> => {
    throwIfEnded();
    const { createPromptModule } = await import("inquirer");
    const input = context.stdin;
    guardTerminalInput(input);
    // The prompt is cancelled when the run is asked to end, and when the terminal closes: its input ends (a terminal
    // that hung up reads as the end of input) and inquirer itself would wait on forever.
    const cancel = new AbortController();
    const onEnding = () => cancel.abort(ending.reason);
    const onClosed = () => cancel.abort(TERMINAL_CLOSED);
    ending.addEventListener("abort", onEnding);
    input?.once("end", onClosed);
    if (input && terminalGone(input)) onClosed();
    try {
      const prompt = createPromptModule<never>({ output: stderr as NodeJS.WritableStream, signal: cancel.signal, ...(input ? { input } : {}) });
      return await question(prompt);
    } catch (error) {
      refuseInterrupt(error);
      throwIfEnded();
      throw error;
    } finally {
      ending.removeEventListener("abort", onEnding);
      input?.removeListener("end", onClosed);
    }
  };
  return {
    json,
    quiet,
    // A prompt is written to stderr: where that is not the terminal (`2>file`), nobody would see the question.
    interactive: isTTY.stdin && isTTY.stdout && isTTY.stderr && !json,
    color,
    env,
    cwd: context.cwd,
    ...(run.script !== undefined ? { scriptPath: resolvePath(context.cwd, run.script) } : {}),
    readInput: () => {
      if (!context.readInput) throw new RecoverError("usage", "this run has no standard input to read `-` from");
      // Nothing piped in: a person at the terminal is to type or paste it, and must be told how to end.
      if (isTTY.stdin && isTTY.stderr) writeStderr(stderr, "paste the error text, then press Ctrl-D on a line of its own:\n");
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
    throwIfEnded,
    async spinner(text) {
      if (!spinnerAllowed || !spinnerFits(stderr) || ending.aborted) return NO_SPINNER;
      // ora swallows what is typed while it turns (its stdin-discarder switches the terminal to raw mode and back).
      if (isTTY.stdin) guardTerminalInput(context.stdin);
      // ora and its dependencies take a noticeable share of start-up: load them only for a person at a terminal.
      const { default: ora } = await import("ora");
      if (!spinnerFits(stderr) || ending.aborted) return NO_SPINNER;
      let wanted = text;
      const spinner = ora({ text: oneLine(wanted, stderr.columns!), stream: stderr as NodeJS.WritableStream }).start();
      let drawn = 0;
      let stopped = false;
      const stop = () => {
        if (stopped) return;
        stopped = true;
        stderr.off?.("resize", onResize);
        ending.removeEventListener("abort", stop);
        spinner.stop();
      };
      // Resized while it turns: still one line at the new width, or, below what it can draw on, stopped. ora reads
      // the size anew at each frame and would count the lines of the last one to clear as Infinity at 0 columns (a
      // synchronous loop that nothing ends); the new size is first known here (Node's SIGWINCH handler updates the
      // stream, then says "resize"), so no frame is drawn at it before this ran.
      const onResize = () => {
        if (!spinnerFits(stderr)) stop();
        else spinner.text = oneLine(wanted, stderr.columns!);
      };
      stderr.on?.("resize", onResize);
      ending.addEventListener("abort", stop);
      return {
        update: (t) => {
          if (stopped) return;
          wanted = t;
          spinner.text = oneLine(t, stderr.columns!);
          // ora draws on a timer, which a loop that reads session after session rarely lets run: draw here too, the
          // first change at once, then at most every 100 ms.
          const now = Date.now();
          if (now - drawn >= 100) {
            drawn = now;
            spinner.render();
          }
        },
        stop,
      };
    },
    async confirm(question) {
      try {
        return await ask(async (prompt) => {
          const answer = await prompt<{ ok: boolean }>([{ type: "confirm", name: "ok", message: question, default: false, ...plain }]);
          return answer.ok === true;
        });
      } catch (error) {
        if (error instanceof RecoverError) throw error;
        // A closed terminal (end of input, a terminal that hung up) is a "no".
        return false;
      }
    },
    async pick(question, choices) {
      const source = async (term: string | undefined) => {
        const wanted = (term ?? "").trim().toLowerCase();
        return choices
          .filter((c) => wanted === "" || (c.search ?? c.name.toLowerCase()).includes(wanted))
          .map((c) => ({ value: c.value, name: c.name, ...(c.description !== undefined ? { description: c.description } : {}) }));
      };
      try {
        return await ask(async (prompt) => {
          const answer = await prompt<{ picked: string }>([{ type: "search", name: "picked", message: question, source, pageSize: 12, ...plain }]);
          return answer.picked;
        });
      } catch (error) {
        if (error instanceof RecoverError) throw error;
        throw new RecoverError("usage", "no session picked (the terminal closed); give a session id");
      }
    },
  };
}

type PromptModule = ReturnType<typeof createPromptModuleType<never>>;

const NO_SPINNER = { update() {}, stop() {} };

/** Why a prompt was cancelled when its terminal closed. */
const TERMINAL_CLOSED = "the terminal closed";

/**
 * The narrowest terminal a spinner is drawn on: its frame, a space and enough of what it says to mean something.
 * Below it, or at a size the terminal does not tell (0 columns or 0 rows: a pseudo-terminal whose size was never
 * set), there is none: progress is not worth a line that cannot be cleared as it was drawn.
 */
const SPINNER_MIN_COLUMNS = 20;

function spinnerFits(stream: OutputStream): boolean {
  return (stream.columns ?? 0) >= SPINNER_MIN_COLUMNS && (stream.rows ?? 0) >= 1;
}

/**
 * A spinner's text cut to one line of `columns` with its frame and a space before it and the last column left
 * free: a frame never wraps, so ora clears exactly the line it drew and never one above it. Widths are counted
 * high (every character from U+1100 up as two columns), so a wide character cannot push the line over.
 */
function oneLine(text: string, columns: number): string {
  const room = columns - 3;
  let width = 0;
  let cut = -1;
  let index = 0;
  for (const ch of text) {
    width += ch.codePointAt(0)! >= 0x1100 ? 2 : 1;
    if (cut < 0 && width > room - 2) cut = index;
    if (width > room) return `${text.slice(0, cut)}…`;
    index += ch.length;
  }
  return text;
}

/** A terminal's input as Node gives it (process.stdin): a tty.ReadStream with its file descriptor. */
type TerminalInput = Partial<ReadStream> & { fd?: number; readableEnded?: boolean };

/** The input of a terminal that hung up (closed): no longer a terminal at all. */
function terminalGone(input: NodeJS.ReadableStream): boolean {
  const { fd, isTTY, readableEnded } = input as TerminalInput;
  return readableEnded === true || (typeof fd === "number" && isTTY === true && !isatty(fd));
}

const guarded = new WeakSet<object>();

/**
 * A terminal's input in raw mode (a prompt's readline, the spinner's stdin-discarder) is switched back when they
 * are done. A terminal that closed (hung up) meanwhile refuses that: setRawMode emits EIO as an "error", which
 * readline re-emits where no one listens, and the process dies with a stack (and Node then aborts as it exits). With
 * the terminal gone there is no mode to restore: the switch is skipped.
 */
function guardTerminalInput(input: NodeJS.ReadableStream | undefined): void {
  const tty = input as TerminalInput | undefined;
  if (!tty || typeof tty.setRawMode !== "function" || typeof tty.fd !== "number" || guarded.has(tty)) return;
  guarded.add(tty);
  const { fd, setRawMode } = tty;
  tty.setRawMode = function (this: ReadStream, mode: boolean) {
    return isatty(fd) ? setRawMode.call(this, mode) : this;
  };
}

/** The run was asked to end (CliContext.signal): said as the signal that asked. */
function endedError(reason: unknown): RecoverError {
  return new RecoverError("interrupted", `stopped by ${typeof reason === "string" ? reason : "a signal"}; nothing was changed`);
}

/**
 * Ctrl-C at a prompt is an interrupt, not an answer: exit 130 as a shell expects after SIGINT. A closed terminal is
 * inquirer's ExitPromptError too, but without SIGINT: each prompt says what that means for it.
 */
function refuseInterrupt(error: unknown): void {
  const { name, message } = (error ?? {}) as Partial<Error>;
  if (name === "ExitPromptError" && /SIGINT/.test(message ?? "")) throw new RecoverError("interrupted", "interrupted; nothing was changed");
}

/** inquirer's theme with every style a plain string: the same words and marks, no escape codes. */
const same = (text: string) => text;
const PLAIN_PROMPT_THEME = {
  prefix: { idle: "?", done: "✔" },
  spinner: { interval: 80, frames: ["-", "\\", "|", "/"] },
  style: {
    answer: same,
    message: same,
    error: (text: string) => `> ${text}`,
    defaultAnswer: (text: string) => `(${text})`,
    help: same,
    highlight: same,
    key: (text: string) => `<${text}>`,
    // confirm: the default answer's letter in capitals, as inquirer shows it ("y/N")
    confirmDefault: (text: string) => text.toUpperCase(),
    // search
    disabled: (text: string) => `- ${text}`,
    searchTerm: same,
    description: same,
    keysHelpTip: (keys: [string, string][]) => keys.map(([key, action]) => `${key} ${action}`).join(" • "),
  },
};
