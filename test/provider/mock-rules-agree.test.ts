// The loopback mocks' API rules (scripts/clients/api/*-rules.mjs, what the real-client runs are judged by) against
// recover's validators (src/provider/validate-*.ts, what recover judges a session by): per API, the same request bodies
// go through both. The mock must refuse exactly when the validator reports an error the two share, naming the same rule
// (each API's `same` table maps the ids), with the same text unless a named text exception says how they differ. What
// only one side checks, or where they judge one body differently, is a named exception with its reason and a body that
// shows it: when either side changes, its exception fails here and must be revisited. Bodies: hand-written (valid ones,
// and at least one per rule), and per API a fast-check generator over the shapes both sides judge.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as gemini from "../../scripts/clients/api/gemini-rules.mjs";
import * as messages from "../../scripts/clients/api/messages-rules.mjs";
import * as responses from "../../scripts/clients/api/responses-rules.mjs";
import { pdfFile } from "../../scripts/clients/lib/pdf.mjs";
import type { AnthropicRequest, RequestBlock } from "../../src/provider/anthropic-request.js";
import { validateAnthropic, type ThinkingMode, type Violation } from "../../src/provider/validate-anthropic.js";
import { validateGemini, type GeminiTurn } from "../../src/provider/validate-gemini.js";
import { validateResponses, type ResponsesItem, type ResponsesViolation } from "../../src/provider/validate-responses.js";
import { isBlank } from "../../src/stores/opencode/part-content.js";
import { pdfPages } from "../../src/rules/trim/image-limits.js";

/** What one side says of a body: the mock's first broken rule, or each finding of the validator; id and text. */
interface Verdict {
  id: string;
  text: string;
}

/** Texts that differ for a good reason: `differ(mock, validator)` holds for exactly that difference. */
interface TextException {
  name: string;
  reason: string;
  differ(mockText: string, validatorText: string): boolean;
}

/** A rule one side checks and the other does not, or a body the two judge differently. */
interface Exception<Case> {
  name: string;
  reason: string;
  /** The body that shows it, and what each side says of it. */
  case: Case;
  mock: string | null;
  validator: string[];
}

interface Api<Case> {
  /** The mock's rule ids, in its RULES order. */
  mockRules: string[];
  /** Every finding id the validator can report (as it is called here). */
  validatorFindings: string[];
  mock(c: Case): Verdict | null;
  validator(c: Case): Verdict[];
  /** Mock rule → the validator's finding(s) for the same rule of the API. */
  same: Record<string, string[]>;
  /** `<mock rule>/<finding>` → why their texts differ. */
  texts: Record<string, TextException>;
  /** Mock rules the validator does not check, and findings the mock does not check: exception names. */
  mockOnly: Record<string, string>;
  validatorOnly: Record<string, string>;
  exceptions: Exception<Case>[];
}

/** The two sides agree on `c`: see the header. */
function expectAgree<Case>(api: Api<Case>, c: Case, label = ""): void {
  const mock = api.mock(c);
  const found = api.validator(c);
  const shared = found.filter((f) => !(f.id in api.validatorOnly));
  const said = `${label} mock: ${mock ? `${mock.id} ${JSON.stringify(mock.text)}` : "accepts"}; validator: ${JSON.stringify(found)}`;
  if (mock && mock.id in api.mockOnly) throw new Error(`${said}: a mock-only rule (${api.mockOnly[mock.id]}) refused a body outside its exception`);
  expect(mock !== null, said).toBe(shared.length > 0);
  if (!mock) return;
  const named = shared.filter((f) => api.same[mock.id]!.includes(f.id));
  expect(named.length, `${said}: not the same rule`).toBeGreaterThan(0);
  const sameText = named.some((f) => f.text === mock.text);
  const excused = named.some((f) => api.texts[`${mock.id}/${f.id}`]?.differ(mock.text, f.text));
  expect(sameText || excused, `${said}: not the same text`).toBe(true);
}

/**
 * One API's tests: the tables cover both sides, each id once; every exception's body says what it claims; the cases
 * (valid ones: neither side finds anything) and the generated bodies agree.
 */
