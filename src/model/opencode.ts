/**
 * opencode's stored records (MessageV2, reference opencode.md §2) as zod schemas: the single source of their
 * TypeScript types. We validate with them but always keep the original object, never zod's output (which
 * drops unknown keys), so fields a newer opencode adds survive any fix untouched. Plain z.object (not
 * looseObject) keeps zod's compiled fast path: validation runs on every record of a scan.
 *
 * The schemas are built on first use (`opencodeSchemas()`), not when this module loads: building them is about
 * 200 zod constructors, 5-10 ms that every run paid, a Claude Code scan or `--help` included, because the rules
 * import this module's helpers. The types come from the same builder, so zod stays their single source.
 */
import * as z from "zod";
import { onFirstUse } from "./on-first-use.js";

/** Every schema of the module, built once, on first use. */
function buildSchemas() {
  const epochMs = z.number();
  /** Free-form objects (tool input, metadata): checked to be objects, without visiting every key of every one. */
  const anyRecord = z.custom<Record<string, unknown>>((v) => v !== null && typeof v === "object" && !Array.isArray(v), { message: "expected an object" });

  const FileDiff = z.object({
    file: z.string(),
    before: z.string(),
    after: z.string(),
    additions: z.number(),
    deletions: z.number(),
    status: z.enum(["added", "deleted", "modified"]).optional(),
  });

  const SessionInfo = z.object({
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

  /** `NamedError.toObject()`: every stored error is `{name, data}`. */
  const NamedError = z.object({ name: z.string(), data: anyRecord });

  const Tokens = z.object({
    total: z.number().optional(),
    input: z.number(),
    output: z.number(),
    reasoning: z.number(),
    cache: z.object({ read: z.number(), write: z.number() }),
  });

  const UserMessage = z.object({
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

  const AssistantMessage = z.object({
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
  const MessageInfo = z.discriminatedUnion("role", [UserMessage, AssistantMessage]);

  const timeSpan = z.object({ start: epochMs, end: epochMs.optional() });

  const TextPart = z.object({
    type: z.literal("text"),
    text: z.string(),
    synthetic: z.boolean().optional(),
    ignored: z.boolean().optional(),
    time: timeSpan.optional(),
    metadata: anyRecord.optional(),
  });
  const ReasoningPart = z.object({
    type: z.literal("reasoning"),
    text: z.string(),
    metadata: anyRecord.optional(),
    time: timeSpan,
  });
  const FilePart = z.object({
    type: z.literal("file"),
    mime: z.string(),
    filename: z.string().optional(),
    url: z.string(),
    source: anyRecord.optional(),
  });

  const ToolState = z.discriminatedUnion("status", [
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

  const ToolPart = z.object({
    type: z.literal("tool"),
    callID: z.string(),
    tool: z.string(),
    state: ToolState,
    metadata: anyRecord.optional(),
  });

  const stepTokens = Tokens;
  const StepStartPart = z.object({ type: z.literal("step-start"), snapshot: z.string().optional() });
  const StepFinishPart = z.object({
    type: z.literal("step-finish"),
    reason: z.string(),
    snapshot: z.string().optional(),
    cost: z.number(),
    tokens: stepTokens,
  });
  const SnapshotPart = z.object({ type: z.literal("snapshot"), snapshot: z.string() });
  const PatchPart = z.object({ type: z.literal("patch"), hash: z.string(), files: z.array(z.string()) });
  const AgentPart = z.object({ type: z.literal("agent"), name: z.string(), source: anyRecord.optional() });
  const RetryPart = z.object({
    type: z.literal("retry"),
    attempt: z.number(),
    error: NamedError,
    time: z.object({ created: epochMs }),
  });
  const CompactionPart = z.object({
    type: z.literal("compaction"),
    auto: z.boolean(),
    overflow: z.boolean().optional(),
    tail_start_id: z.string().optional(),
  });
  const SubtaskPart = z.object({
    type: z.literal("subtask"),
    prompt: z.string(),
    description: z.string(),
    agent: z.string(),
    model: z.object({ providerID: z.string(), modelID: z.string() }).optional(),
    command: z.string().optional(),
  });

  const KnownPart = z.discriminatedUnion("type", [
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

  const knownPartTypes: ReadonlySet<string> = new Set(KnownPart.options.map((o) => o.shape.type.value));

  /** A part type a newer opencode may write; kept verbatim, never sent, never a violation. */
  const UnknownPart = z.object({ type: z.string() });

  return {
    SessionInfo,
    NamedError,
    Tokens,
    UserMessage,
    AssistantMessage,
    MessageInfo,
    ToolState,
    TextPart,
    ReasoningPart,
    FilePart,
    ToolPart,
    KnownPart,
    UnknownPart,
    knownPartTypes,
  };
}

type Schemas = ReturnType<typeof buildSchemas>;

/** The schemas of opencode's records (built on the first call). */
export const opencodeSchemas: () => Schemas = onFirstUse(buildSchemas);

export type SessionInfo = z.infer<Schemas["SessionInfo"]>;
export type NamedError = z.infer<Schemas["NamedError"]>;
export type Tokens = z.infer<Schemas["Tokens"]>;
export type UserMessage = z.infer<Schemas["UserMessage"]>;
export type AssistantMessage = z.infer<Schemas["AssistantMessage"]>;
export type MessageInfo = z.infer<Schemas["MessageInfo"]>;
export type ToolState = z.infer<Schemas["ToolState"]>;
export type KnownPart = z.infer<Schemas["KnownPart"]>;
export type TextPart = z.infer<Schemas["TextPart"]>;
export type ReasoningPart = z.infer<Schemas["ReasoningPart"]>;
export type FilePart = z.infer<Schemas["FilePart"]>;
export type ToolPart = z.infer<Schemas["ToolPart"]>;
export type UnknownPart = z.infer<Schemas["UnknownPart"]> & Record<string, unknown>;
export type Part = KnownPart | UnknownPart;

/** Validate a stored part: known types against their schema, other types only for a string `type`. */
export function validatePart(value: unknown): z.ZodSafeParseResult<unknown> {
  const schemas = opencodeSchemas();
  const type = (value as { type?: unknown } | null)?.type;
  if (typeof type === "string" && !schemas.knownPartTypes.has(type)) return schemas.UnknownPart.safeParse(value);
  return schemas.KnownPart.safeParse(value);
}

export function validateMessageInfo(value: unknown): z.ZodSafeParseResult<MessageInfo> {
  return opencodeSchemas().MessageInfo.safeParse(value);
}

export function validateSessionInfo(value: unknown): z.ZodSafeParseResult<SessionInfo> {
  return opencodeSchemas().SessionInfo.safeParse(value);
}

export function isKnownPart(part: Part): part is KnownPart {
  return opencodeSchemas().knownPartTypes.has(part.type);
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

/**
 * The result opencode sends for a tool call still pending or running (every version since 1.1.65: reference
 * opencode.md §4): its view of the request, and what the repair of such a call writes, so the request stays the same.
 */
export const OPENCODE_INTERRUPTED_TOOL = "[Tool execution was interrupted]";
