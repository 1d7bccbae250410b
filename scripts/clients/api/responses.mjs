#!/usr/bin/env node
// A loopback mock of the OpenAI Responses API (`POST /v1/responses`, streamed as SSE), for running the real Codex CLI
// offline (the Codex driver, scripts/clients/codex.mjs).
//
// Each `POST .../responses` takes the next scripted reply (or calls a reply function with the request body) and
// answers it:
//   - a reply `{ items: [...], usage? }` is streamed the way the Responses API streams: `response.created`,
//     `response.in_progress`, then per output item `response.output_item.added`, its deltas (`output_text.delta`,
//     `reasoning_summary_text.delta`, `function_call_arguments.delta` with the matching `.done` / `content_part.*` /
//     `reasoning_summary_part.*` events), `response.output_item.done` with the whole item, and finally
//     `response.completed` whose `response.usage` has input_tokens / input_tokens_details.cached_tokens /
//     output_tokens / output_tokens_details.reasoning_tokens / total_tokens. Every event is `event: <type>` +
//     `data: <json with the same "type" and a sequence_number>`.
//   - a reply `{ httpError: { status, error: {message, type, param, code} } }` is answered with that status and the
//     API's error body `{"error": {...}}` (application/json, no stream).
//   - a reply `{ hang: true }` sends the response headers and then nothing (the request stays open).
// Anything else the client calls (`GET /v1/models`, unknown routes) is answered minimally: `/models` with an empty
// list (`{"object":"list","data":[],"models":[]}`), other routes with 404 in the API's error shape. Every request
// (seq, tag, method, path, headers without credentials, parsed body) is appended to a JSONL log.
//
// Item builders (the shapes Codex reads from `response.output_item.done`):
//   message(text)                          {type:"message", role:"assistant", content:[{type:"output_text", text}]}
//   reasoning(summaryText, encrypted?)     {type:"reasoning", summary:[{type:"summary_text", text}], encrypted_content}
//   functionCall(callId, name, argsObj)    {type:"function_call", call_id, name, arguments: JSON string}
// Item ids (`msg_…`, `rs_…`, `fc_…`) and response ids (`resp_…`) are made from a counter, so reruns give the same ids.
// Plain Node ESM, no dependencies.

import fs from "node:fs";
import http from "node:http";
import { listenLoopback, readJsonBody, redactHeaders } from "./http.mjs";

export const message = (text) => ({ type: "message", role: "assistant", content: [{ type: "output_text", text, annotations: [] }] });
export const reasoning = (summaryText, encrypted) => ({
  type: "reasoning",
  summary: summaryText == null ? [] : [{ type: "summary_text", text: summaryText }],
  encrypted_content: encrypted ?? fakeEncrypted(summaryText ?? ""),
});
export const functionCall = (callId, name, args) => ({
  type: "function_call",
  call_id: callId,
  name,
  arguments: typeof args === "string" ? args : JSON.stringify(args),
});
export const reply = (items, usage) => ({ items, usage });
export const httpError = (status, message, { type = "invalid_request_error", param = null, code = null } = {}) => ({
  httpError: { status, error: { message, type, param, code } },
});

// A made-up blob in the look of a Fernet token ("gAAAAA…", base64url), deterministic per text.
export function fakeEncrypted(seed) {
  let h = 2166136261;
  for (const c of String(seed)) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
  const body = Buffer.from(`mock-encrypted-reasoning:${seed}:${h.toString(16)}:`.repeat(2)).toString("base64url");
  return "gAAAAABmock" + body;
}

const SECRET_HEADERS = ["authorization", "cookie", "x-api-key", "openai-api-key", "chatgpt-account-id"];
const redact = (headers) => redactHeaders(headers, SECRET_HEADERS);

function usageFor(body, items, usage) {
  // input_tokens: a rough count of the request (characters / 4) unless the reply sets it.
  const inputChars = body ? JSON.stringify(body.input ?? []).length + String(body.instructions ?? "").length : 0;
  const outChars = JSON.stringify(items).length;
  const u = {
    input_tokens: Math.ceil(inputChars / 4),
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: Math.ceil(outChars / 4),
    output_tokens_details: { reasoning_tokens: items.some((i) => i.type === "reasoning") ? 16 : 0 },
    ...(usage ?? {}),
  };
  u.total_tokens = u.input_tokens + u.output_tokens;
  return u;
}

