/**
 * Progress through many sessions, as a spinner on stderr at a terminal (io.spinner decides when: never with
 * --json, -q, CI or without a terminal): the sessions done out of all, the session being read, and what the
 * command has to say so far, e.g. `scanning 41/2,000 sessions · ses_04a1155ffe… · 12 findings`.
 */
import { formatCount } from "../model/format-count.js";
import type { Io } from "./io.js";
import { safeValue } from "./safe-text.js";

export interface SessionProgress {
  /**
   * One more session done; `extra` is the running tally the line ends with. Throws (`interrupted`) once the run was
   * asked to end (SIGTERM, SIGHUP): a loop over many sessions stops at the next one, before anything is written.
   */
  done(extra?: string): void;
  stop(): void;
}

/** An id on a spinner's one line: enough of it to recognise. */
const ID_CHARS = 40;

export async function sessionProgress(io: Io, verb: string, ids: readonly string[]): Promise<SessionProgress> {
  let done = 0;
  const line = (extra?: string) => {
    const reading = done < ids.length ? ` · ${safeValue(ids[done], ID_CHARS)}` : "";
    return `${verb} ${formatCount(done)}/${formatCount(ids.length)} session${ids.length === 1 ? "" : "s"}${reading}${extra ? ` · ${extra}` : ""}`;
  };
  const spinner = await io.spinner(line());
  return {
    done(extra) {
      io.throwIfEnded();
      done++;
      spinner.update(line(extra));
    },
    stop: () => spinner.stop(),
  };
}
