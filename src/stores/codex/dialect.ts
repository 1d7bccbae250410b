/**
 * Codex CLI's rollout: one `{timestamp, ordinal?, type, payload}` object per line (docs/research/codex-request.md).
 * The history is linear: the base instructions of `session_meta`, then every `response_item` line, are the `input`
 * items of the Responses API request, in file order (`turn_context`, `event_msg`, `world_state`,
 * `token_usage_record` are never sent). Items become
 * the shared conversation so the shared rules read them: messages as text, `reasoning` as signed thinking (its
 * `encrypted_content` is the provider's signature), calls and outputs paired by `call_id`.
 */
import type { Block, MediaBlock } from "../../model/conversation.js";
import type { LineRole, TranscriptLine } from "../../model/transcript.js";
import { jsonLength } from "../opencode/part-content.js";
import { type Dialect, handle, type Json, obj, type SendSession, str, textBlock, timeOf, toolResultBlock, toolUseBlock } from "../transcript/dialect.js";
import type { SentEntry } from "../../model/session-view.js";
import { collect } from "../../model/collect.js";

/** Line types a 0.169 rollout holds besides `response_item` (kept verbatim, never sent). */
const META_TYPES = new Set(["turn_context", "event_msg", "world_state", "token_usage_record", "retained_context", "compacted"]);

/** `input` items that call a tool, and those that answer one (paired by `call_id`). */
export const CALL_TYPES = new Set(["function_call", "custom_tool_call", "local_shell_call"]);
export const OUTPUT_TYPES = new Set(["function_call_output", "custom_tool_call_output"]);

/** What Codex sends for a call that has no output when it resumes (measured: fixtures/codex-0.169/killed-mid-call). */
export const CODEX_ABORTED_OUTPUT = "aborted";

