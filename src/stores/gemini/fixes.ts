/**
 * What Gemini CLI writes itself where a fix needs it, and how a fix edits a record that may sit on a line of its own
 * or inside a `$set.messages` list, in several copies (the client appends a record again when it changes, and every
 * resume writes the whole list again). Removing a record removes every copy, so no earlier or later line brings it
 * back; a call left without a response gets the cancelled response the client records for a call that never ran.
 */
import { randomUUID } from "node:crypto";
import { isObject, type Edit, type Json } from "../../model/edit.js";
import type { LineShape } from "../transcript/content-shape.js";
import type { AgentFixes, TranscriptFixContext } from "../transcript/fixing.js";
import { GEMINI_CANCELLED } from "./dialect.js";
import { isMessageRecord } from "./records.js";

/** The value at a dot path (`$set.messages.3.content.0`) of a line's value. */
export function at(value: unknown, path: string | undefined): unknown {
  if (path === undefined) return undefined;
  if (path === "") return value;
  let here: unknown = value;
  for (const key of path.split(".")) {
    if (Array.isArray(here)) here = here[Number(key)];
    else if (isObject(here)) here = here[key];
    else return undefined;
  }
  return here;
}

/** The record path a block path lies in: `$set.messages.3.content.0` → `$set.messages.3` (a legacy document's `messages.3`), `content.0` → "". */
function recordPath(field: string): string {
  const m = /^((?:\$set\.)?messages\.\d+)(?:\.|$)/.exec(field);
  return m ? m[1]! : "";
}

/** The rest of a block path after its record path. */
function inRecord(field: string): string {
  const record = recordPath(field);
  return record === "" ? field : field.slice(record.length + 1);
}

const geminiShape: LineShape = {
  content: () => undefined,
  call(value, _index, field) {
    const found = at(value, field);
    if (!isObject(found)) return undefined;
    return isObject(found.functionCall) ? found.functionCall : found;
  },
  rewriteResult(value, _index, rewrite, field) {
    const part = at(value, field);
    const response = isObject(part) && isObject(part.functionResponse) && isObject(part.functionResponse.response) ? part.functionResponse.response : undefined;
    if (!response) return;
    const text = typeof response.output === "string" ? response.output : JSON.stringify(response);
    for (const key of Object.keys(response)) delete response[key];
    response.output = rewrite(text);
  },
  emptyInput(value, _index, field) {
    const found = at(value, field);
    const call = isObject(found) && isObject(found.functionCall) ? found.functionCall : found;
    if (isObject(call)) call.args = {};
  },
  setCallId(value, _index, id, field) {
    const found = at(value, field);
    if (!isObject(found)) return;
    const holder = isObject(found.functionCall) ? found.functionCall : isObject(found.functionResponse) ? found.functionResponse : found;
    holder.id = id;
  },
  replaceMedia(value, _index, note, _item, field) {
    const path = field?.split(".") ?? [];
    const key = path.pop();
    const parent = at(value, path.join("."));
    if (Array.isArray(parent) && key !== undefined) parent[Number(key)] = { text: note };
  },
};

export const geminiFixes: AgentFixes = {
  freshId: () => randomUUID(),
  closeInterruptedCall(context, line, index, call) {
    const field = context.fieldOf(line, index);
    if (field === undefined) return [];
    // A call in the content a resume rewrote (`$set.messages.K.content.J`): its response is a record of its own.
    const rewritten = /^(\$set\.messages\.\d+)\.content\.\d+$/.exec(field);
    if (rewritten) return answerInEveryList(context, at(line.value, rewritten[1]), call);
    // Otherwise only a recorded tool call (`toolCalls[j]`) has a place for its result.
    if (!/(?:^|\.)toolCalls\.\d+$/.test(field)) return [];
    return context.update(line, "gave the call the cancelled response Gemini CLI records for a call that did not finish (its result was lost)", (value) => {
      const stored = at(value, field);
      if (!isObject(stored)) return;
      stored.result = [{ functionResponse: { id: call.id, name: call.name, response: { error: GEMINI_CANCELLED } } }];
      stored.status = "cancelled";
    });
  },
  dropBlock(context, line, _index, field, reason) {
    if (field === undefined) return [];
    const record = at(line.value, recordPath(field));
    if (!isMessageRecord(record as Json | undefined)) return [];
    const rest = inRecord(field);
    const part = /^content\.(\d+)$/.exec(rest);
    const content = (record as Json).content;
    const onlyPart = part && Array.isArray(content) && content.length <= 1;
    // The whole record goes (an empty turn, or its last part): every copy of it, wherever the client wrote one.
    if (rest === "" || onlyPart) return dropRecordEverywhere(context, (record as Json).id as string, reason);
    if (part) {
      return context.update(line, reason, (value) => {
        const copy = at(value, recordPath(field));
        if (isObject(copy) && Array.isArray(copy.content)) copy.content.splice(Number(part[1]), 1);
      });
    }
    const result = /^toolCalls\.(\d+)\.result\.(\d+)$/.exec(rest);
    if (result) {
      return context.update(line, reason, (value) => {
        const calls = at(value, fieldPath(recordPath(field), "toolCalls"));
        const call = Array.isArray(calls) ? calls[Number(result[1])] : undefined;
        if (isObject(call) && Array.isArray(call.result)) call.result.splice(Number(result[2]), 1);
      });
    }
    return [];
  },
  shape: geminiShape,
};

