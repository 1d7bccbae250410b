/**
 * openclaw's transcript: pi-coding-agent's session format v3 (reference formats-and-errors.md §3.2). A `session`
 * header, then entries linked by `id`/`parentId`; message entries hold user, assistant (text, thinking, toolCall)
 * and toolResult messages. The request is built from the leaf back to the root; a compaction on that path sends its
 * summary, then the entries from `firstKeptEntryId` on.
 */
import type { Block } from "../../model/conversation.js";
import type { TranscriptLine } from "../../model/transcript.js";
import { jsonLength } from "../opencode/part-content.js";
import { openclawReplay } from "./openclaw-replay.js";
import { handle, linksOf, obj, str, textBlock, timeOf, toolResultBlock, toolUseBlock, usageSum, type Dialect, type Json } from "./dialect.js";
import { collect } from "../../model/collect.js";

/**
 * openclaw continues a session by its key, not its id: `openclaw chat --session <key>` (the terminal UI on the local
 * agent; 2026.7.35 and 2026.9.6 both sent the key's session history with the next prompt, measured with
 * scripts/clients/probes/openclaw-chat.mjs). A session no key points at any more (a newer one took its key over)
 * cannot be continued.
 */
export function openclawResumeArgv(keys: readonly string[]): string[] | undefined {
  return keys[0] === undefined ? undefined : ["openclaw", "chat", "--session", keys[0]];
}

const OPENCLAW_ENTRY_TYPES = new Set([
  "session",
  "message",
  "compaction",
  "branch_summary",
  "custom",
  "custom_message",
  "model_change",
  "thinking_level_change",
  "label",
  "session_info",
  // 2026.9: navigation controls (`leaf` selects the active branch) and a context reset.
  "leaf",
  "reset",
]);

/** What openclaw writes for a blank prompt (session-file-repair.ts BLANK_USER_FALLBACK_TEXT). */
export const OPENCLAW_BLANK_USER_TEXT = "(continue)";

/** openclaw's own text for a result it had to make up (session-transcript-repair.ts), so its hygiene sees nothing new. */
export const OPENCLAW_MISSING_RESULT = "[openclaw] missing tool result in session history; inserted synthetic error result for transcript repair.";

