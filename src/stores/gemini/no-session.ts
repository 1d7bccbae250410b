/**
 * Whether Gemini CLI 0.61 reads a session from a chat file, as its session list does (`getAllSessionFiles` over
 * `loadConversationRecord(…, { metadataOnly: true })`): a file with no session id, or with nothing resumable in it
 * (a resume's fresh recording that the client left when it switched to the resumed file: its metadata line and the
 * session context only), is `sessionInfo: null`. Its start-up cleanup deletes such a file and every chat file whose
 * name ends in the same 8 characters, the session's own among them (docs/research/gemini-truncated-chats.md).
 *
 * Where the client's reading is in doubt (a part that is not text), the file counts as a session: recover then leaves
 * it alone, never removing a file the client would keep.
 */
import { isObject, type Json } from "../../model/edit.js";

/** Text the client does not count as a user's turn (`isIgnoredUserContent`). */
const IGNORED_USER_TEXT = ["/", "?", "<session_context>", "<hook_context>"];

/** The content as the client reads it for this check; undefined: a part that is not text (counted as content). */
function contentText(content: unknown): string | undefined {
  if (content === undefined || content === null) return "";
  if (typeof content === "string") return content;
  const parts = Array.isArray(content) ? content : [content];
  let text = "";
  for (const part of parts) {
    if (typeof part === "string") text += part;
    else if (isObject(part) && typeof part.text === "string") text += part.text;
    else return undefined;
  }
  return text;
}

/** `isResumableMessageRecord`. */
function resumable(message: Json): boolean {
  const text = contentText(message.content);
  if (message.type === "user") {
    if (text === undefined) return true;
    const trimmed = text.trim();
    return trimmed.length > 0 && !IGNORED_USER_TEXT.some((p) => trimmed.startsWith(p));
  }
  if (message.type === "gemini") {
    const many = (v: unknown) => Array.isArray(v) && v.length > 0;
    return text === undefined || text.trim().length > 0 || many(message.toolCalls) || many(message.thoughts);
  }
  return false;
}

const isMessage = (v: unknown): boolean => isObject(v) && typeof v.id === "string" && typeof v.type === "string";
const kinds = (list: unknown[]) => list.filter(isMessage).map((m) => ({ id: (m as Json).id as string, resumable: resumable(m as Json) }));

/** Why Gemini CLI 0.61 reads no session from a chat file's bytes, or undefined when it reads one. */
export function readsNoSession(bytes: Buffer): string | undefined {
  const text = bytes.toString("utf8");
  if (text.trim() === "") return "nothing in it";
  const metadata: Json = {};
  // Message ids in order, with whether each is resumable: `$set.messages` replaces them, `$rewindTo` cuts them.
  let messages: { id: string; resumable: boolean }[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      continue;
    }
    if (!isObject(record)) continue;
    if (typeof record.$rewindTo === "string") {
      const at = messages.findIndex((m) => m.id === record.$rewindTo);
      messages = at >= 0 ? messages.slice(0, at) : [];
    } else if (isMessage(record)) {
      messages.push(...kinds([record]));
    } else if (isObject(record.$set)) {
      if (Array.isArray(record.$set.messages)) messages = kinds(record.$set.messages);
      Object.assign(metadata, record.$set);
    } else {
      Object.assign(metadata, record);
      if (Array.isArray(record.messages)) messages.push(...kinds(record.messages));
    }
  }
  // Without both, the client reads the file as one legacy document, which a .jsonl of records is not: leave it be.
  if (typeof metadata.sessionId !== "string" || typeof metadata.projectHash !== "string") return undefined;
  if (metadata.kind === "subagent") return undefined;
  if (!messages.some((m) => m.resumable)) return "nothing resumable in it: a resume's fresh recording, its metadata and session context only";
  return undefined;
}
