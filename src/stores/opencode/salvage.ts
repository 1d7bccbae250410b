/**
 * Salvage of damaged opencode records: what a torn write or bad bytes left is kept as far as it is a valid record,
 * following what the agent itself writes in that situation. Nothing provider-signed is invented.
 */
import { cleanStrings } from "../../model/clean-strings.js";
import { isObject, type Edit, type Json } from "../../model/edit.js";
import type { RecordFixContext } from "../../model/fix-context.js";
import type { MessageInfo } from "../../model/opencode.js";
import { validateMessageInfo, validatePart } from "../../model/opencode.js";
import type { MessageRecord, PartRecord } from "../../model/opencode-records.js";
import { dropInvalidUtf8 } from "../decode-json.js";
import { CORRUPTED_OUTPUT_PLACEHOLDER } from "./placeholders.js";
import { salvageJsonObject } from "./salvage-json.js";

/** A record's stored text without its invalid UTF-8 sequences (a lossy decode would turn them into U+FFFD). */
export function storedText(raw: Buffer): string {
  return dropInvalidUtf8(raw).toString("utf8");
}

/** A parsed record whose strings held NULs, broken surrogates or invalid UTF-8, cleaned of them and nothing else. */
export function cleanCorruptedRecord(record: PartRecord, context: RecordFixContext, reason: string): Edit[] {
  if (record.content.corruption?.kind !== "invalid-utf8" || !record.raw) return context.update(record, reason, (value) => cleanStrings(value));
  let value: unknown;
  try {
    value = JSON.parse(storedText(record.raw));
  } catch {
    return [];
  }
  return isObject(value) ? [{ op: "update", target: record, value: cleanStrings(value) as Json, reason }] : [];
}

const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

/**
 * Salvage an unreadable part: keep everything a torn write left intact. A tool whose result did not survive is
 * closed as an interrupted call (the partial output goes where opencode keeps partial output, metadata.output,
 * which it sends for interrupted calls). Nothing recoverable: the part leaves the session (bytes in the backup).
 */
export function salvagePart(part: PartRecord, context: RecordFixContext): Edit[] {
  const salvaged = part.raw ? salvageJsonObject(storedText(part.raw)) : undefined;
  if (!salvaged) return context.delete(part, "unreadable part with nothing recoverable: removed (its bytes are in the backup)");
  const value = cleanStrings(salvaged.value) as Json;
  const cut = salvaged.truncatedStrings;
  if (validatePart(value).success && !cut.includes("state.output")) {
    return context.replace(part, value, `salvaged what the torn record kept (${salvaged.how}${cut.length ? `; cut short: ${cut.join(", ")}` : ""})`);
  }
  if (value.type === "tool" && typeof value.callID === "string" && typeof value.tool === "string") {
    const state = isObject(value.state) ? value.state : {};
    const time = isObject(state.time) ? state.time : {};
    const metadata: Json = { ...(isObject(state.metadata) ? state.metadata : {}), interrupted: true };
    if (typeof state.output === "string") metadata.output = `${state.output}\n${CORRUPTED_OUTPUT_PLACEHOLDER}`;
    value.state = {
      status: "error",
      input: isObject(state.input) ? state.input : {},
      error: CORRUPTED_OUTPUT_PLACEHOLDER,
      metadata,
      time: { start: num(time.start) ?? context.now, end: num(time.end) ?? context.now },
    };
    if (validatePart(value).success) return context.replace(part, value, `salvaged the tool call; its result was lost to a torn write (${salvaged.how})`);
  }
  return context.delete(part, `unreadable part: what survived (${salvaged.how}) is not a valid part; removed (its bytes are in the backup)`);
}

/**
 * Salvage an unreadable message record. Its parts hold the content; the message itself is metadata, so what a torn
 * write lost is taken from the nearest messages of the session (model, agent, paths) rather than losing the turn.
 */
export function salvageMessage(message: MessageRecord, context: RecordFixContext): Edit[] {
  const salvaged = message.raw ? salvageJsonObject(storedText(message.raw)) : undefined;
  const found = salvaged ? (cleanStrings(salvaged.value) as Json) : {};
  if (validateMessageInfo(found).success) return context.replace(message, found, `salvaged the message record (${salvaged!.how})`);
  if (message.parts.length === 0) return context.delete(message, "unreadable message with no parts: removed (its bytes are in the backup)");
  const rebuilt = { ...rebuiltMessage(message, found, context), ...validFields(found) };
  const value = validateMessageInfo(rebuilt).success ? rebuilt : rebuiltMessage(message, found, context);
  if (!validateMessageInfo(value).success) return [];
  return context.replace(message, value, `rebuilt the unreadable message record around its ${message.parts.length} parts from its neighbours' model and paths`);
}

/** Fields of a half-recovered message that can be trusted as they are (scalars only; nested ones are rebuilt). */
function validFields(found: Json): Json {
  const kept: Json = {};
  for (const [key, value] of Object.entries(found)) if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") kept[key] = value;
  delete kept.role;
  return kept;
}

function rebuiltMessage(message: MessageRecord, found: Json, context: RecordFixContext): Json {
  const all = context.session.messages;
  const index = all.indexOf(message);
  const near = [...all.slice(0, Math.max(index, 0)).reverse(), ...all.slice(index + 1)].map((m) => m.info).filter((i): i is MessageInfo => i !== undefined);
  const user = near.find((i) => i.role === "user");
  const assistant = near.find((i) => i.role === "assistant");
  const role =
    found.role === "user" || found.role === "assistant"
      ? found.role
      : message.parts.some((p) => ["tool", "reasoning", "step-start", "step-finish"].includes(String(p.part?.type)))
        ? "assistant"
        : "user";
  // The time the torn write kept is the record's own; otherwise the store placed it (stores/opencode/untimed.ts).
  const kept = isObject(found.time) ? found.time.created : undefined;
  const created = Number.isSafeInteger(kept) ? (kept as number) : Math.round(message.created);
  const model =
    user?.role === "user"
      ? user.model
      : assistant?.role === "assistant"
        ? { providerID: assistant.providerID, modelID: assistant.modelID }
        : { providerID: "unknown", modelID: "unknown" };
  if (role === "user") return { role, time: { created }, agent: user?.role === "user" ? user.agent : "build", model };
  const previousUser = all
    .slice(0, Math.max(index, 0))
    .reverse()
    .find((m) => m.info?.role === "user");
  const a = assistant?.role === "assistant" ? assistant : undefined;
  return {
    role,
    time: { created, completed: created },
    error: { name: "MessageAbortedError", data: { message: "The message record was damaged; rebuilt by recover" } },
    parentID: previousUser?.ref.id ?? "",
    modelID: a?.modelID ?? model.modelID,
    providerID: a?.providerID ?? model.providerID,
    mode: a?.mode ?? "build",
    agent: a?.agent ?? "build",
    path: a?.path ?? { cwd: "", root: "" },
    cost: 0,
    tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
  };
}
