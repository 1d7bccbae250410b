// The rules of the OpenAI Responses API that the loopback mock (responses.mjs) applies to a request before its scripted
// reply: the real API rejects these inputs, with these texts (docs/research/codex-request.md). One table, RULES (each
// rule's id, the API's text, where that text comes from, its check), applied in order by apiCheck;
// test/provider/mock-rules-agree.test.ts holds them against recover's validator (src/provider/validate-responses.ts).
import { httpError } from "./responses.mjs";

const EMPTY_CALL_ID = (i) => `Invalid 'input[${i}].call_id': empty string.`;
const DUPLICATE_ITEM = (id) => `Duplicate item found with id ${id}. Remove the duplicate items from your input and try again.`;
const NO_CALL = (callId) => `No tool call found for function call output with call_id ${callId}.`;
const NO_OUTPUT = (callId) => `No tool output found for function call ${callId}.`;
const NO_CUSTOM_CALL = (callId) => `No tool call found for custom tool call output with call_id ${callId}.`;
const NO_CUSTOM_OUTPUT = (callId) => `No tool output found for custom tool call ${callId}.`;
const NO_LOCAL_SHELL_OUTPUT = (callId) => `No tool output found for local shell call ${callId}.`;

// The API pairs a call with an output of its own kind, by call_id, as Codex does before it sends (openai/codex
// codex-rs/core/src/context_manager/normalize.rs): function_call and local_shell_call are answered by a
// function_call_output ("LocalShellCall is represented in upstream streams by a FunctionCallOutput"),
// custom_tool_call (Codex's apply_patch) by a custom_tool_call_output.
const PAIRED = new Set(["function_call", "function_call_output", "custom_tool_call", "custom_tool_call_output"]);
const outputs = (input) => input.filter((it) => it.type === "function_call_output");
/** The index of the first key an earlier one equals, or -1. */
function firstRepeat(keys) {
  const seen = new Set();
  return keys.findIndex((k) => {
    if (seen.has(k)) return true;
    seen.add(k);
    return false;
  });
}
const idsOf = (input, type) => input.filter((it) => it.type === type).map((it) => it.call_id);
// A local shell call's call_id is optional (Codex's LocalShellCall has `call_id: Option<String>`), and the empty-id
// rule does not cover it (no source gives the API's answer): only a non-empty one pairs.
const localShellIds = (input) => idsOf(input, "local_shell_call").filter((id) => typeof id === "string" && id !== "");
/** The first output of `outputType` whose call_id is no call's of `callIds`. */
function orphanOf(input, outputType, callIds) {
  const calls = new Set(callIds);
  return input.find((it) => it.type === outputType && !calls.has(it.call_id));
}
/** The refusal `text` builds for the first of `callIds` no output of `outputType` answers, or null. */
function unansweredOf(input, callIds, outputType, text) {
  const answered = new Set(idsOf(input, outputType));
  const i = callIds.findIndex((c) => !answered.has(c));
  return i < 0 ? null : refused(text(callIds[i]));
}
const refused = (message) => ({ message, param: "input" });

/**
 * The API rules of the mock, in the order the mock checks them. `check(input)` is null when the request's `input`
 * keeps the rule, else { message, param, code?, at? }. `byItem` rules are checked item by item together: the earliest
 * item that breaks one of them is named (`at`), whichever rule it breaks.
 */
