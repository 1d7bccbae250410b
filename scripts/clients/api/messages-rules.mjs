// The rules of the real Anthropic Messages API that the loopback mock (messages.mjs) applies when a run enforces them
// (the engine, scripts/clients/lib/engine.mjs; every client that speaks this API: Claude Code, opencode, openclaw): a
// request that breaks one is answered with the API's 400 text. One table, RULES (each rule's id, the API's text,
// where that text comes from, its check), applied in order by checkRequest;
// ../shared/reference/preserved-thinking.md §2–3 has the binding in words, test/provider/mock-rules-agree.test.ts holds
// the table against recover's validator.

import { createHash } from "node:crypto";

// The prefix binding of the enforcing mock (see the header): on the models of recover's table
// (src/provider/prefix-bound.ts, copied here: this script has no dependencies), every thinking block the mock issues
// is bound to a hash of its prefix and to the thinking block before it; a later request that sends such a block
// with another prefix, or after another thinking block, is answered 400.
const PREFIX_BOUND_MODELS = [
  { family: "fable", versions: ["5-2"] },
  { family: "mythos", versions: ["5-2"] },
  { family: "fable", versions: ["5-1"] },
  { family: "mythos", versions: ["5-1"] },
  { family: "opus", versions: ["5-5"] },
  { family: "sonnet", versions: ["5-5"] },
  { family: "haiku", versions: ["5-5"] },
];
export function isPrefixBound(model) {
  const match = typeof model === "string" ? /claude-([a-z]+)-(\d+)[-.](\d+)(?![\d])/i.exec(model) : null;
  if (!match) return false;
  const version = `${match[2]}-${match[3]}`;
  return PREFIX_BOUND_MODELS.some((m) => m.family === match[1].toLowerCase() && m.versions.includes(version));
}
const BINDING_BETA = "thinking-binding-controls-2026-08-01";
const BOUND_THINKING =
  'Invalid `signature` in `thinking` block. The block is bound to a different conversation. Remove the block, or set `thinking.block_binding.prefix_mismatch_behavior` to "drop_block".';
const BOUND_THINKING_NO_BETA = " That setting requires the `thinking-binding-controls-2026-08-01` value in the `anthropic-beta` header.";
export const isThinking = (b) => b?.type === "thinking" || b?.type === "redacted_thinking";
const blockId = (b) => (b.type === "thinking" ? b.signature : b.data);
// Values only: cache_control dropped at every depth, keys sorted, and a string `content` / `system` read as the one
// text block it stands for (the API's own shorthand; Claude Code sends the same message as a string in one request
// and as a block list carrying cache_control in another).
function canon(v) {
  if (Array.isArray(v)) return v.map(canon);
  if (v && typeof v === "object") {
    const out = {};
    for (const k of Object.keys(v).sort()) {
      if (k === "cache_control") continue;
      out[k] = k === "content" && typeof v[k] === "string" ? [{ text: v[k], type: "text" }] : canon(v[k]);
    }
    return out;
  }
  return v;
}
const sysOf = (s) => (typeof s === "string" ? [{ type: "text", text: s }] : (s ?? null));
// The prefix of block `m` of `message` (the message it is in, as sent), after `messages` (everything before that
// message): system, tools, those messages and that message's earlier blocks, thinking left out (earlier thinking
// is not in the prefix; the predecessor link checks it). `scope: "messages"` leaves system and tools out.
function prefixHash(body, messages, message, m, scope) {
  const strip = (content) => (Array.isArray(content) ? content.filter((b) => !isThinking(b)) : content);
  const value = {
    ...(scope === "messages" ? {} : { system: canon(sysOf(body.system)), tools: canon(body.tools ?? []) }),
    messages: canon([...messages.map((x) => ({ ...x, content: strip(x.content) })), { ...message, content: strip(message.content.slice(0, m)) }]),
  };
  return createHash("sha256").update(JSON.stringify(value)).digest("hex");
}
/** The id of the last thinking block before block `m` of message `n` (any earlier message counts), or null. */
function predecessor(msgs, n, m) {
  for (let i = n; i >= 0; i--) {
    const c = Array.isArray(msgs[i]?.content) ? msgs[i].content : [];
    for (let j = (i === n ? m : c.length) - 1; j >= 0; j--) if (isThinking(c[j])) return blockId(c[j]);
  }
  return null;
}
/** Record the binding of each thinking block of `blocks`, the reply to `body` (issued by this mock). */
export function bindReply(body, blocks, bound, scope) {
  if (!isPrefixBound(body?.model)) return;
  const msgs = Array.isArray(body.messages) ? body.messages : [];
  const message = { role: "assistant", content: blocks };
  for (const [m, b] of blocks.entries())
    if (isThinking(b))
      bound.set(blockId(b), {
        hash: prefixHash(body, msgs, message, m, scope),
        prev: predecessor([...msgs, message], msgs.length, m),
      });
}
/**
 * The first thinking block of `body` (with a signature this mock bound) whose prefix or predecessor differs from
 * the ones it was issued with, or null. A block with no thinking before it in the request passes the predecessor
 * check (thinking stripped oldest-first, or all of it, is accepted).
 */