/**
 * A call in a gemini record as a resume rewrote it (content Parts, no `toolCalls`) gets the cancelled response in the
 * record the client itself writes there for a recorded result, `<record id>_response`, right after the record, in
 * every `$set.messages` list that holds the record's call without a response to it (the client reads the last).
 */
function answerInEveryList(context: TranscriptFixContext, record: unknown, call: Json): Edit[] {
  if (!isMessageRecord(record as Json | undefined) || typeof call.id !== "string") return [];
  const { id, timestamp } = record as Json;
  const callId = call.id;
  const part = { functionResponse: { id: callId, name: call.name, response: { error: GEMINI_CANCELLED } } };
  const reason =
    "gave the call the cancelled response Gemini CLI records for a call that did not finish (its result was lost), as the response record the client writes after the call";
  const edits: Edit[] = [];
  for (const line of context.history.records.lines) {
    const list = line.problem || !isObject(line.value?.$set) ? undefined : line.value.$set.messages;
    if (!Array.isArray(list) || !unanswered(list, id as string, callId)) continue;
    edits.push(
      ...context.update(line, reason, (value) => {
        const messages = (value.$set as Json).messages as unknown[];
        const k = messages.findIndex((m) => isObject(m) && m.id === id);
        const next = messages[k + 1];
        if (isObject(next) && next.id === `${id as string}_response` && Array.isArray(next.content)) next.content.push(part);
        else messages.splice(k + 1, 0, { id: `${id as string}_response`, timestamp, type: "user", content: [part] });
      }),
    );
  }
  return edits;
}

/** Whether the list holds record `id` with call `callId` in its content, and no response to that call after it. */
function unanswered(list: readonly unknown[], id: string, callId: string): boolean {
  const k = list.findIndex((m) => isObject(m) && m.id === id);
  const record = list[k];
  if (!isObject(record) || !Array.isArray(record.content)) return false;
  const calls = record.content.some((p) => isObject(p) && isObject(p.functionCall) && p.functionCall.id === callId);
  const answered = list
    .slice(k + 1)
    .some(
      (m) => isObject(m) && Array.isArray(m.content) && m.content.some((p) => isObject(p) && isObject(p.functionResponse) && p.functionResponse.id === callId),
    );
  return calls && !answered;
}

function fieldPath(prefix: string, rest: string): string {
  return prefix === "" ? rest : `${prefix}.${rest}`;
}

/** Every line holding record `id`: its own lines go, and it leaves every `$set.messages` list that holds it. */
function dropRecordEverywhere(context: TranscriptFixContext, id: string, reason: string): Edit[] {
  const edits: Edit[] = [];
  for (const line of context.history.records.lines) {
    const value = line.value;
    if (!value || line.problem) continue;
    if (isMessageRecord(value) && value.id === id) {
      edits.push(...context.deleteLine(line, reason));
      continue;
    }
    const holder = (v: Json): Json | undefined => (isObject(v.$set) ? v.$set : Array.isArray(v.messages) ? v : undefined);
    const messages = holder(value)?.messages;
    if (!Array.isArray(messages) || !messages.some((m) => isObject(m) && m.id === id)) continue;
    const own = !isObject(value.$set);
    edits.push(
      ...context.update(line, own ? reason : `${reason} (its copy in the message list a resume wrote)`, (copy) => {
        const list = holder(copy)!.messages as unknown[];
        for (let k = list.length - 1; k >= 0; k--) if (isObject(list[k]) && (list[k] as Json).id === id) list.splice(k, 1);
      }),
    );
  }
  return edits;
}