export const RULES = [
  {
    id: "empty_call_id",
    byItem: true,
    error: EMPTY_CALL_ID,
    source: '../shared/reference/codex-and-gemini.md, Codex CLI ("Other API texts")',
    check(input) {
      const at = input.findIndex((it) => PAIRED.has(it.type) && it.call_id === "");
      return at < 0 ? null : { at, message: EMPTY_CALL_ID(at), param: `input[${at}].call_id`, code: "empty_string" };
    },
  },
  {
    id: "duplicate_item_id",
    byItem: true,
    error: DUPLICATE_ITEM,
    source: '../shared/reference/codex-and-gemini.md, Codex CLI ("rejected: the same function_call_output twice"); docs/research/codex-request.md',
    check(input) {
      // An item without an id gets a key of its own.
      const at = firstRepeat(input.map((it) => (typeof it.id === "string" && it.id ? it.id : Symbol())));
      return at < 0 ? null : { at, message: DUPLICATE_ITEM(input[at].id), param: "input", code: null };
    },
  },
  {
    // The same output twice (outputs carry no id in Codex requests: the API names the item it made for it, fco_…).
    id: "duplicate_output",
    error: DUPLICATE_ITEM,
    source: "../shared/reference/codex-and-gemini.md, Codex CLI (`Duplicate item found with id fco_…`); the fco_ id is the mock's own (mockItemId)",
    check(input) {
      const outs = outputs(input);
      const i = firstRepeat(outs.map((it) => it.call_id));
      return i < 0 ? null : refused(DUPLICATE_ITEM(`fco_${mockItemId(outs[i].call_id)}`));
    },
  },
  {
    id: "orphan_output",
    error: NO_CALL,
    source:
      "../shared/reference/formats-and-errors.md §1.4 (https://github.com/cline/cline/issues/9288); what it answers: a function_call or a local_shell_call (openai/codex codex-rs/core/src/context_manager/normalize.rs)",
    check(input) {
      const orphan = orphanOf(input, "function_call_output", [...idsOf(input, "function_call"), ...localShellIds(input)]);
      return orphan ? refused(NO_CALL(orphan.call_id)) : null;
    },
  },
  {
    id: "orphan_custom_output",
    error: NO_CUSTOM_CALL,
    source:
      "no issue thread or OpenAI page quotes it: API error bodies recorded in Codex proxies' tests (router-for-me/CLIProxyAPI, sdk/cliproxy/auth: `No tool call found for custom tool call output with call_id call_jzaeS5GDDushxTKTsXR9CTWL.`, param input, invalid_request_error); the pairing: openai/codex codex-rs/core/src/context_manager/normalize.rs (remove_orphan_outputs)",
    check(input) {
      const orphan = orphanOf(input, "custom_tool_call_output", idsOf(input, "custom_tool_call"));
      return orphan ? refused(NO_CUSTOM_CALL(orphan.call_id)) : null;
    },
  },
  {
    id: "missing_output",
    error: NO_OUTPUT,
    source: "../shared/reference/formats-and-errors.md §1.4 (https://github.com/openai/codex/issues/93)",
    check(input) {
      return unansweredOf(input, idsOf(input, "function_call"), "function_call_output", NO_OUTPUT);
    },
  },
  {
    // Codex's apply_patch killed mid-call.
    id: "missing_custom_output",
    error: NO_CUSTOM_OUTPUT,
    source:
      "https://github.com/diegosouzapw/OmniRoute/issues/8946 (`[400]: No tool output found for custom tool call call_nNNw7JP5hY7UXaATvHBRDYqc.`), https://github.com/Soju06/codex-lb/issues/1168 (param input)",
    check(input) {
      return unansweredOf(input, idsOf(input, "custom_tool_call"), "custom_tool_call_output", NO_CUSTOM_OUTPUT);
    },
  },
  {
    id: "missing_local_shell_output",
    error: NO_LOCAL_SHELL_OUTPUT,
    source:
      "https://github.com/openai/openai-agents-python/pull/1855 (`No tool output found for local shell call call_MEmrSaOboO5WG3MXGazSubb7.`, param input); answered by a function_call_output: openai/codex codex-rs/core/src/context_manager/normalize.rs",
    check(input) {
      return unansweredOf(input, localShellIds(input), "function_call_output", NO_LOCAL_SHELL_OUTPUT);
    },
  },
];

/** The first rule of RULES `body` breaks: { rule (its id), message, param, code?, at? }, or null. */
export function firstBroken(body) {
  const input = Array.isArray(body?.input) ? body.input : [];
  const named = (rule) => {
    const broken = rule.check(input);
    return broken && { rule: rule.id, ...broken };
  };
  // Stable: on one item, the rule listed first.
  const byItem = RULES.filter((r) => r.byItem)
    .map(named)
    .filter(Boolean)
    .sort((a, b) => a.at - b.at)[0];
  if (byItem) return byItem;
  for (const rule of RULES) if (!rule.byItem && named(rule)) return named(rule);
  return null;
}

/** The first rule of RULES `body` breaks, as the API's 400 (an httpError reply), or null. */
export function apiCheck(body) {
  const broken = firstBroken(body);
  return broken ? httpError(400, broken.message, { param: broken.param, code: broken.code ?? null }) : null;
}
function mockItemId(s) {
  let h = 0;
  for (const c of String(s)) h = (Math.imul(h, 31) + c.charCodeAt(0)) >>> 0;
  return h.toString(16).padStart(8, "0") + "0000000000000000000000000000000000000000".slice(0, 40);
}

/** The rules as one run applies them (lib/engine.mjs); see messages-rules.mjs's enforcer. */
export function enforcer() {
  return {
    check(body) {
      const refused = apiCheck(body);
      return refused ? { refused, rule: refused.httpError.error.code ?? "invalid_request" } : null;
    },
    served() {},
  };
}