export function firstUnbound(body, bound, scope) {
  if (!isPrefixBound(body?.model)) return null;
  const msgs = Array.isArray(body.messages) ? body.messages : [];
  for (const [n, msg] of msgs.entries()) {
    if (!Array.isArray(msg?.content)) continue;
    for (const [m, b] of msg.content.entries()) {
      if (!isThinking(b) || !bound.has(blockId(b))) continue;
      const was = bound.get(blockId(b));
      const prev = predecessor(msgs, n, m);
      const why = prefixHash(body, msgs.slice(0, n), msg, m, scope) !== was.hash ? "prefix" : prev !== null && prev !== was.prev ? "predecessor" : null;
      if (why) return { at: `messages.${n}.content.${m}`, why };
    }
  }
  return null;
}

// The API's texts, word for word (the rules below build their 400 from these).
const EMPTY_THINKING = (n, m) => `messages.${n}.content.${m}.thinking: each thinking block must contain non-whitespace thinking`;
const BLANK_TEXT = "messages: text content blocks must contain non-whitespace text";
const MODIFIED_THINKING = (n, m) =>
  `messages.${n}.content.${m}: \`thinking\` or \`redacted_thinking\` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.`;
const BINDING_WITHOUT_BETA = (type) => `thinking.${type}.block_binding: Extra inputs are not permitted`;
const BOUND = (at, beta) => `${at}: ${BOUND_THINKING}${beta ? "" : BOUND_THINKING_NO_BETA}`;
const TOO_LONG = (tokens, limit) => `prompt is too long: ${tokens} tokens > ${limit} maximum`;
// The 413 Cloudflare answers before the API reads the body: the body Claude Code users report
// (../shared/reference/formats-and-errors.md §1.3, https://github.com/anthropics/claude-code/issues/8092), no position.
const TOO_LARGE = "Request exceeds the maximum size";
const PDF_PAGES = (n, m, max) => `messages.${n}.content.${m}.pdf.source.base64.data: A maximum of ${max} PDF pages may be provided.`;
/** The Messages API's byte limit (https://docs.claude.com/en/api/overview, "Request size limits": 32 MB). */
export const MAX_REQUEST_BYTES = 32 * 1024 * 1024;
/** Pages per request in PDF documents (https://docs.claude.com/en/docs/build-with-claude/pdf-support: 100). */
export const MAX_PDF_PAGES = 100;
const RESULT_MISSING = (n, ids) =>
  `messages.${n}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${ids.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
const RESULT_ORPHAN = (n, m, id) =>
  `messages.${n}.content.${m}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;

