#!/usr/bin/env node
// A loopback mock of the Gemini API (Generative Language API, `v1beta`), for running the real Gemini CLI offline (the
// driver scripts/clients/gemini.mjs; lib/engine.mjs starts it). Plain Node ESM, no dependencies.
//
// Routes:
//   POST /v1beta/models/<model>:streamGenerateContent?alt=sse   the next scripted reply, streamed as SSE: one
//        `data: <GenerateContentResponse JSON>` event per part (text deltas, `thought: true` parts carrying a made-up
//        `thoughtSignature`, `functionCall` parts), the last one with `finishReason: "STOP"` and `usageMetadata`
//        (promptTokenCount, candidatesTokenCount, thoughtsTokenCount, totalTokenCount, promptTokensDetails), every
//        chunk with `modelVersion` and `responseId`, the way the API streams.
//   POST /v1beta/models/<model>:generateContent                 the same reply as one JSON GenerateContentResponse
//        (the CLI uses it for side requests: next-speaker checks, summaries, loop detection, ...). Side requests
//        do not consume the script unless the scenario's `next` says so; by default they get a small JSON/text answer.
//   POST /v1beta/models/<model>:countTokens                     {"totalTokens": <characters of the contents / 4>}
//   POST /v1beta/models/<model>:embedContent / :batchEmbedContents   zero vectors
//   GET  /v1beta/models[/<model>]                               a minimal model list / model
//   anything else                                               404 in the API's error shape
//
// A reply is one of:
//   reply(parts, { usage?, finishReason? })    parts built with text(t) / thought(t, sig?) / functionCall(name, args, sig?)
//   httpError(status, message, statusText?)    answered as {"error":{"code":status,"message":...,"status":...}}
//   { hang: true }                             headers sent, then nothing (the request stays open)
// `state.next(body, entry)` picks the reply for a generation request; it may return a function (called with body,
// entry) or undefined (then a default text reply). `checkContents(body)` (gemini-rules.mjs, re-exported here) makes
// the request checks the real API makes on `contents`; a scenario's `next` calls it to answer 400 where the API would.
//
// Every request (seq, tag, method, path, headers without credentials, parsed body, how it was answered) is appended
// to a JSONL log (`state.log`).
import fs from "node:fs";
import http from "node:http";
import { listenLoopback, readJsonBody, redactHeaders } from "./http.mjs";
// The API's rules and texts live in gemini-rules.mjs; they are re-exported for the scripts that import them from here.
export {
  checkContents,
  ERR_CALL_AFTER_USER,
  ERR_COUNT_MISMATCH,
  ERR_EMPTY_PARTS,
  ERR_OVERFLOW,
  ERR_RESPONSE_AFTER_CALL,
  ERR_SIGNATURE_CORRUPTED,
  ERR_SIGNATURE_MISSING,
  modelSignature,
} from "./gemini-rules.mjs";

