/**
 * Words of a command line printed for a person to paste. One place, for the CLI's next steps and a battle's resume
 * command alike: what is printed must be safe on a terminal (no escape sequence from a store reaches it raw) and
 * paste back to exactly the same bytes.
 */

/** C0 controls, DEL, C1 controls (U+009B is CSI to many terminals), line/paragraph separators, bidi embeddings, overrides and isolates. */
export const UNSAFE_CHAR = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
/** The same, but for newline and tab: harmless on a terminal, and inside '…' a pasted command keeps them. */
const UNSAFE_BUT_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/**
 * A word as a shell reads it back unchanged: bare when it is plain, else in single quotes. A word holding a control
 * character (a folder name with a newline, a prompt quoting colored test output) goes in bash's and zsh's $'…',
 * where each is an escape: safe to print, and pasted back as the same character. `lines`: a word printed on lines of
 * its own (a prompt) keeps its newlines and tabs inside '…', which every shell reads across lines.
 */
export function shellQuote(word: string, { lines = false } = {}): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  if ((lines ? UNSAFE_BUT_LINES : UNSAFE_CHAR).test(word)) return `$'${[...word].map(ansiC).join("")}'`;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

const utf8 = new TextEncoder();

/** One character inside $'…': a control character as its UTF-8 bytes (\xHH each: the same bytes in any locale). */
function ansiC(ch: string): string {
  if (ch === "\\" || ch === "'") return `\\${ch}`;
  if (!UNSAFE_CHAR.test(ch)) return ch;
  return [...utf8.encode(ch)].map((byte) => `\\x${byte.toString(16).padStart(2, "0")}`).join("");
}
