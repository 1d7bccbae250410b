// The provider view, golden: realistic sessions written as real stores of both formats, loaded back, turned into the
// `messages` array opencode would send (reference opencode.md §4), and compared message by message and block by
// block, each block with the record (and field) it came from. locate() must map `messages.N.content.M` back to
// the right record, skipped and merged messages included.
import { describe, expect, it } from "vitest";
import { anthropicRequest, locate } from "../../src/provider/anthropic-request.js";
import { thinkingMode, validateAnthropic } from "../../src/provider/validate-anthropic.js";
import { MINUTE, SECOND, Transcript, type Json, type MessageSpec } from "../support/opencode-fixtures.js";
import { abortedTool, FORMATS, pendingTool, START, storeOf, TOTALS_TS, toolOutput, UNFINISHED, unsignedReasoning, userMessage } from "../rules/harness.js";
import { callIdOf, messageIdOf, partsOf, partsOfType, sentFor, shapeOf, sourcesOf } from "./request-support.js";

const INTERRUPTED = "[Tool execution was interrupted]";
const CLEARED = "[Old tool result content cleared]";
const OPUS = { providerID: "anthropic", modelID: "claude-opus-4-1" };
const PNG = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const TOTALS_TEST = `import { invoiceTotal } from "../../src/invoices/totals";

it("sums in cents", () => {
  expect(invoiceTotal([{ quantity: 3, unitPrice: 0.335 }])).toBe(1.01);
});`;

/** One session of its own: a Transcript on START, messages from `write`. */
function session(write: (w: Transcript) => MessageSpec[], title = "Fix invoice rounding") {
  const w = new Transcript({ start: START, seed: 7 });
  return storeOf({ title, created: START, messages: write(w) });
}

/** `type partId field`, as sourcesOf() writes a block. */
const src = (type: string, partId: string, field: string | undefined) => `${type} ${partId} ${field ?? "-"}`;

