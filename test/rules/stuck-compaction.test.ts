// stuck-compaction through the RuleTester, on opencode records shaped as opencode writes them: a compaction request
// (a user message holding a `compaction` part) whose summary reply never got `finish` is still pending for opencode's
// prompt loop, which would run it against the next prompt (docs/research/opencode-compaction.md). The fix takes the
// request and its unfinished summary out; a finished compaction, or one still running, is left alone.
import { expect } from "vitest";
import { stuckCompaction } from "../../src/rules/stuck-compaction.js";
import { ruleTester } from "../support/rule-tester.js";

const T = Date.UTC(2026, 9, 1, 9, 0, 0);
const model = { providerID: "anthropic", modelID: "claude-sonnet-4-5" };
const tokens = { input: 10, output: 20, reasoning: 0, cache: { read: 0, write: 0 } };
const user = (id: string, at: number, parts: { id: string; data: Record<string, unknown> }[]) => ({
  id,
  info: { role: "user", time: { created: T + at }, agent: "build", model },
  parts,
});
const assistant = (id: string, parentID: string, at: number, extra: Record<string, unknown>, parts: { id: string; data: Record<string, unknown> }[]) => ({
  id,
  info: {
    role: "assistant",
    time: { created: T + at, completed: T + at + 500 },
    parentID,
    modelID: model.modelID,
    providerID: model.providerID,
    mode: "build",
    agent: "build",
    path: { cwd: "/w", root: "/w" },
    cost: 0,
    tokens,
    finish: "stop",
    ...extra,
  },
  parts,
});
const text = (id: string, value: string) => ({ id, data: { type: "text", text: value } });
const summaryInfo = { mode: "compaction", agent: "compaction", summary: true };

const prompt = user("msg_001", 0, [text("prt_001", "Refactor the invoice module.")]);
const answer = assistant("msg_002", "msg_001", 1_000, {}, [text("prt_002", "Done: split into three files.")]);
const request = user("msg_003", 2_000, [{ id: "prt_003", data: { type: "compaction", auto: true, overflow: true } }]);
// Killed mid-stream: saved before streaming began, so only time.created; no finish, no completed.
const cutSummary = assistant("msg_004", "msg_003", 3_000, { ...summaryInfo, finish: undefined, time: { created: T + 3_000 } }, [
  text("prt_004", "## Goal\nRefactor the invoice"),
]);
const finishedSummary = assistant("msg_004", "msg_003", 3_000, summaryInfo, [text("prt_004", "## Goal\nRefactor the invoice module.")]);
const abortedSummary = assistant(
  "msg_004",
  "msg_003",
  3_000,
  { ...summaryInfo, finish: undefined, error: { name: "MessageAbortedError", data: { message: "aborted" } } },
  [],
);

ruleTester(stuckCompaction, {
  valid: [
    { name: "a compaction whose summary finished cleanly", records: { messages: [prompt, answer, request, finishedSummary] } },
    {
      name: "a compaction still running (its summary written seconds ago)",
      records: { messages: [prompt, answer, request, cutSummary] },
      options: { now: T + 3_000 + 5_000 },
    },
  ],
  invalid: [
    {
      name: "killed mid-summary: the request and its unfinished summary go",
      records: { messages: [prompt, answer, request, cutSummary] },
      findings: [{ messageId: "msg_003", severity: "warning", message: expect.stringContaining("its summary never finished") }],
      changes: [{ op: "delete", reasons: [expect.stringContaining("never finished")] }, { op: "delete" }, { op: "delete" }, { op: "delete" }],
    },
    {
      name: "aborted (error, no finish): still pending for opencode, so it goes too",
      records: { messages: [prompt, answer, request, abortedSummary] },
      findings: [{ messageId: "msg_003" }],
      changes: [{ op: "delete" }, { op: "delete" }, { op: "delete" }],
    },
    {
      name: "no summary at all: the request goes",
      records: { messages: [prompt, answer, request] },
      findings: [{ messageId: "msg_003", message: expect.stringContaining("it has no summary") }],
      changes: [{ op: "delete" }, { op: "delete" }],
    },
  ],
});