function describeApi<Case>(title: string, api: Api<Case>, cases: [string, Case, string | null][], generated: fc.Arbitrary<Case>): void {
  describe(title, () => {
    it("the tables name every mock rule and every validator finding, each once", () => {
      const mapped = Object.values(api.same).flat();
      expect([...Object.keys(api.same), ...Object.keys(api.mockOnly)].sort()).toEqual([...api.mockRules].sort());
      expect([...mapped, ...Object.keys(api.validatorOnly)].sort()).toEqual([...api.validatorFindings].sort());
      const names = api.exceptions.map((e) => e.name);
      expect(new Set(names).size).toBe(names.length);
      for (const name of [...Object.values(api.mockOnly), ...Object.values(api.validatorOnly)]) expect(names).toContain(name);
    });

    it.each(api.exceptions.map((e) => [e.name, e] as const))("exception %s: still what it says", (_, e) => {
      expect(api.mock(e.case)?.id ?? null).toBe(e.mock);
      expect(api.validator(e.case).map((f) => f.id)).toEqual(e.validator);
    });

    it.each(cases)("%s", (name, c, rule) => {
      expect(api.mock(c)?.id ?? null).toBe(rule);
      if (rule === null) expect(api.validator(c)).toEqual([]);
      expectAgree(api, c, name);
    });

    it("agree on generated bodies", () => {
      fc.assert(
        fc.property(generated, (c) => expectAgree(api, c)),
        { numRuns: 400 },
      );
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Anthropic Messages: messages-rules.mjs against validateAnthropic
// ---------------------------------------------------------------------------------------------

type Block =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string }
  | { type: "tool_use"; id: string; name: string; input: object }
  | { type: "tool_result"; tool_use_id: string; content: string }
  | { type: "document"; source: { type: "base64"; media_type: "application/pdf"; data: string } };
interface MessagesBody {
  model: string;
  system?: string;
  thinking?: { type: "enabled" | "adaptive"; budget_tokens?: number; block_binding?: { prefix_mismatch_behavior: string } };
  messages: { role: "user" | "assistant"; content: string | Block[] }[];
}
/** A body, and the mock's state and options for it (what it issued and bound in earlier requests, headers, window). */
interface MessagesCase {
  body: MessagesBody;
  ctx?: Partial<messages.RuleContext>;
}

/** The request as recover models it (src/provider/anthropic-request.ts), from the body as sent. */
function anthropicRequestOf(body: MessagesBody): AnthropicRequest {
  return {
    messages: body.messages.map((message, n) => {
      const blocks: Block[] = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
      return {
        role: message.role,
        content: blocks.map((b, m): RequestBlock => {
          const source = { kind: "part" as const, id: `b${n}.${m}`, messageId: `msg_${n}` };
          switch (b.type) {
            case "text":
              return { type: "text", source, chars: b.text.length, blank: isBlank(b.text) };
            case "thinking":
              return { type: "thinking", source, chars: b.thinking.length, blank: isBlank(b.thinking), model: body.model };
            case "redacted_thinking":
              return { type: "redacted_thinking", source, chars: b.data.length, model: body.model };
            case "tool_use":
              return { type: "tool_use", source, chars: 10, id: b.id };
            case "document":
              return { type: "document", source, chars: b.source.data.length };
            default:
              return { type: "tool_result", source, chars: b.content.length, id: b.tool_use_id, isError: false };
          }
        }),
        sourceMessageIds: [`msg_${n}`],
      };
    }),
  };
}

/** Thinking as the request sets it: `enabled` is on, `adaptive` adaptive, none off. */
const thinkingOf = (body: MessagesBody): ThinkingMode => (body.thinking?.type === "enabled" ? "on" : body.thinking?.type === "adaptive" ? "adaptive" : "off");

/** validateAnthropic's findings as rule ids: its `empty_content` kind is three rules of the API. */
function anthropicFinding(v: Violation): Verdict {
  if (v.kind !== "empty_content") return { id: v.kind === "thinking_order" ? "thinking_not_first" : v.kind, text: v.text };
  if (/all messages must have non-empty content/.test(v.text)) return { id: "empty_message", text: v.text };
  return { id: /must be non-empty/.test(v.text) ? "text_empty" : "text_blank", text: v.text };
}

const PREFIX_BOUND = "claude-opus-5-5";
/** A PDF of `pages` page objects, as a document block (scripts/clients/lib/pdf.mjs). */
const pdfBlock = (pages: number, padding = 0): Block => ({
  type: "document",
  source: { type: "base64", media_type: "application/pdf", data: pdfFile(pages, padding).toString("base64") },
});
const signed = (thinking: string, signature: string): Block => ({ type: "thinking", thinking, signature });
const text = (t: string): Block => ({ type: "text", text: t });
const use = (id: string): Block => ({ type: "tool_use", id, name: "bash", input: { command: "ls" } });
const result = (id: string): Block => ({ type: "tool_result", tool_use_id: id, content: "a.txt" });
const body = (...msgs: MessagesBody["messages"]): MessagesBody => ({
  model: "claude-sonnet-4-5",
  thinking: { type: "enabled", budget_tokens: 2048 },
  messages: msgs,
});

/** The mock's binding of a first reply, and a second request that changed the system prompt before it. */
function boundCase(thinking: MessagesBody["thinking"] = { type: "adaptive" }): MessagesCase {
  const first: MessagesBody = { model: PREFIX_BOUND, system: "You are a helper.", thinking, messages: [{ role: "user", content: "Hi" }] };
  const bound = new Map<string, messages.Binding>();
  messages.bindReply(first, [signed("Greet.", "sig_A"), text("Hello.")], bound);
  const second: MessagesBody = {
    ...first,
    system: "You are a different helper.",
    messages: [...first.messages, { role: "assistant", content: [signed("Greet.", "sig_A"), text("Hello.")] }, { role: "user", content: "Again" }],
  };
  return { body: second, ctx: { bound } };
}

const NOT_MODELLED =
  "an API rule the Messages mock does not model (../shared/reference/formats-and-errors.md §1.1–1.3): it serves a request that breaks it; the capture scenarios have not needed it so far";

const MESSAGES: Api<MessagesCase> = {
  mockRules: messages.RULES.map((r) => r.id),
  validatorFindings: [
    "first_not_user",
    "empty_message",
    "text_empty",
    "text_blank",
    "thinking_empty",
    "duplicate_tool_id",
    "thinking_not_first",
    "trailing_thinking",
    "thinking_when_disabled",
    "orphan_tool_use",
    "orphan_tool_result",
    "tool_result_not_first",
  ],
  mock: ({ body, ctx }) => {
    const broken = messages.checkRequest(body, ctx?.issued ?? new Map(), ctx);
    return broken?.rule ? { id: broken.rule, text: broken.message! } : null;
  },
  validator: ({ body }) => validateAnthropic(anthropicRequestOf(body), thinkingOf(body)).map(anthropicFinding),
  same: {
    first_not_user: ["first_not_user"],
    duplicate_tool_id: ["duplicate_tool_id"],
    thinking_empty: ["thinking_empty"],
    text_blank: ["text_blank", "text_empty"],
    tool_result_missing: ["orphan_tool_use"],
    tool_result_orphan: ["orphan_tool_result"],
  },
  texts: {
    "text_blank/text_blank": {
      name: "blank-text-prefix",
      reason:
        "the API's text starts with `messages: ` (https://github.com/anthropics/claude-code/issues/23440, https://github.com/nick1udwig/kibitz/issues/78), as the mock's does; recover's validator leaves it out (its source, ../shared/reference/formats-and-errors.md §1.3, quotes the text without it)",
      differ: (mock, validator) => mock === `messages: ${validator}`,
    },
    "text_blank/text_empty": {
      name: "empty-text-wording",
      reason:
        'for a text of no characters the API says `messages: text content blocks must be non-empty` (formats-and-errors.md §1.3; https://github.com/stackblitz/bolt.new/issues/7426), as recover does; the mock answers every blank text, "" included, with the whitespace text',
      differ: (mock, validator) =>
        mock === "messages: text content blocks must contain non-whitespace text" && validator === "messages: text content blocks must be non-empty",
    },
  },
  mockOnly: {
    request_too_large: "request-bytes",
    pdf_too_many_pages: "pdf-pages",
    body_not_json: "lone-surrogate",
    previous_message_id: "previous-message-id",
    tool_reference_unknown: "tool-reference-unknown",
    prompt_too_long: "window",
    thinking_modified: "modified-thinking",
    block_binding_without_beta: "block-binding-without-beta",
    thinking_bound: "prefix-binding",
  },
  validatorOnly: {
    empty_message: "empty-message",
    thinking_not_first: "thinking-not-first",
    trailing_thinking: "trailing-thinking",
    thinking_when_disabled: "thinking-when-disabled",
    tool_result_not_first: "tool-result-not-first",
  },
  exceptions: [
    {
      name: "request-bytes",
      reason:
        "the API's byte limit (a 413 before the body is read) is a size, not a shape of the history: recover answers it with context trim's byte budget and drop-images' rule for a medium over the limit by itself (src/rules/trim/image-limits.ts unsendableFault), not in the validator",
      case: { body: body({ role: "user", content: "x".repeat(400) }), ctx: { maxBytes: 100 } },
      mock: "request_too_large",
      validator: [],
    },
    {
      name: "pdf-pages",
      reason:
        "the page count is in the PDF's bytes, which the validator's request model does not carry: recover counts pages in drop-images (image-limits.ts pdfPages, the mock's count: a test below holds them equal), run by `repair --error` for the API's `A maximum of 100 PDF pages may be provided`",
      case: { body: body({ role: "user", content: [pdfBlock(101), text("Summarise it.")] }) },
      mock: "pdf_too_many_pages",
      validator: [],
    },
    {
      name: "lone-surrogate",
      reason:
        "the body's encoding, not the history's shape: recover judges it on the stored records (corrupted-tool-output: every string of a transcript line, an opencode part's text, output and tool input), where the client's own clean-up (Claude Code's) is known",
      case: {
        body: body(
          { role: "user", content: "Run it." },
          { role: "assistant", content: [text("Running."), { type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "echo \ud83d" } }] },
        ),
      },
      mock: "body_not_json",
      validator: [],
    },
    {
      name: "previous-message-id",
      reason:
        "a request parameter (the cache diagnosis Claude Code asks for), not the history: recover judges the stored line the client takes the id from (its foreign-message-id rule)",
      case: {
        body: { ...body({ role: "user", content: "Hi" }), diagnostics: { previous_message_id: "39fc571e-f3d6-4b5d-a487-cde05d34cff5" } } as MessagesBody,
      },
      mock: "previous_message_id",
      validator: [],
    },
    {
      name: "tool-reference-unknown",
      reason:
        "the request's tool list is the client's of the moment (its MCP servers, its start-up tools), which no stored session holds; recover cannot judge a reference against it",
      case: {
        // A tool search's result holds blocks, not text: outside MessagesBody's types, hence the cast.
        body: {
          model: "claude-sonnet-4-5",
          messages: [
            { role: "user", content: "Find the tool." },
            { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "ToolSearch", input: { query: "select:WaitForMcpServers" } }] },
            { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "tool_reference", tool_name: "WaitForMcpServers" }] }] },
          ],
          tools: [{ name: "ToolSearch" }],
        } as unknown as MessagesBody,
      },
      mock: "tool_reference_unknown",
      validator: [],
    },
    {
      name: "window",
      reason:
        "the mock's window counts its own tokens (1 per 4 bytes); recover's validator judges the history's shape, not its size (recover context trim answers `prompt is too long`)",
      case: { body: body({ role: "user", content: "x".repeat(400) }), ctx: { contextLimit: 50 } },
      mock: "prompt_too_long",
      validator: [],
    },
    {
      name: "modified-thinking",
      reason: "the mock knows the text it streamed with each signature; a stored session holds only what the client kept (recover's scan rules judge that)",
      case: {
        body: body({ role: "user", content: "Hi" }, { role: "assistant", content: [signed("Edited.", "sig_1"), text("Hello.")] }),
        ctx: { issued: new Map([["sig_1", "Greet."]]) },
      },
      mock: "thinking_modified",
      validator: [],
    },
    {
      name: "block-binding-without-beta",
      reason: "a request parameter and a header, not the history recover validates",
      case: boundCase({ type: "adaptive", block_binding: { prefix_mismatch_behavior: "drop_block" } }),
      mock: "block_binding_without_beta",
      validator: [],
    },
    {
      name: "prefix-binding",
      reason:
        "the binding is made by the API (here the mock) when it answers; recover cannot see it in a request, and finds the damage from the session's edits instead (its prefix-bound-thinking rule, and repair from the API's text)",
      case: boundCase(),
      mock: "thinking_bound",
      validator: [],
    },
    {
      name: "empty-message",
      reason: NOT_MODELLED,
      case: { body: body({ role: "user", content: [] }, { role: "assistant", content: [text("Hello.")] }, { role: "user", content: "Hi" }) },
      mock: null,
      validator: ["empty_message"],
    },
    {
      name: "thinking-not-first",
      reason: NOT_MODELLED,
      case: { body: body({ role: "user", content: "Hi" }, { role: "assistant", content: [text("Hello."), signed("Greet.", "s1"), text("Again.")] }) },
      mock: null,
      validator: ["thinking_not_first"],
    },
    {
      name: "trailing-thinking",
      reason: NOT_MODELLED,
      case: { body: body({ role: "user", content: "Hi" }, { role: "assistant", content: [signed("Greet.", "s1")] }, { role: "user", content: "Hi?" }) },
      mock: null,
      validator: ["trailing_thinking"],
    },
    {
      name: "thinking-when-disabled",
      reason: NOT_MODELLED,
      case: {
        body: {
          model: "claude-sonnet-4-5",
          messages: [
            { role: "user", content: "Hi" },
            { role: "assistant", content: [signed("Greet.", "s1"), text("Hello.")] },
          ],
        },
      },
      mock: null,
      validator: ["thinking_when_disabled"],
    },
    {
      name: "tool-use-before-assistant",
      reason:
        "a tool_use whose next message is another assistant message is unanswered for the API, which does not merge the two first (https://github.com/vybestack/llxprt-code/pull/1302 for issue #1293, openclaw/openclaw#27890: `tool_use ids were found without tool_result blocks immediately after`), and for the mock; recover's validator pairs each user message with the message before it only, so it finds nothing (so the generator leaves this shape out)",
      case: {
        body: body(
          { role: "user", content: "Run ls." },
          { role: "assistant", content: [signed("Run.", "s1"), use("toolu_1")] },
          { role: "assistant", content: [text("Done.")] },
          { role: "user", content: "And?" },
        ),
      },
      mock: "tool_result_missing",
      validator: [],
    },
    {
      name: "tool-result-not-first",
      reason: NOT_MODELLED,
      case: {
        body: body(
          { role: "user", content: "Run ls." },
          { role: "assistant", content: [signed("Run.", "s1"), use("toolu_1")] },
          { role: "user", content: [text("Here:"), result("toolu_1")] },
        ),
      },
      mock: null,
      validator: ["tool_result_not_first"],
    },
    {
      name: "unicode-whitespace",
      reason:
        "the mock trims with JavaScript's trim() (Unicode white space and U+FEFF), recover's isBlank only ASCII white space; which the API uses is not in the sources (so the generator draws ASCII only)",
      case: { body: body({ role: "user", content: [text("\u00a0")] }) },
      mock: "text_blank",
      validator: [],
    },
  ],
};

