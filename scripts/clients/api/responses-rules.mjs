// The rules of the OpenAI Responses API that the loopback mock (responses.mjs) applies to a request before its scripted
// reply: the real API rejects these inputs, with these texts (docs/research/codex-request.md).
import { httpError } from "./responses.mjs";

/** The first rule `body` breaks, as the API's 400 (an httpError reply), or null. */
export function apiCheck(body) {
  const input = Array.isArray(body?.input) ? body.input : [];
  const seenIds = new Map();
  for (const [i, it] of input.entries()) {
    if (
      (it.type === "function_call" || it.type === "function_call_output" || it.type === "custom_tool_call" || it.type === "custom_tool_call_output") &&
      it.call_id === ""
    )
      return httpError(400, `Invalid 'input[${i}].call_id': empty string.`, { param: `input[${i}].call_id`, code: "empty_string" });
    if (typeof it.id === "string" && it.id) {
      if (seenIds.has(it.id))
        return httpError(400, `Duplicate item found with id ${it.id}. Remove the duplicate items from your input and try again.`, {
          param: "input",
          code: null,
        });
      seenIds.set(it.id, i);
    }
  }
  // The same output twice (outputs carry no id in Codex requests: the API names the item it made for it, fco_…).
  const outs = new Map();
  for (const it of input)
    if (it.type === "function_call_output") {
      if (outs.has(it.call_id))
        return httpError(400, `Duplicate item found with id fco_${mockItemId(it.call_id)}. Remove the duplicate items from your input and try again.`, {
          param: "input",
        });
      outs.set(it.call_id, true);
    }
  const calls = new Set(input.filter((it) => it.type === "function_call").map((it) => it.call_id));
  for (const it of input)
    if (it.type === "function_call_output" && !calls.has(it.call_id))
      return httpError(400, `No tool call found for function call output with call_id ${it.call_id}.`, { param: "input" });
  for (const c of calls) if (!outs.has(c)) return httpError(400, `No tool output found for function call ${c}.`, { param: "input" });
  return null;
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
