/**
 * What every command shares: the global options, one way to open the store, and one place that turns a result
 * or an error into output and an exit code.
 */
import type { Command } from "commander";
import { ExitCode, fsError, RecoverError } from "../errors.js";
import { openStore } from "../stores/discover.js";
import type { SessionStore } from "../stores/store.js";
import { createIo, type GlobalOptions, type Io } from "./io.js";
import { errorDocument } from "./json-output.js";
import { settleJournal } from "./mutation.js";
import { safeMessage } from "./safe-text.js";

export type Handler<O> = (context: { args: string[]; options: O & GlobalOptions; io: Io; command: Command }) => number | Promise<number>;

/** Wrap a command handler: globals merged in, errors printed as one line (or one JSON document), exit code set. */
export function action<O>(handler: Handler<O>) {
  return async (...received: unknown[]): Promise<void> => {
    const command = received.at(-1) as Command;
    const options = command.optsWithGlobals() as O & GlobalOptions;
    const io = createIo(options);
    const args = received.slice(0, -2).flatMap((a) => (Array.isArray(a) ? a : a === undefined ? [] : [a])) as string[];
    try {
      process.exitCode = await handler({ args, options, io, command });
    } catch (error) {
      process.exitCode = reportError(error, io);
    }
  };
}

export function reportError(error: unknown, io: Pick<Io, "json" | "out" | "err" | "command">): number {
  const known =
    error instanceof RecoverError
      ? error
      : environmentError(error) ??
        new RecoverError("internal", `internal error: ${(error as Error)?.message ?? String(error)} (please report it; RECOVER_DEBUG=1 shows the stack)`, ExitCode.usage);
  if (process.env.RECOVER_DEBUG && error instanceof Error) io.err(`${error.stack}\n`);
  const message = known.next ? `${known.message} (run \`${io.command(known.next.words)}\` ${known.next.why})` : known.message;
  if (io.json) io.out(errorDocument({ code: known.code, message }));
  // Messages quote ids and paths from the store: escaped and shortened for a terminal, exact in the JSON document.
  else io.err(`recover: ${safeMessage(message)}\n`);
  return known.exitCode;
}

/**
 * The last net for the machine's own failures (a full disk, a read-only filesystem, a permission) that no caller
 * put into words: still one line naming the path, not a bug report.
 */
function environmentError(error: unknown): RecoverError | undefined {
  const { path, syscall } = (error ?? {}) as NodeJS.ErrnoException;
  return fsError(error, path ?? `(during ${syscall ?? "a file operation"})`);
}

export async function withStore<T>(options: GlobalOptions, work: (store: SessionStore) => T | Promise<T>): Promise<T> {
  const store = openStore({ ...(options.store !== undefined ? { store: options.store } : {}), ...(options.format !== undefined ? { format: options.format } : {}) });
  try {
    settleJournal(store);
    return await work(store);
  } finally {
    store.close();
  }
}

export function parsePositiveInt(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n <= 0) throw new RecoverError("usage", `${name} takes a positive whole number, got ${JSON.stringify(value)}`);
    return n;
  };
}
