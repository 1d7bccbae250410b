import { constants } from "node:os";
import { ExitCode, type ErrorCode, type RecoverError } from "../errors.js";

/**
 * What each error code means to a shell, in one place. The README's contract: 1 a finding or a change the user
 * declined, 2 usage or input error (fix the command or the input), 3 refused for safety (the store is busy, changed,
 * or writing would be unsafe: nothing was written; run again later or look first). A `Record` over every code, so a
 * new code does not compile until it has its exit code here.
 */
export const EXIT_CODES: Record<ErrorCode, ExitCode> = {
  usage: ExitCode.usage,
  "store-not-found": ExitCode.usage,
  "not-a-store": ExitCode.usage,
  "store-unreadable": ExitCode.usage,
  "store-corrupt": ExitCode.usage,
  "unsupported-store": ExitCode.usage,
  "not-a-transcript": ExitCode.refused,
  "permission-denied": ExitCode.usage,
  "no-space": ExitCode.usage,
  "read-only-filesystem": ExitCode.usage,
  "native-module-missing": ExitCode.usage,
  "session-not-found": ExitCode.usage,
  "session-ambiguous": ExitCode.usage,
  "invalid-id": ExitCode.usage,
  "backup-not-found": ExitCode.usage,
  "backup-unreadable": ExitCode.usage,
  "backup-unwritable": ExitCode.usage,
  "state-unwritable": ExitCode.usage,
  "output-unwritable": ExitCode.usage,
  "needs-confirmation": ExitCode.usage,
  internal: ExitCode.usage,
  "store-busy": ExitCode.refused,
  "store-changed": ExitCode.refused,
  "store-locked": ExitCode.refused,
  "store-read-only": ExitCode.refused,
  "live-writer": ExitCode.refused,
  "restore-conflict": ExitCode.refused,
  "backup-unverified": ExitCode.refused,
  "thinking-bound": ExitCode.refused,
  "interrupted-transaction": ExitCode.refused,
  "unsupported-repository": ExitCode.refused,
  "not-confirmed": ExitCode.findings,
  "fix-failed": ExitCode.findings,
  interrupted: ExitCode.interrupted,
};

export function exitCodeOf(error: RecoverError): ExitCode {
  return EXIT_CODES[error.code];
}

/**
 * How a run asked to end by a signal exits (CliContext.signal's reason is its name): 128 + its number, as a shell
 * reports a process the signal ended (SIGHUP 129, SIGTERM 143). Undefined for anything that names no signal.
 */
export function signalExitCode(signal: unknown): number | undefined {
  const number = typeof signal === "string" ? (constants.signals as Record<string, number | undefined>)[signal] : undefined;
  return number === undefined ? undefined : 128 + number;
}