// ---------------------------------------------------------------------------------------------
describe.each(FORMATS)("the provider view of a healthy multi-turn session (%s store)", (format) => {
  const built = session((w) => [
    // 0: a plain prompt
    w.user("Invoice totals are off by a cent on some orders. Find out why.", { gap: 2 * SECOND }),
    // 1: two steps; the first reads two files in parallel
    w.assistant([
      w.stepStart(),
      w.reasoning("A one-cent drift smells like rounding per line instead of on the total. Read the module and its test."),
      w.text("Let me read the totals module and its test."),
      w.read("src/invoices/totals.ts", TOTALS_TS),
      w.read("test/invoices/totals.test.ts", TOTALS_TEST),
      w.stepFinish("tool-calls"),
      w.stepStart(),
      w.reasoning("Each line is rounded before summing, so the rounding errors accumulate across lines."),
      w.text("`invoiceTotal` rounds every line to cents before summing, so the per-line rounding errors add up."),
      w.stepFinish("stop"),
    ]),
    // 2: a prompt with a pasted screenshot
    userMessage(w, [
      { type: "text", text: "This screenshot shows the wrong total on order 1042." },
      { type: "file", mime: "image/png", filename: "order-1042.png", url: PNG },
    ]),
    // 3: a one-step answer
    w.assistant([
      w.stepStart(),
      w.reasoning("10.01 against an expected 10.00: three lines each rounded up by a third of a cent."),
      w.text("Yes: three lines each round up by a third of a cent, which makes the extra cent."),
      w.stepFinish("stop"),
    ]),
    // 4: a prompt with an attached text file (expanded into synthetic text; the file part itself is not sent)
    w.user("Fix it and run the tests. The current file: @src/invoices/totals.ts", { files: [{ path: "src/invoices/totals.ts", content: TOTALS_TS }] }),
    // 5: edit + bash in one step, a patch part, then a closing step without reasoning
    w.assistant([
      w.stepStart(),
      w.reasoning("Sum integer cents and round once; then run the invoice tests."),
      w.text("Editing, then running the invoice tests."),
      w.edit("src/invoices/totals.ts", "Math.round(l.quantity * l.unitPrice * 100) / 100", "l.quantity * l.unitPrice"),
      w.bash("npx vitest run test/invoices", "Run invoice tests", " ✓ test/invoices/totals.test.ts (1 test) 4ms\n"),
      w.stepFinish("tool-calls"),
      w.patch(["src/invoices/totals.ts"]),
      w.stepStart(),
      w.text("Fixed: totals are summed unrounded and rounded once; the invoice tests pass."),
      w.stepFinish("stop"),
    ]),
  ]);
  const u0 = partsOf(built, 0);
  const a1 = partsOf(built, 1);
  const u2 = partsOf(built, 2);
  const a3 = partsOf(built, 3);
  const u4 = partsOf(built, 4);
  const a5 = partsOf(built, 5);
  const sent = sentFor(format, built);
  const { request, view } = sent;

  it("has the exact sequence of roles and block types", () => {
    expect(shapeOf(request)).toEqual([
      "user:[text]",
      "assistant:[thinking,text,tool_use,tool_use]",
      "user:[tool_result,tool_result]",
      "assistant:[thinking,text]",
      "user:[text,image]",
      "assistant:[thinking,text]",
      "user:[text,text,text]",
      "assistant:[thinking,text,tool_use,tool_use]",
      "user:[tool_result,tool_result]",
      "assistant:[text]",
    ]);
    expect(view.conversation.skipped).toEqual([]);
    expect(view.conversation.historyStartMessageId).toBe(messageIdOf(built, 0));
  });

  it("names the stored messages behind each request message (tool results travel with their assistant message)", () => {
    const [m0, m1, m2, m3, m4, m5] = [0, 1, 2, 3, 4, 5].map((n) => messageIdOf(built, n));
    expect(request.messages.map((m) => m.sourceMessageIds)).toEqual([[m0], [m1], [m1], [m1], [m2], [m3], [m4], [m5], [m5], [m5]]);
  });

  it("keeps each block's source part and field", () => {
    // Stored order of message 1: step-start, reasoning, text, read, read, step-finish, step-start, reasoning, text, step-finish.
    expect(request.messages.map(sourcesOf)).toEqual([
      [src("text", u0[0]!.id, "text")],
      [
        src("thinking", a1[1]!.id, "text"),
        src("text", a1[2]!.id, "text"),
        src("tool_use", a1[3]!.id, "state.input"),
        src("tool_use", a1[4]!.id, "state.input"),
      ],
      [src("tool_result", a1[3]!.id, "state.output"), src("tool_result", a1[4]!.id, "state.output")],
      [src("thinking", a1[7]!.id, "text"), src("text", a1[8]!.id, "text")],
      [src("text", u2[0]!.id, "text"), src("image", u2[1]!.id, "url")],
      [src("thinking", a3[1]!.id, "text"), src("text", a3[2]!.id, "text")],
      // The prompt and the two synthetic Read texts; the text/plain file part (u4[3]) is not sent.
      [src("text", u4[0]!.id, "text"), src("text", u4[1]!.id, "text"), src("text", u4[2]!.id, "text")],
      [
        src("thinking", a5[1]!.id, "text"),
        src("text", a5[2]!.id, "text"),
        src("tool_use", a5[3]!.id, "state.input"),
        src("tool_use", a5[4]!.id, "state.input"),
      ],
      [src("tool_result", a5[3]!.id, "state.output"), src("tool_result", a5[4]!.id, "state.output")],
      [src("text", a5[8]!.id, "text")],
    ]);
    // Every block also names its stored message.
    for (const message of request.messages) {
      for (const b of message.content) expect(message.sourceMessageIds).toContain(b.source.messageId);
    }
  });

  it("pairs every tool_use with its tool_result by the stored callID, none an error", () => {
    const calls = [a1[3]!, a1[4]!, a5[3]!, a5[4]!].map(callIdOf);
    expect(calls.every((c) => /^toolu_01/.test(c))).toBe(true);
    const uses = request.messages.flatMap((m) => m.content.filter((b) => b.type === "tool_use").map((b) => b.id));
    const results = request.messages.flatMap((m) => m.content.filter((b) => b.type === "tool_result").map((b) => [b.id, b.isError]));
    expect(uses).toEqual(calls);
    expect(results).toEqual(calls.map((c) => [c, false]));
  });

  it("measures what is sent: text and reasoning lengths, tool input and output sizes", () => {
    const data = (p: { data?: Json }) => p.data as Json & { text: string; state: { input: Json; output: string } };
    const [, first] = request.messages;
    expect(first!.content.map((b) => b.chars)).toEqual([
      data(a1[1]!).text.length,
      data(a1[2]!).text.length,
      JSON.stringify(data(a1[3]!).state.input).length,
      JSON.stringify(data(a1[4]!).state.input).length,
    ]);
    expect(request.messages[2]!.content.map((b) => b.chars)).toEqual([data(a1[3]!).state.output.length, data(a1[4]!).state.output.length]);
    expect(request.messages[4]!.content[1]!.chars).toBe(PNG.length);
  });

  it("is the same request from a full load as from a lean one", () => {
    expect(sentFor(format, built, { mode: "full" }).request).toEqual(request);
  });

  it("is accepted by the validator (thinking on: the session carries signed thinking)", () => {
    expect(thinkingMode(request, "auto")).toBe("on");
    expect(validateAnthropic(request, "on")).toEqual([]);
    expect(validateAnthropic(request, "on", { midToolLoop: true })).toEqual([]);
  });

  it("locate() maps messages.N.content.M to the right message and part", () => {
    const at = (n: number, m: number | null) => {
      const p = locate(request, n, m);
      return p ? { messages: p.message.sourceMessageIds, part: p.block?.source.id ?? null } : undefined;
    };
    expect(at(1, 0)).toEqual({ messages: [messageIdOf(built, 1)], part: a1[1]!.id });
    expect(at(1, 3)).toEqual({ messages: [messageIdOf(built, 1)], part: a1[4]!.id });
    expect(at(2, 1)).toEqual({ messages: [messageIdOf(built, 1)], part: a1[4]!.id });
    expect(at(3, 0)).toEqual({ messages: [messageIdOf(built, 1)], part: a1[7]!.id });
    expect(at(4, 1)).toEqual({ messages: [messageIdOf(built, 2)], part: u2[1]!.id });
    expect(at(9, 0)).toEqual({ messages: [messageIdOf(built, 5)], part: a5[8]!.id });
    // A message without a block index, a block index past the message's end, a message past the request's end.
    expect(at(7, null)).toEqual({ messages: [messageIdOf(built, 5)], part: null });
    expect(locate(request, 7, null)!.block).toBeUndefined();
    expect(at(3, 2)).toEqual({ messages: [messageIdOf(built, 1)], part: null });
    expect(at(10, 0)).toBeUndefined();
    expect(locate(request, null, null)).toBeUndefined();
    expect(locate(request, null, 0)).toBeUndefined();
    expect(locate(request, 4, 1)!.index).toBe(4);
  });
});

