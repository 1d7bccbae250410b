// Every exact provider error text in the reference (shared/reference/formats-and-errors.md §1), raw and wrapped the
// ways they reach users: the classifier must name the kind, the request position, the ids and the token counts.
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { classifyProviderError, type ClassifiedError } from "../../src/provider/classify-error.js";

type Case = [text: string, expected: Partial<ClassifiedError>];

const ANTHROPIC: Case[] = [
  [
    "messages.22: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01HqfLWiAKQLsniF2fBGF2KD, toolu_01SJzDkeAZER935cpGFptTNk. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
    {
      kind: "orphan_tool_use",
      index: 22,
      contentIndex: null,
      ids: ["toolu_01HqfLWiAKQLsniF2fBGF2KD", "toolu_01SJzDkeAZER935cpGFptTNk"],
      provider: "anthropic",
    },
  ],
  [
    "messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_015cqXRmSf7tsfMgJ9ibV1z3. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.",
    { kind: "orphan_tool_result", index: 0, contentIndex: 0, ids: ["toolu_015cqXRmSf7tsfMgJ9ibV1z3"] },
  ],
  [
    "messages.7.content.0: unexpected `tool_use_id` found in `advisor_tool_result` blocks: srvtoolu_01JjfQsdhSJkT7qLCL7Pj9jc. Each `advisor_tool_result` block must have a corresponding `server_tool_use` block before it.",
    { kind: "orphan_tool_result", index: 7, contentIndex: 0, ids: ["srvtoolu_01JjfQsdhSJkT7qLCL7Pj9jc"] },
  ],
  [
    "Did not find 1 tool_result block(s) at the beginning of this message. Messages following tool_use blocks must begin with a matching number of tool_result blocks.",
    { kind: "tool_result_not_first", index: null },
  ],
  ["messages.43.content.2: tool_use ids must be unique", { kind: "duplicate_tool_id", index: 43, contentIndex: 2 }],
  ["messages.1.content.1: `tool_use` ids must be unique", { kind: "duplicate_tool_id", index: 1, contentIndex: 1 }],
  [
    "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `text`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking",
    { kind: "thinking_order", index: 1, contentIndex: 0 },
  ],
  [
    "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks).",
    { kind: "thinking_order", index: 1, contentIndex: 0 },
  ],
  [
    "messages.51.content.0: If an assistant message contains any thinking blocks, the first block must be thinking or redacted_thinking. Found text.",
    { kind: "thinking_order", index: 51, contentIndex: 0 },
  ],
  [
    "messages.5.content.1: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.",
    { kind: "thinking_modified", index: 5, contentIndex: 1 },
  ],
  [
    "messages.1.content.0: When thinking is disabled, an `assistant` message in the final position cannot contain `thinking`. To use thinking blocks, enable `thinking` in your request.",
    { kind: "thinking_when_disabled", index: 1, contentIndex: 0 },
  ],
  ["messages.1: The final block in an assistant message cannot be `thinking`.", { kind: "trailing_thinking", index: 1, contentIndex: null }],
  ["messages.1.content.0: Invalid `signature` in `thinking` block", { kind: "thinking_signature", index: 1, contentIndex: 0 }],
  [
    'messages.1.content.0: Invalid `signature` in `thinking` block. The block is bound to a different conversation. Remove the block, or set `thinking.block_binding.prefix_mismatch_behavior` to "drop_block". That setting requires the `thinking-binding-controls-2026-08-01` value in the `anthropic-beta` header. The `system` prompt differs from the one this block was created with.',
    { kind: "thinking_bound", index: 1, contentIndex: 0 },
  ],
  ["messages.1.content.0.thinking.signature: Field required", { kind: "thinking_signature", index: 1, contentIndex: 0 }],
  ["This model does not support assistant message prefill. The conversation must end with a user message.", { kind: "trailing_assistant", index: null }],
  ["messages: text content blocks must be non-empty", { kind: "empty_content", index: null }],
  ["text content blocks must contain non-whitespace text", { kind: "empty_content" }],
  ["messages.0: all messages must have non-empty content except for the optional final assistant message", { kind: "empty_content", index: 0 }],
  ['messages: first message must use the "user" role', { kind: "first_not_user" }],
  ['messages: roles must alternate between "user" and "assistant", but found multiple "user" roles in a row', { kind: "roles_not_alternating" }],
  ["prompt is too long: 219898 tokens > 200000 maximum", { kind: "context_overflow", tokens: { current: 219898, max: 200000 }, provider: "anthropic" }],
  [
    "input length and `max_tokens` exceed context limit: 199759 + 8192 > 200000, decrease input length or `max_tokens` and try again",
    { kind: "context_overflow", tokens: { current: 207951, max: 200000 } },
  ],
  [
    '{"error":{"type":"request_too_large","message":"Request exceeds the maximum size"}}',
    { kind: "request_too_large", message: "Request exceeds the maximum size" },
  ],
  [
    '{"type":"error","error":{"type":"invalid_request_error","message":"Request size exceeds model context window"}}',
    { kind: "context_overflow", provider: "anthropic", tokens: null },
  ],
  ["Request too large (max 32MB). Double press esc to go back and try with a smaller file.", { kind: "request_too_large" }],
  ["The request body is not valid JSON: unexpected end of data: line 1 column 48213 (char 48212)", { kind: "invalid_json_body" }],
  // Claude Code's cache diagnosis naming a reply by an id the API never gave (anthropics/claude-code#96033, #58427).
  [
    "diagnostics.previous_message_id: must be the `id` from a prior /v1/messages response (starts with `msg_`)",
    { kind: "previous_message_id", index: null, provider: "anthropic" },
  ],
  // A tool search result naming a tool the request does not list (anthropics/claude-code#79970, #82004).
  ["Tool reference 'WaitForMcpServers' not found in available tools", { kind: "tool_reference_unknown", index: null, provider: "anthropic" }],
  // A lone surrogate in a stored string (anthropics/claude-code#68325; as Claude Code prints it: below).
  ["The request body is not valid JSON: no low surrogate in string: line 1 column 195621 (char 195620)", { kind: "invalid_json_body", index: null }],
  [
    "messages.120.content.0.image.source.base64: image exceeds 5 MB maximum: 9427836 bytes > 5242880 bytes",
    { kind: "image_invalid", index: 120, contentIndex: 0 },
  ],
  [
    "messages.168.content.0.tool_result.content.1.image.source.base64: image exceeds 5 MB maximum: 9427836 bytes > 5242880 bytes",
    { kind: "image_invalid", index: 168, contentIndex: 0 },
  ],
  [
    "messages.108.content.3.image.source.base64.data: At least one of the image dimensions exceed max allowed size for many-image requests: 2000 pixels",
    { kind: "image_invalid", index: 108, contentIndex: 3 },
  ],
  ["Could not process image", { kind: "image_invalid" }],
  // Issue 40: the PDF limits (public code quoting the API's 400; Claude Code 2.1.332's list of PDF errors), raw and as
  // opencode 1.18 stores a 400 (APIError with the response body).
  ["messages.1.content.22.pdf.source.base64.data: A maximum of 100 PDF pages may be provided.", { kind: "document_invalid", index: 1, contentIndex: 22 }],
  [
    '{"name":"APIError","data":{"message":"messages.1.content.0.pdf.source.base64.data: A maximum of 600 PDF pages may be provided.","statusCode":400,"isRetryable":false}}',
    { kind: "document_invalid", index: 1, contentIndex: 0 },
  ],
  ["The PDF specified is password protected.", { kind: "document_invalid" }],
  // The 413 as opencode 1.18.33 stores it (it takes request_too_large for an overflow: ContextOverflowError).
  [
    '{"name":"ContextOverflowError","data":{"message":"Request exceeds the maximum size","responseBody":"{\\"type\\":\\"error\\",\\"error\\":{\\"type\\":\\"request_too_large\\",\\"message\\":\\"Request exceeds the maximum size\\"}}"}}',
    { kind: "request_too_large" },
  ],
  // opencode 1.18.33's own text for a compaction whose request was over the window (compaction.ts).
  [
    '{"name":"ContextOverflowError","data":{"message":"Conversation history too large to compact - exceeds model context limit"}}',
    { kind: "context_overflow" },
  ],
  ["Session too large to compact - context exceeds model limit even after stripping media", { kind: "context_overflow" }],
];