// The API parses the body before any rule: a string holding a UTF-16 surrogate with no partner (JSON.stringify writes
// it as a lone `\udXXX` escape) fails the parse (https://github.com/anthropics/claude-code/issues/68325, /60394, /3277:
// `line 1 column N (char N-1)`, N where the bad escape is).
const NOT_JSON = (column) => `The request body is not valid JSON: no low surrogate in string: line 1 column ${column} (char ${column - 1})`;
/** The first string in `value` (keys included) that is not well-formed UTF-16, or undefined. */
function loneSurrogateIn(value) {
  if (typeof value === "string") return value.isWellFormed() ? undefined : value;
  if (Array.isArray(value)) {
    for (const v of value) {
      const found = loneSurrogateIn(v);
      if (found !== undefined) return found;
    }
  } else if (value && typeof value === "object")
    for (const [k, v] of Object.entries(value)) {
      const found = loneSurrogateIn(k) ?? loneSurrogateIn(v);
      if (found !== undefined) return found;
    }
  return undefined;
}

const FIRST_NOT_USER = 'messages: first message must use the "user" role';
const DUPLICATE_TOOL_ID = (n, m) => `messages.${n}.content.${m}: \`tool_use\` ids must be unique`;
const PREVIOUS_MESSAGE_ID = "diagnostics.previous_message_id: must be the `id` from a prior /v1/messages response (starts with `msg_`)";

const TOOL_REFERENCE_UNKNOWN = (name) => `Tool reference '${name}' not found in available tools`;
/** The tool names a request refers to by reference: tool_reference blocks in tool results and in system turns' tool changes. */
function* toolReferences(body) {
  for (const msg of Array.isArray(body?.messages) ? body.messages : []) {
    for (const block of Array.isArray(msg?.content) ? msg.content : []) {
      if (block?.type === "tool_result" && Array.isArray(block.content))
        for (const item of block.content) if (item?.type === "tool_reference" && typeof item.tool_name === "string") yield item.tool_name;
      if ((block?.type === "tool_addition" || block?.type === "tool_removal") && block.tool?.type === "tool_reference" && typeof block.tool.name === "string")
        yield block.tool.name;
    }
  }
}

const messagesOf = (body) => (Array.isArray(body?.messages) ? body.messages : []);
const blocksOf = (msg) => (Array.isArray(msg?.content) ? msg.content : []);
/** The tool_use blocks of an assistant message (a user message calls no tool). */
const toolUses = (msg) => (msg?.role === "assistant" ? blocksOf(msg).filter((b) => b?.type === "tool_use") : []);
const hasBeta = (headers) =>
  String(headers?.["anthropic-beta"] ?? "")
    .split(",")
    .map((s) => s.trim())
    .includes(BINDING_BETA);

/**
 * The API rules of the enforcing mock, in the order the mock checks them. `check(body, ctx)` is null when the request
 * keeps the rule, else what breaks it: `{ message }` (the 400's text, built from `error`) and, for the binding,
 * `why`; or `{ dropped }` when a `drop_block` request passes with its failing thinking left out. `ctx`: { issued
 * (signature → the thinking text this mock streamed with it), bound (signature → binding; absent: no binding rules),
 * headers, scope, contextLimit }. `byMessage` rules are checked message by message together, where the first of them
 * stands in the table: the earliest message that breaks one of them is named (`at`), whichever rule it breaks (on one
 * message, the rule listed first). test/provider/mock-rules-agree.test.ts holds them against recover's validator.
 */