/** Valid bodies (neither side finds anything), and at least one body per shared rule: [name, case, the mock's rule]. */
const MESSAGES_CASES: [string, MessagesCase, string | null][] = [
  [
    "a tool loop with thinking, then a new prompt",
    {
      body: body(
        { role: "user", content: "Find the bug." },
        { role: "assistant", content: [signed("Read first.", "s1"), text("Reading."), use("toolu_1")] },
        { role: "user", content: [result("toolu_1"), text("Also check tax.")] },
        { role: "assistant", content: [signed("Both fine.", "s2"), text("Both are fine.")] },
        { role: "user", content: "Thanks." },
      ),
    },
    null,
  ],
  ["string contents, no thinking", { body: { model: "claude-sonnet-4-5", messages: [{ role: "user", content: "Hi" }] } }, null],
  [
    "redacted thinking, adaptive, on a prefix-bound model",
    {
      body: {
        model: PREFIX_BOUND,
        thinking: { type: "adaptive" },
        messages: [
          { role: "user", content: "Hi" },
          { role: "assistant", content: [{ type: "redacted_thinking", data: "EmwKAh" }, text("Hello.")] },
          { role: "user", content: "Again" },
        ],
      },
    },
    null,
  ],
  [
    "two tool uses answered in one message, in another order",
    {
      body: body(
        { role: "user", content: "Run both." },
        { role: "assistant", content: [signed("Run.", "s1"), use("toolu_1"), use("toolu_2")] },
        { role: "user", content: [result("toolu_2"), result("toolu_1")] },
      ),
    },
    null,
  ],
  [
    "a tool_use in the last message (the request's own assistant turn: not judged)",
    { body: body({ role: "user", content: "Run ls." }, { role: "assistant", content: [signed("Run.", "s1"), use("toolu_1")] }) },
    null,
  ],
  [
    "a user text after the results, in a message of its own",
    {
      body: body(
        { role: "user", content: "Run ls." },
        { role: "assistant", content: [signed("Run.", "s1"), use("toolu_1")] },
        { role: "user", content: [result("toolu_1")] },
        { role: "user", content: "And read a.txt." },
      ),
    },
    null,
  ],
  ["empty thinking", { body: body({ role: "user", content: "Hi" }, { role: "assistant", content: [signed("", "s1"), text("Hello.")] }) }, "thinking_empty"],
  // Issue 40 row 16: what Claude Code 2.1.277+ sends when the lines before the first reply are lost.
  ["a history that begins with a reply", { body: body({ role: "assistant", content: [text("Hello.")] }, { role: "user", content: "Hi" }) }, "first_not_user"],
  [
    "a call id used again in a later turn",
    {
      body: body(
        { role: "user", content: "Run it." },
        { role: "assistant", content: [use("toolu_1")] },
        { role: "user", content: [result("toolu_1")] },
        { role: "assistant", content: [text("Again."), use("toolu_1")] },
        { role: "user", content: [result("toolu_1")] },
      ),
    },
    "duplicate_tool_id",
  ],
  [
    "whitespace thinking in an earlier turn",
    {
      body: body(
        { role: "user", content: "Hi" },
        { role: "assistant", content: [signed(" \n\t", "s1"), text("Hello.")] },
        { role: "user", content: "Again" },
        { role: "assistant", content: [signed("Fine.", "s2"), text("Hi again.")] },
      ),
    },
    "thinking_empty",
  ],
  ["a whitespace user text block", { body: body({ role: "user", content: [text("Hi"), text("  ")] }) }, "text_blank"],
  ["a whitespace string content", { body: body({ role: "user", content: "\n\n" }) }, "text_blank"],
  [
    "an empty assistant text",
    { body: body({ role: "user", content: "Hi" }, { role: "assistant", content: [signed("Greet.", "s1"), text("")] }) },
    "text_blank",
  ],
  [
    "empty thinking and blank text: thinking first",
    { body: body({ role: "user", content: " " }, { role: "assistant", content: [signed("", "s1"), text("Hello.")] }) },
    "thinking_empty",
  ],
  [
    "killed mid-call: a tool_use, then a new prompt",
    {
      body: body(
        { role: "user", content: "Run ls." },
        { role: "assistant", content: [signed("Run.", "s1"), use("toolu_1")] },
        { role: "user", content: "And?" },
      ),
    },
    "tool_result_missing",
  ],
  [
    "two tool uses, one answered",
    {
      body: body(
        { role: "user", content: "Run both." },
        { role: "assistant", content: [signed("Run.", "s1"), use("toolu_1"), use("toolu_2")] },
        { role: "user", content: [result("toolu_1"), text("Go on.")] },
      ),
    },
    "tool_result_missing",
  ],
  [
    "results split over two user messages (openclaw/clawhub#151): the unanswered call is named before the orphan",
    {
      body: body(
        { role: "user", content: "Read both." },
        { role: "assistant", content: [signed("Read.", "s1"), use("toolu_1"), use("toolu_2")] },
        { role: "user", content: [result("toolu_1")] },
        { role: "user", content: [result("toolu_2")] },
      ),
    },
    "tool_result_missing",
  ],
  [
    "a result with another id than the call: the call is named first",
    {
      body: body(
        { role: "user", content: "Run ls." },
        { role: "assistant", content: [signed("Run.", "s1"), use("toolu_1")] },
        { role: "user", content: [result("toolu_2")] },
      ),
    },
    "tool_result_missing",
  ],
  [
    "a result first in the request (the history cut before its call)",
    { body: body({ role: "user", content: [result("toolu_9")] }, { role: "assistant", content: [text("Noted.")] }, { role: "user", content: "Hi" }) },
    "tool_result_orphan",
  ],
  [
    "an extra result beside the answer",
    {
      body: body(
        { role: "user", content: "Run ls." },
        { role: "assistant", content: [signed("Run.", "s1"), use("toolu_1")] },
        { role: "user", content: [result("toolu_1"), result("toolu_2")] },
      ),
    },
    "tool_result_orphan",
  ],
  [
    "a result again in a second user message: it answers nothing there",
    {
      body: body(
        { role: "user", content: "Run ls." },
        { role: "assistant", content: [signed("Run.", "s1"), use("toolu_1")] },
        { role: "user", content: [result("toolu_1")] },
        { role: "user", content: [result("toolu_1")] },
      ),
    },
    "tool_result_orphan",
  ],
  [
    "an orphan result, then a killed call: the earlier message is named",
    {
      body: body(
        { role: "user", content: [result("toolu_9"), text("Run ls.")] },
        { role: "assistant", content: [signed("Run.", "s1"), use("toolu_1")] },
        { role: "user", content: "And?" },
      ),
    },
    "tool_result_orphan",
  ],
  [
    "a blank text and a killed call: the block rule first",
    {
      body: body(
        { role: "user", content: "Run ls." },
        { role: "assistant", content: [signed("Run.", "s1"), text(" "), use("toolu_1")] },
        { role: "user", content: "And?" },
      ),
    },
    "text_blank",
  ],
];