export const text = (t) => ({ text: t });
export const thought = (t, signature) => ({ text: t, thought: true, thoughtSignature: signature ?? fakeSignature(t) });
export const functionCall = (name, args, signature) => ({
  functionCall: { name, args },
  ...(signature ? { thoughtSignature: signature } : {}),
});
export const reply = (parts, opts = {}) => ({ parts, ...opts });
const STATUS_TEXT = { 400: "INVALID_ARGUMENT", 403: "PERMISSION_DENIED", 404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE" };
export const httpError = (code, message, status) => ({ httpError: { code, message, status: status ?? STATUS_TEXT[code] ?? "UNKNOWN" } });

// A made-up thought signature (base64, deterministic per seed), in the look of the API's opaque ones.
export function fakeSignature(seed) {
  let h = 2166136261;
  for (const c of String(seed)) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
  return Buffer.from(`mock-thought-signature:${h.toString(16)}:${seed}`.slice(0, 60).padEnd(60, "#")).toString("base64");
}

/** The model a request went to, from its path. */
export const modelOfPath = (p) => modelOf(String(p).split("?")[0]);

const SECRET_HEADERS = ["authorization", "cookie", "x-goog-api-key"];
const redact = (headers) => redactHeaders(headers, SECRET_HEADERS);

export function promptTokens(body) {
  const chars = JSON.stringify(body?.contents ?? []).length + JSON.stringify(body?.systemInstruction ?? "").length;
  return Math.ceil(chars / 4);
}

function usageFor(body, r) {
  const prompt = promptTokens(body);
  const outText = r.parts
    .filter((p) => !p.thought)
    .map((p) => p.text ?? JSON.stringify(p.functionCall ?? ""))
    .join("");
  const thoughtText = r.parts
    .filter((p) => p.thought)
    .map((p) => p.text)
    .join("");
  const u = {
    promptTokenCount: prompt,
    candidatesTokenCount: Math.max(1, Math.ceil(outText.length / 4)),
    ...(thoughtText ? { thoughtsTokenCount: Math.ceil(thoughtText.length / 4) } : {}),
    ...(r.usage ?? {}),
  };
  u.totalTokenCount = u.promptTokenCount + u.candidatesTokenCount + (u.thoughtsTokenCount ?? 0);
  u.promptTokensDetails = [{ modality: "TEXT", tokenCount: u.promptTokenCount }];
  return u;
}

// Split a reply's parts into the chunks the API streams: text in two deltas, thoughts and calls whole.
function chunksOf(r) {
  const out = [];
  for (const p of r.parts) {
    if (typeof p.text === "string" && !p.thought && p.text.length > 12) {
      const cut = Math.ceil(p.text.length / 2);
      out.push({ text: p.text.slice(0, cut) });
      out.push({ text: p.text.slice(cut), ...(p.thoughtSignature ? { thoughtSignature: p.thoughtSignature } : {}) });
    } else out.push(p);
  }
  return out;
}

function modelOf(path) {
  const m = /\/models\/([^:/]+)(?::|$)/.exec(path);
  return m ? decodeURIComponent(m[1]) : "mock-model";
}

export function streamReply(res, body, r, model, ids) {
  const responseId = `mockresp${String(ids.resp++).padStart(4, "0")}`;
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const chunks = chunksOf(r);
  const usage = usageFor(body, r);
  chunks.forEach((part, i) => {
    const last = i === chunks.length - 1;
    const cand = { content: { parts: [part], role: "model" }, index: 0 };
    if (last) cand.finishReason = r.finishReason ?? "STOP";
    const chunk = {
      candidates: [cand],
      usageMetadata: last ? usage : { promptTokenCount: usage.promptTokenCount, totalTokenCount: usage.promptTokenCount },
      modelVersion: model,
      responseId,
    };
    res.write(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
  });
  if (chunks.length === 0) {
    res.write(
      `data: ${JSON.stringify({ candidates: [{ content: { parts: [], role: "model" }, finishReason: r.finishReason ?? "STOP", index: 0 }], usageMetadata: usage, modelVersion: model, responseId })}\r\n\r\n`,
    );
  }
  res.end();
  return responseId;
}

function wholeReply(res, body, r, model, ids) {
  const responseId = `mockresp${String(ids.resp++).padStart(4, "0")}`;
  res.writeHead(200, { "content-type": "application/json" });
  res.end(
    JSON.stringify({
      candidates: [{ content: { parts: r.parts, role: "model" }, finishReason: r.finishReason ?? "STOP", index: 0 }],
      usageMetadata: usageFor(body, r),
      modelVersion: model,
      responseId,
    }),
  );
  return responseId;
}

// A default answer to a side request (`:generateContent`): JSON when the request asks for JSON, else short text.
function sideReply(body) {
  const gc = body?.generationConfig ?? body?.config ?? {};
  if (gc.responseMimeType === "application/json" || gc.responseJsonSchema || gc.responseSchema) {
    return reply([text(JSON.stringify({ reasoning: "mock", next_speaker: "user" }))]);
  }
  return reply([text("mock summary")]);
}

// Start the mock. `state`: { log, tag?, port?, next(body, entry) -> reply for a streamGenerateContent request,
// side?(body, entry) -> reply for a generateContent request }. Resolves to { server, port, url, close() }.
export function startGeminiMock(state) {
  const ids = { resp: 1 };
  let seq = 0;
  const server = http.createServer((req, res) => {
    readJsonBody(req).then((body) => {
      const pathOnly = req.url.split("?")[0];
      const model = modelOf(pathOnly);
      const entry = { seq: seq++, tag: state.tag ?? null, method: req.method, path: req.url, headers: redact(req.headers), body };
      const log = () => state.log && fs.appendFileSync(state.log, JSON.stringify(entry) + "\n");
      const method = /:([A-Za-z]+)$/.exec(pathOnly)?.[1];
      if (req.method === "POST" && (method === "streamGenerateContent" || method === "generateContent")) {
        entry.kind = method;
        let r = method === "streamGenerateContent" ? state.next?.(body, entry) : (state.side ?? sideReply)(body, entry);
        if (typeof r === "function") r = r(body, entry);
        if (!r) r = reply([text("(mock: no more scripted replies)")]);
        entry.answer = r.httpError ? { status: r.httpError.code, error: r.httpError } : r.hang ? "hang" : method === "generateContent" ? "json" : "stream";
        log();
        if (r.httpError) {
          res.writeHead(r.httpError.code, { "content-type": "application/json; charset=UTF-8" });
          res.end(JSON.stringify({ error: r.httpError }, null, 2));
        } else if (r.hang) {
          res.writeHead(200, { "content-type": "text/event-stream" });
          res.flushHeaders();
        } else if (method === "streamGenerateContent") {
          entry.responseId = streamReply(res, body, r, model, ids);
        } else {
          wholeReply(res, body, r, model, ids);
        }
        return;
      }
      if (req.method === "POST" && method === "countTokens") {
        entry.kind = method;
        entry.answer = "json";
        log();
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ totalTokens: promptTokens(body) }));
        return;
      }
      if (req.method === "POST" && (method === "embedContent" || method === "batchEmbedContents")) {
        entry.kind = method;
        entry.answer = "json";
        log();
        const vec = { values: new Array(8).fill(0) };
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(method === "embedContent" ? { embedding: vec } : { embeddings: (body?.requests ?? []).map(() => vec) }));
        return;
      }
      if (req.method === "GET" && /\/models(\/[^/]+)?$/.test(pathOnly)) {
        entry.kind = "models";
        entry.answer = "json";
        log();
        const one = (name) => ({
          name: `models/${name}`,
          displayName: name,
          inputTokenLimit: 1048576,
          outputTokenLimit: 65536,
          supportedGenerationMethods: ["generateContent", "countTokens"],
        });
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(/\/models$/.test(pathOnly) ? { models: [one("gemini-2.5-pro"), one("gemini-2.5-flash")] } : one(model)));
        return;
      }
      entry.answer = { status: 404 };
      log();
      res.writeHead(404, { "content-type": "application/json; charset=UTF-8" });
      res.end(JSON.stringify({ error: { code: 404, message: `mock: no route ${req.method} ${pathOnly}`, status: "NOT_FOUND" } }));
    });
  });
  return listenLoopback(server, state.port);
}

/** The provider error text a reply carries (what a user would paste into `recover --error`), or null. */
export const errorText = (r) => r?.httpError?.message ?? null;
/** The text a client prints for a reply: its text parts that are not thoughts. */
export const replyText = (r) =>
  r?.parts
    ?.filter((p) => typeof p.text === "string" && !p.thought)
    .map((p) => p.text)
    .join("") || null;
export { startGeminiMock as startMock };
/** A reply that is one text. */
export const plainReply = (t) => reply([text(t)]);