export const RULES = [
  {
    // Before any other: the body is refused by its size before it is read. The size is the body as the mock re-encodes
    // it (JSON.stringify: what every client here sends, compact JSON); `maxBytes` lowers the limit for a run.
    id: "request_too_large",
    status: 413,
    type: "request_too_large",
    error: TOO_LARGE,
    source:
      "https://docs.claude.com/en/api/overview (Request size limits: 32 MB, a 413 request_too_large from Cloudflare); the text: ../shared/reference/formats-and-errors.md §1.3 (https://github.com/anthropics/claude-code/issues/8092)",
    check: (body, ctx) => (requestBytes(body) > (ctx.maxBytes ?? MAX_REQUEST_BYTES) ? { message: TOO_LARGE } : null),
  },
  {
    // Every PDF `document` block's pages count (the docs: both limits are on the whole request); the block that takes
    // the count over the limit is named. Pages are counted in the PDF's own bytes (pdfPages).
    id: "pdf_too_many_pages",
    error: PDF_PAGES,
    source:
      "https://docs.claude.com/en/docs/build-with-claude/pdf-support (100 pages per request); the text: public code quoting the API's 400 (`messages.1.content.22.pdf.source.base64.data: A maximum of 600 PDF pages may be provided`, 600 on 1M-context models; Claude Code 2.1.332 matches /maximum of \\d+ PDF pages/)",
    check(body, ctx) {
      const max = ctx.maxPdfPages ?? MAX_PDF_PAGES;
      let pages = 0;
      for (const [n, msg] of messagesOf(body).entries())
        for (const [m, b] of blocksOf(msg).entries()) {
          if (b?.type !== "document" || b.source?.type !== "base64" || b.source.media_type !== "application/pdf") continue;
          pages += pdfPages(b.source.data);
          if (pages > max) return { message: PDF_PAGES(n, m, max) };
        }
      return null;
    },
  },
  {
    // Then: the API reads nothing of a body it cannot parse. The column is where the first lone surrogate's escape
    // starts in the body as JSON.stringify writes it (Node, every client here), counted from 1.
    id: "body_not_json",
    error: NOT_JSON,
    source: "https://github.com/anthropics/claude-code/issues/68325 (and /60394, /3277, /6273: the same text, one column each)",
    check(body) {
      if (loneSurrogateIn(body) === undefined) return null;
      const json = JSON.stringify(body);
      const at = json.search(/\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f][0-9a-f]{2})|(?<!\\ud[89ab][0-9a-f]{2})\\ud[c-f][0-9a-f]{2}/);
      return { message: NOT_JSON(at + 1) };
    },
  },
  {
    // A request parameter, checked before the history: the id Claude Code sends for the API's cache diagnosis (beta
    // cache-diagnosis-2026-04-07; 2.1.332 on Anthropic's own API: the mock stands for it with
    // _CLAUDE_CODE_ASSUME_FIRST_PARTY_BASE_URL=1) must be an API message id. null (the first turn) passes.
    id: "previous_message_id",
    error: PREVIOUS_MESSAGE_ID,
    source: "https://github.com/anthropics/claude-code/issues/96033, /58427, /68553, /73776 (Claude Code prints `API Error: 400 ` before it)",
    check(body) {
      const id = body?.diagnostics?.previous_message_id;
      return typeof id === "string" && !id.startsWith("msg_") ? { message: PREVIOUS_MESSAGE_ID } : null;
    },
  },
  {
    // A tool_reference (a tool search's result, or a system turn's tool_addition / tool_removal) must name a tool of
    // the request's `tools` (deferred ones count). Which check comes first is not known; before the history's rules.
    id: "tool_reference_unknown",
    error: TOOL_REFERENCE_UNKNOWN,
    source: "https://github.com/anthropics/claude-code/issues/79970 (WaitForMcpServers), /82004 (a disconnected MCP server's tool)",
    check(body) {
      const tools = new Set((Array.isArray(body?.tools) ? body.tools : []).map((t) => t?.name).filter((n) => typeof n === "string"));
      for (const name of toolReferences(body)) if (!tools.has(name)) return { message: TOOL_REFERENCE_UNKNOWN(name) };
      return null;
    },
  },
  {
    id: "prompt_too_long",
    error: TOO_LONG,
    source: "../shared/reference/formats-and-errors.md §1.3 (https://github.com/earendil-works/pi/issues/102); the count is the mock's own (requestTokens)",
    check: (body, ctx) => checkWindow(body, ctx.contextLimit),
  },
  {
    // The history must begin with a user message (a system turn inside `messages` included: it is the client's own).
    id: "first_not_user",
    error: FIRST_NOT_USER,
    source:
      "../shared/reference/formats-and-errors.md §1.1 (src/provider/validate-anthropic.ts); issue 40 row 16: Claude Code 2.1.277+ send a reply first when the lines before it are lost (scenario leading-assistant)",
    check: (body) => {
      const first = messagesOf(body)[0];
      return first && first.role !== "user" ? { message: FIRST_NOT_USER } : null;
    },
  },
  {
    // No tool_use id twice in one request (a system turn holds none); the later use is named.
    id: "duplicate_tool_id",
    error: DUPLICATE_TOOL_ID,
    source:
      "../shared/reference/formats-and-errors.md §1.1 (src/provider/validate-anthropic.ts); issue 40 row 16: Claude Code leaves a reused id out before it sends (scenario duplicate-call-id)",
    check(body) {
      const seen = new Set();
      for (const [n, msg] of messagesOf(body).entries()) {
        if (msg?.role === "system") continue;
        for (const [m, b] of blocksOf(msg).entries()) {
          if (b?.type !== "tool_use" || typeof b.id !== "string") continue;
          if (seen.has(b.id)) return { message: DUPLICATE_TOOL_ID(n, m) };
          seen.add(b.id);
        }
      }
      return null;
    },
  },
  {
    id: "thinking_empty",
    error: EMPTY_THINKING,
    source: "docs/research/claude-code-repair-loop.md (the 400 Claude Code users report on resume; src/provider/validate-anthropic.ts)",
    check(body) {
      for (const [n, msg] of messagesOf(body).entries()) {
        if (!Array.isArray(msg?.content)) continue;
        for (const [m, b] of msg.content.entries())
          if (b?.type === "thinking" && typeof b.thinking === "string" && b.thinking.trim() === "") return { message: EMPTY_THINKING(n, m) };
      }
      return null;
    },
  },
  {
    id: "text_blank",
    error: BLANK_TEXT,
    source: "https://github.com/anthropics/claude-code/issues/23440, https://github.com/nick1udwig/kibitz/issues/78 (no position, as the API words it)",
    check(body) {
      for (const msg of messagesOf(body)) {
        const blocks = Array.isArray(msg?.content) ? msg.content : [];
        if (
          blocks.some((b) => b?.type === "text" && typeof b.text === "string" && b.text.trim() === "") ||
          (typeof msg?.content === "string" && msg.content.trim() === "")
        )
          return { message: BLANK_TEXT };
      }
      return null;
    },
  },
  // Tool pairing, after the checks of single blocks (a block's own fields are validated before the conversation is
  // read as turns: an inference, no source orders them). Message by message, as the API names one message: on one
  // assistant/user pair the unanswered tool_use (messages.N) comes before the result that answers nothing
  // (messages.N+1.content.M), as openclaw/clawhub#151 shows (results split over two user messages: both break, the
  // API names the missing one). As recover's validator (src/provider/validate-anthropic.ts) judges them, with one
  // exception: a tool_use followed by another assistant message is unanswered (see tool_result_missing).
  {
    // Each tool_use of an assistant message is answered by a tool_result in the very next message; the ids not
    // answered are listed in their order, comma-separated. A tool_use in the last message of the request is not
    // judged (no next message: the request asks for its continuation), as the validator has it; no source says what
    // the API answers. When the next message is an assistant message too, every id is unanswered (the API does not
    // merge the two first: https://github.com/vybestack/llxprt-code/pull/1302 for issue #1293, openclaw/openclaw#27890),
    // where the validator, which pairs each user message with the message before it, finds nothing.
    id: "tool_result_missing",
    byMessage: true,
    error: RESULT_MISSING,
    source:
      "../shared/reference/formats-and-errors.md §1.1 (https://github.com/anthropics/claude-code/issues/5989, multiple ids; /1237, /2697, https://github.com/Kilo-Org/kilocode/issues/5163)",
    check(body) {
      const msgs = messagesOf(body);
      for (const [n, msg] of msgs.entries()) {
        const uses = toolUses(msg);
        if (uses.length === 0 || n === msgs.length - 1) continue;
        const next = msgs[n + 1];
        const answered = new Set(next?.role === "user" ? blocksOf(next).flatMap((b) => (b?.type === "tool_result" ? [b.tool_use_id] : [])) : []);
        const missing = uses.filter((u) => !answered.has(u.id)).map((u) => u.id);
        if (missing.length > 0) return { at: n, message: RESULT_MISSING(n, missing) };
      }
      return null;
    },
  },
  {
    // Each tool_result of a user message answers a tool_use of the message right before it (none before the first
    // message: a request that starts with a result, the usual shape after a history was cut); the first that answers
    // none is named.
    id: "tool_result_orphan",
    byMessage: true,
    error: RESULT_ORPHAN,
    source:
      "../shared/reference/formats-and-errors.md §1.1 (https://github.com/decocms/studio/issues/1803, https://github.com/anthropics/claude-code/issues/13460, /18947)",
    check(body) {
      const msgs = messagesOf(body);
      for (const [n, msg] of msgs.entries()) {
        if (msg?.role !== "user") continue;
        const called = new Set(toolUses(msgs[n - 1]).map((u) => u.id));
        for (const [m, b] of blocksOf(msg).entries())
          if (b?.type === "tool_result" && !called.has(b.tool_use_id)) return { at: n, message: RESULT_ORPHAN(n, m, b.tool_use_id) };
      }
      return null;
    },
  },
  {
    id: "thinking_modified",
    error: MODIFIED_THINKING,
    source: "../shared/reference/formats-and-errors.md §1.2 (https://github.com/anthropics/claude-code/issues/19539); preserved-thinking.md §5 [TH]",
    check(body, { issued }) {
      const msgs = messagesOf(body);
      let n = -1;
      for (const [i, msg] of msgs.entries()) if (msg?.role === "assistant") n = i;
      const latest = n >= 0 ? msgs[n].content : null;
      if (Array.isArray(latest))
        for (const [m, b] of latest.entries())
          if (b?.type === "thinking" && issued.has(b.signature) && issued.get(b.signature) !== b.thinking) return { message: MODIFIED_THINKING(n, m) };
      return null;
    },
  },
  {
    id: "block_binding_without_beta",
    error: BINDING_WITHOUT_BETA,
    source: "../shared/reference/preserved-thinking.md §3 [OV#preserved-thinking-controls]",
    check: (body, { bound, headers }) =>
      bound && body?.thinking?.block_binding !== undefined && !hasBeta(headers) ? { message: BINDING_WITHOUT_BETA(body.thinking.type) } : null,
  },
  {
    id: "thinking_bound",
    error: BOUND,
    source: "../shared/reference/preserved-thinking.md §2–3 [OV#prefix-check] [OV#mismatch-behavior]; the models: src/provider/prefix-bound.ts",
    check(body, { bound, headers, scope }) {
      if (!bound) return null;
      const first = firstUnbound(body, bound, scope);
      if (!first) return null;
      if (body?.thinking?.block_binding?.prefix_mismatch_behavior === "drop_block") return { dropped: first };
      return { why: first.why, message: BOUND(first.at, hasBeta(headers)) };
    },
  },
];

