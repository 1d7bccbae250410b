/**
 * Claude Code's transcript (reference formats-and-errors.md §2): one record per line linked by
 * `uuid`/`parentUuid`; one streamed API response is one line per content block sharing `message.id`; tool results
 * come back as `user` lines. Only `user`/`assistant` lines reach the API; every other record type is metadata kept
 * verbatim, though some of them (system, attachment, progress) are links of the chain.
 */
import type { Block } from "../../model/conversation.js";
import type { TranscriptLine } from "../../model/transcript.js";
import type { NamedReply } from "../../model/session-view.js";
import { isBlank, jsonLength } from "../opencode/part-content.js";
import {
  handle,
  linksOf,
  obj,
  str,
  textBlock,
  toolResultBlock,
  toolUseBlock,
  usageSum,
  type Dialect,
  type Json,
  type SendSession,
  type SentLine,
} from "./dialect.js";
import { isAtLeast } from "../checked-clients.js";
import { collect } from "../../model/collect.js";
import { claudeReplay } from "./claude-replay.js";
import { withResponseBranches } from "./claude-parallel.js";

/** Record types of recent Claude Code builds (pedropaulovc/claude-code-types, jeremedia's log format notes). */
const CLAUDE_RECORD_TYPES = new Set([
  "user",
  "assistant",
  "system",
  "attachment",
  "summary",
  "custom-title",
  "ai-title",
  "agent-name",
  "agent-setting",
  "file-history-snapshot",
  "file-history-delta",
  "queue-operation",
  "last-prompt",
  "progress",
  "result",
  "saved-hook-context",
  "started",
  "mode",
  "permission-mode",
  "pr-link",
  "fork-context-ref",
  "frame-link",
  "relocated",
  "bridge-session",
  "atis-latch",
  "worktree-state",
  "turn_end",
  // Bookkeeping Claude Code 2.1.331 writes (fixtures/claude-code-2.1, written by the real client): never sent.
  "tools-used",
  "api-request-shape",
  "api-request-blob",
  "api-request",
  "cost-state",
]);

/** The content Claude Code writes for a tool call the user interrupted (its own `tool_result`, `is_error: true`). */
export const CLAUDE_INTERRUPTED_RESULT = "[Request interrupted by user for tool use]";

