/**
 * Text from a store (titles, directories, ids, error texts, tool names, paths) printed for a person. A store is
 * anyone's bytes: a title holding `ESC]0;…BEL ESC[2J` would retitle and clear the user's terminal, a bidi override
 * would make a line read other than it is, and a 100 KB id would bury the output. So control characters are shown
 * as visible escapes (`\x1b`, `\u202e`) and long values keep their head and tail around a count.
 *
 * Human output only, and applied to each value before it is coloured, so chalk's own escape codes stay intact.
 * JSON documents keep every value exact: the encoder escapes control characters itself.
 */
import { formatCount } from "../model/format-count.js";
import { UNSAFE_CHAR } from "../model/shell-quote.js";

const UNSAFE = new RegExp(UNSAFE_CHAR.source, "g");

/**
 * A command printed for the user to paste is shown whole: a shortened one would not run. Its words were quoted by
 * shellQuote, which spells every control character as an escape, so there is nothing to escape. Past this length
 * (five times what a value may take: a deep path, a long session id) it is shortened all the same, so that a 100 KB
 * id from a hostile store cannot bury the output.
 */
export const MAX_COMMAND_CHARS = 1_000;

/** What a value from the store may take on one line before it is shortened. */
export const MAX_VALUE_CHARS = 200;
/** A message (an error, a finding) may quote several values; past this, it is shortened as a whole. */
export const MAX_MESSAGE_CHARS = 1_000;

/** Every control character as a visible escape: `\x1b` up to U+00FF, `\u202e` above. */
export function escapeControls(text: string): string {
  return text.replace(UNSAFE, (ch) => {
    const code = ch.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}

/** Head and tail of a long text around `…(N chars)…`; short text as it is. */
export function shorten(text: string, max: number = MAX_VALUE_CHARS): string {
  if (text.length <= max) return text;
  const tail = Math.floor(max / 4);
  const head = max - tail;
  return `${text.slice(0, head)}…(${formatCount(text.length)} chars)…${text.slice(text.length - tail)}`;
}

/** One value from the store (an id, a title, a directory, a path), ready to print. */
export function safeValue(value: string | undefined, max: number = MAX_VALUE_CHARS): string {
  return value === undefined ? "" : escapeControls(shorten(value, max));
}

/**
 * A sentence that may quote values from the store (an error message, a finding): each long unbroken run (a 100 KB
 * id) is shortened where it stands, so the words around it stay readable, then the whole is bounded and escaped.
 */
const LONG_RUN = new RegExp(`\\S{${MAX_VALUE_CHARS + 1},}`, "g");

export function safeMessage(text: string, max: number = MAX_MESSAGE_CHARS): string {
  const runs = text.replace(LONG_RUN, (run) => shorten(run, MAX_VALUE_CHARS));
  return escapeControls(shorten(runs, max));
}

/** A command for the user to paste (see MAX_COMMAND_CHARS): whole, escaped only as a last guard. */
export function safeCommand(command: string): string {
  return escapeControls(shorten(command, MAX_COMMAND_CHARS));
}