/** True for the shape of the tool-use-before-assistant exception: an assistant message with a tool_use, then another. */
function toolUseBeforeAssistant(b: MessagesBody): boolean {
  return b.messages.some(
    (m, n) =>
      m.role === "assistant" && typeof m.content !== "string" && m.content.some((x) => x.type === "tool_use") && b.messages[n + 1]?.role === "assistant",
  );
}

/**
 * Bodies over what both sides judge: text and thinking drawn from `texts` (ASCII; blank ones among them or not), tool
 * uses and results that may or may not pair up, in any turn, among other blocks.
 */
function messagesBodies(texts: string[]): fc.Arbitrary<MessagesCase> {
  const str = fc.constantFrom(...texts);
  const assistantBlock = fc.oneof(
    str.map(text),
    fc.tuple(str, fc.constantFrom("s1", "s2")).map(([t, s]) => signed(t, s)),
    fc.constant<Block>({ type: "redacted_thinking", data: "EmwKAh" }),
    fc.constantFrom("toolu_1", "toolu_2").map(use),
  );
  const userBlock = fc.oneof(str.map(text), fc.constantFrom("toolu_1", "toolu_2").map(result));
  const message = fc.oneof(
    fc.record({ role: fc.constant("user" as const), content: fc.oneof(str, fc.array(userBlock, { maxLength: 3 })) }),
    fc.record({ role: fc.constant("assistant" as const), content: fc.array(assistantBlock, { maxLength: 3 }) }),
  );
  return fc
    .record({
      model: fc.constantFrom("claude-sonnet-4-5", PREFIX_BOUND),
      thinking: fc.constantFrom(undefined, { type: "enabled" as const, budget_tokens: 2048 }, { type: "adaptive" as const }),
      messages: fc.array(message, { maxLength: 6 }),
    })
    .filter((b) => !toolUseBeforeAssistant(b))
    .map((b): MessagesCase => ({ body: b }));
}

