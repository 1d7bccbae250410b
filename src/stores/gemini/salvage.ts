/**
 * A Gemini chat file cut short where the session's header is (issue 40 row 10, google-gemini/gemini-cli#26425): a
 * legacy `.json` document (written whole) that ends early, or a `.jsonl` whose metadata line is torn. The client then
 * reads no session from the file at all: 0.30 leaves it out of the list (`--resume <uuid>`: "Invalid session
 * identifier"), 0.61's startup cleanup deletes it as corrupted, with every chat file ending in the same 8 characters
 * (docs/research/gemini-truncated-chats.md). What survives is kept exactly as far as it parses: the header's whole
 * fields and every whole message of the list; a field or a message cut in the middle goes (its bytes stay in the
 * backup). Nothing is made up: the values are the file's own.
 */
import type { Json } from "../transcript/dialect.js";

/** What a torn header loses, said where the damage is reported. */
export const HEADER_LOST =
  "the session's header: Gemini CLI reads no session from this file (0.30 lists none; 0.61 deletes it at its next start, with every chat file ending in the same 8 characters)";

/**
 * The longest prefix of `text` that closes into a header: an object whose complete top-level fields are kept, and
 * whose `messages` list keeps its complete elements. Undefined when no such prefix holds a `sessionId` and a
 * `projectHash` (the fields the client needs to know the file as a session), or when it holds a message record's
 * own fields (a torn message line is not salvaged here: half a message is not the message).
 */
export function salvageHeader(text: string): Json | undefined {
  const cuts = closingPoints(text);
  for (let i = cuts.length - 1; i >= 0; i--) {
    const { at, closers } = cuts[i]!;
    let value: unknown;
    try {
      value = JSON.parse(text.slice(0, at) + closers);
    } catch {
      continue;
    }
    if (!isHeader(value)) continue;
    return value;
  }
  return undefined;
}

function isHeader(value: unknown): value is Json {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const v = value as Json;
  return typeof v.sessionId === "string" && typeof v.projectHash === "string" && v.type === undefined && v.id === undefined;
}

interface Cut {
  /** Where the prefix ends. */
  at: number;
  /** What closes the containers left open there. */
  closers: string;
}

interface Frame {
  kind: "{" | "[";
  /** The key this container is the value of (in its parent object). */
  key?: string;
  /** In an object: the next string is a key. */
  expectKey?: boolean;
  lastKey?: string;
}

/**
 * Every place where the prefix ends right after a complete value of the top-level object, or of its `messages`
 * list: before a comma at that level, or after a container closed back to it.
 */
function closingPoints(text: string): Cut[] {
  const cuts: Cut[] = [];
  const stack: Frame[] = [];
  const closers = () =>
    stack
      .map((f) => (f.kind === "{" ? "}" : "]"))
      .reverse()
      .join("");
  const atKeptLevel = () => stack.length === 1 || (stack.length === 2 && stack[1]!.kind === "[" && stack[1]!.key === "messages");
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') {
      const end = stringEnd(text, i);
      if (end < 0) break;
      const top = stack.at(-1);
      if (top?.kind === "{" && top.expectKey) {
        // A key that is not valid JSON (a raw control character, a bad escape): no prefix reaching past it parses,
        // so the cuts found before it are all there is.
        const key = parsedString(text.slice(i, end + 1));
        if (key === undefined) break;
        top.lastKey = key;
        top.expectKey = false;
      }
      i = end + 1;
      continue;
    }
    if (c === "{" || c === "[") {
      const parent = stack.at(-1);
      stack.push({
        kind: c,
        ...(parent?.kind === "{" && parent.lastKey !== undefined ? { key: parent.lastKey } : {}),
        ...(c === "{" ? { expectKey: true } : {}),
      });
    } else if (c === "}" || c === "]") {
      stack.pop();
      if (stack.length === 0) break;
      if (atKeptLevel()) cuts.push({ at: i + 1, closers: closers() });
    } else if (c === ",") {
      if (atKeptLevel()) cuts.push({ at: i, closers: closers() });
      const top = stack.at(-1);
      if (top?.kind === "{") top.expectKey = true;
    }
    i++;
  }
  return cuts;
}

function parsedString(literal: string): string | undefined {
  try {
    return JSON.parse(literal) as string;
  } catch {
    return undefined;
  }
}

/** The index of the quote closing the string that opens at `start`, or -1 when the text ends inside it. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const c = text[i];
    if (c === "\\") i++;
    else if (c === '"') return i;
  }
  return -1;
}