const OPENAI: Case[] = [
  [
    "This model's maximum context length is 128000 tokens. However, your messages resulted in 202868 tokens (202767 in the messages, 101 in the functions). Please reduce the length of the messages or functions.",
    { kind: "context_overflow", tokens: { current: 202868, max: 128000 }, provider: "openai" },
  ],
  [
    "This model's maximum context length is 4097 tokens. However, you requested 4268 tokens (4012 in the messages, 256 in the completion). Please reduce the length of the messages or completion.",
    { kind: "context_overflow", tokens: { current: 4268, max: 4097 } },
  ],
  [
    "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
    { kind: "orphan_tool_result", provider: "openai" },
  ],
  ["Messages with role 'tool' must be a response to a preceding message with 'tool_calls'", { kind: "orphan_tool_result" }],
  [
    "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_DAZJkqyYW8JTJdkO76E5MoPH",
    { kind: "orphan_tool_use", ids: ["call_DAZJkqyYW8JTJdkO76E5MoPH"], provider: "openai" },
  ],
  [
    "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. (insufficient tool messages following tool_calls message)",
    { kind: "orphan_tool_use" },
  ],
  [
    "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: message[532].role",
    { kind: "orphan_tool_use", ids: [] },
  ],
  ["No tool output found for function call call_k20FunjGZouIu7PaUIAHz2G6.", { kind: "orphan_tool_use", ids: ["call_k20FunjGZouIu7PaUIAHz2G6"] }],
  // Codex's apply_patch is a custom tool call (OmniRoute#8946), a local shell call another kind (openai-agents-python#1855).
  ["No tool output found for custom tool call call_nNNw7JP5hY7UXaATvHBRDYqc.", { kind: "orphan_tool_use", ids: ["call_nNNw7JP5hY7UXaATvHBRDYqc"] }],
  ["No tool output found for local shell call call_4ItqcbHmB1qbTZ2nT5ZPfDXl.", { kind: "orphan_tool_use", ids: ["call_4ItqcbHmB1qbTZ2nT5ZPfDXl"] }],
  [
    "No tool call found for custom tool call output with call_id call_jzaeS5GDDushxTKTsXR9CTWL.",
    { kind: "orphan_tool_result", ids: ["call_jzaeS5GDDushxTKTsXR9CTWL"] },
  ],
  [
    "No tool call found for function call output with call_id call_1VwAGCPnkFRCzHAEGpfZRIVB.",
    { kind: "orphan_tool_result", ids: ["call_1VwAGCPnkFRCzHAEGpfZRIVB"] },
  ],
];