// Half the bodies have no blank text or thinking: the mock names its first broken rule only, and the block rules come
// before the pairing, so without these a pairing the two sides judge differently would mostly hide behind a blank text.
describeApi(
  "Anthropic Messages: the mock's rules (messages-rules.mjs) and validateAnthropic",
  MESSAGES,
  MESSAGES_CASES,
  fc.oneof(messagesBodies(["", " ", "\n\t", "a", "ok then"]), messagesBodies(["a", "ok then"])),
);

describe("Anthropic Messages: PDF pages, as the mock and recover count them", () => {
  it.each([
    [0, 0],
    [3, 0],
    [100, 0],
    [101, 0],
    // Over several decode slices, pages before and after the padding: a marker cut by a slice boundary counts once.
    [250, 3 * 1024 * 1024],
  ])("%i pages (%i bytes of padding)", (pages, padding) => {
    const data = pdfFile(pages, padding).toString("base64");
    expect(messages.pdfPages(data)).toBe(pages);
    expect(pdfPages(data)).toBe(pages);
    expect(pdfPages(`data:application/pdf;base64,${data}`)).toBe(pages);
  });

  it("a page marker cut by every possible slice boundary is counted once", () => {
    // `/Type /Page` placed so that it straddles the first 1 MB slice of decoded bytes, at each offset.
    for (let shift = 0; shift < 12; shift++) {
      const head = "%".repeat(786_432 - 6 + shift);
      const pdf = Buffer.from(`${head}/Type /Page /Parent 2 0 R\n/Type /Pages\n`, "latin1").toString("base64");
      expect(messages.pdfPages(pdf), `shift ${shift}`).toBe(1);
      expect(pdfPages(pdf), `shift ${shift}`).toBe(1);
    }
  });
});

describe("Anthropic Messages: the mock's tool-pairing texts", () => {
  const mockText = (b: MessagesBody) => messages.checkRequest(b, new Map())?.message;
  it("an unanswered tool_use: every id, comma-separated, as the API words it (claude-code#5989)", () => {
    const b = body(
      { role: "user", content: "Edit both." },
      { role: "assistant", content: [signed("Edit.", "s1"), use("toolu_01HqfLWiAKQLsniF2fBGF2KD"), use("toolu_01SJzDkeAZER935cpGFptTNk")] },
      { role: "user", content: "Stop." },
    );
    expect(mockText(b)).toBe(
      "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01HqfLWiAKQLsniF2fBGF2KD, toolu_01SJzDkeAZER935cpGFptTNk. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
    );
  });
  it("a tool_result that answers nothing, as the API words it (decocms/studio#1803)", () => {
    const b = body(
      { role: "user", content: [result("toolu_015cqXRmSf7tsfMgJ9ibV1z3")] },
      { role: "assistant", content: [text("Noted.")] },
      { role: "user", content: "Hi" },
    );
    expect(mockText(b)).toBe(
      "messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_015cqXRmSf7tsfMgJ9ibV1z3. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.",
    );
  });
});

// ---------------------------------------------------------------------------------------------
// OpenAI Responses: responses-rules.mjs against validateResponses
// ---------------------------------------------------------------------------------------------

type Item = ResponsesItem & { type: string };
/**
 * validateResponses's findings as rule ids: its `duplicate_tool_id` kind is two rules (an item id, a second output),
 * and its pairing kinds one rule per kind of call or output, as the item it names says.
 */
function responsesFinding(v: ResponsesViolation, input: Item[]): Verdict {
  const type = input[v.item]?.type;
  const text = v.text;
  switch (v.kind) {
    case "empty_tool_id":
      return { id: "empty_call_id", text };
    case "duplicate_tool_id":
      return { id: text.startsWith("Duplicate item found") ? "duplicate_item" : "second_output", text };
    case "orphan_tool_result":
      return { id: type === "custom_tool_call_output" ? "orphan_custom_output" : "orphan_output", text };
    case "orphan_tool_use":
      return {
        id: type === "custom_tool_call" ? "missing_custom_output" : type === "local_shell_call" ? "missing_local_shell_output" : "missing_output",
        text,
      };
    default:
      return { id: v.kind, text };
  }
}