// ---------------------------------------------------------------------------------------------
describe.each(FORMATS)("tool states in the provider view (%s store)", (format) => {
  const built = session((w) => [
    w.user("Run the full suite, then the linter, then the migrations.", { gap: 2 * SECOND }),
    // 1: opencode was killed mid-step: a running bash and a pending edit, no time.completed
    w.assistant(
      [
        w.stepStart(),
        w.text("Running the suite and fixing the import at the same time."),
        w.running("bash", { command: "npm test", description: "Run all tests" }, { title: "Run all tests", metadata: { output: "\n RUN  v3.2.4\n" } }),
        pendingTool(w, "edit", '{"filePath":"/ho'),
      ],
      UNFINISHED,
    ),
    w.user("opencode crashed; run the linter instead.", { gap: 20 * MINUTE }),
    // 3: a failed call and a call aborted with partial output
    w.assistant([
      w.stepStart(),
      w.text("Running the linter and the migrations."),
      w.tool("bash", { command: "npx eslint .", description: "Lint" }, { output: "", title: "Lint" }),
      abortedTool(w, "bash", { command: "npm run migrate", description: "Run migrations" }, "migrating 0001_init… ok\nmigrating 0002_cents…"),
      w.stepFinish("tool-calls"),
      w.stepStart(),
      w.text("Lint is clean; the migration run was stopped after 0001."),
      w.stepFinish("stop"),
    ]),
  ]);
  // Turn the lint call into a failed one: status error with an error message, as opencode stores a tool failure.
  const lint = partsOf(built, 3)[2]!;
  (lint.data as { state: Json }).state = {
    status: "error",
    input: { command: "npx eslint .", description: "Lint" },
    error: "Error: eslint exited with code 2",
    time: { start: lint.created, end: lint.created + 900 },
  };

  it("a running and a pending call each get opencode's interrupted error result; the next prompt merges after them", () => {
    const { request, view } = sentFor(format, built);
    expect(shapeOf(request)).toEqual([
      "user:[text]",
      "assistant:[text,tool_use,tool_use]",
      "user:[tool_result,tool_result,text]",
      "assistant:[text,tool_use,tool_use]",
      "user:[tool_result,tool_result]",
      "assistant:[text]",
    ]);
    const [, , running, pending] = partsOf(built, 1);
    const results = request.messages[2]!.content;
    expect(results.slice(0, 2)).toEqual([
      {
        type: "tool_result",
        id: callIdOf(running!),
        isError: true,
        chars: INTERRUPTED.length,
        source: { kind: "part", id: running!.id, messageId: messageIdOf(built, 1) },
      },
      {
        type: "tool_result",
        id: callIdOf(pending!),
        isError: true,
        chars: INTERRUPTED.length,
        source: { kind: "part", id: pending!.id, messageId: messageIdOf(built, 1) },
      },
    ]);
    // The text itself, from the conversation the request was built from.
    const conversation = view.conversation.messages[2]!.blocks;
    expect(conversation.slice(0, 2).map((b) => b.text)).toEqual([INTERRUPTED, INTERRUPTED]);
    expect(request.messages[2]!.sourceMessageIds).toEqual([messageIdOf(built, 1), messageIdOf(built, 2)]);
    expect(sourcesOf(request.messages[2]!)[2]).toBe(src("text", partsOf(built, 2)[0]!.id, "text"));
    expect(validateAnthropic(request, thinkingMode(request, "auto"))).toEqual([]);
  });

  it("a failed call is an error result from state.error; an aborted call with partial output is a plain result from metadata.output", () => {
    const { request } = sentFor(format, built);
    const [, , , aborted] = partsOf(built, 3);
    expect(request.messages[4]!.content.map((b) => [b.id, b.isError, b.source.id, b.source.field, b.chars])).toEqual([
      [callIdOf(lint), true, lint.id, "state.error", "Error: eslint exited with code 2".length],
      [callIdOf(aborted!), false, aborted!.id, "state.metadata.output", "migrating 0001_init… ok\nmigrating 0002_cents…".length],
    ]);
  });
});

