// The rules of the Gemini API that the loopback mock (gemini.mjs) applies to a request before its scripted reply: the
// real API rejects these `contents`, with these texts. One table, RULES (each rule's id, the API's text, where that
// text comes from, its check), applied in order by checkContents; test/provider/mock-rules-agree.test.ts holds them
// against recover's validator (src/provider/validate-gemini.ts).
//
// Consecutive contents of the same role are checked as they come (the API does not merge them for these rules in our
// model of it); the functionCall/functionResponse counting is per adjacent pair.
//
// gemini.mjs re-exports checkContents and the texts (its importers take them from there), and this module takes the
// reply shape (httpError) from it: a cycle, safe because neither module calls the other while it loads.
import { httpError } from "./gemini.mjs";

export const ERR_EMPTY_PARTS = (n) => `* GenerateContentRequest.contents[${n}].parts: contents.parts must not be empty.\n`;
export const ERR_RESPONSE_AFTER_CALL = "Please ensure that function response turn comes immediately after a function call turn.";
export const ERR_CALL_AFTER_USER = "Please ensure that function call turn comes immediately after a user turn or after a function response turn.";
export const ERR_COUNT_MISMATCH =
  "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.";
/** Not a rule of checkContents: the text a scenario answers with when it plays the window (scenarios/gemini.mjs). */
export const ERR_OVERFLOW = (n, m) => `The input token count (${n}) exceeds the maximum number of tokens allowed (${m}).`;

const calls = (c) => (c?.parts ?? []).filter((p) => p?.functionCall).length;
const responses = (c) => (c?.parts ?? []).filter((p) => p?.functionResponse).length;

/**
 * The API rules of the mock, in the order the mock checks them. `check(contents)` is null when the request's
 * `contents` keep the rule, else { message, at? }. `byTurn` rules are checked turn by turn together: the earliest
 * turn that breaks one of them is named, whichever rule it breaks (on one turn, the rule listed first).
 */
export const RULES = [
  // A content with no parts (the first one is named).
  {
    id: "empty_parts",
    error: ERR_EMPTY_PARTS,
    source:
      '../shared/reference/codex-and-gemini.md, Gemini CLI ("Other API texts"); the trailing newline: https://github.com/egoist/chatwise-releases/issues/250',
    check(contents) {
      const at = contents.findIndex((c) => !Array.isArray(c?.parts) || c.parts.length === 0);
      return at < 0 ? null : { message: ERR_EMPTY_PARTS(at) };
    },
  },
  // A content with functionResponse parts that does not follow a model content with functionCall parts.
  {
    id: "response_after_call",
    byTurn: true,
    error: ERR_RESPONSE_AFTER_CALL,
    source: "../shared/reference/codex-and-gemini.md, Gemini CLI (a torn line: its functionResponse answers no call)",
    check(contents) {
      const at = contents.findIndex((c, i) => responses(c) > 0 && !(contents[i - 1]?.role === "model" && calls(contents[i - 1]) > 0));
      return at < 0 ? null : { at, message: ERR_RESPONSE_AFTER_CALL };
    },
  },
  // A content with functionCall parts that does not follow a user turn (function responses are user turns).
  {
    id: "call_after_user",
    byTurn: true,
    error: ERR_CALL_AFTER_USER,
    source: "google-gemini/gemini-cli#29365 (via src/provider/validate-gemini.ts); not in ../shared/reference",
    check(contents) {
      const at = contents.findIndex((c, i) => calls(c) > 0 && i > 0 && contents[i - 1].role !== "user");
      return at < 0 ? null : { at, message: ERR_CALL_AFTER_USER };
    },
  },
  // A functionCall turn followed by a turn with another number of functionResponse parts (none included: a new user
  // text right after the calls); a call turn that is the last content is not judged.
  {
    id: "count_mismatch",
    byTurn: true,
    error: ERR_COUNT_MISMATCH,
    source: "../shared/reference/formats-and-errors.md §1.5 (https://github.com/google-gemini/gemini-cli/issues/16415); codex-and-gemini.md (gemini-cli#29365)",
    check(contents) {
      const at = contents.findIndex((c, i) => calls(c) > 0 && i < contents.length - 1 && responses(contents[i + 1]) !== calls(c));
      return at < 0 ? null : { at, message: ERR_COUNT_MISMATCH };
    },
  },
];

/** The first rule of RULES `body` breaks: { rule (its id), message, at? }, or null. */
export function firstBroken(body) {
  const contents = Array.isArray(body?.contents) ? body.contents : [];
  const named = (rule) => {
    const broken = rule.check(contents);
    return broken && { rule: rule.id, ...broken };
  };
  for (const rule of RULES) if (!rule.byTurn && named(rule)) return named(rule);
  // Stable: on one turn, the rule listed first.
  return (
    RULES.filter((r) => r.byTurn)
      .map(named)
      .filter(Boolean)
      .sort((a, b) => a.at - b.at)[0] ?? null
  );
}

/** The first rule of RULES `body` breaks, as the API's 400 (an httpError reply), or null. */
export function checkContents(body) {
  const broken = firstBroken(body);
  return broken ? httpError(400, broken.message) : null;
}

/** The rules as one run applies them (lib/engine.mjs); see messages-rules.mjs's enforcer. */
export function enforcer() {
  return {
    check(body) {
      const refused = checkContents(body);
      return refused ? { refused, rule: "invalid_argument" } : null;
    },
    served() {},
  };
}
