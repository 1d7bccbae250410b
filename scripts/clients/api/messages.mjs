// A loopback mock of the Anthropic Messages API, for every client that speaks it (Claude Code, opencode, openclaw):
// a request read and logged the same way for each, and a reply as a JSON body, or streamed as the API streams it
// (message_start, one content block after another, message_delta, message_stop). The API's rules, which the mock
// applies when a run enforces them, are messages-rules.mjs.
//
// A reply: { blocks, stop } (blocks: text, thinking with its signature, redacted_thinking, tool_use), or
// { status, error: { type, message } } for an HTTP error, or { blocks, error } for a stream that fails after its blocks.

import fs from "node:fs";
import http from "node:http";
import { listenLoopback } from "./http.mjs";

let counter = 0;

/** A message id of the API's shape, numbered per process. */
export function messageId() {
  counter++;
  return `msg_mock${String(counter).padStart(4, "0")}${"x".repeat(16)}`;
}

function sse(res, event, data) {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

function streamBlock(res, b, index) {
  if (b.type === "thinking") {
    sse(res, "content_block_start", { type: "content_block_start", index, content_block: { type: "thinking", thinking: "", signature: "" } });
    sse(res, "content_block_delta", { type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: b.thinking } });
    sse(res, "content_block_delta", { type: "content_block_delta", index, delta: { type: "signature_delta", signature: b.signature } });
  } else if (b.type === "redacted_thinking") {
    sse(res, "content_block_start", { type: "content_block_start", index, content_block: { type: "redacted_thinking", data: b.data } });
  } else if (b.type === "text") {
    sse(res, "content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } });
    if (b.text !== "") sse(res, "content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: b.text } });
  } else if (b.type === "tool_use") {
    sse(res, "content_block_start", { type: "content_block_start", index, content_block: { type: "tool_use", id: b.id, name: b.name, input: {} } });
    sse(res, "content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: JSON.stringify(b.input) } });
  }
  sse(res, "content_block_stop", { type: "content_block_stop", index });
}

/**
 * A request to the mock, read whole: its JSON body (`{ unparsed }` when it is not JSON, null when empty) and its
 * headers with the credentials redacted, as every capture logs them.
 */
export function readRequest(req) {
  return new Promise((resolve) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      let body = null;
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch {
        body = { unparsed: raw };
      }
      const headers = { ...req.headers };
      for (const h of ["authorization", "x-api-key", "cookie"]) if (h in headers) headers[h] = "<redacted>";
      resolve({ body, headers });
    });
  });
}

/** Answers a `POST …/messages/count_tokens` (every client may ask before a turn) with 100; false for anything else. */
export function answeredCountTokens(req, res) {
  if (req.method !== "POST" || !req.url.includes("/messages/count_tokens")) return false;
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify({ input_tokens: 100 }));
  return true;
}

