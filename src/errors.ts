/**
 * Errors a user can act on. Anything thrown as a RecoverError is printed as one line (or one JSON document)
 * and ends the run with the exit code `cli/exit-codes.ts` gives its code; anything else is a bug and is reported as such, still without a stack trace unless
 * RECOVER_DEBUG is set.
 */
export const ExitCode = {
  ok: 0,
  findings: 1,
  usage: 2,
  refused: 3,
  /** Ctrl-C: what a shell reports for a process ended by SIGINT (128 + 2), at a prompt as during a write. */
  interrupted: 130,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export type ErrorCode =
  | "usage"
  | "store-not-found"
  | "not-a-store"
  | "store-unreadable"
  | "store-corrupt"
  | "store-busy"
  | "unsupported-store"
  | "unsupported-repository"
  | "permission-denied"
  | "no-space"
  | "read-only-filesystem"
  | "store-read-only"
  | "native-module-missing"
  | "session-not-found"
  | "session-ambiguous"
  | "invalid-id"
  | "store-changed"
  | "store-locked"
  | "live-writer"
  | "needs-confirmation"
  | "not-confirmed"
  | "backup-not-found"
  | "backup-unreadable"
  | "backup-unwritable"
  | "backup-unverified"
  | "thinking-bound"
  | "state-unwritable"
  | "output-unwritable"
  | "restore-conflict"
  | "interrupted-transaction"
  | "not-a-transcript"
  | "fix-failed"
  | "interrupted"
  | "internal";

/** A command that helps with the error (`recover session list` after an unknown id); the CLI adds the user's store flags. */
export interface NextStep {
  words: string[];
  /** What running it does, as the end of a sentence: "to see them". */
  why: string;
  /** The pokeralph project a battle command acts on: the CLI names it with --repo unless it is the cwd. */
  repo?: string;
}

/** An error carries what went wrong (its code); which exit code that is, is the CLI's to say, in one table. */
export class RecoverError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly next?: NextStep,
  ) {
    super(message);
    this.name = "RecoverError";
  }
}

/** The errno code of a Node fs error (ENOENT, ENOSPC, …), if it is one. */
export function errnoCode(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === "string" && /^E[A-Z]+$/.test(code) ? code : undefined;
}

/** Node's fs errors carry a code; turn the ones a user causes into RecoverErrors naming the path. */
export function fsError(error: unknown, path: string): RecoverError | undefined {
  const code = errnoCode(error);
  if (code === "ENOENT") return new RecoverError("store-not-found", `no such file or directory: ${path}`);
  if (code === "EACCES" || code === "EPERM") return new RecoverError("permission-denied", `permission denied: ${path}`);
  if (code === "ENOTDIR") return new RecoverError("not-a-store", `not a directory: ${path}`);
  if (code === "ENOSPC") return new RecoverError("no-space", `no space left on device: ${path}`);
  if (code === "EDQUOT") return new RecoverError("no-space", `disk quota exceeded: ${path}`);
  if (code === "EROFS") return new RecoverError("read-only-filesystem", `read-only filesystem: ${path}`);
  if (code === "EISDIR") return new RecoverError("not-a-store", `is a directory, not a file: ${path}`);
  if (code === "ELOOP") return new RecoverError("store-unreadable", `symbolic links that loop: ${path}`);
  if (code === "ENAMETOOLONG") return new RecoverError("store-unreadable", `file name too long: ${path}`);
  if (code === "EIO") return new RecoverError("store-unreadable", `input/output error (the disk or medium failed): ${path}`);
  if (code === "EMFILE" || code === "ENFILE") return new RecoverError("store-unreadable", `too many open files (raise ulimit -n): ${path}`);
  return undefined;
}

/**
 * Another writer (a recover with another state dir, the agent itself) changed the store while this run read or
 * wrote it: a race, refused for safety (exit 3), never "not found". `what` names the record or file.
 */
export function storeChanged(what: string): RecoverError {
  return new RecoverError("store-changed", `the store changed while recover worked (${what}); nothing was written; run again`);
}

/** Why a write failed, in words: the failures a user's machine causes, else the errno code or message. */
function writeFailure(error: unknown): string {
  const code = errnoCode(error);
  if (code === "ENOSPC") return "no space left on device";
  if (code === "EDQUOT") return "disk quota exceeded";
  if (code === "EROFS") return "read-only filesystem";
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  if (code === "EIO") return "input/output error: the disk or medium failed";
  if (code === "ELOOP") return "symbolic links that loop";
  if (code === "ENAMETOOLONG") return "file name too long";
  if (code === "EEXIST" || code === "ENOTDIR") return "a file is in the way where a folder must be";
  return code ?? (error as Error)?.message ?? String(error);
}

/**
 * Standard output could not be written (stdout redirected to a full disk, a read-only or vanished file): not the
 * closed pipe of `| head`, which only ends the output. The command itself ran to its end; what it printed is not all
 * there, so the run does not end as if it were.
 */
export function outputError(error: unknown): RecoverError {
  return new RecoverError(
    "output-unwritable",
    `could not write the output to stdout (${writeFailure(error)}): the command ran to its end, but what it printed is incomplete`,
  );
}

/**
 * A write of recover's own files (a backup, the journal, a lock) failed before anything reached the store: say why
 * in words, that nothing was changed, and what to do. `elsewhere` says how to put them somewhere else (`(place) =>
 * "pass --backup-dir <place>"`); the place it names follows the failure: a full or failing disk wants another disk,
 * a permission a folder this user can write, a file in the way a folder.
 */
export function ownWriteError(
  error: unknown,
  what: string,
  elsewhere: string | ((place: string) => string),
  otherwise: ErrorCode = "backup-unwritable",
): RecoverError {
  const code = errnoCode(error);
  const why = writeFailure(error);
  const advise = (place: string) => (typeof elsewhere === "string" ? elsewhere : elsewhere(place));
  if (code === "ENOSPC" || code === "EDQUOT") {
    return new RecoverError("no-space", `${why} while writing ${what}; nothing was changed; free space or ${advise("a dir on another disk")}`);
  }
  const place =
    code === "EACCES" || code === "EPERM"
      ? "a folder this user can write"
      : code === "EEXIST" || code === "ENOTDIR"
        ? "a folder, not a file"
        : code === "ELOOP"
          ? "a folder reached without a symlink loop"
          : "a dir on another disk";
  return new RecoverError(otherwise, `cannot write ${what} (${why}); nothing was changed; ${advise(place)}`);
}
