/**
 * What every command shares: the global options, one way to open the store, and one place that turns a result
 * or an error into output and an exit code.
 */
import { resolve } from "node:path";
import { exitCodeOf } from "./exit-codes.js";
import type { Command } from "commander";
import { fsError, RecoverError } from "../errors.js";
import type { SessionStore } from "../stores/store.js";
import type { SessionsAbout } from "./every-store.js";
import type { Discovery, FoundStore } from "../stores/discover.js";
import type { TransactionOptions } from "../txn/store-transaction.js";
import { createIo, type GlobalOptions, type Io, type RunState } from "./io.js";
import { errorDocument } from "./json-output.js";
import { safeCommand, safeMessage } from "./safe-text.js";

export type Handler<O> = (context: { args: string[]; options: O & GlobalOptions; io: Io; command: Command }) => number | Promise<number>;

/** One parse of one program: the run it serves, and the exit code its action decided. */
interface ProgramRun {
  run: RunState;
  exitCode: number;
}

// Keyed by the program object each main() call builds: two calls (tests in one process) never see each other's.
const runs = new WeakMap<Command, ProgramRun>();

function rootOf(command: Command): Command {
  let root = command;
  while (root.parent) root = root.parent;
  return root;
}

/** Tie a freshly built program to the run it serves; its actions find their context and exit code here. */
export function bindRun(program: Command, run: RunState): { exitCode(): number } {
  const state: ProgramRun = { run, exitCode: 0 };
  runs.set(program, state);
  return { exitCode: () => state.exitCode };
}

function runOf(command: Command): ProgramRun {
  const state = runs.get(rootOf(command));
  if (!state) throw new Error("a command ran outside main(): no run bound to its program");
  return state;
}

/** Wrap a command handler: globals merged in, errors printed as one line (or one JSON document), exit code set. */
export function action<O>(handler: Handler<O>) {
  return async (...received: unknown[]): Promise<void> => {
    const command = received.at(-1) as Command;
    const state = runOf(command);
    const options = command.optsWithGlobals() as O & GlobalOptions;
    const io = createIo(options, state.run);
    const args = received.slice(0, -2).flatMap((a) => (Array.isArray(a) ? a : a === undefined ? [] : [a])) as string[];
    try {
      state.exitCode = await handler({ args, options, io, command });
    } catch (error) {
      state.exitCode = reportError(error, io);
    }
  };
}

export function reportError(error: unknown, io: Pick<Io, "json" | "out" | "stdoutOpen" | "err" | "command" | "env" | "cwd">): number {
  const known =
    error instanceof RecoverError
      ? error
      : (environmentError(error) ??
        new RecoverError("internal", `internal error: ${(error as Error)?.message ?? String(error)} (please report it; RECOVER_DEBUG=1 shows the stack)`));
  if (io.env.RECOVER_DEBUG && error instanceof Error) io.err(`${error.stack}\n`);
  const message = errorMessage(known, io);
  if (io.json) io.out(errorDocument({ code: known.code, message }));
  // Messages quote ids and paths from the store: escaped and shortened for a terminal, exact in the JSON document.
  // A JSON document stdout did not take (a full disk, a closed pipe) is said on stderr as well: the reason must reach
  // someone.
  if (!io.json || !io.stdoutOpen()) io.err(`recover: ${errorMessage(known, io, true)}\n`);
  return exitCodeOf(known);
}

/**
 * An error's message as the user reads it: with its next step, as a command that works pasted where this one ran.
 * `forTerminal`: the message escaped and shortened as store text is, the command whole (safe-text.ts).
 */
export function errorMessage(error: RecoverError, io: Pick<Io, "command" | "cwd">, forTerminal = false): string {
  const text = forTerminal ? safeMessage(error.message) : error.message;
  const next = error.next;
  if (!next) return text;
  const command = commandIn(io, next.repo)(next.words);
  return `${text} (run \`${forTerminal ? safeCommand(command) : command}\` ${next.why})`;
}