/** The texts the exact-request issue added (thinking triage, Codex and Gemini). */
const TRIAGE: Case[] = [
  [
    "messages.1.content.19: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.",
    { kind: "thinking_modified", index: 1, contentIndex: 19, provider: "anthropic" },
  ],
  [
    "messages.9.content.0.thinking: each thinking block must contain non-whitespace thinking",
    { kind: "thinking_empty", index: 9, contentIndex: 0, provider: "anthropic" },
  ],
  [
    "messages.3.content.0: Invalid `signature` in `thinking` block. The block is bound to a different conversation. The `system` prompt differs from the one this block was created with.",
    { kind: "thinking_bound", index: 3, contentIndex: 0 },
  ],
  [
    "Invalid 'input[12].call_id': empty string. Expected a string with minimum length 1, but got an empty string instead.",
    { kind: "empty_tool_id", provider: "openai" },
  ],
  [
    "The encrypted content gAAAAABoT8w could not be verified. Reason: Encrypted content organization_id did not match the target organization.",
    { kind: "reasoning_invalid", provider: "openai" },
  ],
  ['{"error":{"message":"x","type":"invalid_request_error","code":"invalid_encrypted_content"}}', { kind: "reasoning_invalid" }],
  // Gemini's thought signatures (issue 40 row 9): raw, as Gemini CLI 0.61 prints the API's body, and as 0.16 did
  // (google-gemini/gemini-cli#13467).
  ["Corrupted thought signature.", { kind: "thinking_signature", provider: "gemini" }],
  [
    'Error when talking to Gemini API Full report available at: /tmp/gemini-client-error-Turn.run-sendMessageStream-2026-11-27T17-09-46-240Z.json _ApiError: {"error":{"code":400,"message":"Corrupted thought signature.","status":"INVALID_ARGUMENT"}}',
    { kind: "thinking_signature", provider: "gemini", message: "Corrupted thought signature." },
  ],
  [
    // The whole stderr, stack trace and all.
    `${fs.readFileSync("fixtures/gemini-0.61/signature-corrupted.resume.stderr.txt", "utf8")}`,
    { kind: "thinking_signature", provider: "gemini", message: "Corrupted thought signature." },
  ],
  [
    '[API Error: {"error":{"message":"{\\n  \\"error\\": {\\n    \\"code\\": 400,\\n    \\"message\\": \\"Corrupted thought signature.\\",\\n    \\"status\\": \\"INVALID_ARGUMENT\\"\\n  }\\n}\\n","code":400,"status":"Bad Request"}}]',
    { kind: "thinking_signature", provider: "gemini" },
  ],
  [
    "Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:run_shell_command` , position 2. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.",
    { kind: "thinking_signature", provider: "gemini" },
  ],
  // Gemini CLI's own answer when it reads no session from a chat file (issue 40 row 10), as it prints it.
  ["Error resuming session: No previous sessions found for this project.", { kind: "session_not_found", provider: "gemini" }],
  [
    'Error resuming session: Invalid session identifier "7628a857-b554-4001-ba93-41f9d8d96001".\n  Searched for sessions in /home/u/.gemini/tmp/project/chats.',
    { kind: "session_not_found", provider: "gemini" },
  ],
  [
    "messages.4.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_01Abc123456. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.",
    { kind: "orphan_tool_result", index: 4, ids: ["toolu_01Abc123456"] },
  ],
  ["messages.7.content.2: `tool_use` ids must be unique", { kind: "duplicate_tool_id", index: 7, contentIndex: 2 }],
  // An empty call id sent to the Messages API (CommandCodeAI/command-code#323; BlockRunAI/ClawRouter#17 wraps it).
  [
    "messages.1.content.1.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'",
    { kind: "empty_tool_id", index: 1, contentIndex: 1, provider: "anthropic" },
  ],
  [
    `400 {"type":"error","error":{"type":"invalid_request_error","message":"messages.92.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'"},"request_id":"req_011CXzyBavZTx2LemQWEXiSt"}`,
    { kind: "empty_tool_id", index: 92, contentIndex: 0 },
  ],
  // openclaw 2026.9.6 when its auto-compaction could not bring an overflowing session under the window (measured).
  [
    "Context overflow: prompt too large for the model. Try /reset (or /new) to start a fresh session, or use a larger-context model.",
    { kind: "context_overflow", tokens: null },
  ],
  ["Auto-compaction failed before the next model request. Try again or run /compact.", { kind: "context_overflow", tokens: null }],
  // openclaw/openclaw#21985: the synthetic result with an empty toolCallId, named by no id.
  [
    "LLM request rejected: messages.12.content.1: unexpected `tool_use_id` found in `tool_result` blocks: . Each `tool_result` block must have a corresponding `tool_use` block in the previous message.",
    { kind: "orphan_tool_result", index: 12, contentIndex: 1, ids: [] },
  ],
  ["Your input exceeds the context window of this model. Please adjust your input and try again.", { kind: "context_overflow", provider: "openai" }],
  ["At least one of the image dimensions exceed max allowed size for many-image requests: 2000 pixels", { kind: "image_invalid" }],
  // As Claude Code prints it (anthropics/claude-code#70590, #68553).
  [
    "API Error: 400 diagnostics.previous_message_id: must be the `id` from a prior /v1/messages response (starts with `msg_`)",
    { kind: "previous_message_id", index: null, provider: "anthropic" },
  ],
  ["API Error: 400 Tool reference 'DesignSync' not found in available tools", { kind: "tool_reference_unknown", provider: "anthropic" }],
  // Claude Code's print of a lone surrogate's 400 (link-assistant/hive-mind#1324, anthropics/claude-code#60394).
  [
    'API Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"The request body is not valid JSON: no low surrogate in string: line 1 column 28642 (char 28641)"},"request_id":"req_011CYEFwLV3CotFyg7Xr7zVy"}',
    {
      kind: "invalid_json_body",
      provider: "anthropic",
      message: "The request body is not valid JSON: no low surrogate in string: line 1 column 28642 (char 28641)",
    },
  ],
  [
    'API Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"messages.9.content.0.thinking: each thinking block must contain non-whitespace thinking"}}',
    { kind: "thinking_empty", index: 9, contentIndex: 0 },
  ],
  [
    "[API Error: messages.1.content.19: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.]",
    { kind: "thinking_modified", index: 1 },
  ],
  [
    'stream error: unexpected status 400 Bad Request: {"error":{"message":"No tool output found for function call call_abc123def456.","type":"invalid_request_error"}}',
    { kind: "orphan_tool_use", ids: ["call_abc123def456"] },
  ],
  [
    '{"error":{"message":"Duplicate item found with id fco_01a20ef4-b723-7be0-8f1e-fef46f23625c. Remove the duplicate items from your input and try again.","type":"invalid_request_error","param":"input","code":null}}',
    { kind: "duplicate_tool_id", provider: "openai" },
  ],
  [
    '{"error":{"message":"Invalid \'input[6].call_id\': empty string.","type":"invalid_request_error","param":"input[6].call_id","code":"empty_string"}}',
    { kind: "empty_tool_id", item: 6, provider: "openai" },
  ],
];

