/**
 * What each API answers for the tool-pairing defects the shared rules find, word for word where the API's text is
 * known (reference formats-and-errors.md §1, codex-and-gemini.md). A rule states the defect; the API of the view
 * says how it is rejected.
 */
import type { ProviderApi } from "../model/session-view.js";

export interface Rejections {
  resultMissing(callId: string): string;
  orphanResult(callId: string): string;
  secondResult(callId: string): string;
  /** `item`: the position of the call in the request, when the API names it. */
  emptyCallId(item: number): string;
  duplicateCallId: string;
}

const REJECTIONS: Record<ProviderApi, Rejections> = {
  anthropic: {
    resultMissing: () => "`tool_use` ids were found without `tool_result` blocks immediately after",
    orphanResult: () => "unexpected `tool_use_id` found in `tool_result` blocks",
    secondResult: () => "each `tool_use` takes one `tool_result`",
    emptyCallId: () => "an empty `call_id` / `tool_use` id",
    duplicateCallId: "`tool_use` ids must be unique",
  },
  responses: {
    resultMissing: (id) => `No tool output found for function call ${id}.`,
    orphanResult: (id) => `No tool call found for function call output with call_id ${id}.`,
    secondResult: () => "Duplicate item found with id fco_…",
    emptyCallId: (item) => `Invalid 'input[${item}].call_id': empty string.`,
    duplicateCallId: "Duplicate item found with id …",
  },
  gemini: {
    resultMissing: () => "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.",
    orphanResult: () => "Please ensure that function response turn comes immediately after a function call turn.",
    secondResult: () => "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.",
    emptyCallId: () => "an empty function call id",
    duplicateCallId: "a function call id used twice",
  },
};

export function rejections(api: ProviderApi | undefined): Rejections {
  return REJECTIONS[api ?? "anthropic"];
}