/**
 * The first rule of RULES `body` breaks: null, { rule, message } (and `at` for a `byMessage` rule, `why` for a binding
 * failure), or { dropped }
 * (the thinking block a `drop_block` request had dropped from, when it passes).
 */
export function checkRequest(body, issued, { bound, headers, scope, contextLimit, maxBytes, maxPdfPages } = {}) {
  const ctx = { issued, bound, headers, scope, contextLimit, maxBytes, maxPdfPages };
  const judge = (rule) => {
    const broken = rule.check(body, ctx);
    return broken && (broken.dropped ? broken : { rule: rule.id, ...(rule.status ? { status: rule.status, type: rule.type } : {}), ...broken });
  };
  const byMessage = RULES.filter((r) => r.byMessage);
  for (const rule of RULES) {
    if (rule.byMessage && rule !== byMessage[0]) continue;
    // Stable: on one message, the rule listed first.
    const broken = rule.byMessage
      ? byMessage
          .map(judge)
          .filter(Boolean)
          .sort((a, b) => a.at - b.at)[0]
      : judge(rule);
    if (broken) return broken;
  }
  return null;
}

/** `body` without the thinking blocks at or after `at` (`messages.N.content.M`). */
export function withoutThinkingFrom(body, at) {
  const [, n, m] = /^messages\.(\d+)\.content\.(\d+)$/.exec(at).map(Number);
  return {
    ...body,
    messages: body.messages.map((msg, i) =>
      i < n || !Array.isArray(msg.content) ? msg : { ...msg, content: msg.content.filter((b, j) => !(isThinking(b) && (i > n || j >= m))) },
    ),
  };
}