/** Answer one `POST /v1/messages` with `reply`, streamed when the request asked for a stream. */
export function answerMessages(res, body, reply) {
  if (reply.status) {
    // A message id only when the error has no request id of its own: ids of later replies do not move.
    const requestId = reply.requestId ?? `req_mock_${messageId()}`;
    res.writeHead(reply.status, { "content-type": "application/json", "request-id": requestId, ...reply.headers });
    res.end(JSON.stringify({ type: "error", error: reply.error, request_id: requestId }));
    return;
  }
  const id = messageId();
  const model = body?.model ?? "claude-sonnet-4-5";
  const usage = { input_tokens: 100, output_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  if (!body?.stream) {
    res.writeHead(200, { "content-type": "application/json", "request-id": `req_mock_${id}` });
    res.end(JSON.stringify({ id, type: "message", role: "assistant", model, content: reply.blocks, stop_reason: reply.stop, stop_sequence: null, usage }));
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", "request-id": `req_mock_${id}` });
  sse(res, "message_start", {
    type: "message_start",
    message: { id, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } },
  });
  for (const [index, b] of reply.blocks.entries()) streamBlock(res, b, index);
  if (reply.error) {
    sse(res, "error", { type: "error", error: reply.error });
    res.end();
    return;
  }
  sse(res, "message_delta", { type: "message_delta", delta: { stop_reason: reply.stop, stop_sequence: null }, usage: { output_tokens: 10 } });
  sse(res, "message_stop", { type: "message_stop" });
  res.end();
}

// ---------------------------------------------------------------------------------------------------------------
// Replies, as the scenario tables write them.

export const text = (t) => ({ type: "text", text: t });
export const toolUse = (id, name, input) => ({ type: "tool_use", id, name, input });
export const thinking = (t, signature) => ({ type: "thinking", thinking: t, signature });
export const redacted = (data) => ({ type: "redacted_thinking", data });
/** A reply: its blocks and stop reason (tool_use when a block calls a tool). */
export const reply = (blocks, stop) => ({ blocks, stop: stop ?? (blocks.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn") });
/** An HTTP error reply, in the API's error shape. */
export const httpError = (status, type, message) => ({ status, error: { type, message } });

/** The provider error text a reply carries (what a user would paste into `recover --error`), or null. */
export const errorText = (r) => (r?.status ? r.error?.message : r?.error?.message) ?? null;
/** The text a client prints for a reply: its last text block. */
export const replyText = (r) => r?.blocks?.filter((b) => b.type === "text").at(-1)?.text ?? null;

/** The agent loop sends the tool list; side requests (a title, a summary) do not. */
const isMainLoop = (body) => Array.isArray(body?.tools) && body.tools.length > 0;

// ---------------------------------------------------------------------------------------------------------------
// The mock of the client drivers (lib/engine.mjs). `state`: { log, tag, next(body, entry) -> reply, side?(body, entry)
// -> reply, isMain?(body), usage?(body) -> input_tokens }. Every request is appended to state.log with state.tag; a
// main-loop request (by default: one that carries `tools`; side requests such as titles and summaries do not) takes
// state.next's reply, a side request state.side's (default: the text "ok"), count_tokens 100; other routes 404.
// Resolves to { port, url, close() }.

export function startMock(state) {
  let seq = 0;
  // Message ids numbered per run (one mock a scenario), so that a fixture is the same whichever scenarios ran before.
  counter = 0;
  const isMain = state.isMain ?? isMainLoop;
  const server = http.createServer(async (req, res) => {
    const { body, headers } = await readRequest(req);
    const isMessages = req.method === "POST" && /\/messages(\?|$)/.test(req.url);
    const main = isMessages && isMain(body);
    const entry = { seq: seq++, tag: state.tag ?? null, main, method: req.method, path: req.url, headers, body };
    const log = () => fs.appendFileSync(state.log, `${JSON.stringify(entry)}\n`);
    if (answeredCountTokens(req, res)) return log();
    if (!isMessages) {
      entry.answer = { status: 404 };
      log();
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ type: "error", error: { type: "not_found_error", message: "mock: no such route" } }));
      return;
    }
    let r = main ? state.next(body, entry) : (state.side?.(body, entry) ?? reply([text("ok")]));
    if (!r) r = reply([text("(mock: no more scripted replies)")]);
    // A refusal by the API's rules (the answer names the rule) has a request id made from the request's number, as
    // the clients stored it in the Claude Code and opencode fixtures (`req_mock0009eeee…`).
    if (r.status && entry.answer?.rule && !r.requestId) r = { ...r, requestId: `req_mock${String(entry.seq).padStart(4, "0")}${"e".repeat(20)}` };
    entry.answer ??= r.status ? { status: r.status, message: r.error?.message } : { status: 200 };
    log();
    if (!r.status && state.usage) {
      // The usage the client stores is that of the request it sent, when the run asks for it (context trim
      // calibrates its estimate against it), not the fixed 100.
      const write = res.write.bind(res);
      const tokens = state.usage(body);
      res.write = (chunk, ...rest) => write(typeof chunk === "string" ? chunk.replace('"input_tokens":100,', `"input_tokens":${tokens},`) : chunk, ...rest);
    }
    answerMessages(res, body, r);
  });
  return listenLoopback(server, state.port);
}
/** A reply that is one text. */
export const plainReply = (t) => reply([text(t)]);
