/**
 * The active history of a transcript, and the conversation built from it. A transcript is a tree (rewinds,
 * sidechains, compaction roots): the agent resumes from the leaf, the last message line of the main chain, and
 * walks the parent links back to a root (reference formats-and-errors.md §2.4, §3.2). Only that chain is sent, so
 * only that chain can be damaged; an abandoned branch is history, not damage.
 */
import type { Block, Conversation, ConversationMessage } from "../../model/conversation.js";
import type { SentEntry, TranscriptHistory } from "../../model/session-view.js";
import type { TranscriptLine, TranscriptRecords } from "../../model/transcript.js";
import { DIALECTS } from "./assemble.js";

export function transcriptHistory(records: TranscriptRecords): TranscriptHistory {
  const dialect = DIALECTS[records.dialect];
  const byUuid = new Map<string, TranscriptLine>();
  const byId = new Map<string, TranscriptLine>();
  for (const line of records.lines) {
    byId.set(line.ref.id, line);
    if (line.uuid !== undefined && !byUuid.has(line.uuid)) byUuid.set(line.uuid, line);
    // A damaged line stands for every record recovered from it, so links into it are not dangling.
    for (const record of line.salvage ?? []) {
      const id = record[dialect.idField];
      if (typeof id === "string" && !byUuid.has(id)) byUuid.set(id, line);
    }
  }
  const { chain, brokenAt } = activeChain(records.lines, byUuid);
  const sent: SentEntry[] = [];
  const skipped: Conversation["skipped"] = [];
  for (const line of dialect.sentLines(chain)) {
    const contribution = dialect.send(line);
    if (!contribution) continue;
    if ("skip" in contribution) skipped.push({ messageId: line.ref.id, reason: contribution.skip });
    else sent.push({ line, role: contribution.role, blocks: contribution.blocks });
  }
  const history: TranscriptHistory = { records, byId, byUuid, chain, sent, conversation: { messages: conversationOf(sent, dialect.responseId), skipped } };
  if (brokenAt) history.brokenAt = brokenAt;
  return history;
}

/** The leaf: the last line in file order that is a message of the main chain (appends are chronological). */
function leafOf(lines: readonly TranscriptLine[]): TranscriptLine | undefined {
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    if ((line.role === "message" || line.role === "structure") && line.uuid !== undefined && !line.sidechain) return line;
  }
  return undefined;
}

function activeChain(lines: readonly TranscriptLine[], byUuid: ReadonlyMap<string, TranscriptLine>): { chain: TranscriptLine[]; brokenAt?: TranscriptLine } {
  const chain: TranscriptLine[] = [];
  const seen = new Set<TranscriptLine>();
  let brokenAt: TranscriptLine | undefined;
  for (let line = leafOf(lines); line !== undefined; ) {
    seen.add(line);
    chain.push(line);
    if (line.parent === null || line.parent === undefined) break;
    const parent = byUuid.get(line.parent);
    if (!parent || seen.has(parent)) {
      brokenAt = line;
      break;
    }
    line = parent;
  }
  chain.reverse();
  return brokenAt ? { chain, brokenAt } : { chain };
}

/**
 * Request messages from the sent lines: consecutive same-role lines merge (tool results travel in one user
 * message), and the lines of one streamed response form one assistant message even when tool results were written
 * between them (Claude Code does that for parallel calls).
 */
function conversationOf(sent: readonly SentEntry[], responseId: (line: TranscriptLine) => string | undefined): ConversationMessage[] {
  const messages: ConversationMessage[] = [];
  let open: { message: ConversationMessage; response: string } | undefined;
  const onlyResults = (m: ConversationMessage) => m.role === "user" && m.blocks.every((b) => b.type === "tool_result");
  for (const { line, role, blocks } of sent) {
    const response = role === "assistant" ? responseId(line) : undefined;
    if (response !== undefined && open?.response === response && messages.slice(messages.indexOf(open.message) + 1).every(onlyResults)) {
      append(open.message, blocks, line.ref.id);
      continue;
    }
    const last = messages.at(-1);
    if (last && last.role === role) append(last, blocks, line.ref.id);
    else messages.push({ role, blocks: [...blocks], sourceMessageIds: [line.ref.id] });
    if (role === "assistant") open = response !== undefined ? { message: messages.at(-1)!, response } : undefined;
  }
  return messages;
}

function append(message: ConversationMessage, blocks: readonly Block[], id: string): void {
  message.blocks.push(...blocks);
  if (!message.sourceMessageIds.includes(id)) message.sourceMessageIds.push(id);
}
