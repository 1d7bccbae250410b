/**
 * Best-effort recovery of one JSON record (an opencode message or part) from damaged text.
 *
 * The damage we see on disk is almost always a torn write: the file simply stops somewhere,
 * sometimes followed by a zero-filled tail after a power loss. Everything before the cut is
 * intact, so a prefix-preserving repair (close what is open, drop what is half-written) gives
 * back every complete field without inventing anything. Damage in the middle of the structure
 * is not guessed at: we would rather return undefined than a record that silently lies.
 */

export interface Salvaged {
  value: Record<string, unknown>;
  /** Dotted paths (e.g. "state.output", "text") of string values that were cut off by the truncation and closed by us. */
  truncatedStrings: string[];
  /** What was done, one short phrase, e.g. "closed 1 string and 3 objects after a torn write". */
  how: string;
}

/** Best-effort recovery of a JSON object from damaged text; undefined when nothing object-shaped can be recovered. */
export function salvageJsonObject(text: string): Salvaged | undefined {
  try {
    return salvage(text);
  } catch {
    // Callers scan whole stores: one pathological record (e.g. an engine limit on a huge input) must not abort the scan.
    return undefined;
  }
}

function salvage(text: string): Salvaged | undefined {
  const whole = parseObject(text);
  if (whole) return { value: whole, truncatedStrings: [], how: "parsed as is" };

  const notes: string[] = [];
  const end = endWithoutTrailingNuls(text);
  if (end < text.length) notes.push(`stripped ${count(text.length - end, "trailing NUL byte")}`);
  const body = text.slice(0, end);

  // Re-parse only if stripping changed something: records can be several MB.
  const stripped = end < text.length ? parseObject(body) : undefined;
  if (stripped) return { value: stripped, truncatedStrings: [], how: notes.join("; ") };

  const repair = closeTornWrite(body);
  const repaired = repair && parseObject(repair.json);
  if (repair && repaired) {
    return { value: repaired, truncatedStrings: repair.truncatedStrings, how: [...notes, repair.how].join("; ") };
  }

  // A flipped byte that made the UTF-8 invalid became U+FFFD; outside a string it can only have been
  // whitespace or a structural character. Dropping it recovers the whitespace case. We deliberately
  // do not combine this with the torn-write repair: if the lost character was a '}' or ']', closing
  // containers at the end would silently move members into the wrong parent.
  const cleaned = withoutStrayReplacementChars(body);
  const value = cleaned.removed > 0 ? parseObject(cleaned.text) : undefined;
  if (value) {
    notes.push(`removed ${count(cleaned.removed, "stray U+FFFD")} outside strings`);
    return { value, truncatedStrings: [], how: notes.join("; ") };
  }
  return undefined;
}

