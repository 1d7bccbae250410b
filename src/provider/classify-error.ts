/**
 * What a provider's error text means for a session: its kind, where in the request it points
 * (`messages.N[.content.M]`), the ids it names and, for context errors, the token counts. Accepts the raw text and
 * the wrappers seen in the wild (reference formats-and-errors.md §1): Anthropic JSON bodies, Vertex bodies whose
 * `message` is itself a JSON string, Bedrock's `The model returned the following errors:` prefix, OpenAI
 * `invalid_request_error` bodies, and opencode's stored `{name:"APIError", data:{message, responseBody}}`.
 *
 * Kinds are snake_case, a namespace apart from the kebab-case rule ids.
 */
import { isObject } from "../model/edit.js";
export type ProviderErrorKind =
  | "orphan_tool_use"
  | "orphan_tool_result"
  | "tool_result_not_first"
  | "duplicate_tool_id"
  | "empty_tool_id"
  | "tool_response_mismatch"
  | "thinking_order"
  | "thinking_modified"
  | "thinking_signature"
  | "thinking_bound"
  | "thinking_empty"
  | "thinking_when_disabled"
  | "trailing_thinking"
  | "trailing_assistant"
  | "empty_content"
  | "first_not_user"
  | "roles_not_alternating"
  | "context_overflow"
  | "request_too_large"
  | "image_invalid"
  | "document_invalid"
  | "invalid_json_body"
  | "previous_message_id"
  | "tool_reference_unknown"
  | "reasoning_invalid"
  | "rollout_ordinal"
  | "rollout_missing"
  | "session_not_found"
  | "subagent_not_found"
  | "unknown";

export type Provider = "anthropic" | "openai" | "bedrock" | "gemini" | "unknown";

export interface ClassifiedError {
  kind: ProviderErrorKind;
  /** `messages.N`: index into the request's messages array (system is apart and never shifts it). */
  index: number | null;
  /** `input[N]`: index into a Responses API request's input items. */
  item?: number;
  /** `messages.N.content.M`. */
  contentIndex: number | null;
  ids: string[];
  tokens: { current: number; max: number } | null;
  provider: Provider;
  /** The provider's own message, unwrapped. */
  message: string;
  /** Why it is not repairable, for errors that only look alike (rate limits, overloads). */
  note?: string;
}

const BEDROCK_PREFIX = /^\s*The model returned the following errors:\s*/i;