const call = (callId: string, extra: Partial<Item> = {}): Item => ({ type: "function_call", name: "exec_command", arguments: "{}", call_id: callId, ...extra });
const output = (callId: string, extra: Partial<Item> = {}): Item => ({ type: "function_call_output", call_id: callId, output: "hi", ...extra });
/** Codex's apply_patch is a custom tool: its call carries the patch as free text. */
const patch = (callId: string): Item => ({ type: "custom_tool_call", name: "apply_patch", input: "*** Begin Patch\n*** End Patch\n", call_id: callId });
const patched = (callId: string): Item => ({ type: "custom_tool_call_output", call_id: callId, output: "Done!" });
const shell = (callId: string): Item => ({ type: "local_shell_call", call_id: callId, status: "completed", action: { type: "exec", command: ["ls"] } });
const say = (t: string): Item => ({ type: "message", role: "user", content: [{ type: "input_text", text: t }] });

/** The output type that answers each type of call (responses-rules.mjs, from openai/codex normalize.rs). */
const ANSWERED_BY: Record<string, string> = {
  function_call: "function_call_output",
  local_shell_call: "function_call_output",
  custom_tool_call: "custom_tool_call_output",
};
const isCall = (it: Item) => it.type in ANSWERED_BY;
const isOutput = (it: Item) => it.type === "function_call_output" || it.type === "custom_tool_call_output";

const RESPONSES: Api<Item[]> = {
  mockRules: responses.RULES.map((r) => r.id),
  validatorFindings: [
    "empty_call_id",
    "duplicate_item",
    "second_output",
    "orphan_output",
    "orphan_custom_output",
    "missing_output",
    "missing_custom_output",
    "missing_local_shell_output",
  ],
  mock: (input) => {
    const broken = responses.firstBroken({ input });
    // What the mock answers is built from that rule.
    if (broken) expect(responses.apiCheck({ input })?.httpError.error.message).toBe(broken.message);
    return broken && { id: broken.rule, text: broken.message };
  },
  validator: (input) => validateResponses(input).map((v) => responsesFinding(v, input)),
  same: {
    empty_call_id: ["empty_call_id"],
    duplicate_item_id: ["duplicate_item"],
    duplicate_output: ["second_output"],
    orphan_output: ["orphan_output"],
    orphan_custom_output: ["orphan_custom_output"],
    missing_output: ["missing_output"],
    missing_custom_output: ["missing_custom_output"],
    missing_local_shell_output: ["missing_local_shell_output"],
  },
  texts: {
    "duplicate_output/second_output": {
      name: "output-item-id",
      reason:
        "the API names the item it made for the repeated output (`Duplicate item found with id fco_…`, ../shared/reference/codex-and-gemini.md), an id neither side can know: the mock makes one up, the validator says what it found in words",
      differ: (mock, validator) => /^Duplicate item found with id fco_[0-9a-f]+\. /.test(mock) && validator.startsWith("a second output for function call "),
    },
    "orphan_custom_output/orphan_custom_output": {
      name: "custom-output-wording",
      reason:
        "the API names the kind of output that answers nothing (`No tool call found for custom tool call output with call_id …`: the source of the mock's orphan_custom_output rule), as the mock does; recover's validator words every orphan output as a function call output",
      differ: (mock, validator) => mock === validator.replace("for function call output ", "for custom tool call output "),
    },
    "missing_custom_output/missing_custom_output": {
      name: "custom-call-wording",
      reason:
        "the API names the kind of call left unanswered (`No tool output found for custom tool call call_…`: https://github.com/diegosouzapw/OmniRoute/issues/8946, https://github.com/Soju06/codex-lb/issues/1168), as the mock does; recover's validator words every unanswered call as a function call",
      differ: (mock, validator) => mock === validator.replace("for function call ", "for custom tool call "),
    },
    "missing_local_shell_output/missing_local_shell_output": {
      name: "local-shell-call-wording",
      reason:
        "as custom-call-wording, for a local shell call (`No tool output found for local shell call call_…`: https://github.com/openai/openai-agents-python/pull/1855)",
      differ: (mock, validator) => mock === validator.replace("for function call ", "for local shell call "),
    },
  },
  mockOnly: {},
  validatorOnly: {},
  exceptions: [
    {
      name: "local-shell-empty-call-id",
      reason:
        "the validator holds a local_shell_call's call_id to the empty-id rule; the mock does not (no source gives the API's answer for it; Codex's call_id of a local shell call is optional) and pairs only a non-empty one",
      case: [say("ls"), shell("")],
      mock: null,
      validator: ["empty_call_id"],
    },
    {
      name: "output-before-call",
      reason:
        "the validator reads `input` in order (an output must follow its call), the mock looks for the call anywhere; no source says which the API does, and clients send the call first (so the generator leaves it out, for every kind of call)",
      case: [say("Run it."), output("call_1"), call("call_1")],
      mock: null,
      validator: ["orphan_output"],
    },
    {
      name: "repeated-orphan-output",
      reason:
        "an output repeated that answers no call: both refuse, the mock as a duplicate (its duplicate check comes first), the validator as orphans; which the API names first is not in the sources (so the generator leaves it out)",
      case: [say("Run it."), output("call_1"), output("call_1")],
      mock: "duplicate_output",
      validator: ["orphan_output", "orphan_output"],
    },
    {
      name: "repeated-custom-output",
      reason:
        "the same custom tool output twice: for a function_call_output the API names the repeated item (`Duplicate item found with id fco_…`), for a custom_tool_call_output no source gives its answer, so the mock's duplicate_output leaves it alone; the validator reports a second output (so the generator leaves it out)",
      case: [say("Patch it."), patch("call_p"), patched("call_p"), patched("call_p")],
      mock: null,
      validator: ["second_output"],
    },
    {
      name: "output-of-another-kind",
      reason:
        "a call answered by the other kind's output: the API pairs each kind of call with its own kind of output (its texts name the kind: `No tool call found for custom tool call output …`; Codex pairs them so before it sends, openai/codex codex-rs/core/src/context_manager/normalize.rs), and so does the mock; recover's validator pairs any output with any call and accepts it. Clients answer each call with its own kind (so the generator leaves it out)",
      case: [say("Run it."), call("call_1"), patched("call_1")],
      mock: "orphan_custom_output",
      validator: [],
    },
    {
      name: "call-id-on-two-calls",
      reason:
        "two calls of different types with one call_id, unanswered: the validator keeps the last call of an id and names it (here the local shell call), the mock names the function call (its function-call rule comes first); clients never give two calls one id, and no source says which the API names (so the generator leaves it out)",
      case: [say("Run it."), call("call_1"), shell("call_1"), say("Thanks.")],
      mock: "missing_output",
      validator: ["missing_local_shell_output"],
    },
  ],
};

