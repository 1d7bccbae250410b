/**
 * Check a Responses API request's `input` items against the API's own rules for a history (reference
 * codex-and-gemini.md; docs/research/codex-request.md) and report each violation with the API's text and the item's
 * index. The API stops at the first one; this reports all, in input order.
 */
import type { ProviderErrorKind } from "./classify-error.js";

export interface ResponsesItem {
  type?: unknown;
  id?: unknown;
  call_id?: unknown;
  [key: string]: unknown;
}

export interface ResponsesViolation {
  kind: ProviderErrorKind;
  /** `input[N]`. */
  item: number;
  text: string;
}

const CALLS = new Set(["function_call", "custom_tool_call", "local_shell_call"]);
const OUTPUTS = new Set(["function_call_output", "custom_tool_call_output"]);

export function validateResponses(input: readonly ResponsesItem[]): ResponsesViolation[] {
  const found: ResponsesViolation[] = [];
  const ids = new Set<string>();
  const calls = new Map<string, number>();
  const answered = new Set<string>();
  input.forEach((item, n) => {
    const type = String(item.type ?? "message");
    const pairs = CALLS.has(type) || OUTPUTS.has(type);
    if (pairs && item.call_id === "") found.push({ kind: "empty_tool_id", item: n, text: `Invalid 'input[${n}].call_id': empty string.` });
    // Outputs the client stores carry an id of its own (fco_…); a copied line repeats it.
    let repeated = false;
    if (typeof item.id === "string" && item.id !== "") {
      repeated = ids.has(item.id);
      if (repeated)
        found.push({
          kind: "duplicate_tool_id",
          item: n,
          text: `Duplicate item found with id ${item.id}. Remove the duplicate items from your input and try again.`,
        });
      ids.add(item.id);
    }
    const callId = typeof item.call_id === "string" ? item.call_id : "";
    if (!pairs || callId === "") return;
    if (CALLS.has(type)) {
      calls.set(callId, n);
      return;
    }
    if (!calls.has(callId)) found.push({ kind: "orphan_tool_result", item: n, text: `No tool call found for function call output with call_id ${callId}.` });
    else if (answered.has(callId) && !repeated)
      found.push({
        kind: "duplicate_tool_id",
        item: n,
        text: `a second output for function call ${callId} (not an API text: the API names a repeated item by its id)`,
      });
    answered.add(callId);
  });
  for (const [callId, n] of calls)
    if (!answered.has(callId)) found.push({ kind: "orphan_tool_use", item: n, text: `No tool output found for function call ${callId}.` });
  return found.sort((a, b) => a.item - b.item);
}
