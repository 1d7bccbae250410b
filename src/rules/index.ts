/** The rule registry: a new rule is one file and one line here. */
import { contextOverflow } from "./context-overflow.js";
import { corruptedToolOutput } from "./corrupted-tool-output.js";
import { duplicateToolCallId } from "./duplicate-tool-call-id.js";
import { duplicateThinking } from "./duplicate-thinking.js";
import { emptyMessage } from "./empty-message.js";
import { emptyThinking } from "./empty-thinking.js";
import { emptyTextPart } from "./empty-text-part.js";
import { incompleteMessage } from "./incomplete-message.js";
import { leadingAssistant } from "./leading-assistant.js";
import { orphanPart } from "./orphan-part.js";
import { providerRejects } from "./provider-rejects.js";
import { oversizedAttachment } from "./oversized-attachment.js";
import { oversizedToolOutput } from "./oversized-tool-output.js";
import type { Rule } from "./rule.js";
import { schemaViolation } from "./schema-violation.js";
import { sharedMessage } from "./shared-message.js";
import { thinkingBlockOrder } from "./thinking-block-order.js";
import { thinkingOnlyMessage } from "./thinking-only-message.js";
import { toolCallInterrupted } from "./tool-call-interrupted.js";
import { trailingThinking } from "./trailing-thinking.js";
import { unreadableRecord } from "./unreadable-record.js";
import { unsignedThinking } from "./unsigned-thinking.js";
import { stuckCompaction } from "./stuck-compaction.js";
import { emptyTurn } from "./empty-turn.js";
import { unknownRewind } from "./unknown-rewind.js";
import { unverifiableReasoning } from "./unverifiable-reasoning.js";
import { corruptedThoughtSignature } from "./corrupted-thought-signature.js";
import { emptyChatFile } from "./empty-chat-file.js";
import { brokenParentChain } from "./broken-parent-chain.js";
import { foreignSummary } from "./foreign-summary.js";
import { foreignMessageId } from "./foreign-message-id.js";
import { orphanToolResult } from "./orphan-tool-result.js";
import { toolResultMissing } from "./tool-result-missing.js";
import { trailingAssistant } from "./trailing-assistant.js";
import { staleBookkeeping } from "./stale-bookkeeping.js";
import { rolloutOrdinal } from "./rollout-ordinal.js";
import { replayedHistory } from "./replayed-history.js";

export const RULES: readonly Rule[] = [
  unreadableRecord,
  staleBookkeeping,
  rolloutOrdinal,
  schemaViolation,
  orphanPart,
  sharedMessage,
  // Transcripts: the shape of the history first (what the rest is judged on).
  brokenParentChain,
  // Claude Code: copies a second compaction re-appended (and the record it parented to them): before the chain is judged.
  replayedHistory,
  foreignSummary,
  unknownRewind,
  corruptedToolOutput,
  stuckCompaction,
  toolCallInterrupted,
  toolResultMissing,
  orphanToolResult,
  incompleteMessage,
  emptyTextPart,
  emptyMessage,
  emptyTurn,
  emptyThinking,
  duplicateThinking,
  thinkingOnlyMessage,
  thinkingBlockOrder,
  trailingThinking,
  unsignedThinking,
  unverifiableReasoning,
  corruptedThoughtSignature,
  emptyChatFile,
  duplicateToolCallId,
  oversizedToolOutput,
  oversizedAttachment,
  contextOverflow,
  trailingAssistant,
  foreignMessageId,
  // After the rules that mend or drop records: what is left to begin the history with is then known.
  leadingAssistant,
  // Last: it reports only what the rules above did not.
  providerRejects,
];