const RESPONSES_CASES: [string, Item[], string | null][] = [
  ["a call and its output, then a message", [say("Run `echo hi`."), call("call_1", { id: "fc_1" }), output("call_1", { id: "fco_1" }), say("Thanks.")], null],
  ["two calls answered in another order", [say("Run both."), call("call_1"), call("call_2"), output("call_2"), output("call_1")], null],
  ["an apply_patch (a custom tool call) and its output", [say("Patch it."), patch("call_p"), patched("call_p"), say("Thanks.")], null],
  ["a local shell call answered by a function_call_output (as Codex sends it)", [say("ls"), shell("call_l"), output("call_l"), say("Thanks.")], null],
  ["an empty call id on the call and its output", [say("Run it."), call(""), output("")], "empty_call_id"],
  ["an empty call id on a custom tool call and its output", [say("Patch it."), patch(""), patched("")], "empty_call_id"],
  [
    "the same item id twice (a copied rollout line)",
    [say("Run it."), call("call_1"), output("call_1", { id: "fco_1" }), output("call_1", { id: "fco_1" })],
    "duplicate_item_id",
  ],
  ["the same output twice, no ids", [say("Run it."), call("call_1"), output("call_1"), output("call_1")], "duplicate_output"],
  ["an output with no call (its call line lost)", [say("Run it."), output("call_1"), say("Thanks.")], "orphan_output"],
  ["a custom tool output with no call", [say("Patch it."), patched("call_p"), say("Thanks.")], "orphan_custom_output"],
  ["a call with no output (killed mid-call)", [say("Run it."), call("call_1"), say("Thanks.")], "missing_output"],
  ["an apply_patch with no output (killed mid-patch)", [say("Patch it."), patch("call_p"), say("Thanks.")], "missing_custom_output"],
  ["a local shell call with no output", [say("ls"), shell("call_l"), say("Thanks.")], "missing_local_shell_output"],
  [
    "an empty id before a duplicate id: the earlier item is named",
    [say("Run it."), call("", { id: "x" }), say("y"), call("call_2", { id: "x" }), output("call_2")],
    "empty_call_id",
  ],
];

/**
 * True for the bodies of the exceptions the generator leaves out (output-before-call, repeated-orphan-output,
 * repeated-custom-output, output-of-another-kind, call-id-on-two-calls, local-shell-empty-call-id).
 */
function outsideResponsesAgreement(input: Item[]): boolean {
  if (input.some((it) => it.type === "local_shell_call" && it.call_id === "")) return true;
  const calls = input.filter(isCall);
  if (calls.some((c) => c.call_id !== "" && calls.some((d) => d.call_id === c.call_id && d.type !== c.type))) return true;
  return input.some((it, i) => {
    if (!isOutput(it) || it.call_id === "") return false;
    const own = calls.filter((c) => c.call_id === it.call_id);
    if (own.some((c) => ANSWERED_BY[c.type] !== it.type)) return true;
    const calledBefore = input.slice(0, i).some((c) => isCall(c) && c.call_id === it.call_id);
    const repeated = input.filter((o) => o.type === it.type && o.call_id === it.call_id).length > 1;
    const repeatedCustom = it.type === "custom_tool_call_output" && own.length > 0 && repeated;
    return (!calledBefore && own.length > 0) || (own.length === 0 && repeated && it.type === "function_call_output") || repeatedCustom;
  });
}

function responsesInputs(): fc.Arbitrary<Item[]> {
  // Empty call ids and repeated item ids are weighted down: the mock names its first broken rule only, and those two
  // come first, so drawn as often as the rest they would hide most pairings (a repeated output above all).
  const named = fc.constantFrom("call_1", "call_2", "call_3");
  const callId = fc.oneof({ arbitrary: fc.constant(""), weight: 1 }, { arbitrary: named, weight: 6 });
  // Never empty: see local-shell-empty-call-id.
  const shellId = named;
  const itemId = fc.oneof({ arbitrary: fc.constant(undefined), weight: 6 }, { arbitrary: fc.constantFrom("x", "y"), weight: 1 });
  const withId = (it: Item, id: string | undefined): Item => (id === undefined ? it : { ...it, id });
  const item = fc.oneof(
    fc.tuple(callId, itemId).map(([c, id]) => withId(call(c), id)),
    fc.tuple(callId, itemId).map(([c, id]) => withId(output(c), id)),
    fc.tuple(callId, itemId).map(([c, id]) => withId(patch(c), id)),
    fc.tuple(callId, itemId).map(([c, id]) => withId(patched(c), id)),
    fc.tuple(shellId, itemId).map(([c, id]) => withId(shell(c), id)),
    itemId.map((id) => withId(say("go on"), id)),
    itemId.map((id) => withId({ type: "reasoning", summary: [], encrypted_content: "gAAAA" }, id)),
  );
  return fc.array(item, { maxLength: 8 }).filter((input) => !outsideResponsesAgreement(input));
}

describeApi("OpenAI Responses: the mock's rules (responses-rules.mjs) and validateResponses", RESPONSES, RESPONSES_CASES, responsesInputs());