export const codexDialect: Dialect = {
  name: "codex",
  agent: "Codex CLI",
  messageMarkers: [Buffer.from('"type":"response_item"')],
  /** Every rollout opens with its `session_meta` line. */
  sniff: (head) => /^[\s\0]*\{[^\n]*"type"\s*:\s*"session_meta"/.test(head),
  idField: "id",
  parentField: "parentId",
  linear: true,
  // The client that started the rollout names itself in its session_meta (a resume appends to it, writing none).
  clientVersion: { at: "first", of: (value) => (value.type === "session_meta" ? str(obj(value.payload)?.cli_version) : undefined) },
  interpret(value) {
    const type = str(value.type);
    const role: LineRole | undefined =
      type === "session_meta" ? "structure" : type === "response_item" && obj(value.payload) ? "message" : type && META_TYPES.has(type) ? "meta" : undefined;
    if (role === undefined) return { role: "unknown" };
    const time = timeOf(value.timestamp);
    return time === undefined ? { role } : { role, time };
  },
  send(line) {
    // The base instructions go first, as a developer message (`input[0]`): they count in every prompt.
    if (line.value?.type === "session_meta") {
      const text = str(obj(obj(line.value.payload)?.base_instructions)?.text);
      return text === undefined ? undefined : { role: "user", blocks: [textBlock(line, 0, "payload.base_instructions.text", text)] };
    }
    const item = obj(line.value?.payload);
    if (line.value?.type !== "response_item" || !item) return undefined;
    return itemEntry(line, item, "payload", (i) => i);
  },
  /**
   * After a compaction Codex resumes from its `compacted` line: the items of its `replacement_history` stand for
   * everything before it, and the `response_item` lines after it follow (measured with 0.169.0:
   * fixtures/codex-0.169/compacted). Without such a line, the lines are sent one by one (`send`).
   */
  entries(lines) {
    const at = lastCompaction(lines);
    if (at < 0) return undefined;
    const sent: SentEntry[] = [];
    const meta = lines.find((l) => l.value?.type === "session_meta");
    const instructions = meta ? codexDialect.send(meta, NO_SESSION) : undefined;
    if (meta && instructions && !("skip" in instructions)) sent.push({ line: meta, role: instructions.role, blocks: instructions.blocks });
    const compacted = lines[at]!;
    const history = replacementHistory(compacted)!;
    history.forEach((entry, k) => {
      const item = obj(entry);
      // Block indexes are unique in a line: each item of the history gets its own thousand.
      const built = item ? itemEntry(compacted, item, `payload.replacement_history.${k}`, (i) => k * 1000 + i) : undefined;
      if (built) sent.push({ line: compacted, ...built });
    });
    for (const line of lines.slice(at + 1)) {
      if (line.role !== "message" || line.problem) continue;
      const built = codexDialect.send(line, NO_SESSION);
      if (built && !("skip" in built)) sent.push({ line, role: built.role, blocks: built.blocks });
    }
    return { sent, skipped: [] };
  },
  sentLines(chain) {
    return [...chain];
  },
  responseId() {
    return undefined;
  },
  /** The `token_count` event after a response: `last_token_usage.input_tokens` is what the API counted for its prompt. */
  promptTokens(line, lines) {
    for (let i = line.ref.line; i < lines.length; i++) {
      const next = lines[i]!;
      if (next.value?.type === "response_item" && obj(next.value.payload)?.type !== "function_call_output") return undefined;
      const event = obj(next.value?.payload);
      if (next.value?.type !== "event_msg" || event?.type !== "token_count") continue;
      const usage = obj(obj(event.info)?.last_token_usage);
      const input = usage?.input_tokens;
      if (typeof input === "number" && input > 0) return { tokens: input, source: "Codex CLI stored" };
    }
    return undefined;
  },
  directoryOf: (value) => (value.type === "session_meta" ? str(obj(value.payload)?.cwd) : undefined),
  /** The first user message that is not context Codex adds itself (`<environment_context>`, AGENTS.md, …). */
  promptOf(value) {
    const item = obj(value.payload);
    if (item?.type !== "message" || item.role !== "user" || !Array.isArray(item.content)) return undefined;
    const text = item.content.map((part) => str(obj(part)?.text) ?? "").join("\n");
    return text.trimStart().startsWith("<") || text.startsWith("# AGENTS.md") ? undefined : text;
  },
  api: "responses",
  /** A failed turn ends with `task_complete` holding `error.message`: the API's body as Codex printed it. */
  storedErrors(lines) {
    const found: { messageId: string; where: string; text: string }[] = [];
    for (const line of lines) {
      const event = obj(line.value?.payload);
      if (line.value?.type !== "event_msg" || event?.type !== "task_complete") continue;
      const text = str(obj(event.error)?.message);
      if (text) found.push({ messageId: line.ref.id, where: `line ${line.ref.line}`, text });
    }
    return found;
  },
  copes: {
    missingResult: `Codex sends an "${CODEX_ABORTED_OUTPUT}" output for it itself when it resumes`,
    orphanResult: "Codex drops it itself when it resumes",
    unreadableLine: "Codex skips the line when it resumes",
    // Measured (issue 40 row 16, scenario output-surrogate): 0.169.0 and 0.171.0 cannot read the line and skip it, so
    // nothing unencodable is sent; the repair strips the surrogate, and Codex reads the line again.
    loneSurrogate: 'Codex cannot read the line and skips it when it resumes (a skipped output goes as "aborted")',
  },
};

/** What `send` reads of the session: nothing (a rollout's lines are sent as they are). */
const NO_SESSION = {} as SendSession;

/**
 * The items a `compacted` line puts in place of the history before it, when Codex takes them: a line whose
 * `replacement_history_metadata` (one entry per item) does not count as many entries is passed over, and the history
 * is sent as if there had been no compaction (measured with 0.169.0 and 0.171.0: scenario bad-compaction).
 */
export function replacementHistory(line: TranscriptLine): unknown[] | undefined {
  const payload = obj(line.value?.payload);
  const history = payload?.replacement_history;
  const metadata = payload?.replacement_history_metadata;
  if (line.value?.type !== "compacted" || line.problem || !Array.isArray(history)) return undefined;
  return metadata === undefined || (Array.isArray(metadata) && metadata.length === history.length) ? history : undefined;
}

/** The last `compacted` line holding a replacement history Codex takes (-1: none). */
function lastCompaction(lines: readonly TranscriptLine[]): number {
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    if (replacementHistory(line)) return i;
  }
  return -1;
}