interface Unwrapped {
  message: string;
  provider?: Provider;
  type?: string;
  code?: string;
  param?: string;
  status?: number;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Peel wrappers until the provider's own message is left, remembering what each layer said about the source. */
function unwrap(input: unknown, found: Omit<Unwrapped, "message"> = {}, depth = 0): Unwrapped {
  if (depth > 6) return { ...found, message: typeof input === "string" ? input : JSON.stringify(input) };
  if (typeof input === "string") {
    let text = input.trim();
    if (BEDROCK_PREFIX.test(text)) {
      found = { ...found, provider: "bedrock" };
      text = text.replace(BEDROCK_PREFIX, "");
    }
    const whole = parseJson(text);
    if (isObject(whole)) return unwrap(whole, found, depth + 1);
    // "400 {…}" and similar: a JSON body after a short prefix; Gemini CLI 0.61 prints the API's body after
    // "Error when talking to Gemini API Full report available at: <path> _ApiError: ".
    const apiError = text.indexOf("_ApiError: {");
    const brace = apiError >= 0 ? apiError + "_ApiError: ".length : text.indexOf("{");
    if (brace > 0 && (brace < 40 || apiError >= 0)) {
      // Gemini CLI's body is one line, its stack trace follows.
      const tail = parseJson(apiError >= 0 ? text.slice(brace).split("\n")[0]! : text.slice(brace));
      if (isObject(tail)) return unwrap(tail, found, depth + 1);
    }
    return { ...found, message: text };
  }
  if (!isObject(input)) return { ...found, message: String(input) };
  // opencode's stored error: {name, data:{message, statusCode, responseBody}}
  if (typeof input.name === "string" && isObject(input.data)) {
    const data = input.data;
    const status = typeof data.statusCode === "number" ? data.statusCode : found.status;
    const next = { ...found, ...(status !== undefined ? { status } : {}) };
    if (typeof data.responseBody === "string" && isObject(parseJson(data.responseBody))) return unwrap(parseJson(data.responseBody), next, depth + 1);
    if (typeof data.message === "string") return unwrap(data.message, next, depth + 1);
    return { ...next, message: input.name };
  }
  const error = input.error;
  if (isObject(error)) {
    const next: Omit<Unwrapped, "message"> = { ...found };
    if (typeof error.type === "string") next.type = error.type;
    if (typeof error.code === "string") next.code = error.code;
    if (typeof error.code === "number") next.status = error.code;
    if (typeof error.param === "string") next.param = error.param;
    if (input.type === "error" && !next.provider) next.provider = "anthropic";
    if (typeof error.status === "string" && error.status === "INVALID_ARGUMENT" && !next.provider) next.provider = "gemini";
    if (typeof error.message === "string") {
      const inner = parseJson(error.message);
      // Vertex: the Anthropic body travels as a string inside Google's envelope.
      if (isObject(inner)) return unwrap(inner, { ...next, provider: undefined }, depth + 1);
      return { ...next, message: error.message };
    }
  }
  if (typeof input.message === "string") return unwrap(input.message, found, depth + 1);
  return { ...found, message: JSON.stringify(input) };
}

const RULES: [ProviderErrorKind, RegExp][] = [
  // Gemini: a function call turn answered by another number of responses (before orphan_tool_use's wider texts).
  ["tool_response_mismatch", /number of function response parts is equal to the number of function call parts/i],
  [
    "orphan_tool_result",
    /unexpected `?tool_use_id`? found in `?\w*tool_result`? blocks|role 'tool' must be a response to a prece+ding message|No tool call found for (?:function|custom tool) call output|function response turn comes immediately after a function call turn|orphaned tool_result in conversation history/i,
  ],
  [
    "orphan_tool_use",
    /ids were found without `?tool_result`? blocks|Expected toolResult blocks|must be followed by tool messages|No tool output found for (?:function|custom tool|local shell) call|due to tool use concurrency issues/i,
  ],
  ["tool_result_not_first", /Did not find \d+ tool_result block\(s\) at the beginning/i],
  ["duplicate_tool_id", /ids must be unique|contain duplicate Ids|Duplicate item found with id|duplicate tool_use ID in conversation history/i],
  // Anthropic: an id that does not match its pattern, an empty one first (`messages.1.content.1.tool_use.id: String
  // should match pattern '^[a-zA-Z0-9_-]+$'`, CommandCodeAI/command-code#323, BlockRunAI/ClawRouter#17).
  [
    "empty_tool_id",
    /call_id'?:? (?:is )?(?:an )?empty string|Invalid '[^']*(?:call_)?id'[^\n]*empty string|tool_use(?:\.id|_id): String should match pattern/i,
  ],
  ["thinking_when_disabled", /When thinking is disabled/i],
  ["thinking_modified", /thinking.*cannot be modified/i],
  ["thinking_empty", /each thinking block must contain non-whitespace thinking|thinking blocks? must (?:contain|be) non-?(?:empty|whitespace)/i],
  // Before thinking_signature, whose words it starts with: the prefix check of current Claude models, not a bad signature.
  ["thinking_bound", /bound to a different conversation/i],
  ["thinking_signature", /Invalid `?signature`?|signature: Field required|thought_signature|Corrupted thought signature/i],
  ["reasoning_invalid", /invalid_encrypted_content|encrypted content .* could not be verified/i],
  // Codex CLI's own refusals of a rollout (not the API's): its line numbers, and its index of where rollouts are.
  ["rollout_ordinal", /paginated rollout record .* is missing an ordinal|thread history projection .*expected ordinal \d+, got \d+/i],
  ["rollout_missing", /no rollout found for (?:thread|conversation) id/i],
  ["thinking_order", /Expected `?thinking`? or `?redacted_thinking`?, but found|first block must be thinking/i],
  ["trailing_thinking", /final block in an assistant message cannot be `?thinking`?/i],
  ["trailing_assistant", /does not support assistant message prefill|conversation must end with a user message/i],
  [
    "request_too_large",
    /request_too_large|Request exceeds the maximum (?:allowed number of bytes|size)|Request too large(?: \(max [\d.]+ ?MB| for the API's|\.)|the (?:request|message) size \(\d+ bytes\) exceeds [\d.]+ ?MB limit|^input is too long\.?(?! for)/i,
  ],
  [
    "context_overflow",
    /prompt is too long|too large to compact|exceed context limit|maximum context length|context_length_exceeded|Request size exceeds model context window|too many tokens|input token count .*exceeds the maximum number of tokens|input exceeds the context window|input is too long for requested model/i,
  ],
  [
    "document_invalid",
    /maximum of \d+ PDF pages may be provided|The PDF specified (?:was not valid|is password protected)|Could not process PDF|PDF too large \(max|PDF is password protected|The PDF file was not valid|does not support PDF/i,
  ],
  [
    "image_invalid",
    /image exceeds [\d.]+ ?MB maximum|dimensions exceed max allowed size|Could not process image|image does not match the provided media type|image cannot be empty|Image was too large|exceeds the dimension limit for many-image requests/i,
  ],
  // openclaw 2026.9's own words when its overflow recovery (auto-compaction, then tool-result truncation) gave up:
  // what its user sees instead of the API's text (docs/research/openclaw-compaction.md).
  ["context_overflow", /Context overflow: prompt too large for the model|Auto-compaction (?:failed|timed out) before the next model request/i],
  // Claude Code's own: a compaction whose request is itself over the window (claude-code#26317, #8330): the session is
  // too long to compact, and stays so across restarts until it is trimmed.
  ["context_overflow", /Conversation too long|Error during compaction|could not be reduced below the context limit/i],
  // Claude Code's own: no transcript for the id asked for (a session's, claude-code#25032; a subagent's, #83261).
  ["subagent_not_found", /No transcript found for agent ID/i],
  ["session_not_found", /No conversation found with session ID|No saved session found with ID/i],
  ["invalid_json_body", /request body is not valid JSON/i],
  // Claude Code's cache diagnosis named a stored reply by an id the API never gave (anthropics/claude-code#96033).
  ["previous_message_id", /diagnostics\.previous_message_id/i],
  // A tool search's reference to a tool the request does not list (anthropics/claude-code#79970, #82004).
  ["tool_reference_unknown", /Tool reference '[^']*' not found in available tools/i],
  [
    "empty_content",
    /text content blocks must be non-empty|must contain non-whitespace text|must have non-empty content|is blank\.|content field (?:in the Message object )?at messages\.\d+.* is empty|cannot be empty when status value is error|contents\.parts must not be empty/i,
  ],
  ["first_not_user", /first message must use the "user" role|must start with a user message/i],
  ["roles_not_alternating", /roles must alternate|must alternate between user and assistant|function call turn comes immediately after a user turn/i],
  // Gemini CLI's own answer to --resume, not the API's: it read no session from the chat file.
  ["session_not_found", /No previous sessions found for this project|Invalid session identifier/i],
];

/** Texts that mention tokens or look like failures but are about the account or the service, not the session. */
const NOT_THE_SESSION: [RegExp, string][] = [
  [/RESOURCE_EXHAUSTED|quota/i, "a quota or rate limit (RESOURCE_EXHAUSTED): wait or raise the quota; nothing in the session is wrong"],
  [/rate.?limit|tokens per minute|requests per minute|too many requests|429/i, "a rate limit: wait and retry; nothing in the session is wrong"],
  [/overloaded|529|503|service unavailable/i, "the provider is overloaded: retry later; nothing in the session is wrong"],
  [/authentication|api key|permission_error|401|403/i, "an authentication problem: check the API key; nothing in the session is wrong"],
];

const ID_PATTERN = /\b(?:toolu_|tooluse_|call_|srvtoolu_)[A-Za-z0-9_-]{6,}/g;
/** Lists of ids the API spells out after a colon (third-party ids do not always carry a known prefix). */
const ID_LISTS = [
  /immediately after:\s*([^\n]+?)\.\s*Each/i,
  /blocks:\s*([^\n]+?)\.\s*Each/i,
  /following Ids:\s*([^\n]+?)(?:\s*\(|$)/i,
  /contain duplicate Ids:\s*([^\n]+?)\s*$/i,
  /did not have response messages:\s*([^\n]+?)\s*$/i,
];

function idsIn(message: string): string[] {
  const ids = new Set<string>();
  for (const list of ID_LISTS) {
    const m = list.exec(message);
    if (!m) continue;
    for (const id of m[1]!.split(/,\s*/)) {
      const clean = id.trim().replace(/[.,]+$/, "");
      if (/^[A-Za-z0-9_-]+$/.test(clean)) ids.add(clean);
    }
  }
  for (const m of message.matchAll(ID_PATTERN)) ids.add(m[0]);
  return [...ids];
}

const int = (s: string | undefined) => (s === undefined ? NaN : Number(s.replace(/,/g, "")));

function tokensIn(message: string): ClassifiedError["tokens"] {
  let m = /([\d,]+)\s*tokens?\s*>\s*([\d,]+)\s*maximum/i.exec(message);
  if (m) return { current: int(m[1]), max: int(m[2]) };
  m = /exceed context limit:\s*([\d,]+)\s*\+\s*([\d,]+)\s*>\s*([\d,]+)/i.exec(message);
  if (m) return { current: int(m[1]) + int(m[2]), max: int(m[3]) };
  m = /maximum context length is ([\d,]+) tokens.*?(?:resulted in|requested) ([\d,]+) tokens/is.exec(message);
  if (m) return { current: int(m[2]), max: int(m[1]) };
  // Gemini: "The input token count (N) exceeds the maximum number of tokens allowed (M)."
  m = /input token count \(?([\d,]+)\)? exceeds the maximum number of tokens allowed \(?([\d,]+)\)?/i.exec(message);
  if (m) return { current: int(m[1]), max: int(m[2]) };
  return null;
}

function locationIn(message: string, param: string | undefined): { index: number | null; contentIndex: number | null } {
  for (const text of [message, param ?? ""]) {
    // Gemini names its turns contents[N] (and parts[M]): one per request message, as messages.N is.
    const m = /messages\.\[?(\d+)\]?(?:\.content\.(\d+))?/.exec(text) ?? /contents\[(\d+)\](?:\.parts\[(\d+)\])?/.exec(text);
    if (m) return { index: Number(m[1]), contentIndex: m[2] === undefined ? null : Number(m[2]) };
  }
  return { index: null, contentIndex: null };
}

function providerOf(u: Unwrapped, message: string): Provider {
  if (u.provider) return u.provider;
  if (
    u.param !== undefined ||
    u.code === "context_length_exceeded" ||
    /tool_call|role 'tool'|function call output|maximum context length|call_id|input\[\d+\]|encrypted content|context window of this model/i.test(message)
  )
    return "openai";
  if (
    /function response parts|function (?:response|call) turn comes immediately|GenerateContentRequest|thought_signature|Corrupted thought signature|input token count|RESOURCE_EXHAUSTED|No previous sessions found for this project|Invalid session identifier/i.test(
      message,
    )
  )
    return "gemini";
  if (/toolResult|ContentBlock object|toolUse blocks|Message object at|A conversation must/i.test(message)) return "bedrock";
  if (
    u.type !== undefined ||
    /^API Error: \d{3}\b|messages\.\d+|tool_use|thinking|prompt is too long|previous_message_id|Tool reference '|request_too_large|content blocks|32 ?MB/i.test(
      message,
    )
  )
    return "anthropic";
  return "unknown";
}

export function classifyProviderError(input: string | object): ClassifiedError {
  const unwrapped = unwrap(input);
  const message = unwrapped.message;
  const haystack = [message, unwrapped.type, unwrapped.code].filter(Boolean).join(" ");
  const kind = RULES.find(([, pattern]) => pattern.test(haystack))?.[0] ?? (unwrapped.status === 413 ? "request_too_large" : "unknown");
  const located = locationIn(message, unwrapped.param);
  const result: ClassifiedError = {
    kind,
    index: located.index,
    contentIndex: located.contentIndex,
    ids: idsIn(message),
    tokens: kind === "context_overflow" ? tokensIn(message) : null,
    provider: providerOf(unwrapped, message),
    message,
  };
  const item = /input\[(\d+)\]/.exec(`${message} ${unwrapped.param ?? ""}`);
  if (item) result.item = Number(item[1]);
  if (kind === "unknown") {
    const known = NOT_THE_SESSION.find(([pattern]) => pattern.test(`${haystack} ${unwrapped.status ?? ""}`));
    if (known) result.note = known[1];
  }
  return result;
}