describe("OpenAI Responses: the mock's pairing texts, as the API words them", () => {
  const mockText = (input: Item[]) => responses.firstBroken({ input })?.message;
  it("an unanswered custom tool call (diegosouzapw/OmniRoute#8946)", () => {
    expect(mockText([say("Patch it."), patch("call_nNNw7JP5hY7UXaATvHBRDYqc")])).toBe(
      "No tool output found for custom tool call call_nNNw7JP5hY7UXaATvHBRDYqc.",
    );
  });
  it("an unanswered local shell call (openai/openai-agents-python#1855)", () => {
    expect(mockText([say("ls"), shell("call_MEmrSaOboO5WG3MXGazSubb7")])).toBe("No tool output found for local shell call call_MEmrSaOboO5WG3MXGazSubb7.");
  });
  it("a custom tool output that answers nothing (recorded in router-for-me/CLIProxyAPI's tests)", () => {
    expect(mockText([say("Patch it."), patched("call_jzaeS5GDDushxTKTsXR9CTWL")])).toBe(
      "No tool call found for custom tool call output with call_id call_jzaeS5GDDushxTKTsXR9CTWL.",
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Gemini: gemini-rules.mjs against validateGemini
// ---------------------------------------------------------------------------------------------

const GEMINI_IDS: Record<string, string> = {
  empty_content: "empty_parts",
  orphan_tool_result: "response_after_call",
  roles_not_alternating: "call_after_user",
  tool_response_mismatch: "count_mismatch",
};

const ask = (t: string): GeminiTurn => ({ role: "user", parts: [{ text: t }] });
const answer = (t: string): GeminiTurn => ({ role: "model", parts: [{ text: t }] });
const calls = (...names: string[]): GeminiTurn => ({ role: "model", parts: names.map((name) => ({ functionCall: { name, args: {} } })) });
const responds = (...names: string[]): GeminiTurn => ({
  role: "user",
  parts: names.map((name) => ({ functionResponse: { name, response: { output: "ok" } } })),
});

/** Contents sent to a model (the mock reads it from the request's path): the signature rules depend on it. */
const toModel = (model: string, contents: GeminiTurn[]) => Object.assign(contents, { model });
const modelOf = (contents: GeminiTurn[]) => (contents as GeminiTurn[] & { model?: string }).model;

const GEMINI: Api<GeminiTurn[]> = {
  mockRules: gemini.RULES.map((r) => r.id),
  validatorFindings: Object.values(GEMINI_IDS),
  mock: (contents) => {
    const broken = gemini.firstBroken({ contents }, { model: modelOf(contents) });
    if (broken) expect(gemini.checkContents({ contents }, { model: modelOf(contents) })?.httpError.message).toBe(broken.message);
    return broken && { id: broken.rule, text: broken.message };
  },
  validator: (contents) => validateGemini(contents).map((v) => ({ id: GEMINI_IDS[v.kind] ?? v.kind, text: v.text })),
  same: {
    empty_parts: ["empty_parts"],
    response_after_call: ["response_after_call"],
    call_after_user: ["call_after_user"],
    count_mismatch: ["count_mismatch"],
  },
  texts: {
    "empty_parts/empty_parts": {
      name: "empty-parts-newline",
      reason:
        "the API ends each empty-parts line with a newline (https://github.com/egoist/chatwise-releases/issues/250), as the mock does; recover's validator leaves it out. With several empty contents the API lists every one, one line each (HendrikReh/AI-Powered-Amazon-Product-Assistant docs/GEMINI_MESSAGE_HANDLING.md), where the mock names the first only",
      differ: (mock, validator) => mock === `${validator}\n`,
    },
  },
  mockOnly: { signature_corrupted: "signature-issued-elsewhere", signature_missing: "signature-current-turn" },
  validatorOnly: {},
  exceptions: [
    {
      name: "signature-issued-elsewhere",
      reason:
        "whether the API accepts a thought signature depends on who issued it and for which model (a secret of the API; the mock refuses what it did not issue, or issued for another model): offline nothing can verify one, so recover acts on the API's answer (`--error`, rule corrupted-thought-signature), never on a guess",
      case: toModel("gemini-3-flash-preview", [
        ask("Run it."),
        { role: "model", parts: [{ functionCall: { name: "run", args: {} }, thoughtSignature: gemini.modelSignature("gemini-3.1-pro-preview", "s") }] },
        responds("run"),
        answer("Done."),
        ask("Thanks."),
      ]),
      mock: "signature_corrupted",
      validator: [],
    },
    {
      name: "signature-current-turn",
      reason:
        "Gemini 3 wants the first call of each step of the current turn signed (a rule of the model the request goes to, which the contents do not name); Gemini CLI signs those calls itself when it sends them, so recover's view of a resume never holds one unsigned",
      case: toModel("gemini-3-pro-preview", [ask("Run it."), calls("run"), responds("run")]),
      mock: "signature_missing",
      validator: [],
    },
    {
      name: "call-turn-role",
      reason:
        "a function response must follow a model turn with calls for the mock, any turn with calls for the validator; clients put calls in model turns only (so the generator does), and no source says what the API answers for calls in a user turn",
      case: [ask("Run it."), { role: "user", parts: [{ functionCall: { name: "run", args: {} } }] }, responds("run")],
      mock: "response_after_call",
      validator: [],
    },
  ],
};

const GEMINI_CASES: [string, GeminiTurn[], string | null][] = [
  ["a call answered, then text", [ask("Run it."), calls("run"), responds("run"), answer("Done."), ask("Thanks.")], null],
  ["two calls in one turn, two responses", [ask("Run both."), calls("a", "b"), responds("a", "b"), answer("Done.")], null],
  ["a call turn last (the model's turn in progress)", [ask("Run it."), calls("run")], null],
  [
    "Gemini 3: a resumed call before the prompt, unsigned (outside the current turn); the current turn's call signed as Gemini CLI signs it",
    toModel("gemini-3-pro-preview", [
      ask("Run it."),
      calls("run"),
      responds("run"),
      answer("Done."),
      ask("Again."),
      { role: "model", parts: [{ functionCall: { name: "run", args: {} }, thoughtSignature: "skip_thought_signature_validator" }] },
      responds("run"),
    ]),
    null,
  ],
  [
    "a thought with a signature before a call",
    [
      ask("Run it."),
      {
        role: "model",
        parts: [
          { text: "Plan.", thought: true, thoughtSignature: gemini.modelSignature("gemini-2.5-pro", "plan") },
          { functionCall: { name: "run", args: {} } },
        ],
      },
      responds("run"),
    ],
    null,
  ],
  ["an empty model turn", [ask("Hi"), { role: "model", parts: [] }, ask("Hi?")], "empty_parts"],
  ["two empty turns: the first is named", [ask("Hi"), { role: "model", parts: [] }, { role: "user", parts: [] }], "empty_parts"],
  ["a response with no call before it (a torn call line)", [ask("Run it."), answer("Running."), responds("run")], "response_after_call"],
  ["a call after a model turn", [ask("Run it."), answer("Sure."), calls("run"), responds("run")], "call_after_user"],
  ["each response recorded twice (gemini-cli#29365)", [ask("Run it."), calls("run"), responds("run", "run"), answer("Done.")], "count_mismatch"],
  ["a call with no response before new text", [ask("Run it."), calls("run"), ask("Thanks.")], "count_mismatch"],
  [
    "a call after a model turn, unanswered: on one turn, the rule listed first",
    [ask("Run it."), answer("Sure."), calls("run"), ask("Thanks.")],
    "call_after_user",
  ],
];

function geminiContents(): fc.Arbitrary<GeminiTurn[]> {
  const name = fc.constantFrom("run", "read");
  const userParts = fc.array(
    fc.oneof(
      fc.constant({ text: "go" }),
      name.map((n) => ({ functionResponse: { name: n, response: {} } })),
    ),
    { maxLength: 3 },
  );
  const modelParts = fc.array(
    fc.oneof(
      fc.constant({ text: "ok" }),
      fc.constant({ text: "hm", thought: true }),
      name.map((n) => ({ functionCall: { name: n, args: {} } })),
    ),
    { maxLength: 3 },
  );
  const turn = fc.oneof(
    userParts.map((parts): GeminiTurn => ({ role: "user", parts })),
    modelParts.map((parts): GeminiTurn => ({ role: "model", parts })),
  );
  return fc.array(turn, { maxLength: 7 });
}

describeApi("Gemini: the mock's rules (gemini-rules.mjs) and validateGemini", GEMINI, GEMINI_CASES, geminiContents());