/**
 * What Claude Code shows and stores (its synthetic API-error entry) in place of the API's text, read from the client's
 * own code (2.1.197 and 2.1.332; docs/provider.md): the users copy these, not the API's words.
 */
const CLAUDE_CODE_DISPLAY: Case[] = [
  ["API Error: 400 due to tool use concurrency issues. Run /rewind to recover the conversation.", { kind: "orphan_tool_use", provider: "anthropic" }],
  ["API Error: 400 orphaned tool_result in conversation history. Run /rewind to recover the conversation.", { kind: "orphan_tool_result" }],
  ["API Error: 400 duplicate tool_use ID in conversation history.", { kind: "duplicate_tool_id" }],
  ["Request too large (max 32 MB). Double press esc to go back and try with a smaller file.", { kind: "request_too_large" }],
  ["Request too large (max 32 MB; 30.1 MB of about 33.4 MB is images or documents). Run /compact.", { kind: "request_too_large" }],
  ["Request too large for the API's 32 MB request limit: this conversation is about 40 MB", { kind: "request_too_large" }],
  ["Request too large (max 20MB)", { kind: "request_too_large" }],
  ["the request size (34359738 bytes) exceeds 32 MB limit.", { kind: "request_too_large" }],
  ["Input is too long.", { kind: "request_too_large" }],
  ["Input is too long for requested model.", { kind: "context_overflow" }],
  ["Prompt is too long · automatic compaction failed: the summary request was refused", { kind: "context_overflow" }],
  ["Image was too large. Try resizing the image or using a different approach.", { kind: "image_invalid" }],
  [
    "An image in the conversation exceeds the dimension limit for many-image requests (2000px). Run /compact to remove old images from context, or start a new session.",
    { kind: "image_invalid" },
  ],
  [
    "messages.3.content.1.image.source.base64.data: image does not match the provided media type image/png",
    { kind: "image_invalid", index: 3, contentIndex: 1 },
  ],
  ["messages.5.content.0.image.source.base64: image cannot be empty", { kind: "image_invalid", index: 5 }],
];

