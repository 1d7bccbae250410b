/**
 * opencode's stored records (MessageV2, reference opencode.md §2) as zod schemas: the single source of their
 * TypeScript types. We validate with them but always keep the original object, never zod's output (which
 * drops unknown keys), so fields a newer opencode adds survive any fix untouched. Plain z.object (not
 * looseObject) keeps zod's compiled fast path: validation runs on every record of a scan.
 */
import * as z from "zod";

const epochMs = z.number();
/** Free-form objects (tool input, metadata): checked to be objects, without visiting every key of every one. */
const anyRecord = z.custom<Record<string, unknown>>((v) => v !== null && typeof v === "object" && !Array.isArray(v), { message: "expected an object" });

export const FileDiff = z.object({
  file: z.string(),
  before: z.string(),
  after: z.string(),
  additions: z.number(),
  deletions: z.number(),
  status: z.enum(["added", "deleted", "modified"]).optional(),
});

export const SessionInfo = z.object({
  id: z.string(),
  slug: z.string().optional(),
  projectID: z.string(),
  directory: z.string(),
  parentID: z.string().optional(),
  title: z.string(),
  version: z.string(),
  summary: z.looseObject({ additions: z.number(), deletions: z.number(), files: z.number(), diffs: z.array(FileDiff).optional() }).optional(),
  share: z.object({ url: z.string() }).optional(),
  time: z.object({
    created: epochMs,
    updated: epochMs,
    compacting: epochMs.optional(),
    archived: epochMs.optional(),
  }),
  revert: z.looseObject({ messageID: z.string(), partID: z.string().optional(), snapshot: z.string().optional(), diff: z.string().optional() }).optional(),
});
export type SessionInfo = z.infer<typeof SessionInfo>;

/** `NamedError.toObject()`: every stored error is `{name, data}`. */
export const NamedError = z.object({ name: z.string(), data: anyRecord });
export type NamedError = z.infer<typeof NamedError>;

const Tokens = z.object({
  total: z.number().optional(),
  input: z.number(),
  output: z.number(),
  reasoning: z.number(),
  cache: z.object({ read: z.number(), write: z.number() }),
});
export type Tokens = z.infer<typeof Tokens>;

export const UserMessage = z.object({
  role: z.literal("user"),
  time: z.object({ created: epochMs }),
  format: z.unknown().optional(),
  summary: z.unknown().optional(),
  agent: z.string(),
  model: z.object({ providerID: z.string(), modelID: z.string(), variant: z.string().optional() }),
  system: z.string().optional(),
  tools: z.record(z.string(), z.boolean()).optional(),
  variant: z.string().optional(),
});

export const AssistantMessage = z.object({
  role: z.literal("assistant"),
  time: z.object({ created: epochMs, completed: epochMs.optional() }),
  error: NamedError.optional(),
  parentID: z.string(),
  modelID: z.string(),
  providerID: z.string(),
  mode: z.string(),
  agent: z.string().optional(),
  path: z.object({ cwd: z.string(), root: z.string() }),
  summary: z.boolean().optional(),
  cost: z.number(),
  tokens: Tokens,
  structured: z.unknown().optional(),
  variant: z.string().optional(),
  finish: z.string().optional(),
});

/** The stored message JSON. `id` and `sessionID` are columns in SQLite and fields in the JSON tree. */
export const MessageInfo = z.discriminatedUnion("role", [UserMessage, AssistantMessage]);
export type UserMessage = z.infer<typeof UserMessage>;
export type AssistantMessage = z.infer<typeof AssistantMessage>;
export type MessageInfo = z.infer<typeof MessageInfo>;

const timeSpan = z.object({ start: epochMs, end: epochMs.optional() });

export const TextPart = z.object({
  type: z.literal("text"),
  text: z.string(),
  synthetic: z.boolean().optional(),
  ignored: z.boolean().optional(),
  time: timeSpan.optional(),
  metadata: anyRecord.optional(),
});
export const ReasoningPart = z.object({
  type: z.literal("reasoning"),
  text: z.string(),
  metadata: anyRecord.optional(),
  time: timeSpan,
});
export const FilePart = z.object({
  type: z.literal("file"),
  mime: z.string(),
  filename: z.string().optional(),
  url: z.string(),
  source: anyRecord.optional(),
});

export const ToolState = z.discriminatedUnion("status", [
  z.object({ status: z.literal("pending"), input: anyRecord, raw: z.string() }),
  z.object({
    status: z.literal("running"),
    input: anyRecord,
    title: z.string().optional(),
    metadata: anyRecord.optional(),
    time: z.object({ start: epochMs }),
  }),
  z.object({
    status: z.literal("completed"),
    input: anyRecord,
    output: z.string(),
    title: z.string(),
    metadata: anyRecord,
    time: z.object({ start: epochMs, end: epochMs, compacted: epochMs.optional() }),
    attachments: z.array(z.unknown()).optional(),
  }),
  z.object({
    status: z.literal("error"),
    input: anyRecord,
    error: z.string(),
    metadata: anyRecord.optional(),
    time: z.object({ start: epochMs, end: epochMs }),
  }),
]);
export type ToolState = z.infer<typeof ToolState>;

