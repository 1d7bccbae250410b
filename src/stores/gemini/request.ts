/**
 * The `contents` Gemini CLI 0.61 sends when it resumes a chat file, built the way the client builds it
 * (`convertSessionToClientHistory`, then `extractCuratedHistory`, `stripThoughts` and `coalesceConsecutiveRoles`
 * for gemini-2.x/3.x models; docs/research/gemini-request.md). The fresh `<session_context>` the client puts first
 * and the new prompt are not part of it.
 */
import type { TranscriptLine } from "../../model/transcript.js";
import { type Json, obj } from "../transcript/dialect.js";
import { isIgnoredUserContent } from "./dialect.js";
import { effectiveRecords } from "./records.js";

export interface GeminiContent {
  role: "user" | "model";
  parts: Json[];
}

function partsOf(content: unknown): Json[] {
  if (typeof content === "string") return content === "" ? [] : [{ text: content }];
  return Array.isArray(content) ? content.map((p) => obj(p) ?? {}) : [];
}

export function geminiResumeContents(lines: readonly TranscriptLine[]): GeminiContent[] {
  const history: GeminiContent[] = [];
  for (const { record } of effectiveRecords(lines)) {
    if (record.type === "user") {
      if (!isIgnoredUserContent(record.content)) history.push({ role: "user", parts: partsOf(record.content) });
      continue;
    }
    if (record.type !== "gemini") continue;
    const content = record.content ? partsOf(record.content) : [];
    const calls = Array.isArray(record.toolCalls) ? record.toolCalls.map((c) => obj(c) ?? {}) : [];
    const model: Json[] = [];
    if (content.some((p) => p.functionCall !== undefined || p.thought === true)) model.push(...content);
    else {
      for (const thought of Array.isArray(record.thoughts) ? record.thoughts : []) model.push({ text: String(obj(thought)?.description ?? ""), thought: true });
      model.push(...content);
      for (const call of calls) model.push({ functionCall: { id: call.id, name: call.name, args: call.args } });
    }
    if (model.length === 0) continue;
    history.push({ role: "model", parts: model });
    const responses = calls.flatMap((call): Json[] => {
      if (!call.result) return [];
      if (typeof call.result === "string") return [{ functionResponse: { id: call.id, name: call.name, response: { output: call.result } } }];
      return Array.isArray(call.result) ? call.result.map((p) => obj(p) ?? {}) : [];
    });
    if (responses.length > 0) history.push({ role: "user", parts: responses });
  }
  return coalesce(stripThoughts(curated(history)));
}

/** A run of model turns with an invalid one (no parts, or an empty part) goes, and the user turn before it too. */
function curated(history: GeminiContent[]): GeminiContent[] {
  const out: GeminiContent[] = [];
  for (let i = 0; i < history.length; ) {
    if (history[i]!.role === "user") {
      out.push(history[i++]!);
      continue;
    }
    const run: GeminiContent[] = [];
    let valid = true;
    while (i < history.length && history[i]!.role === "model") {
      const turn = history[i++]!;
      run.push(turn);
      if (turn.parts.length === 0 || turn.parts.some((p) => Object.keys(p).length === 0)) valid = false;
    }
    if (valid) out.push(...run);
    else out.pop();
  }
  return out;
}

/** Thoughts are never sent, nor is a model turn's empty text (captured: empty-gemini-text); a turn left empty goes. */
function stripThoughts(history: GeminiContent[]): GeminiContent[] {
  const kept = (c: GeminiContent, p: Json) => p.thought !== true && !(c.role === "model" && p.text === "" && Object.keys(p).length === 1);
  return history.map((c) => ({ ...c, parts: c.parts.filter((p) => kept(c, p)) })).filter((c) => c.parts.length > 0);
}

function coalesce(history: GeminiContent[]): GeminiContent[] {
  const out: GeminiContent[] = [];
  for (const c of history) {
    const last = out.at(-1);
    if (last && last.role === c.role) last.parts.push(...c.parts);
    else out.push({ role: c.role, parts: [...c.parts] });
  }
  return out;
}