export const claudeDialect: Dialect = {
  name: "claude",
  agent: "Claude Code",
  messageMarkers: [Buffer.from('"type":"user"'), Buffer.from('"type":"assistant"')],
  idField: "uuid",
  parentField: "parentUuid",
  // Every record Claude Code writes carries the client's version (`"version":"2.1.332"`).
  clientVersion: { at: "last", of: (value) => str(value.version) },
  copes: {
    // Measured (issue 40, scenario tool-input-surrogate): 2.1.197 and 2.1.332 send a stored lone surrogate as U+FFFD
    // (their request clean-up, `tengu_lone_surrogate_sanitized`), and write nothing back.
    loneSurrogate: "Claude Code sends it as U+FFFD in every request (2.1.197 and 2.1.332, measured), so recover leaves it alone",
    // Measured (issue 40, scenario orphan-result): both send a user message "(no content)" in its place.
    orphanResult: 'Claude Code sends a user message "(no content)" in its place in every request (2.1.197 and 2.1.332, measured), so recover leaves it alone',
    // Measured (issue 40, scenario duplicate-call-id): both leave a call whose id an earlier message's call holds out of
    // what they send, with its result (ensureToolResultPairing), and write nothing back.
    duplicateCallId: "Claude Code leaves the later call and its result out of every request (2.1.197 and 2.1.332, measured), so recover leaves it alone",
    mendsEveryTime: ["loneSurrogate", "orphanResult", "duplicateCallId"],
  },
  /** The refusals Claude Code shows and stores as assistant entries of their own (`isApiErrorMessage`: "API Error: 400 …"). */
  storedErrors(lines) {
    const found: { messageId: string; where: string; text: string }[] = [];
    for (const line of lines) {
      if (line.value?.isApiErrorMessage !== true) continue;
      const content = obj(line.value.message)?.content;
      const text = Array.isArray(content) ? content.map((part) => str(obj(part)?.text) ?? "").join("\n") : str(content);
      if (text) found.push({ messageId: line.ref.id, where: `line ${line.ref.line}`, text });
    }
    return found;
  },
  interpret(value) {
    const type = str(value.type);
    if (type === undefined || !CLAUDE_RECORD_TYPES.has(type)) return { role: "unknown" };
    const role = type === "user" || type === "assistant" ? "message" : type === "system" && value.subtype === "compact_boundary" ? "structure" : "meta";
    const found = linksOf(value, role, "uuid", "parentUuid");
    if (value.isSidechain === true) found.sidechain = true;
    return found;
  },
  send(line, session) {
    const value = line.value;
    if (value?.type === "attachment") return attachmentOf(line, value);
    // A local command's record (`/cost` and its output) is sent as user text (captured: meta-records).
    if (value?.type === "system" && value.subtype === "local_command" && typeof value.content === "string")
      return { role: "user", blocks: [textBlock(line, 0, "content", value.content)] };
    if (!value || line.role !== "message") return undefined;
    // A compaction's summary is marked transcript-only, yet it is what the client sends first (captured: compact).
    if (value.isVisibleInTranscriptOnly === true && value.isCompactSummary !== true) return { skip: "shown in the transcript only, never sent" };
    if (value.isApiErrorMessage === true) return { skip: "an API error Claude Code shows, not a model reply" };
    const message = obj(value.message);
    const role = message?.role === "assistant" || value.type === "assistant" ? "assistant" : "user";
    const content = message?.content;
    if (typeof content === "string") return { role, blocks: [textBlock(line, 0, "message.content", content)] };
    if (!Array.isArray(content)) return { skip: "no message content" };
    const blocks = collect(content, (item, index) => claudeBlock(line, obj(item), index));
    const model = str(message?.model);
    if (model !== undefined) for (const block of blocks) if (block.type === "thinking") block.model = model;
    if (role !== "assistant") return { role, blocks } satisfies SentLine;
    // Claude Code leaves out an assistant's whitespace-only text, and its empty text ("") unless the client is one
    // that still sends it (docs/research/claude-code-request.md §E).
    const keepsEmpty = !leavesOutEmptyText(session.clientVersion) && responseSays(line, session);
    const sent = blocks.filter((b) => !(b.type === "text" && b.blank) || (keepsEmpty && b.chars === 0));
    if (sent.length === 0 && blocks.length > 0) return { skip: "only empty text, which Claude Code leaves out" };
    return { role, blocks: sent } satisfies SentLine;
  },
  sentLines(chain, all) {
    return withResponseBranches(withPreservedSegment(chain, all), all);
  },
  namedReplies: claudeNamedReplies,
  replay: claudeReplay,
  responsesApart: true,
  responseId(line) {
    return line.value?.type === "assistant" ? str(obj(line.value.message)?.id) : undefined;
  },
  promptTokens(line) {
    const tokens = usageSum(obj(line.value?.message)?.usage, ["input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"]);
    return tokens === undefined ? undefined : { tokens, source: "Claude Code stored" };
  },
};

/**
 * The first Claude Code that leaves out an empty text block ("") beside other content of its response: its changelog
 * for 2.1.277 says "Fixed conversations failing every request with "text content blocks must be non-empty" when an
 * earlier assistant turn held an empty text block beside other content, including after `--resume`". Measured with
 * the client suite's scenario `empty-text` (a stored `""` before a tool call): 2.1.197 sends it (refused), 2.1.277,
 * 2.1.331 and 2.1.332 leave it out, and the check (`text === ""`) is in 2.1.277's binary, not in 2.1.197's
 * (docs/research/claude-code-request.md §E). Whitespace-only text all of them leave out (2.1.197: when it merges the
 * lines of a response).
 */
const LEAVES_OUT_EMPTY_TEXT = "2.1.277";

/**
 * Whether the client that reads the session back leaves out an empty text beside other content. A version recover
 * cannot place (none recorded, or not a dotted number) counts as one that sends it: repairing an empty text the
 * client would leave out anyway changes nothing the client sends, while missing one it sends leaves every resume
 * refused. (What that costs where the client does leave it out: on a model that binds thinking to its prefix, the
 * repair drops the thinking after it, as for any edit of what the view sends: src/plan/prefix-thinking.ts.)
 */