// Stream one scripted reply as Responses API SSE.
export function streamResponse(res, body, r, ids) {
  const respId = `resp_mock_${String(ids.resp++).padStart(4, "0")}`;
  const model = body?.model ?? "mock-model";
  const created_at = 1767225600 + ids.resp; // fixed epoch (2026-01-01) + counter
  let seq = 0;
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", "x-request-id": `req_mock_${respId}` });
  const send = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`);
  const base = { id: respId, object: "response", created_at, model, output: [], usage: null, error: null, incomplete_details: null };
  send("response.created", { response: { ...base, status: "in_progress" } });
  send("response.in_progress", { response: { ...base, status: "in_progress" } });
  const done = [];
  r.items.forEach((item0, output_index) => {
    const prefix = { message: "msg", reasoning: "rs", function_call: "fc" }[item0.type] ?? "item";
    const item = { id: `${prefix}_mock_${String(ids.item++).padStart(4, "0")}`, ...item0 };
    if (item.type === "message") {
      send("response.output_item.added", { output_index, item: { ...item, status: "in_progress", content: [] } });
      item.content.forEach((part, content_index) => {
        send("response.content_part.added", { item_id: item.id, output_index, content_index, part: { ...part, text: "" } });
        send("response.output_text.delta", { item_id: item.id, output_index, content_index, delta: part.text, logprobs: [] });
        send("response.output_text.done", { item_id: item.id, output_index, content_index, text: part.text, logprobs: [] });
        send("response.content_part.done", { item_id: item.id, output_index, content_index, part });
      });
      item.status = "completed";
    } else if (item.type === "reasoning") {
      send("response.output_item.added", { output_index, item: { id: item.id, type: "reasoning", summary: [] } });
      item.summary.forEach((part, summary_index) => {
        send("response.reasoning_summary_part.added", { item_id: item.id, output_index, summary_index, part: { type: "summary_text", text: "" } });
        send("response.reasoning_summary_text.delta", { item_id: item.id, output_index, summary_index, delta: part.text });
        send("response.reasoning_summary_text.done", { item_id: item.id, output_index, summary_index, text: part.text });
        send("response.reasoning_summary_part.done", { item_id: item.id, output_index, summary_index, part });
      });
    } else if (item.type === "function_call") {
      send("response.output_item.added", { output_index, item: { ...item, arguments: "", status: "in_progress" } });
      send("response.function_call_arguments.delta", { item_id: item.id, output_index, delta: item.arguments });
      send("response.function_call_arguments.done", { item_id: item.id, output_index, arguments: item.arguments });
      item.status = "completed";
    } else {
      send("response.output_item.added", { output_index, item });
    }
    send("response.output_item.done", { output_index, item });
    done.push(item);
  });
  send("response.completed", { response: { ...base, status: "completed", output: done, usage: usageFor(body, r.items, r.usage) } });
  res.end();
  return respId;
}

// Start the mock. `state`: { log: file, tag?: string (written into each log line, e.g. the step), next(body, entry):
// the reply for a POST /responses (an object from the builders above, or undefined for a default text reply) }.
// Resolves to { server, port, url, close() }.
export function startResponsesMock(state) {
  const ids = { resp: 1, item: 1 };
  let seq = 0;
  const server = http.createServer((req, res) => {
    readJsonBody(req).then((body) => {
      const pathOnly = req.url.split("?")[0];
      const entry = { seq: seq++, tag: state.tag ?? null, method: req.method, path: req.url, headers: redact(req.headers), body };
      const isResponses = req.method === "POST" && /\/responses$/.test(pathOnly);
      let r;
      if (isResponses) {
        r = state.next ? state.next(body, entry) : undefined;
        if (typeof r === "function") r = r(body, entry);
        if (!r) r = reply([message("(mock: no more scripted replies)")]);
        entry.answer = r.httpError ? { status: r.httpError.status, error: r.httpError.error } : r.hang ? "hang" : "stream";
      }
      if (state.log) fs.appendFileSync(state.log, JSON.stringify(entry) + "\n");
      if (isResponses) {
        if (r.httpError) {
          res.writeHead(r.httpError.status, { "content-type": "application/json", "x-request-id": "req_mock_error" });
          res.end(JSON.stringify({ error: r.httpError.error }));
        } else if (r.hang) {
          res.writeHead(200, { "content-type": "text/event-stream" });
          res.flushHeaders();
        } else {
          entry.responseId = streamResponse(res, body, r, ids);
        }
        return;
      }
      if (req.method === "GET" && /\/models$/.test(pathOnly)) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ object: "list", data: [], models: [] }));
        return;
      }
      res.writeHead(404, { "content-type": "application/json" });
      res.end(
        JSON.stringify({ error: { message: `mock: no route ${req.method} ${pathOnly}`, type: "invalid_request_error", param: null, code: "not_found" } }),
      );
    });
  });
  // A client that asks for a WebSocket upgrade gets a plain 404 (then it falls back to HTTP streaming).
  server.on("upgrade", (req, socket) => {
    if (state.log)
      fs.appendFileSync(
        state.log,
        JSON.stringify({ seq: seq++, tag: state.tag ?? null, method: req.method, path: req.url, upgrade: true, headers: redact(req.headers) }) + "\n",
      );
    socket.end("HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
  });
  return listenLoopback(server, state.port, "/v1");
}

/** The provider error text a reply carries (what a user would paste into `recover --error`), or null. */
export const errorText = (r) => r?.httpError?.error?.message ?? null;
/** The text a client prints for a reply: its last message's text. */
export const replyText = (r) =>
  r?.items
    ?.filter((i) => i.type === "message")
    .at(-1)
    ?.content?.map((c) => c.text)
    .join("") ?? null;
export { startResponsesMock as startMock };
/** A reply that is one message. */
export const plainReply = (t) => reply([message(t)]);
