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
export const ERR_SIGNATURE_CORRUPTED = "Corrupted thought signature.";
export const ERR_SIGNATURE_MISSING = (name, position) =>
  `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${name}\` , position ${position}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`;
/**
 * The two values the API documents for a call it did not sign (history from another model, calls a client injects):
 * https://ai.google.dev/gemini-api/docs/thought-signatures (FAQ). Gemini CLI sends the first itself.
 */
export const DUMMY_SIGNATURES = ["skip_thought_signature_validator", "context_engineering_is_the_way_to_go"];
/** The signatures the mock issues (api/gemini.mjs fakeSignature, modelSignature): base64 of this prefix and more. */
const ISSUED = "mock-thought-signature:";
/** A made-up signature bound to the model that issued it: the mock refuses it in a request to another model. */
export const modelSignature = (model, seed) => Buffer.from(`${ISSUED}model=${model}:${seed}`).toString("base64");
/** The model a signature was issued for, when it names one (modelSignature). */
const SIGNED_FOR = /^mock-thought-signature:model=([^:]+):/;
/** Not a rule of checkContents: the text a scenario answers with when it plays the window (scenarios/gemini.mjs). */
export const ERR_OVERFLOW = (n, m) => `The input token count (${n}) exceeds the maximum number of tokens allowed (${m}).`;

/** Why the API would not accept `signature` in a request to `model` (undefined: it accepts it). */
function signatureFault(signature, model) {
  if (DUMMY_SIGNATURES.includes(signature)) return undefined;
  const decoded = Buffer.from(signature, "base64").toString("latin1");
  if (!decoded.startsWith(ISSUED)) return "not issued by this API";
  const issuedFor = SIGNED_FOR.exec(decoded)?.[1];
  if (issuedFor && model && issuedFor !== model) return `issued for ${issuedFor}, sent to ${model}`;
  return undefined;
}
/** Gemini 3 models validate the signatures of the current turn's calls (the docs' "model behavior": 2.5 does not). */
const validatesCalls = (model) => typeof model === "string" && /^gemini-3(\.|-|$)/.test(model);

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
  // A thoughtSignature the API did not issue, or issued for another model: Gemini CLI sessions replayed after a switch
  // of model or of account (google-gemini/gemini-cli#13467: Google login, then an API key) and Roo Code's resumed
  // tasks (RooCodeInc/Roo-Code#10554, "different model versions") get this 400. The API checks every signature it is
  // sent, in any turn (those reports are resumes, whose stored calls lie before the current turn).
  {
    id: "signature_corrupted",
    error: ERR_SIGNATURE_CORRUPTED,
    source:
      "google-gemini/gemini-cli#13467 (the 400 INVALID_ARGUMENT body); RooCodeInc/Roo-Code#10554; which signatures the API refuses is modelled: what the mock did not issue, or issued for another model",
    check(contents, { model } = {}) {
      for (const c of contents)
        for (const p of c?.parts ?? [])
          if (typeof p?.thoughtSignature === "string" && signatureFault(p.thoughtSignature, model)) return { message: ERR_SIGNATURE_CORRUPTED };
      return null;
    },
  },
  // Gemini 3: in the current turn (everything after the last user content with text and no function response), the
  // first functionCall part of each model content (each step) carries a thoughtSignature.
  {
    id: "signature_missing",
    error: ERR_SIGNATURE_MISSING("<name>", "<N>"),
    source:
      "https://ai.google.dev/gemini-api/docs/thought-signatures (current turn, first call of each step, Gemini 3 only); the text: nanbingxyz/5ire#405, MayDay-wpf/snow-cli#104 (`position 2` for contents[1]: the position counts contents from 1)",
    check(contents, { model } = {}) {
      if (!validatesCalls(model)) return null;
      const start = contents.findLastIndex((c) => c?.role === "user" && (c.parts ?? []).some((p) => typeof p?.text === "string") && responses(c) === 0);
      for (let i = Math.max(start, 0); i < contents.length; i++) {
        const first = contents[i]?.role === "model" ? (contents[i].parts ?? []).find((p) => p?.functionCall) : undefined;
        if (first && !first.thoughtSignature) return { message: ERR_SIGNATURE_MISSING(first.functionCall.name ?? "", i + 1) };
      }
      return null;
    },
  },
];

/** The first rule of RULES `body` breaks: { rule (its id), message, at? }, or null. `model`: the model the request went to (its path). */
export function firstBroken(body, { model } = {}) {
  const contents = Array.isArray(body?.contents) ? body.contents : [];
  const named = (rule) => {
    const broken = rule.check(contents, { model });
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
export function checkContents(body, opts) {
  const broken = firstBroken(body, opts);
  return broken ? httpError(400, broken.message) : null;
}

/** The rules as one run applies them (lib/engine.mjs); see messages-rules.mjs's enforcer. */
export function enforcer() {
  return {
    // The engine passes the request's log entry: its path names the model.
    check(body, _headers, entry) {
      const model = /\/models\/([^:/]+)/.exec(entry?.path ?? "")?.[1];
      const refused = checkContents(body, { model: model && decodeURIComponent(model) });
      return refused ? { refused, rule: "invalid_argument" } : null;
    },
    served() {},
  };
}