function leavesOutEmptyText(version: string | undefined): boolean {
  return isAtLeast(version, LEAVES_OUT_EMPTY_TEXT, false);
}

/**
 * Whether the response of an assistant line says something: a block of the line, or of another line of its response
 * (one line per block), that is neither thinking nor blank text. Before 2.1.277 Claude Code leaves out a line of
 * nothing but blank text only when its response says nothing (and then leaves it out whole); otherwise the line goes,
 * and an empty text in it with it.
 */
function responseSays(line: TranscriptLine, session: SendSession): boolean {
  const response = claudeDialect.responseId(line);
  const lines = response === undefined ? [line] : session.responseLines(response);
  return lines.some((l) => {
    const content = obj(l.value?.message)?.content;
    if (typeof content === "string") return !isBlank(content);
    return Array.isArray(content) && content.some((item) => says(obj(item)));
  });
}

const says = (block: Json | undefined): boolean =>
  block !== undefined && block.type !== "thinking" && block.type !== "redacted_thinking" && (block.type !== "text" || !isBlank(str(block.text) ?? ""));

function claudeBlock(line: TranscriptLine, block: Json | undefined, index: number): Block[] {
  const field = `message.content.${index}`;
  const source = handle(line, index, field);
  switch (block?.type) {
    case "text":
      return [textBlock(line, index, field, str(block.text) ?? "")];
    case "thinking": {
      const text = str(block.thinking) ?? "";
      const signature = str(block.signature);
      const signed = signature !== undefined && signature !== "";
      return [{ type: "thinking", source, chars: text.length, signed, text, blank: text.trim() === "", ...(signed ? { signature } : {}) }];
    }
    case "redacted_thinking":
      return [{ type: "thinking", source, chars: (str(block.data) ?? "").length, signed: true, redacted: true, signature: str(block.data) ?? "" }];
    case "tool_use":
    case "server_tool_use":
      return [toolUseBlock(source, block, block.input)];
    case "tool_result":
      return [toolResultBlock(source, block.tool_use_id, block.is_error === true, block.content)];
    case "image":
    case "document": {
      const data = str(obj(block.source)?.data) ?? "";
      return [{ type: "media", source, mime: str(obj(block.source)?.media_type) ?? "application/octet-stream", chars: data.length, data }];
    }
    default:
      return block ? [{ type: "text", source, chars: jsonLength(block), blank: false }] : [];
  }
}

/**
 * A compaction that keeps the latest messages verbatim (`compactMetadata.preservedSegment {headUuid, anchorUuid,
 * tailUuid}`, 2.1.197 and later) leaves them where they were, before the boundary, off the new chain; the client
 * sends them right after the summary (the anchor), from the head to the tail. Measured: after 2.1.197's automatic
 * compaction the resumed request was [summary, the kept turn (its call and its 200,000-character result), the prompt]
 * (docs/research/claude-code-compaction.md, row 13); 2.1.332 does the same after `/compact`.
 */
function withPreservedSegment(chain: readonly TranscriptLine[], all: readonly TranscriptLine[]): readonly TranscriptLine[] {
  const boundary = chain[0];
  const segment = obj(obj(boundary?.value?.compactMetadata)?.preservedSegment);
  if (boundary?.role !== "structure" || !segment) return chain;
  const [head, anchor, tail] = [str(segment.headUuid), str(segment.anchorUuid), str(segment.tailUuid)];
  const at = chain.findIndex((line) => line.uuid === anchor);
  if (head === undefined || tail === undefined || at < 0) return chain;
  const byUuid = new Map<string, TranscriptLine>();
  for (const line of all) if (line.uuid !== undefined && !byUuid.has(line.uuid)) byUuid.set(line.uuid, line);
  const onChain = new Set(chain);
  const kept: TranscriptLine[] = [];
  // From the tail back to the head; a segment whose links do not lead there is not put back at all.
  for (let line = byUuid.get(tail); ; line = typeof line.parent === "string" ? byUuid.get(line.parent) : undefined) {
    if (!line || onChain.has(line) || kept.includes(line) || kept.length > all.length) return chain;
    kept.push(line);
    if (line.uuid === head) break;
  }
  return [...chain.slice(0, at + 1), ...kept.reverse(), ...chain.slice(at + 1)];
}