function parseObject(json: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function endWithoutTrailingNuls(text: string): number {
  // A manual scan rather than /\0+$/: that regex backtracks quadratically on long NUL runs that are not at the end.
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0) end--;
  return end;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const REPLACEMENT = 0xfffd;

interface Frame {
  close: "}" | "]";
  /** Key of the member being read (objects) or index of the element being read (arrays): the path to report. */
  key: string | number;
  want: "key" | "colon" | "value" | "comma";
}

interface Repair {
  json: string;
  truncatedStrings: string[];
  how: string;
}

/**
 * Walks a JSON text that may stop anywhere and turns it into complete JSON, or returns undefined
 * when the text goes wrong before its end (that is not a torn write, so we do not touch it).
 * JSON.parse remains the judge of the result; this walk only has to find where to cut and what to close.
 */
function closeTornWrite(text: string): Repair | undefined {
  const stack: Frame[] = [];
  let started = false;
  // End of the longest prefix that is valid JSON once the open containers are closed. Only '{', '[' and
  // complete values move it, so a half-written member after it (key, colon, comma) is dropped by cutting here.
  let safe = 0;
  let i = 0;
  const n = text.length;

  while (i < n) {
    const ch = text[i]!;
    if (ch === " " || ch === "\n" || ch === "\r" || ch === "\t") {
      i++;
      continue;
    }
    const top = stack[stack.length - 1];
    if (!top) {
      // Only a single top-level object is a record; anything after it is not a torn write.
      if (started || ch !== "{") return undefined;
      started = true;
      stack.push({ close: "}", key: "", want: "key" });
      safe = ++i;
      continue;
    }
    switch (ch) {
      case "{":
      case "[":
        if (top.want !== "value") return undefined;
        top.want = "comma";
        stack.push(ch === "{" ? { close: "}", key: "", want: "key" } : { close: "]", key: 0, want: "value" });
        safe = ++i;
        continue;
      case "}":
      case "]":
        if (top.close !== ch || top.want === "colon") return undefined;
        stack.pop();
        safe = ++i;
        continue;
      case ",":
        if (top.want !== "comma") return undefined;
        if (typeof top.key === "number") {
          top.key++;
          top.want = "value";
        } else {
          top.want = "key";
        }
        i++;
        continue;
      case ":":
        if (top.want !== "colon") return undefined;
        top.want = "value";
        i++;
        continue;
      case '"': {
        const s = scanString(text, i);
        if (top.want === "key") {
          if (s.open) break; // a cut-off key: the member is dropped at `safe`
          top.key = decodeKey(text.slice(i, s.end));
          top.want = "colon";
          i = s.end;
          continue;
        }
        if (top.want !== "value") return undefined;
        if (s.open) {
          // The cut is inside this string value: keep what was written of it, and say so.
          const path = stack.map((f) => f.key).join(".");
          return finish(text.slice(0, s.contentEnd), stack, [path], "");
        }
        top.want = "comma";
        safe = i = s.end;
        continue;
      }
      default: {
        if (top.want !== "value" || !/[-0-9a-z]/.test(ch)) return undefined;
        let end = i + 1;
        while (end < n && /[-+.0-9a-zA-Z]/.test(text[end]!)) end++;
        if (end === n) {
          // A literal that reached the cut is complete only if it is whole; a number never is, because a
          // record cannot end in one: "17180" may have been "1718000000450", so it is dropped, not kept wrong.
          const word = text.slice(i, end);
          if (word === "true" || word === "false" || word === "null") safe = end;
          i = end;
          break;
        }
        top.want = "comma";
        safe = i = end;
        continue;
      }
    }
    break; // only reached from a cut-off key or scalar, both of which end at the end of the input
  }

  if (!started) return undefined;
  const dropped = text.slice(safe).trim();
  const note = dropped === "" ? "" : dropped === "," ? "dropped a trailing comma" : "dropped an incomplete trailing member";
  return finish(text.slice(0, safe), stack, [], note);
}

/** Closes the open string (if `truncatedStrings` names one) and every open container, innermost first. */
function finish(prefix: string, stack: Frame[], truncatedStrings: string[], dropNote: string): Repair {
  const closers = stack.map((f) => f.close).reverse();
  const objects = closers.filter((c) => c === "}").length;
  const arrays = closers.length - objects;
  const closed = [
    truncatedStrings.length > 0 ? count(truncatedStrings.length, "string") : "",
    objects > 0 ? count(objects, "object") : "",
    arrays > 0 ? count(arrays, "array") : "",
  ].filter(Boolean);
  const list = closed.length > 1 ? `${closed.slice(0, -1).join(", ")} and ${closed[closed.length - 1]}` : closed.join("");
  const actions = [dropNote, list ? `closed ${list}` : ""].filter(Boolean).join(" and ");
  const quote = truncatedStrings.length > 0 ? '"' : "";
  return { json: prefix + quote + closers.join(""), truncatedStrings, how: `${actions || "nothing to close"} after a torn write` };
}

type ScannedString = { open: false; end: number } | { open: true; contentEnd: number };

/** Reads the string starting at the quote at `start`; if the input ends inside it, says where its usable content stops. */
function scanString(text: string, start: number): ScannedString {
  const n = text.length;
  let i = start + 1;
  let lastUnicodeEscape = -1;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) return { open: false, end: i + 1 };
    if (c !== BACKSLASH) {
      i++;
      continue;
    }
    const width = text[i + 1] === "u" ? 6 : 2;
    // An escape cut in half (a lone '\' or "\u12") is not text the writer produced yet: drop it.
    if (i + width > n) return { open: true, contentEnd: i };
    if (width === 6) lastUnicodeEscape = i;
    i += width;
  }
  // A high surrogate escape at the cut lost its low half; closing after it would store a lone surrogate.
  if (lastUnicodeEscape === n - 6 && /^\\u[dD][89abAB]/.test(text.slice(n - 6, n - 2))) return { open: true, contentEnd: n - 6 };
  return { open: true, contentEnd: n };
}

function decodeKey(quoted: string): string {
  try {
    return JSON.parse(quoted) as string;
  } catch {
    return quoted.slice(1, -1); // an invalid escape in a key: JSON.parse will reject the record anyway
  }
}

function withoutStrayReplacementChars(text: string): { text: string; removed: number } {
  const parts: string[] = [];
  let from = 0;
  let removed = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === REPLACEMENT) {
      parts.push(text.slice(from, i));
      from = i + 1;
      removed++;
    }
  }
  if (removed === 0) return { text, removed };
  parts.push(text.slice(from));
  return { text: parts.join(""), removed };
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