/**
 * Printed commands about the pokeralph project `root`: named with `--repo` unless it is the folder they will be
 * pasted in (this run's cwd).
 */
export function commandIn(io: Pick<Io, "command" | "cwd">, root: string | undefined): (words: readonly string[]) => string {
  return (words) => io.command(root !== undefined && root !== io.cwd ? [...words, "--repo", root] : words);
}

/**
 * The last net for the machine's own failures (a full disk, a read-only filesystem, a permission) that no caller
 * put into words: still one line naming the path, not a bug report.
 */
function environmentError(error: unknown): RecoverError | undefined {
  const { path, syscall } = (error ?? {}) as NodeJS.ErrnoException;
  return fsError(error, path ?? `(during ${syscall ?? "a file operation"})`);
}

/**
 * Run `work` on the store the user means: the one `--store`/`--format` name; else, among every agent's store found at
 * its default place (`--agent` narrowing them), the one that holds the sessions `about` names (ids, `--last`), or the
 * only one found. The chosen store then stands in `options.store`, so every command printed for it pastes back.
 */
export async function withStore<T>(
  options: GlobalOptions & Pick<TransactionOptions, "resolving">,
  io: Io,
  /** `picked`: the session the user picked from every store's list (no session named, at a terminal). */
  work: (store: SessionStore, picked?: string[]) => T | Promise<T>,
  about: SessionsAbout = { ids: [] },
): Promise<T> {
  // Every store's code, loaded only by a command that opens one: `--help` and `--version` start without it.
  const [{ settleJournal }, { storeHolding, whereLooked }] = await Promise.all([import("./mutation.js"), import("./every-store.js")]);
  const use = async (store: SessionStore, picked?: string[]) => {
    settleJournal(store, io.env, options.resolving);
    return await work(store, picked);
  };
  if (options.store !== undefined || options.format !== undefined) return withNamedStore(options, io, use);
  return withEveryStore(options, io, async (stores, discovery) => {
    const named = about.ids.length > 0 || about.last === true;
    if (!named && stores.length > 1 && about.verb !== undefined && io.interactive) {
      const { pickAcrossStores } = await import("./pick-session.js");
      const { found, id } = await pickAcrossStores(stores, io, about.verb);
      options.store = found.store.info.path;
      return await use(found.store, [id]);
    }
    if (!named && stores.length > 1) {
      throw new RecoverError(
        "usage",
        `sessions of ${stores.length} agents found (${stores.map((f) => `${f.agent} ${f.store.info.path}`).join(", ")}): name a session, or one agent with --agent or --store`,
      );
    }
    const chosen = named ? storeHolding(discovery, stores, about, io) : stores[0];
    if (!chosen) throw new RecoverError("store-not-found", `${whereLooked(discovery, stores)}; pass --store <path>`);
    // Printed commands name it as --store would: pasted in another shell (another HOME, another XDG_DATA_HOME) they
    // still reach this store, never another agent's default one.
    options.store = chosen.store.info.path;
    return await use(chosen.store);
  });
}

/** The one store `--store`/`--format` name, open while `work` runs. */
async function withNamedStore<T>(options: GlobalOptions, io: Pick<Io, "env" | "cwd">, work: (store: SessionStore) => T | Promise<T>): Promise<T> {
  const { openStore } = await import("../stores/discover.js");
  const store = openStore({
    ...(options.store !== undefined ? { store: resolve(io.cwd, options.store) } : {}),
    ...(options.format !== undefined ? { format: options.format } : {}),
    ...(options.restoring ? { emptyAllowed: true as const } : {}),
    env: io.env,
  });
  try {
    return await work(store);
  } finally {
    store.close();
  }
}

