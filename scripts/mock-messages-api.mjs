// The answer half of a loopback mock of the Anthropic Messages API, shared by the capture scripts
// (capture-claude-request.mjs, capture-opencode-request.mjs, capture-openclaw-request.mjs): a reply as a JSON body,
// or streamed as the API streams it (message_start, one content block after another, message_delta, message_stop).
//
// A reply: { blocks, stop } (blocks: text, thinking with its signature, redacted_thinking, tool_use), or
// { status, error } for an HTTP error, or { blocks, error } for a stream that fails after its blocks.

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

/** Answer one `POST /v1/messages` with `reply`, streamed when the request asked for a stream. */
export function answerMessages(res, body, reply) {
  const id = messageId();
  const model = body?.model ?? "claude-sonnet-4-5";
  const usage = { input_tokens: 100, output_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  if (reply.status) {
    res.writeHead(reply.status, { "content-type": "application/json", "request-id": `req_mock_${id}` });
    res.end(JSON.stringify({ type: "error", error: reply.error, request_id: `req_mock_${id}` }));
    return;
  }
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
