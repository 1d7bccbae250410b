/** What each kind of provider error means, and which recover command answers it (recover explain, repair notes). */
import type { ProviderErrorKind } from "./classify-error.js";

export const ERROR_CAUSES: Record<ProviderErrorKind, { cause: string; fixedBy: "repair" | "trim" | null }> = {
  orphan_tool_use: { cause: "a tool call was sent without its result right after it (the agent was killed or aborted mid-call)", fixedBy: "repair" },
  orphan_tool_result: { cause: "a tool result was sent without the call it answers in the message before it", fixedBy: "repair" },
  tool_result_not_first: { cause: "tool results do not open the message that follows their calls", fixedBy: null },
  empty_tool_id: {
    cause: "a tool call or its output carries an empty id (a client that lost the id mid-stream), or an id with characters the API does not take",
    fixedBy: "repair",
  },
  tool_response_mismatch: {
    cause: "a function call turn is answered by another number of function responses (a call without its response, or one too many)",
    fixedBy: "repair",
  },
  duplicate_tool_id: { cause: "two tool calls share one id (a replaying proxy or a provider reusing ids)", fixedBy: "repair" },
  thinking_order: {
    cause: "a thinking block is not first in its assistant message, or the latest tool-use turn lacks the thinking the API requires while thinking is on",
    fixedBy: "repair",
  },
  thinking_modified: { cause: "a thinking block in the latest assistant message differs from what the model sent", fixedBy: "repair" },
  thinking_signature: {
    cause: "a thinking block's signature is missing or no longer accepted (another model, conversation or system prompt)",
    fixedBy: "repair",
  },
  thinking_bound: {
    cause:
      "the conversation changed before a thinking block a current Claude model bound to it (an edited, removed or shortened earlier message): that block and every later one fail, and re-sending the same history fails again",
    fixedBy: "repair",
  },
  thinking_empty: { cause: "a thinking block holds no text, or only whitespace (a client stored it emptied)", fixedBy: "repair" },
  reasoning_invalid: {
    cause:
      "encrypted reasoning (or a compaction item, named by its cmp_ id) the provider can no longer verify (another account, organization or model); on a Codex session `session repair --error` drops the item named, never re-signed",
    fixedBy: null,
  },
  thinking_when_disabled: { cause: "the session holds thinking but the model is now called with thinking off", fixedBy: "repair" },
  trailing_thinking: { cause: "an assistant message ends on a thinking block (the reply was cut off after thinking)", fixedBy: "repair" },
  trailing_assistant: { cause: "the request ends on an assistant message and this model does not accept a prefill", fixedBy: null },
  empty_content: { cause: "a message or text block is empty or whitespace only (an interrupted stream)", fixedBy: "repair" },
  first_not_user: { cause: "the conversation does not start with a user message (its first prompt was lost)", fixedBy: "repair" },
  roles_not_alternating: { cause: "two messages of the same role follow each other", fixedBy: null },
  context_overflow: { cause: "the conversation is longer than the model's context window", fixedBy: "repair" },
  request_too_large: { cause: "the request is over the provider's byte limit (32 MB; images count in full)", fixedBy: "repair" },
  image_invalid: { cause: "an image in the history is too large or cannot be decoded", fixedBy: "repair" },
  document_invalid: { cause: "a PDF in the history is over the API's page limit (100 pages a request) or cannot be read", fixedBy: "repair" },
  rollout_ordinal: {
    cause:
      "Codex CLI's rollout numbers its lines (`ordinal`) and the last record has none (resume refused), or a number repeats (Codex before 0.154 stops the thread history there)",
    fixedBy: "repair",
  },
  rollout_missing: {
    cause:
      "Codex CLI's index (the threads table of state_<n>.sqlite) says the session's rollout is at a path where there is none: the rollout was moved, or the Codex home was copied from elsewhere (the repair sets the row to where the rollout is); or the rollout is gone (nothing to repair)",
    fixedBy: "repair",
  },
  session_not_found: {
    cause:
      "the client found no session it can resume under that id: Gemini CLI read none from the chat file (its header cut short, or a rewind to a message it does not hold cleared it); Claude Code found no transcript with that id in the project folder of the directory it was started in (the session lives under another project, was moved, or its file is gone; Claude Code 2.1 keeps no sessions-index.json)",
    fixedBy: "repair",
  },
  invalid_json_body: {
    cause: "the request body does not encode as JSON (NUL bytes or broken text, e.g. a lone UTF-16 surrogate, in a stored tool output, tool input or text)",
    fixedBy: "repair",
  },
  previous_message_id: {
    cause:
      "the client named a stored reply as the previous response by an id the API never gave (a reply through a gateway, or the client's own entry): Claude Code sends it as diagnostics.previous_message_id on Anthropic's own API",
    fixedBy: "repair",
  },
  tool_reference_unknown: {
    cause:
      "a tool search result refers to a tool the client no longer offers (a start-up tool like WaitForMcpServers, a disconnected MCP server): the client's tool list of the moment, not the stored session; Claude Code 2.1.197 and later drop such references on resume, so restarting the client (or reconnecting the MCP server) answers it",
    fixedBy: null,
  },
  subagent_not_found: {
    cause:
      "Claude Code could not load that subagent's transcript (<session>/subagents/agent-<id>.jsonl: missing, unreadable, or, as reported, over 5 MiB): `recover session list` shows each subagent's transcript under its session as agent-<id>, and `recover session scan agent-<id>` what is wrong in it",
    fixedBy: null,
  },
  unknown: { cause: "not an error recover knows how to repair offline", fixedBy: null },
};