/**
 * The size of a request as the mock counts it: one token per 4 bytes of its `system`, `tools` and `messages` as
 * JSON (the API's own count differs; what matters is that the mock's window is fixed and the client's request is
 * measured the same way before and after a trim).
 */
export function requestTokens(body) {
  const json = JSON.stringify({ system: body?.system ?? null, tools: body?.tools ?? [], messages: body?.messages ?? [] });
  return Math.ceil(Buffer.byteLength(json, "utf8") / 4);
}
/** The bytes of the body as compact JSON (what the clients send). */
export function requestBytes(body) {
  return Buffer.byteLength(JSON.stringify(body ?? null), "utf8");
}
/**
 * The pages of a PDF given as base64: its page objects (`/Type /Page`, not `/Pages`), counted in 1 MB slices of the
 * decoded bytes (a marker cut by a slice boundary is found by the overlap), so a large PDF is never decoded whole.
 */
export function pdfPages(base64) {
  if (typeof base64 !== "string") return 0;
  const SLICE = 4 * 256 * 1024;
  const OVERLAP = 32;
  const marker = /\/Type\s*\/Page(?![a-zA-Z])/g;
  let pages = 0;
  let carry = "";
  for (let at = 0; at < base64.length; at += SLICE) {
    const chunk = carry + Buffer.from(base64.slice(at, at + SLICE), "base64").toString("latin1");
    const head = chunk.length - OVERLAP;
    for (const found of chunk.matchAll(marker)) if (found.index < head || at + SLICE >= base64.length) pages++;
    // A marker that starts in the last OVERLAP characters is counted with the next slice, which begins with them.
    carry = chunk.slice(Math.max(0, head));
  }
  return pages;
}
/** `prompt is too long` when `contextLimit` is set and the request is over it; null otherwise. */
export function checkWindow(body, contextLimit) {
  if (!contextLimit) return null;
  const tokens = requestTokens(body);
  return tokens > contextLimit ? { rule: "prompt_too_long", message: TOO_LONG(tokens, contextLimit) } : null;
}