/** Every agent's store found at its default place (`--agent` narrowing them), open while `work` runs; problems noted. */
async function withEveryStore<T>(
  options: GlobalOptions,
  io: Pick<Io, "env" | "note">,
  work: (stores: FoundStore[], discovery: Discovery) => T | Promise<T>,
): Promise<T> {
  const [{ discoverStores }, { storeAdapters }, { ofAgents }] = await Promise.all([
    import("../stores/discover.js"),
    import("../stores/registry.js"),
    import("./every-store.js"),
  ]);
  const discovery = discoverStores(io.env);
  for (const problem of discovery.problems) io.note(problem);
  try {
    return await work(ofAgents(discovery.found, options.agent, [...new Set(storeAdapters().map((a) => a.agent))]), discovery);
  } finally {
    for (const f of discovery.found) f.store.close();
  }
}

/** The sessions a command names (`ids`, `--all`, `--last`), and how it treats none at all (select-sessions.ts). */
export interface SessionChoice {
  ids: string[];
  all?: boolean;
  last?: boolean;
  emptyMeansAll: boolean;
  acceptsAll?: boolean;
  /** What the command does to them, for the picker's question at a terminal. */
  verb: string;
}

/**
 * `withStore`, then the sessions in it the user means: the ones named, `--last`, `--all`, or (none named, at a
 * terminal) the one picked from every store's list.
 */
export async function withSessions<T>(
  options: GlobalOptions & Pick<TransactionOptions, "resolving">,
  io: Io,
  choice: SessionChoice,
  work: (store: SessionStore, ids: string[]) => T | Promise<T>,
): Promise<T> {
  const { ids, all, last, verb } = choice;
  const about = { ids, ...(last ? { last: true } : {}), verb };
  return withStore(
    options,
    io,
    async (store, picked) => {
      const { chooseSessions } = await import("./pick-session.js");
      const selection = { ids, ...(all ? { all: true } : {}), ...(last ? { last: true } : {}) };
      const rules = { emptyMeansAll: choice.emptyMeansAll, ...(choice.acceptsAll !== undefined ? { acceptsAll: choice.acceptsAll } : {}) };
      return work(store, picked ?? (await chooseSessions(store, selection, rules, io, verb)));
    },
    about,
  );
}

/**
 * Run `work` on every store the user means, each with its agent: the one `--store`/`--format` names, else every
 * agent's store found at its default place (`--agent` narrowing them). None found is an error that says where it
 * looked; a store there but unreadable is a note. An interrupted repair of any of them is settled first.
 */
export async function withStores<T>(
  options: GlobalOptions,
  io: Pick<Io, "env" | "cwd" | "note">,
  work: (stores: FoundStore[], looked: Pick<Discovery, "lookedIn" | "problems">) => T | Promise<T>,
): Promise<T> {
  const [{ storeAdapter }, { whereLooked }, { settleJournal }] = await Promise.all([
    import("../stores/registry.js"),
    import("./every-store.js"),
    import("./mutation.js"),
  ]);
  if (options.store !== undefined || options.format !== undefined) {
    return withNamedStore(options, io, (store) => {
      settleJournal(store, io.env, undefined);
      return work([{ agent: storeAdapter(store.info.format)?.agent ?? store.info.format, store }], { lookedIn: [], problems: [] });
    });
  }
  return withEveryStore(options, io, (stores, discovery) => {
    if (stores.length === 0) throw new RecoverError("store-not-found", `${whereLooked(discovery, stores)}; pass --store <path>`);
    for (const f of stores) settleJournal(f.store, io.env, undefined);
    return work(stores, discovery);
  });
}

/** A whole number, 0 included. */
export function parseCount(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 0) throw new RecoverError("usage", `${name} takes a whole number (0 or more), got ${JSON.stringify(value)}`);
    return n;
  };
}

export function parsePositiveInt(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n <= 0) throw new RecoverError("usage", `${name} takes a positive whole number, got ${JSON.stringify(value)}`);
    return n;
  };
}