/** Attachment types the client renders again from their data when a record has no stored rendering. */
const RERENDERED = new Set(["file", "date", "agent_listing_delta", "skill_listing"]);
/** Of those, the ones Claude Code 2.1.197 renders as reminders of the system role (the agent and skill listings). */
const SYSTEM_LISTINGS = new Set(["agent_listing_delta", "skill_listing"]);

/**
 * An attachment record as Claude Code sends it: each stored rendering is a text block that leads the user message
 * of its run (or, in a run of tool results, is appended to the last result's content); an `@file`'s first rendering
 * ("Called the Read tool with …") is a user message of its own before that message. A record without renderings is
 * rendered again from its data for the types the capture showed (file, date, 2.1.197's listings), and sends nothing
 * otherwise. A rendering of the system role (`renderedRole: "system"`, or a 2.1.197 listing) goes in a system turn
 * on models that take one (claude-replay.ts), and leads the prompt like the others on the rest.
 */
function attachmentOf(line: TranscriptLine, value: Json): SentLine {
  const attachment = obj(value.attachment);
  const type = str(attachment?.type);
  const stored = Array.isArray(value.rendered) ? value.rendered.map((item) => str(obj(item)?.content) ?? "") : undefined;
  const texts = stored ?? (type !== undefined && RERENDERED.has(type) ? (type === "file" ? ["", jsonText(attachment)] : [jsonText(attachment)]) : []);
  const systemRole = stored ? value.renderedRole === "system" : type !== undefined && SYSTEM_LISTINGS.has(type);
  // A rendering is the client's own text: never blank, never a block a rule should edit in the record.
  const block = (text: string, k: number): Block => ({
    type: "text",
    source: handle(line, k, `rendered.${k}.content`),
    chars: text.length,
    text,
    blank: false,
    synthetic: true,
    ...(systemRole ? { systemTurn: true as const } : {}),
  });
  const blocks = texts.map(block);
  if (type === "file" && blocks.length > 1) return { role: "user", blocks: blocks.slice(1), attachment: { ownMessages: [[blocks[0]!]] } };
  return { role: "user", blocks, attachment: { ownMessages: [] } };
}

const jsonText = (value: unknown) => JSON.stringify(value ?? null);

/** The prefix of the ids the Messages API gives its responses (`msg_…`; Bedrock's and Vertex's too). */
const API_ID = "msg_";

/**
 * The stored replies Claude Code names as `diagnostics.previous_message_id` (sent on Anthropic's own API: its cache
 * diagnosis) before one with an API id: docs/research/claude-code-previous-message-id.md. Both checked clients take
 * the latest assistant entry of the history that is no API error entry (`isApiErrorMessage`) and carries the response's
 * `requestId`; 2.1.332 also one without a `requestId` whose id is a non-synthetic `msg_…` (2.1.197: `Plm`, 2.1.332:
 * `z2i`/`$Vt`). The API refuses an id that is not `msg_…`: a reply that came through a gateway with ids of its own.
 * Without its `requestId` neither client takes such an entry.
 */
function claudeNamedReplies(chain: readonly TranscriptLine[]): NamedReply[] {
  const named: NamedReply[] = [];
  for (let i = chain.length - 1; i >= 0; i--) {
    const line = chain[i]!;
    const value = line.value;
    if (value?.type !== "assistant" || value.isApiErrorMessage === true) continue;
    const message = obj(value.message);
    const id = str(message?.id);
    if (id === undefined) continue;
    const requested = typeof value.requestId === "string" && value.requestId !== "";
    const counts = requested || (value.isVirtual !== true && id.startsWith(API_ID) && message?.model !== "<synthetic>");
    if (!counts) continue;
    if (id.startsWith(API_ID)) break;
    named.push({ messageId: line.ref.id, id, marks: ["requestId"] });
  }
  return named;
}