const GEMINI_BEDROCK: Case[] = [
  ["* GenerateContentRequest.contents[3].parts: contents.parts must not be empty.", { kind: "empty_content", index: 3, provider: "gemini" }],
  ["Please ensure that function response turn comes immediately after a function call turn.", { kind: "orphan_tool_result", provider: "gemini" }],
  [
    "Please ensure that function call turn comes immediately after a user turn or after a function response turn.",
    { kind: "roles_not_alternating", provider: "gemini" },
  ],
  [
    "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.",
    { kind: "tool_response_mismatch", provider: "gemini" },
  ],
  [
    "The input token count (1064589) exceeds the maximum number of tokens allowed (1048576).",
    { kind: "context_overflow", provider: "gemini", tokens: { current: 1064589, max: 1048576 } },
  ],
  [
    "Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:Task` , position 2. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.",
    { kind: "thinking_signature", provider: "gemini" },
  ],
  [
    "Expected toolResult blocks at messages.2.content for the following Ids: tooluse_jQ912rboYgzgLULQpRxWot, tooluse_8dcc1PqLSRCJ9cSXn1WmkA",
    { kind: "orphan_tool_use", index: 2, ids: ["tooluse_jQ912rboYgzgLULQpRxWot", "tooluse_8dcc1PqLSRCJ9cSXn1WmkA"], provider: "bedrock" },
  ],
  [
    "The toolUse blocks at messages.2.content contain duplicate Ids: http_request",
    { kind: "duplicate_tool_id", index: 2, ids: ["http_request"], provider: "bedrock" },
  ],
  [
    "The text field in the ContentBlock object at messages.15.content.0 is blank. Add text to the text field, and try again.",
    { kind: "empty_content", index: 15, contentIndex: 0, provider: "bedrock" },
  ],
  [
    "A conversation must start with a user message. Try again with a conversation that starts with a user message.",
    { kind: "first_not_user", provider: "bedrock" },
  ],
  [
    "A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.",
    { kind: "roles_not_alternating", provider: "bedrock" },
  ],
  [
    "The content field in the Message object at messages.4 is empty. Add a ContentBlock object to the content field and try again.",
    { kind: "empty_content", index: 4 },
  ],
  ["The content field at messages.6.content.0.toolResult cannot be empty when status value is error.", { kind: "empty_content", index: 6, contentIndex: 0 }],
  [
    "The model returned the following errors: prompt is too long: 200049 tokens > 200000 maximum",
    { kind: "context_overflow", tokens: { current: 200049, max: 200000 }, provider: "bedrock" },
  ],
];