// ---------------------------------------------------------------------------------------------
describe.each(FORMATS)("reasoning in the provider view (%s store)", (format) => {
  /** Turn 1 on Opus (signed reasoning), turn 2 on Sonnet (signed, then unsigned reasoning); `last` picks the model of a third prompt. */
  const reasoningSession = (last?: typeof OPUS) =>
    session((w) => [
      w.user("Why are the totals off by a cent?", { gap: 2 * SECOND, info: { model: OPUS } }),
      w.assistant([w.stepStart(), w.reasoning("Opus: rounding per line, most likely."), w.text("Rounding per line, most likely."), w.stepFinish("stop")], OPUS),
      w.user("Check the totals module."),
      w.assistant([
        w.stepStart(),
        w.reasoning("Sonnet: read the totals module."),
        w.text("Reading it."),
        w.read("src/invoices/totals.ts", TOTALS_TS),
        w.stepFinish("tool-calls"),
        w.stepStart(),
        unsignedReasoning(w, "Sonnet, unsigned: confirmed, each line is rounded."),
        w.text("Confirmed: each line is rounded before summing."),
        w.stepFinish("stop"),
      ]),
      ...(last ? [w.user("Summarise.", { info: { model: last } })] : []),
    ]);

  // opencode 1.18 (captured: fixtures/opencode-1.18/edited-misc) sends another model's reasoning as plain text.
  it("signed reasoning of the latest user message's model is a thinking block; unsigned is not sent; another model's goes as text", () => {
    const built = reasoningSession();
    const { request, view } = sentFor(format, built);
    expect(shapeOf(request)).toEqual([
      "user:[text]",
      "assistant:[text,text]",
      "user:[text]",
      "assistant:[thinking,text,tool_use]",
      "user:[tool_result]",
      "assistant:[text]",
    ]);
    const opus = partsOf(built, 1);
    const sonnet = partsOf(built, 3);
    expect(sourcesOf(request.messages[1]!)).toEqual([src("text", opus[1]!.id, "text"), src("text", opus[2]!.id, "text")]);
    expect(sourcesOf(request.messages[3]!)[0]).toBe(src("thinking", sonnet[1]!.id, "text"));
    expect(sourcesOf(request.messages[5]!)).toEqual([src("text", sonnet[7]!.id, "text")]);
    // The conversation still holds the unsigned one, for the rules to see; Opus's is text in it too.
    const thinkingOf = (n: number) =>
      view.conversation.messages[n]!.blocks.filter((b) => b.type === "thinking").map((b) => [b.source.id, (b as { signed: boolean }).signed]);
    expect(thinkingOf(1)).toEqual([]);
    expect(thinkingOf(3)).toEqual([[sonnet[1]!.id, true]]);
    expect(thinkingOf(5)).toEqual([[sonnet[6]!.id, false]]);
  });

  it("back on Opus, Opus's signed reasoning is sent again and Sonnet's goes as text (the latest user message decides)", () => {
    const built = reasoningSession(OPUS);
    const { request } = sentFor(format, built);
    expect(shapeOf(request)).toEqual([
      "user:[text]",
      "assistant:[thinking,text]",
      "user:[text]",
      "assistant:[text,text,tool_use]",
      "user:[tool_result]",
      "assistant:[text,text]",
      "user:[text]",
    ]);
    expect(request.messages[1]!.content[0]!.source.id).toBe(partsOf(built, 1)[1]!.id);
  });

  it("redacted thinking (redactedData, no signature) is sent", () => {
    const built = session((w) => [
      w.user("Is the fix safe for credit notes?", { gap: 2 * SECOND }),
      w.assistant([
        w.stepStart(),
        unsignedReasoning(w, "", { anthropic: { redactedData: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP" } }),
        w.text("Yes, with one caveat."),
        w.stepFinish("stop"),
      ]),
    ]);
    const { request } = sentFor(format, built);
    expect(request.messages[1]!.content.map((b) => b.type)).toHaveLength(2);
    expect(request.messages[1]!.content[0]!.source.id).toBe(partsOf(built, 1)[1]!.id);
  });

  // The AI SDK sends a reasoning part whose anthropic metadata has `redactedData` and no `signature` as redacted_thinking.
  it("redacted thinking is a redacted_thinking block, as the AI SDK sends it", () => {
    const built = session((w) => [
      w.user("Is the fix safe for credit notes?", { gap: 2 * SECOND }),
      w.assistant([
        w.stepStart(),
        unsignedReasoning(w, "", { anthropic: { redactedData: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP" } }),
        w.text("Yes, with one caveat."),
        w.stepFinish("stop"),
      ]),
    ]);
    expect(shapeOf(sentFor(format, built).request)[1]).toBe("assistant:[redacted_thinking,text]");
  });
});

// ---------------------------------------------------------------------------------------------
describe.each(FORMATS)("compacted tool output in the provider view (%s store)", (format) => {
  it("a pruned output (state.time.compacted) is sent as opencode's placeholder, from no field of the part", () => {
    const built = session((w) => [
      w.user("Show me the worker log.", { gap: 2 * SECOND }),
      w.assistant([
        w.stepStart(),
        w.reasoning("Print the log."),
        toolOutput(w, "bash", { command: "cat logs/worker.log", description: "Show worker log" }, "INFO worker 1 ok\n".repeat(2_000), {
          compactedAt: START + 3 * 3_600_000,
        }),
        w.stepFinish("tool-calls"),
        w.stepStart(),
        w.text("Every batch processed without errors."),
        w.stepFinish("stop"),
      ]),
    ]);
    const { request, view } = sentFor(format, built);
    expect(shapeOf(request)).toEqual(["user:[text]", "assistant:[thinking,tool_use]", "user:[tool_result]", "assistant:[text]"]);
    const bash = partsOfType(built, 1, "tool")[0]!;
    expect(request.messages[2]!.content).toEqual([
      {
        type: "tool_result",
        id: callIdOf(bash),
        isError: false,
        chars: CLEARED.length,
        source: { kind: "part", id: bash.id, messageId: messageIdOf(built, 1) },
      },
    ]);
    expect(view.conversation.messages[2]!.blocks[0]!.text).toBe(CLEARED);
    // The tool_use keeps its input.
    expect(request.messages[1]!.content[1]!.source.field).toBe("state.input");
  });
});

// ---------------------------------------------------------------------------------------------
describe.each(FORMATS)("skipped and merged messages in the provider view (%s store)", (format) => {
  const built = session((w) => [
    // 0, 1: a finished two-step turn → request 0..3
    w.user("Invoice totals are off by a cent on some orders. Find out why.", { gap: 2 * SECOND }),
    w.assistant([
      w.stepStart(),
      w.reasoning("Rounding per line; read the totals module."),
      w.text("Let me look at how totals are computed."),
      w.read("src/invoices/totals.ts", TOTALS_TS),
      w.stepFinish("tool-calls"),
      w.stepStart(),
      w.reasoning("Each line is rounded before summing."),
      w.text("`invoiceTotal` rounds every line before summing."),
      w.stepFinish("stop"),
    ]),
    // 2: a prompt whose answer (3) failed with an API error: opencode leaves the errored turn out
    w.user("Apply the fix."),
    w.assistant([w.stepStart(), w.reasoning("Edit totals.ts to sum cents."), w.text("Editing totals.ts")], {
      error: { name: "APIError", data: { message: "Overloaded", statusCode: 529, isRetryable: true } },
    }),
    // 4: the user asks again → merged with 2 into request message 4
    w.user("Try again, please."),
    // 5: the answer → request 5..7
    w.assistant([
      w.stepStart(),
      w.reasoning("Sum integer cents, round once."),
      w.text("Applying the fix."),
      w.edit("src/invoices/totals.ts", "Math.round(l.quantity * l.unitPrice * 100) / 100", "l.quantity * l.unitPrice"),
      w.stepFinish("tool-calls"),
      w.stepStart(),
      w.text("Done: totals are rounded once."),
      w.stepFinish("stop"),
    ]),
    // 6: a prompt whose answer (7) was created and never got a part (opencode was killed)
    w.user("Commit it."),
    { role: "assistant", parts: [], info: UNFINISHED },
    // 8: the user asks again → merged with 6 into request message 8
    w.user("Hello? Commit it.", { gap: 10 * MINUTE }),
    // 9 → request 9
    w.assistant([w.stepStart(), w.text("Committed as `fix: round invoice totals once`."), w.stepFinish("stop")]),
  ]);
  const sent = sentFor(format, built);
  const { request, view } = sent;
  const ids = built.sessions[0]!.messages.map((m) => m.id);

  it("leaves out the errored turn and the message with no parts, and merges the prompts around each", () => {
    expect(shapeOf(request)).toEqual([
      "user:[text]",
      "assistant:[thinking,text,tool_use]",
      "user:[tool_result]",
      "assistant:[thinking,text]",
      "user:[text,text]",
      "assistant:[thinking,text,tool_use]",
      "user:[tool_result]",
      "assistant:[text]",
      "user:[text,text]",
      "assistant:[text]",
    ]);
    expect(view.conversation.skipped).toEqual([
      { messageId: ids[3], reason: "assistant error APIError" },
      { messageId: ids[7], reason: "no parts" },
    ]);
    expect(request.messages.map((m) => m.sourceMessageIds)).toEqual([
      [ids[0]],
      [ids[1]],
      [ids[1]],
      [ids[1]],
      [ids[2], ids[4]],
      [ids[5]],
      [ids[5]],
      [ids[5]],
      [ids[6], ids[8]],
      [ids[9]],
    ]);
    // Ten stored messages, ten request messages: but not one for one.
    expect(request.messages.flatMap((m) => m.sourceMessageIds)).not.toContain(ids[3]);
    expect(request.messages.flatMap((m) => m.sourceMessageIds)).not.toContain(ids[7]);
  });

  it("locate() maps indexes past the skipped messages to the right records", () => {
    const part = (n: number, m: number) => locate(request, n, m)?.block?.source.id;
    // messages.4: the merged prompts; content.1 is the second prompt's text.
    expect(part(4, 0)).toBe(partsOf(built, 2)[0]!.id);
    expect(part(4, 1)).toBe(partsOf(built, 4)[0]!.id);
    // messages.5.content.0: the retried answer's reasoning, not the errored turn's.
    expect(part(5, 0)).toBe(partsOf(built, 5)[1]!.id);
    expect(part(5, 0)).not.toBe(partsOf(built, 3)[1]!.id);
    expect(part(6, 0)).toBe(partsOf(built, 5)[3]!.id);
    expect(part(7, 0)).toBe(partsOf(built, 5)[6]!.id);
    expect(part(8, 1)).toBe(partsOf(built, 8)[0]!.id);
    expect(part(9, 0)).toBe(partsOf(built, 9)[1]!.id);
    expect(locate(request, 9, 0)!.message.sourceMessageIds).toEqual([ids[9]]);
    expect(locate(request, 10, null)).toBeUndefined();
  });

  it("the request is valid: nothing about the skipped turns reaches the API", () => {
    expect(validateAnthropic(request, thinkingMode(request, "auto"))).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
describe.each(FORMATS)("history before a finished compaction (%s store)", (format) => {
  it("is not sent: the request starts at the compaction prompt, sent as opencode's fixed text", () => {
    const built = session((w) => [
      w.user("Invoice totals are off by a cent on some orders. Find out why.", { gap: 2 * SECOND }),
      w.assistant([w.stepStart(), w.reasoning("Rounding per line."), w.text("Rounding per line."), w.stepFinish("stop")]),
      userMessage(w, [{ type: "compaction", auto: true }], 10 * MINUTE),
      w.assistant([w.stepStart(), w.text("We found per-line rounding in invoiceTotal. Next: round once."), w.stepFinish("stop")], {
        mode: "compaction",
        agent: "compaction",
        summary: true,
      }),
      w.user("Continue with the totals change."),
      w.assistant([w.stepStart(), w.text("Switching invoiceTotal to integer cents now."), w.stepFinish("stop")]),
    ]);
    const { request, view } = sentFor(format, built);
    expect(view.conversation.historyStartMessageId).toBe(messageIdOf(built, 2));
    expect(shapeOf(request)).toEqual(["user:[text]", "assistant:[text]", "user:[text]", "assistant:[text]"]);
    expect(request.messages[0]!.content[0]!.source).toEqual({ kind: "part", id: partsOf(built, 2)[0]!.id, messageId: messageIdOf(built, 2) });
    expect(view.conversation.messages[0]!.blocks[0]!.text).toBe("What did we do so far?");
    expect(request.messages.flatMap((m) => m.sourceMessageIds)).toEqual([2, 3, 4, 5].map((n) => messageIdOf(built, n)));
  });
});

it("an empty conversation is an empty request", () => {
  expect(anthropicRequest({ messages: [], skipped: [] })).toEqual({ messages: [] });
});