export const openclawDialect: Dialect = {
  name: "openclaw",
  agent: "openclaw",
  messageMarkers: [Buffer.from('"type":"message"')],
  /** pi's transcripts open with a `session` header; Claude Code's never do. */
  sniff: (head) => /^[\s\0]*\{[^\n]*"type"\s*:\s*"session"/.test(head),
  idField: "id",
  parentField: "parentId",
  interpret(value) {
    const type = str(value.type);
    if (type === undefined || !OPENCLAW_ENTRY_TYPES.has(type)) return { role: "unknown" };
    // The header is no link of the tree: entries with parentId null are its roots.
    if (type === "session") {
      const time = timeOf(value.timestamp);
      return time === undefined ? { role: "header" } : { role: "header", time };
    }
    const role = type === "message" || type === "custom_message" ? "message" : type === "compaction" || type === "branch_summary" ? "structure" : "meta";
    return linksOf(value, role, "id", "parentId");
  },
  send(line) {
    const value = line.value;
    if (!value) return undefined;
    if (value.type === "custom_message") {
      if (value.display === false && value.content === undefined) return { skip: "custom entry without content" };
      return userContent(line, value.content, "content");
    }
    if (value.type === "compaction") return { role: "user", blocks: [textBlock(line, 0, "summary", str(value.summary) ?? "")] };
    if (value.type === "branch_summary") return { role: "user", blocks: [textBlock(line, 0, "summary", str(value.summary) ?? "")] };
    if (value.type !== "message") return undefined;
    const message = obj(value.message);
    switch (message?.role) {
      case "user":
        return userContent(line, message.content, "message.content");
      case "assistant": {
        const blocks = collect(asArray(message.content), (item, index) => assistantBlock(line, obj(item), index));
        const model = str(message.model);
        if (model !== undefined) for (const block of blocks) if (block.type === "thinking") block.model = model;
        return { role: "assistant", blocks };
      }
      case "toolResult":
        return { role: "user", blocks: [toolResultBlock(handle(line, 0, "message"), message.toolCallId, message.isError === true, message.content)] };
      case "bashExecution":
        if (message.excludeFromContext === true) return { skip: "bash execution kept out of the context" };
        return { role: "user", blocks: [textBlock(line, 0, "message", `${str(message.command) ?? ""}\n${str(message.output) ?? ""}`)] };
      case "branchSummary":
      case "compactionSummary":
        return { role: "user", blocks: [textBlock(line, 0, "message.summary", str(message.summary) ?? "")] };
      default:
        return { skip: `a ${str(message?.role) ?? "role-less"} message pi does not send` };
    }
  },
  sentLines(chain) {
    let cut = -1;
    for (let i = chain.length - 1; i >= 0; i--) {
      if (chain[i]!.value?.type === "compaction") {
        cut = i;
        break;
      }
    }
    if (cut < 0) return [...chain];
    const compaction = chain[cut]!;
    const keptFrom = chain.findIndex((l) => l.uuid !== undefined && l.uuid === compaction.value?.firstKeptEntryId);
    const kept = keptFrom >= 0 && keptFrom < cut ? chain.slice(keptFrom, cut) : [];
    return [compaction, ...kept, ...chain.slice(cut + 1)];
  },
  responseId() {
    return undefined;
  },
  promptTokens(line) {
    const tokens = usageSum(obj(line.value?.message)?.usage, ["input", "cacheRead", "cacheWrite"]);
    return tokens === undefined ? undefined : { tokens, source: "openclaw stored" };
  },
  replay: openclawReplay,
  /**
   * A turn the provider refused is stored as an assistant message with `stopReason: "error"` and the API's answer as
   * `errorMessage` (`400: {"error":{"message":"prompt is too long: 33270 tokens > 33258 maximum",…}}`, 2026.9.6): what
   * a session its overflow recovery gave up on says about its window (docs/research/openclaw-compaction.md).
   */
  storedErrors(lines) {
    const found: { messageId: string; where: string; text: string }[] = [];
    for (const line of lines) {
      const message = obj(line.value?.message);
      if (line.value?.type !== "message" || message?.role !== "assistant" || message.stopReason !== "error") continue;
      const text = str(message.errorMessage);
      if (text) found.push({ messageId: line.ref.id, where: `line ${line.ref.line}`, text });
    }
    return found;
  },
  // Measured with 2026.7.35 (issue 40, phantom-tool-result): it drops a call with no id and every result that answers
  // no call before it sends the history, so neither stops the resume; recover still mends them in the file.
  // A call left without a result (issue 40 row 16, docs/research/severity-audit.md): 2026.7.35 sends its own error
  // result for it (killed-mid-call, §E of docs/research/openclaw-request.md) and leaves a turn that ended `aborted` out
  // with its call (aborted-call), and the API takes both; recover's fix writes that same result, or drops that call,
  // so the request does not change and the file is mended too.
  copes: {
    orphanResult: "openclaw drops it before sending",
    emptyCallId: "openclaw drops the call before sending",
    missingResult: "openclaw sends an error result of its own for it, or leaves out a turn that ended aborted or error, before sending",
  },
};

function asArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

function userContent(line: TranscriptLine, content: unknown, field: string) {
  if (typeof content === "string") return { role: "user" as const, blocks: [textBlock(line, 0, field, content)] };
  return {
    role: "user" as const,
    blocks: collect(asArray(content), (item, index): Block[] => {
      const block = obj(item);
      const at = `${field}.${index}`;
      if (block?.type === "text") return [textBlock(line, index, at, str(block.text) ?? "")];
      if (block?.type === "image") {
        const data = str(block.data) ?? "";
        return [{ type: "media", source: handle(line, index, at), mime: str(block.mimeType) ?? "image/png", chars: data.length, data }];
      }
      return block ? [{ type: "text", source: handle(line, index, at), chars: jsonLength(block), blank: false }] : [];
    }),
  };
}

function assistantBlock(line: TranscriptLine, block: Json | undefined, index: number): Block[] {
  const field = `message.content.${index}`;
  const source = handle(line, index, field);
  switch (block?.type) {
    case "text":
      return [textBlock(line, index, field, str(block.text) ?? "")];
    case "thinking": {
      const redacted = block.redacted === true;
      const signed = redacted || (typeof block.thinkingSignature === "string" && block.thinkingSignature !== "");
      const text = str(block.thinking) ?? "";
      const signature = str(block.thinkingSignature);
      const kind = redacted ? { redacted } : { blank: text.trim() === "" };
      return [{ type: "thinking", source, chars: text.length, text, signed, ...kind, ...(signature ? { signature } : {}) }];
    }
    case "toolCall":
      return [toolUseBlock(source, block, block.arguments)];
    case "image": {
      const data = str(block.data) ?? "";
      return [{ type: "media", source, mime: str(block.mimeType) ?? "image/png", chars: data.length, data }];
    }
    default:
      return block ? [{ type: "text", source, chars: jsonLength(block), blank: false }] : [];
  }
}