/**
 * The rules as one run applies them (lib/engine.mjs): `check(body, headers)` is null when the request passes, else
 * the API's 400 as a reply (`rule`, and `why` for a binding failure, kept for the log); `served(body, reply, passed)`
 * records what the mock issued (thinking texts, and on a prefix-bound model each block's binding). Options:
 * contextLimit (the window), bindScope ("messages": bind only the messages), mismatchHeader (also send
 * `anthropic-thinking-prefix-mismatch`, a header Claude Code 2.1.331 reads; not in Anthropic's documentation).
 */
export function enforcer({ contextLimit, bindScope, mismatchHeader, maxBytes, maxPdfPages } = {}) {
  const issued = new Map();
  const bound = new Map();
  let limit = contextLimit;
  return {
    /** The window from now on (a scenario sets it once the session is built: its next turn must not fit). */
    setContextLimit(n) {
      limit = n;
    },
    check(body, headers) {
      const broken = checkRequest(body, issued, { bound, headers, scope: bindScope, contextLimit: limit, maxBytes, maxPdfPages });
      if (!broken) return null;
      if (broken.dropped) return { passed: { droppedThinkingFrom: broken.dropped.at, why: broken.dropped.why } };
      const headersOut =
        mismatchHeader && broken.rule === "thinking_bound"
          ? { "anthropic-thinking-prefix-mismatch": `block=${broken.message.split(":")[0]}; kind=${broken.why}` }
          : undefined;
      return {
        refused: { status: broken.status ?? 400, error: { type: broken.type ?? "invalid_request_error", message: broken.message }, headers: headersOut },
        rule: broken.rule,
        ...(broken.why ? { why: broken.why } : {}),
      };
    },
    served(body, r, passed) {
      for (const b of r.blocks ?? []) if (b.type === "thinking") issued.set(b.signature, b.thinking);
      // drop_block: the failing block and every later thinking block are left out before the model sees them.
      bindReply(passed?.droppedThinkingFrom ? withoutThinkingFrom(body, passed.droppedThinkingFrom) : body, r.blocks ?? [], bound, bindScope);
    },
  };
}