function expectClassified(input: string | object, expected: Partial<ClassifiedError>): void {
  const got = classifyProviderError(input);
  for (const [key, value] of Object.entries(expected))
    expect(got[key as keyof ClassifiedError], `${key} of ${JSON.stringify(input).slice(0, 120)}`).toEqual(value);
}

describe("classifyProviderError: every exact text in the reference", () => {
  for (const [text, expected] of [...ANTHROPIC, ...OPENAI, ...GEMINI_BEDROCK, ...TRIAGE, ...CLAUDE_CODE_DISPLAY]) {
    it(`${expected.kind}: ${text.slice(0, 90)}`, () => expectClassified(text, expected));
  }
});

describe("classifyProviderError: wrapped the ways errors reach users", () => {
  for (const [text, expected] of ANTHROPIC.filter(([t]) => !t.startsWith("{"))) {
    it(`Anthropic JSON body: ${text.slice(0, 70)}`, () => {
      const body = { type: "error", error: { type: "invalid_request_error", message: text }, request_id: "req_011CSHoEeqs5C35K2UUqR7Fy" };
      expectClassified(JSON.stringify(body), { ...expected, message: text, provider: expected.provider ?? "anthropic" });
    });
    it(`Vertex envelope (body as a string): ${text.slice(0, 60)}`, () => {
      const inner = JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: text }, request_id: "req_vrtx_011CSHoEeqs5C35K2UUqR7Fy" });
      expectClassified(JSON.stringify({ error: { code: 400, message: inner, status: "INVALID_ARGUMENT" } }), { ...expected, message: text });
    });
    it(`opencode's stored APIError: ${text.slice(0, 60)}`, () => {
      const responseBody = JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: text } });
      expectClassified({ name: "APIError", data: { message: text, statusCode: 400, isRetryable: false, responseBody } }, { ...expected, message: text });
    });
    it(`Bedrock prefix: ${text.slice(0, 60)}`, () => {
      expectClassified(`The model returned the following errors: ${text}`, { ...expected, message: text, provider: "bedrock" });
    });
  }
  it("an OpenAI invalid_request_error body, with the index only in param", () => {
    const body = {
      error: {
        message: "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
        type: "invalid_request_error",
        param: "messages.[3].role",
        code: null,
      },
    };
    expectClassified(JSON.stringify(body), { kind: "orphan_tool_result", index: 3, provider: "openai" });
  });
  it("an OpenAI context_length_exceeded body", () => {
    const body = {
      error: {
        message:
          "This model's maximum context length is 128000 tokens. However, your messages resulted in 202868 tokens (202767 in the messages, 101 in the functions). Please reduce the length of the messages or functions.",
        type: "invalid_request_error",
        param: "messages",
        code: "context_length_exceeded",
      },
    };
    expectClassified(JSON.stringify(body), { kind: "context_overflow", tokens: { current: 202868, max: 128000 }, provider: "openai" });
  });
  it("opencode's ContextOverflowError", () => {
    expectClassified(
      { name: "ContextOverflowError", data: { message: "prompt is too long: 212345 tokens > 200000 maximum" } },
      { kind: "context_overflow", tokens: { current: 212345, max: 200000 } },
    );
  });
  it("a bare 413 with no recognisable text is still a byte limit", () => {
    expectClassified({ name: "APIError", data: { message: "Payload Too Large", statusCode: 413, isRetryable: false } }, { kind: "request_too_large" });
  });
  it("ids without a known prefix are taken from the list the API spells out", () => {
    expectClassified(
      "messages.3: `tool_use` ids were found without `tool_result` blocks immediately after: bash-uOQIdN0O. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
      {
        kind: "orphan_tool_use",
        ids: ["bash-uOQIdN0O"],
      },
    );
  });
});

