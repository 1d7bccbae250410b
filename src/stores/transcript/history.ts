/**
 * The active history of a transcript, and the conversation built from it. A transcript is a tree (rewinds,
 * sidechains, compaction roots): the agent resumes from the leaf, the last message line of the main chain, and
 * walks the parent links back to a root (reference formats-and-errors.md §2.4, §3.2). Only that chain is sent, so
 * only that chain can be damaged; an abandoned branch is history, not damage.
 */
import type { Block, Conversation, ConversationMessage, WithheldMedium } from "../../model/conversation.js";
import type { SentEntry, TranscriptHistory } from "../../model/session-view.js";
import type { TranscriptLine, TranscriptRecords } from "../../model/transcript.js";
import { clientVersionIn, type Attachment, type Dialect, type SendSession } from "./dialect.js";
import { dialectNamed } from "./format.js";

/** A sent line as the conversation is built from it: attachments are in the request, not among the records rules judge. */
interface Flow extends SentEntry {
  attachment?: Attachment;
}

export function transcriptHistory(records: TranscriptRecords): TranscriptHistory {
  const dialect = dialectNamed(records.dialect);
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
  const { chain, brokenAt } = dialect.linear ? { chain: records.lines.filter(isHistory), brokenAt: undefined } : activeChain(records.lines, byUuid);
  const sent: SentEntry[] = [];
  const flow: Flow[] = [];
  const skipped: Conversation["skipped"] = [];
  const built = dialect.entries?.(records.lines);
  if (built) {
    sent.push(...built.sent);
    flow.push(...built.sent);
    skipped.push(...built.skipped);
  }
  const lines = built ? [] : dialect.sentLines(chain, records.lines);
  const session = sendSession(lines, records.lines, dialect);
  for (const line of lines) {
    const contribution = dialect.send(line, session);
    if (!contribution) continue;
    if ("skip" in contribution) {
      skipped.push({ messageId: line.ref.id, reason: contribution.skip });
      continue;
    }
    const entry: SentEntry = { line, role: contribution.role, blocks: contribution.blocks };
    if (contribution.attachment) flow.push({ ...entry, attachment: contribution.attachment });
    else {
      sent.push(entry);
      flow.push(entry);
    }
  }
  let messages = conversationOf(flow, dialect);
  let withheld: WithheldMedium[] | undefined;
  let rejectedMediaIn: string[] | undefined;
  if (dialect.replay) {
    const replayed = dialect.replay(messages, { chain, lineOf: (id) => byId.get(id), clientVersion: session.clientVersion });
    messages = replayed.messages;
    skipped.push(...replayed.skipped);
    if (replayed.withheld && replayed.withheld.length > 0) withheld = replayed.withheld;
    if (replayed.rejectedMediaIn && replayed.rejectedMediaIn.length > 0) rejectedMediaIn = replayed.rejectedMediaIn;
  }
  const conversation = { messages, skipped, ...(withheld ? { withheld } : {}), ...(rejectedMediaIn ? { rejectedMediaIn } : {}) };
  const history: TranscriptHistory = { records, byId, byUuid, chain, sent, conversation };
  if (brokenAt) history.brokenAt = brokenAt;
  const named = dialect.namedReplies?.(chain);
  if (named && named.length > 0) history.namedReplies = named;
  return history;
}

/** What `send` reads of the session: its client, and the lines of each response (grouped when first asked). */
function sendSession(lines: readonly TranscriptLine[], all: readonly TranscriptLine[], dialect: Dialect): SendSession {
  let byResponse: Map<string, TranscriptLine[]> | undefined;
  return {
    clientVersion: clientVersionIn(all, dialect),
    responseLines(id) {
      if (!byResponse) {
        byResponse = new Map();
        for (const line of lines) {
          const response = dialect.responseId(line);
          if (response === undefined) continue;
          const group = byResponse.get(response);
          if (group) group.push(line);
          else byResponse.set(response, [line]);
        }
      }
      return byResponse.get(id) ?? [];
    },
  };
}

function isHistory(line: TranscriptLine): boolean {
  return line.role === "message" || line.role === "structure";
}

/**
 * The leaf: the last line in file order that is a message of the main chain (appends are chronological). A file of
 * sidechain lines only is a subagent's own transcript (Claude Code's `subagents/agent-<id>.jsonl`): its chain is the
 * one the client resumes the agent from.
 */