/**
 * One `input` item as the conversation reads it; `base` is where it sits in the line (`payload`, or an entry of a
 * compaction's `payload.replacement_history`), `index` numbers its blocks in the line.
 */
function itemEntry(line: TranscriptLine, item: Json, base: string, index: (i: number) => number): { role: "user" | "assistant"; blocks: Block[] } {
  const type = str(item.type);
  if (type === "message") {
    const role = item.role === "assistant" ? "assistant" : "user";
    return { role, blocks: messageBlocks(line, item.content, base, index) };
  }
  if (type === "reasoning") return { role: "assistant", blocks: [reasoningBlock(line, item, base, index(0))] };
  if (type === "compaction") {
    const sealed = str(item.encrypted_content) ?? "";
    return {
      role: "assistant",
      blocks: [{ type: "thinking", source: handle(line, index(0), base), chars: sealed.length, signed: true, redacted: true, signature: sealed }],
    };
  }
  if (type !== undefined && CALL_TYPES.has(type)) {
    const args = str(item.arguments) ?? str(item.input);
    const call = { ...item, id: str(item.call_id) ?? "", name: str(item.name) ?? type };
    return { role: "assistant", blocks: [toolUseBlock(handle(line, index(0), base), call, parseArguments(args) ?? args ?? item.action)] };
  }
  if (type !== undefined && OUTPUT_TYPES.has(type)) {
    return { role: "user", blocks: [toolResultBlock(handle(line, index(0), `${base}.output`), item.call_id, false, outputContent(item.output))] };
  }
  // Another item the API takes as is (web_search_call, image_generation_call, …): its size is its JSON.
  return { role: "assistant", blocks: [{ type: "text", source: handle(line, index(0), base), chars: jsonLength(item), blank: false }] };
}

function messageBlocks(line: TranscriptLine, content: unknown, base: string, at: (i: number) => number): Block[] {
  if (typeof content === "string") return [textBlock(line, at(0), `${base}.content`, content)];
  if (!Array.isArray(content)) return [];
  return collect(content, (entry, i): Block[] => {
    const part = obj(entry);
    const field = `${base}.content.${i}`;
    const index = at(i);
    if (!part) return [];
    if (typeof part.text === "string") return [textBlock(line, index, field, part.text)];
    if (part.type === "input_image") return [imageBlock(line, index, field, part)];
    return [{ type: "text", source: handle(line, index, field), chars: jsonLength(part), blank: false }];
  });
}

function imageBlock(line: TranscriptLine, index: number, field: string, part: Json): MediaBlock {
  const url = str(part.image_url) ?? "";
  const mime = /^data:([^;,]+)/.exec(url)?.[1] ?? "image/png";
  return { type: "media", source: handle(line, index, field), mime, chars: url.length, data: url };
}

/** Reasoning is the provider's own: its summary is the text, its `encrypted_content` the signature it is checked by. */
function reasoningBlock(line: TranscriptLine, item: Json, base: string, index: number): Block {
  const summary = Array.isArray(item.summary) ? item.summary.map((s) => str(obj(s)?.text) ?? "").join("\n") : "";
  const sealed = str(item.encrypted_content);
  const signed = sealed !== undefined && sealed !== "";
  return {
    type: "thinking",
    source: handle(line, index, base),
    chars: summary.length + (sealed?.length ?? 0),
    text: summary,
    signed,
    // A reasoning item with no summary is normal: the model summarised nothing. Only one with neither is empty.
    blank: summary.trim() === "" && !signed,
    ...(signed ? { signature: sealed } : {}),
  };
}

/** A call's `arguments` are JSON in a string; a call whose string does not parse is sent as the string. */
function parseArguments(args: string | undefined): unknown {
  if (args === undefined) return undefined;
  try {
    return JSON.parse(args);
  } catch {
    return undefined;
  }
}

/** An output is a string, or content items (`input_text`, `input_image`) in newer clients. */
function outputContent(output: unknown): unknown {
  if (!Array.isArray(output)) return typeof output === "string" ? output : output === undefined || output === null ? "" : JSON.stringify(output);
  return output.map((entry) => {
    const part = obj(entry);
    if (part?.type === "input_image") return { type: "image", source: { media_type: "image/png", data: str(part.image_url) ?? "" } };
    return part;
  });
}