describe("classifyProviderError: errors that only look like session damage", () => {
  it("a rate limit that mentions tokens is not a context error", () => {
    const body = {
      type: "error",
      error: {
        type: "rate_limit_error",
        message:
          "This request would exceed the rate limit for your organization of 40,000 input tokens per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits.",
      },
    };
    const got = classifyProviderError(JSON.stringify(body));
    expect(got.kind).toBe("unknown");
    expect(got.tokens).toBeNull();
    expect(got.note).toMatch(/rate limit/);
  });
  it("an overload is not repairable", () => {
    const got = classifyProviderError({ name: "APIError", data: { message: "Overloaded", statusCode: 529, isRetryable: true } });
    expect(got.kind).toBe("unknown");
    expect(got.note).toMatch(/overloaded/);
  });
  it("text that is no provider error at all", () => {
    const got = classifyProviderError("ECONNRESET while reading the response");
    expect(got).toMatchObject({ kind: "unknown", index: null, contentIndex: null, ids: [], tokens: null });
    expect(got.note).toBeUndefined();
  });
});

// Issue 40: Claude Code's own texts for a session it cannot load or compact (docs/research/claude-code-compaction.md,
// docs/claude-code-subagents.md). Not provider errors, but what users paste.
describe("classifyProviderError: Claude Code's own texts (issue 40)", () => {
  const CLAUDE_CODE: Case[] = [
    // 2.1.332's text (its binary: `No conversation found with session ID: ${id}`).
    ["No conversation found with session ID: 2f6c0e4b-1d3a-4c5e-9f70-0a1b2c3d4e5f", { kind: "session_not_found", tokens: null }],
    // claude-code#25032, an older client that read sessions-index.json.
    ["No saved session found with ID 2f6c0e4b-1d3a-4c5e-9f70-0a1b2c3d4e5f", { kind: "session_not_found" }],
    // claude-code#83261; 2.1.332's text is `No transcript found for agent ID: ${id}`.
    ['Agent "Run tests" could not be resumed: No transcript found for agent ID: a54ba10ec0018e37e', { kind: "subagent_not_found" }],
    // claude-code#26317, #8330, #22051: a compaction whose own request is over the window.
    [
      "Error: Error during compaction: Error: Conversation too long. Press esc twice to go up a few messages and try again.",
      { kind: "context_overflow", tokens: null },
    ],
    // 2.1.332, stored as a local command's stderr when every summary request was refused.
    ["Compaction failed · conversation could not be reduced below the context limit", { kind: "context_overflow", tokens: null }],
  ];
  for (const [text, expected] of CLAUDE_CODE) it(`${expected.kind}: ${text.slice(0, 90)}`, () => expectClassified(text, expected));
});