function leafOf(lines: readonly TranscriptLine[]): TranscriptLine | undefined {
  const own = (line: TranscriptLine) => isHistory(line) && line.uuid !== undefined;
  const side = lines.some((line) => own(line) && !line.sidechain) ? false : lines.some(own);
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    if (own(line) && (line.sidechain ?? false) === side) return line;
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
 * Request messages from the sent lines: consecutive user lines merge (tool results travel in one user message), and
 * the lines of one streamed response form one assistant message even when tool results were written between them
 * (Claude Code does that for parallel calls). Claude Code keeps each response its own message, pulls a response's
 * later lines into it across another response, and leads a user message with its run's attachments
 * (docs/research/claude-code-request.md §A, §C).
 */
function conversationOf(flow: readonly Flow[], dialect: Dialect): ConversationMessage[] {
  const messages: ConversationMessage[] = [];
  /** Messages nothing more merges into (an attachment's message of its own). */
  const closed = new Set<ConversationMessage>();
  /** How many leading blocks of a user message are attachments (the run's lines go after them). */
  const leads = new Map<ConversationMessage, number>();
  // Where each response's message is (an index, not a search: this runs for every line of every view). Messages are
  // only ever inserted right before the last one, which is never a response's, so these stay right.
  let responses = new Map<string, number>();
  let open: { at: number; response: string } | undefined;
  /** Whether only the kinds of message `fits` accepts follow message `at`. */
  const followedOnlyBy = (at: number, fits: (m: ConversationMessage) => boolean) => {
    for (let i = at + 1; i < messages.length; i++) if (!fits(messages[i]!)) return false;
    return true;
  };
  const onlyResults = (m: ConversationMessage) => m.role === "user" && m.blocks.every((b) => b.type === "tool_result");
  const run = () => {
    const last = messages.at(-1);
    return last?.role === "user" && !closed.has(last) ? last : undefined;
  };
  for (const entry of flow) {
    const { line, role, blocks } = entry;
    if (entry.attachment) {
      placeAttachment(entry.attachment, blocks, line.ref.id);
      continue;
    }
    const response = role === "assistant" ? dialect.responseId(line) : undefined;
    if (dialect.responsesApart && role === "assistant") {
      const same = response !== undefined ? responses.get(response) : undefined;
      if (same !== undefined && followedOnlyBy(same, (m) => onlyResults(m) || m.role === "assistant")) append(messages[same]!, blocks, line.ref.id);
      else {
        messages.push({ role, blocks: [...blocks], sourceMessageIds: [line.ref.id] });
        if (response !== undefined) responses.set(response, messages.length - 1);
      }
      continue;
    }
    if (response !== undefined && open?.response === response && followedOnlyBy(open.at, onlyResults)) {
      append(messages[open.at]!, blocks, line.ref.id);
      continue;
    }
    const last = messages.at(-1);
    if (last && last.role === role && !closed.has(last)) append(last, blocks, line.ref.id);
    else messages.push({ role, blocks: [...blocks], sourceMessageIds: [line.ref.id] });
    if (role === "assistant") open = response !== undefined ? { at: messages.length - 1, response } : undefined;
    // A prompt ends the responses a later line could still join.
    if (role === "user" && !blocks.every((b) => b.type === "tool_result")) responses = new Map();
  }
  return messages;

  function placeAttachment(attachment: Attachment, blocks: readonly Block[], id: string): void {
    let message = run();
    for (const own of attachment.ownMessages) {
      const alone: ConversationMessage = { role: "user", blocks: [...own], sourceMessageIds: [id] };
      closed.add(alone);
      if (message) messages.splice(messages.indexOf(message), 0, alone);
      else messages.push(alone);
    }
    if (blocks.length === 0) return;
    message = run();
    if (!message) {
      messages.push({ role: "user", blocks: [...blocks], sourceMessageIds: [id] });
      leads.set(messages.at(-1)!, blocks.length);
      return;
    }
    if (!message.sourceMessageIds.includes(id)) message.sourceMessageIds.push(id);
    if (message.blocks[0]?.type === "tool_result") {
      // In a run of tool results the client appends each rendering to the last result's content, after "\n\n".
      const at = message.blocks.findLastIndex((b) => b.type === "tool_result");
      const result = message.blocks[at]!;
      message.blocks[at] = { ...result, chars: result.chars + blocks.reduce((n, b) => n + 2 + b.chars, 0) };
      return;
    }
    const lead = leads.get(message) ?? 0;
    message.blocks.splice(lead, 0, ...blocks);
    leads.set(message, lead + blocks.length);
  }
}

function append(message: ConversationMessage, blocks: readonly Block[], id: string): void {
  message.blocks.push(...blocks);
  if (!message.sourceMessageIds.includes(id)) message.sourceMessageIds.push(id);
}