export const ToolPart = z.object({
  type: z.literal("tool"),
  callID: z.string(),
  tool: z.string(),
  state: ToolState,
  metadata: anyRecord.optional(),
});

const stepTokens = Tokens;
export const StepStartPart = z.object({ type: z.literal("step-start"), snapshot: z.string().optional() });
export const StepFinishPart = z.object({
  type: z.literal("step-finish"),
  reason: z.string(),
  snapshot: z.string().optional(),
  cost: z.number(),
  tokens: stepTokens,
});
export const SnapshotPart = z.object({ type: z.literal("snapshot"), snapshot: z.string() });
export const PatchPart = z.object({ type: z.literal("patch"), hash: z.string(), files: z.array(z.string()) });
export const AgentPart = z.object({ type: z.literal("agent"), name: z.string(), source: anyRecord.optional() });
export const RetryPart = z.object({
  type: z.literal("retry"),
  attempt: z.number(),
  error: NamedError,
  time: z.object({ created: epochMs }),
});
export const CompactionPart = z.object({
  type: z.literal("compaction"),
  auto: z.boolean(),
  overflow: z.boolean().optional(),
  tail_start_id: z.string().optional(),
});
export const SubtaskPart = z.object({
  type: z.literal("subtask"),
  prompt: z.string(),
  description: z.string(),
  agent: z.string(),
  model: z.object({ providerID: z.string(), modelID: z.string() }).optional(),
  command: z.string().optional(),
});

export const KnownPart = z.discriminatedUnion("type", [
  TextPart,
  ReasoningPart,
  FilePart,
  ToolPart,
  StepStartPart,
  StepFinishPart,
  SnapshotPart,
  PatchPart,
  AgentPart,
  RetryPart,
  CompactionPart,
  SubtaskPart,
]);
export type KnownPart = z.infer<typeof KnownPart>;
export type TextPart = z.infer<typeof TextPart>;
export type ReasoningPart = z.infer<typeof ReasoningPart>;
export type FilePart = z.infer<typeof FilePart>;
export type ToolPart = z.infer<typeof ToolPart>;

export const KNOWN_PART_TYPES: ReadonlySet<string> = new Set(KnownPart.options.map((o) => o.shape.type.value));

/** A part type a newer opencode may write; kept verbatim, never sent, never a violation. */
export const UnknownPart = z.object({ type: z.string() });
export type UnknownPart = z.infer<typeof UnknownPart> & Record<string, unknown>;

export type Part = KnownPart | UnknownPart;

/** Validate a stored part: known types against their schema, other types only for a string `type`. */
export function validatePart(value: unknown): z.ZodSafeParseResult<unknown> {
  const type = (value as { type?: unknown } | null)?.type;
  if (typeof type === "string" && !KNOWN_PART_TYPES.has(type)) return UnknownPart.safeParse(value);
  return KnownPart.safeParse(value);
}

export function isKnownPart(part: Part): part is KnownPart {
  return KNOWN_PART_TYPES.has(part.type);
}

/** A reasoning part carries a provider signature (Anthropic `signature`, or redacted thinking's `redactedData`). */
export function hasThinkingSignature(metadata: unknown): boolean {
  return thinkingSignatureOf(metadata) !== undefined;
}

/** What identifies a signed reasoning block: its signature, or a redacted block's encrypted data. */
export function thinkingSignatureOf(metadata: unknown): string | undefined {
  for (const m of Object.values((metadata as Record<string, unknown> | undefined) ?? {})) {
    const v = m as { signature?: unknown; redactedData?: unknown } | null;
    if (typeof v?.redactedData === "string") return v.redactedData;
    if (typeof v?.signature === "string" && v.signature !== "") return v.signature;
  }
  return undefined;
}

/** File parts opencode already expanded into text when the user attached them; the file itself is not sent. */
export const EXPANDED_FILE_MIMES: ReadonlySet<string> = new Set(["text/plain", "application/x-directory"]);

/** Redacted thinking: the provider sent only encrypted data (`redactedData`), sent back as `redacted_thinking`. */
export function isRedactedThinking(metadata: unknown): boolean {
  return Object.values((metadata as Record<string, unknown> | undefined) ?? {}).some(
    (m) => typeof (m as { redactedData?: unknown } | null)?.redactedData === "string",
  );
}
