// Repair aimed at the provider's exact error. In-process on both store formats (planForError's rule joins the
// default rules, the plan is applied as `session repair` applies it, record by record): the error's request position
// must land on exactly the record it names, past skipped messages too, and a rejected thinking block in the latest
// tool-use turn takes its whole turn. Through the built CLI: --error / --error - / --error-file, the errors that
// are not the session's fault, the error opencode stored on the last message, and --resume.
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { planForError, storedError } from "../../src/plan/error-fixes.js";
import { planSession, type SessionPlan } from "../../src/plan/planner.js";
import { classifyProviderError } from "../../src/provider/classify-error.js";
import { DEFAULT_RULE_OPTIONS, type Rule } from "../../src/rules/rule.js";
import { sessionView } from "../../src/scan/session-view.js";
import type { Backup } from "../../src/txn/backup-store.js";
import { repairTargets } from "../../src/txn/targets.js";
import { runTransaction } from "../../src/txn/transaction.js";
import { buildStore, MINUTE, SECOND, type BuiltStore, type Json, type MessageSpec } from "../support/opencode-fixtures.js";
import { hasText, lastWrite, partWhere, sessionOf, storeOf, TOTALS_TS, UNFINISHED, unsignedReasoning } from "../rules/harness.js";
import {
  cleanupAll,
  DEFAULT_REPAIR_RULES,
  diff,
  expectRestoresExactly,
  expectSettledAndRestorable,
  FORMATS,
  load,
  ops,
  rescan,
  setup,
  snapshot,
  sorted,
  storedPart,
  withOpen,
  type Fixture,
} from "./harness.js";
import { changeDoc, expectFailure, expectStoreBytes, partKey, sandbox, storeBytes, storeState, writeTestStore } from "../cli/repair-support.js";
import { expectOneLineError, tempDir } from "../cli/run.js";
import { T0 } from "../cli/stores.js";
import { runWithStdin } from "../provider/request-support.js";

afterAll(cleanupAll);

const SIG = (n: number) => `messages.${n}.content.0: Invalid \`signature\` in \`thinking\` block`;
const SIG_LONG = (n: number) =>
  `messages.${n}.content.0: Invalid \`signature\` in \`thinking\` block. The block is bound to a different conversation. Remove the block, or set \`thinking.block_binding.prefix_mismatch_behavior\` to "drop_block". That setting requires the \`thinking-binding-controls-2026-08-01\` value in the \`anthropic-beta\` header. The \`system\` prompt differs from the one this block was created with.`;
const ORPHAN = (n: number, ids: string[]) =>
  `messages.${n}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${ids.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
const DAY_MS = 24 * 60 * MINUTE;
const TAX_TS = "export const tax = (subtotalCents: number) => Math.round(subtotalCents * 0.2);";
const EDIT_OLD = "Math.round(l.quantity * l.unitPrice * 100) / 100";
const EDIT_NEW = "l.quantity * l.unitPrice";

// ---------------------------------------------------------------------------------------------
// Sessions
// ---------------------------------------------------------------------------------------------

/**
 * Three finished turns, reasoning in every step. Request: 0 prompt · 1 [thinking R1, text, tool_use] · 2 result ·
 * 3 [thinking R2, text] · 4 prompt · 5 [thinking R3, text, tool_use, tool_use] · 6 results · 7 [thinking R4, text] ·
 * 8 prompt · 9 [thinking R5, text]. R1 and R2 are the opening turn's ("one-cent drift", "Each line is rounded").
 */
function threeTurns(start?: number) {
  return sessionOf(
    (w) => [
      w.user("Fix it and run the invoice tests."),
      w.assistant([
        w.stepStart(),
        w.reasoning("R3: sum integer cents, round once; then run the invoice tests."),
        w.text("Editing, then running the invoice tests."),
        w.edit("src/invoices/totals.ts", EDIT_OLD, EDIT_NEW),
        w.bash("npx vitest run test/invoices", "Run invoice tests", " ✓ test/invoices/totals.test.ts (1 test) 4ms\n"),
        w.stepFinish("tool-calls"),
        w.stepStart(),
        w.reasoning("R4: the tests pass; summarise."),
        w.text("Fixed: totals are rounded once, and the invoice tests pass."),
        w.stepFinish("stop"),
      ]),
      w.user("Thanks. Anything else to watch?"),
      w.assistant([
        w.stepStart(),
        w.reasoning("R5: mention credit notes."),
        w.text("Only credit notes: they round toward zero on exact halves."),
        w.stepFinish("stop"),
      ]),
    ],
    start === undefined ? {} : { start },
  );
}

/**
 * The same fix, but its first answer failed (APIError, left out of the request) and the user asked again: the
 * prompts merge into request message 4 and the retried answer's reasoning R3 is messages.5.content.0, while the
 * errored turn's own signed reasoning (RX) sits before it in the store.
 */
function afterAnErroredTurn() {
  return sessionOf((w) => [
    w.user("Fix it and run the invoice tests."),
    w.assistant([w.stepStart(), w.reasoning("RX: the errored turn's thought."), w.text("Editing totals.ts")], {
      error: { name: "APIError", data: { message: "Overloaded", statusCode: 529, isRetryable: true } },
    }),
    w.user("Try again, please.", { gap: 2 * MINUTE }),
    w.assistant([
      w.stepStart(),
      w.reasoning("R3: sum integer cents, round once."),
      w.text("Editing totals.ts."),
      w.edit("src/invoices/totals.ts", EDIT_OLD, EDIT_NEW),
      w.stepFinish("tool-calls"),
      w.stepStart(),
      w.reasoning("R4: done; summarise."),
      w.text("Fixed: totals are rounded once."),
      w.stepFinish("stop"),
    ]),
    w.user("Thanks."),
    w.assistant([w.stepStart(), w.text("You're welcome.")], {}),
  ]);
}

/**
 * The last turn used tools and is stored as two assistant messages (one per step, as newer opencode writes them):
 * request 5 [thinking R3, text, tool_use] · 6 result · 7 [thinking R4, text], all in the latest tool-use turn.
 */
function latestToolTurn() {
  return sessionOf((w) => [
    w.user("Check the tax module too."),
    w.assistant([
      w.stepStart(),
      w.reasoning("R3: read the tax module."),
      w.text("Reading the tax module."),
      w.read("src/invoices/tax.ts", TAX_TS),
      w.stepFinish("tool-calls"),
    ]),
    w.assistant([w.stepStart(), w.reasoning("R4: it rounds once; fine."), w.text("The tax module already rounds once."), w.stepFinish("stop")]),
  ]);
}

/** opencode was killed while two calls ran; the user came back later. Request 5 [text, tool_use A, tool_use B]. */
function twoRunningCalls(start?: number) {
  return sessionOf(
    (w) => [
      w.user("Run the suite and the linter."),
      w.assistant(
        [
          w.stepStart(),
          w.text("Running both."),
          w.running("bash", { command: "npm test", description: "Run all tests" }),
          w.running("bash", { command: "npx eslint .", description: "Lint" }),
        ],
        UNFINISHED,
      ),
      w.user("opencode crashed; are you there?", { gap: 20 * MINUTE }),
      w.assistant([w.stepStart(), w.text("Yes. Both runs were cut off; I can start them again."), w.stepFinish("stop")]),
    ],
    start === undefined ? {} : { start },
  );
}

// ---------------------------------------------------------------------------------------------
// In-process: the error's rule joins the plan the way `session repair --error` adds it
// ---------------------------------------------------------------------------------------------

interface Aimed {
  explanation: string;
  plan: SessionPlan;
  backup?: Backup;
}

/** Plans with the default rules (or none, with `only`) plus what the error names, and applies the plan unless `dryRun`. */
function repairForError(fx: Fixture, errorText: string, opts: { only?: boolean; dryRun?: boolean } = {}): Aimed {
  return withOpen(fx, (store) => {
    const records = store.loadSession(fx.sessionId, "full");
    const view = sessionView(records, { now: fx.now, liveWindowMs: DEFAULT_RULE_OPTIONS.liveWindowMs });
    const aimed = planForError(classifyProviderError(errorText), view);
    const base: readonly Rule[] = opts.only ? [] : DEFAULT_REPAIR_RULES;
    const extra = [...(aimed.rule ? [aimed.rule] : []), ...(aimed.scopedRules?.rules ?? [])].filter((r) => !base.includes(r));
    const planned = planSession(records, store.fixing, { ...DEFAULT_RULE_OPTIONS, now: fx.now, rules: [...base, ...extra] });
    if (opts.dryRun || planned.changes.length === 0) return { explanation: aimed.explanation, plan: planned };
    const writer = store.openWriter();
    try {
      const { targets, changes } = repairTargets([{ sessionRef: records.sessionRef, changes: planned.changes }], writer, store.codec, fx.now);
      const backup = runTransaction({
        kind: "repair",
        writer,
        backupRoot: fx.backupRoot,
        stateDir: fx.stateDir,
        sessions: [fx.sessionId],
        changes,
        targets,
        now: fx.now,
      });
      return { explanation: aimed.explanation, plan: planned, backup };
    } finally {
      writer.close();
    }
  });
}

const reasoningIds = (built: BuiltStore) => built.sessions[0]!.messages.flatMap((m) => m.parts.filter((p) => p.data?.type === "reasoning").map((p) => p.id));

describe.each(FORMATS)("repair aimed at an error, in-process (%s store)", (format) => {
  it("an invalid signature: the named block and every signed one before the latest assistant message go in one repair; every other record stays byte for byte", () => {
    const built = storeOf(threeTurns());
    const r3 = partWhere(built, hasText("R3: sum integer cents"));
    const fx = setup(format, built);
    expect(rescan(fx)).toEqual([]);
    const original = snapshot(fx);
    const all = reasoningIds(built);
    expect(all).toHaveLength(5);
    // The latest assistant message keeps its thinking: the API needs it as the model sent it.
    const latest = all.at(-1)!;
    const gone = all.filter((id) => id !== latest);
    expect(gone).toContain(r3.partId);
    const before = load(fx);

    const { plan, backup, explanation } = repairForError(fx, SIG(5));
    expect(explanation).toBe(
      "the provider rejected the signature of the thinking at messages.5.content.0; a model or system-prompt switch makes every earlier signature fail, one request at a time, so all 4 signed thinking blocks named or before the latest assistant message go in this one repair (kept verbatim in the backup; in the latest tool-use turn the turn goes whole)",
    );
    expect(ops(plan.changes)).toEqual(sorted(...gone.map((id) => `delete part ${id}`)));
    expect(plan.changes.every((c) => c.rules.join() === "provider-error")).toBe(true);
    expect(plan.changes[0]!.reasons).toEqual(["removed thinking whose signature the provider rejected; never edited or made up (kept verbatim in the backup)"]);
    // One plan, not one request at a time: a second repair for the next block finds nothing before the latest message.
    expect(diff(original, snapshot(fx))).toEqual({ added: [], removed: sorted(...gone.map((id) => `part:${id}`)), changed: [`session:${fx.sessionId}`] });
    expect(storedPart(load(fx), latest)).toEqual(storedPart(before, latest));
    expectSettledAndRestorable(fx, { rules: ["provider-error"], original, backup: backup! });
  });

  it("the newer, longer signature text names the same block", () => {
    const built = storeOf(threeTurns());
    const r4 = partWhere(built, hasText("R4: the tests pass"));
    const fx = setup(format, built);
    const { plan } = repairForError(fx, SIG_LONG(7), { dryRun: true });
    expect(ops(plan.changes)).toContain(`delete part ${r4.partId}`);
    expect(plan.fixed.some((f) => f.partId === r4.partId)).toBe(true);
  });

  it("an index past an errored (skipped) assistant message maps to the retried answer's reasoning, not the errored turn's", () => {
    const built = storeOf(afterAnErroredTurn());
    const r3 = partWhere(built, hasText("R3: sum integer cents"));
    const rx = partWhere(built, hasText("RX: the errored turn"));
    const fx = setup(format, built);
    const original = snapshot(fx);
    const { plan, backup } = repairForError(fx, SIG(5));
    expect(ops(plan.changes)).toContain(`delete part ${r3.partId}`);
    expect(diff(original, snapshot(fx)).removed).toContain(`part:${r3.partId}`);
    // The errored turn is never sent, so its reasoning is no signature the provider saw: it stays.
    expect(storedPart(load(fx), rx.partId)).toMatchObject({ type: "reasoning", text: "RX: the errored turn's thought." });
    expectRestoresExactly(fx, backup!, original);
  });

  it("reasoning in the latest tool-use turn: the turn's assistant messages go whole, with every part", () => {
    const built = storeOf(latestToolTurn());
    const messages = built.sessions[0]!.messages;
    const [first, second] = [messages.at(-2)!, messages.at(-1)!];
    const fx = setup(format, built);
    const original = snapshot(fx);
    for (const n of [5, 7]) {
      const { plan } = repairForError(fx, SIG(n), { dryRun: true });
      const turn = sorted(`delete message ${first.id}`, `delete message ${second.id}`, ...[...first.parts, ...second.parts].map((p) => `delete part ${p.id}`));
      expect(ops(plan.changes).filter((op) => turn.includes(op))).toEqual(turn);
      const inTurn = plan.changes.filter(
        (c) => c.key.messageId === first.id || c.key.messageId === second.id || c.key.id === first.id || c.key.id === second.id,
      );
      expect(inTurn.every((c) => c.reasons[0]!.includes("it is in the latest tool-use turn, whose thinking the API forbids changing"))).toBe(true);
    }
    const { backup } = repairForError(fx, SIG(5));
    const inTurn = new Set([...first.parts, ...second.parts].map((p) => p.id));
    // The signed reasoning of the opening turn goes too: its signature fails with the same switch.
    const earlier = reasoningIds(built).filter((id) => !inTurn.has(id));
    const gone = [`message:${first.id}`, `message:${second.id}`, ...[...inTurn, ...earlier].map((id) => `part:${id}`)];
    // The JSON tree keeps one folder per message's parts: only records count here.
    expect(diff(original, snapshot(fx)).removed.filter((k) => !k.startsWith("file:"))).toEqual(sorted(...gone));
    expect(diff(original, snapshot(fx)).changed).toEqual([`session:${fx.sessionId}`]);
    // The session now ends on the prompt.
    expect(load(fx).messages.map((m) => m.ref.id)).toEqual(messages.slice(0, -2).map((m) => m.id));
    expectSettledAndRestorable(fx, { rules: ["provider-error"], original, backup: backup! });
  });

  it("a signature error pointing at something that is not thinking (a prompt's text): the signed thinking before the latest assistant message goes, and it says where it looked", () => {
    const built = storeOf(threeTurns());
    const fx = setup(format, built);
    const earlier = reasoningIds(built).slice(0, -1);
    const { plan, explanation } = repairForError(fx, SIG(4), { dryRun: true });
    expect(ops(plan.changes)).toEqual(sorted(...earlier.map((id) => `delete part ${id}`)));
    expect(explanation).toMatch(/^messages\.4\.content\.0 holds text, not thinking; .* all 4 signed thinking blocks before the latest assistant message go /);
    const past = repairForError(fx, SIG(42), { dryRun: true });
    expect(past.explanation).toMatch(/^recover's view of the request has no messages\.42 \(it has \d+\), not thinking; /);
    expect(ops(past.plan.changes)).toEqual(sorted(...earlier.map((id) => `delete part ${id}`)));
  });

  it("orphan_tool_use naming one running call closes exactly that call, with the result opencode already sends for it", () => {
    const built = storeOf(twoRunningCalls());
    const [a, b] = built.sessions[0]!.messages[3]!.parts.filter((p) => p.data?.type === "tool");
    const callA = (a!.data as { callID: string }).callID;
    const fx = setup(format, built);
    const before = load(fx);
    // Only the error's rule: what it does by itself (the default rules would close both calls anyway).
    const { plan, explanation } = repairForError(fx, ORPHAN(5, [callA]), { only: true });
    expect(explanation).toBe(
      `tool call ${callA} at messages.5 went out without a result: closed as interrupted, with the result opencode already sends for it`,
    );
    expect(ops(plan.changes)).toEqual([`update part ${a!.id}`]);
    expect(plan.changes[0]!.rules).toEqual(["provider-error"]);
    const after = load(fx);
    const was = storedPart(before, a!.id) as { state: Json };
    expect(storedPart(after, a!.id)).toEqual({
      ...was,
      state: {
        ...was.state,
        status: "error",
        error: "[Tool execution was interrupted]",
        time: { start: (was.state.time as Json).start, end: fx.now },
      },
    });
    expect(storedPart(after, b!.id)).toEqual(storedPart(before, b!.id));
  });

  it("an error that points into a live last turn says so (it went out in the refused request); one that names nothing there does not", () => {
    const built = storeOf(
      sessionOf((w) => [w.user("Run the suite."), w.assistant([w.stepStart(), w.text("Running it."), w.running("bash", { command: "npm test" })], UNFINISHED)]),
    );
    const last = built.sessions[0]!.messages.at(-1)!;
    const running = last.parts.find((p) => p.data?.type === "tool")!;
    const call = (running.data as { callID: string }).callID;
    const fx = setup(format, built);
    withOpen(fx, (store) => {
      const view = sessionView(store.loadSession(fx.sessionId, "full"), {
        now: lastWrite(built) + 2 * MINUTE,
        liveWindowMs: DEFAULT_RULE_OPTIONS.liveWindowMs,
      });
      expect(view.liveTailMessageId).toBe(last.id);
      const named = planForError(classifyProviderError(ORPHAN(3, [call])), view);
      expect(named.judgesLiveTail).toBe(true);
      expect([...(named.targets ?? [])]).toEqual([running.id]);
      // Found by kind when the error names no position: the scoped rules look into the live tail too.
      const unplaced = planForError(classifyProviderError(`\`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${call}`), view);
      expect(unplaced.judgesLiveTail).toBe(true);
      const elsewhere = planForError(classifyProviderError(ORPHAN(3, ["toolu_01NotInThisSession000000"])), view);
      expect(elsewhere.judgesLiveTail).toBeUndefined();
      expect(elsewhere.liveTailLeft).toBe(true);
      expect(elsewhere.targets ?? new Set()).toEqual(new Set());
      // Without a live window nothing is live, and there is nothing to say.
      const old = sessionView(store.loadSession(fx.sessionId, "full"), { now: lastWrite(built) + DAY_MS, liveWindowMs: DEFAULT_RULE_OPTIONS.liveWindowMs });
      expect(planForError(classifyProviderError(ORPHAN(3, [call])), old).judgesLiveTail).toBeUndefined();
    });
  });

  it("the final-turn thinking error (thinking on, the latest tool-use turn opens with text): that turn's assistant message goes", () => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Check the tax module too."),
        // Its reasoning lost the signature, so the turn is sent without thinking; opencode stopped after the tool ran.
        w.assistant([
          w.stepStart(),
          unsignedReasoning(w, "Read the tax module."),
          w.text("Reading the tax module."),
          w.read("src/invoices/tax.ts", TAX_TS),
          w.stepFinish("tool-calls"),
        ]),
      ]),
    );
    const turn = built.sessions[0]!.messages.at(-1)!;
    const fx = setup(format, built);
    const text =
      "messages.5.content.0.type: Expected `thinking` or `redacted_thinking`, but found `text`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking";
    const { plan, explanation } = repairForError(fx, text);
    expect(explanation).toBe(
      "the latest tool-use turn at messages.5.content.0 has no thinking of its own while thinking is on: that turn is taken out (kept in the backup) and the model redoes the step",
    );
    expect(ops(plan.changes)).toEqual(sorted(`delete message ${turn.id}`, ...turn.parts.map((p) => `delete part ${p.id}`)));
    expect(load(fx).messages.map((m) => m.ref.id)).toEqual(built.sessions[0]!.messages.slice(0, -1).map((m) => m.id));
  });

  it("thinking disabled for the model: every reasoning part goes, nothing else", () => {
    const built = storeOf(threeTurns());
    const fx = setup(format, built);
    const text =
      "messages.9.content.0: When thinking is disabled, an `assistant` message in the final position cannot contain `thinking`. To use thinking blocks, enable `thinking` in your request.";
    const { plan } = repairForError(fx, text);
    expect(ops(plan.changes)).toEqual(sorted(...reasoningIds(built).map((id) => `delete part ${id}`)));
    expect(rescan(fx)).toEqual([]);
  });

  // Whether the named call is still a duplicate is judged on each pass: once it has a fresh id, the plan settles.
  it("a duplicate tool_use id: the later call gets a fresh id and the plan settles", () => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Read the totals module again."),
        w.assistant([
          w.stepStart(),
          w.read("src/invoices/totals.ts", TOTALS_TS),
          w.stepFinish("tool-calls"),
          w.stepStart(),
          w.text("Same as before."),
          w.stepFinish("stop"),
        ]),
      ]),
    );
    const first = built.sessions[0]!.messages[1]!.parts.find((p) => p.data?.type === "tool")!;
    const again = built.sessions[0]!.messages[3]!.parts.find((p) => p.data?.type === "tool")!;
    (again.data as Json).callID = (first.data as Json).callID;
    const fx = setup(format, built);
    const { plan } = repairForError(fx, "messages.5.content.0: `tool_use` ids must be unique", { only: true });
    expect(ops(plan.changes)).toEqual([`update part ${again.id}`]);
    expect(plan.changes[0]!.rules).toEqual(["provider-error"]);
  });

  it("orphan_tool_use naming a call that is not open: nothing to do, and the explanation says so", () => {
    const fx = setup(format, storeOf(threeTurns()));
    const { plan, explanation } = repairForError(fx, ORPHAN(5, ["toolu_01NotInThisSession000000"]), { only: true, dryRun: true });
    expect(plan.changes).toEqual([]);
    // Nothing at the named place, nor anywhere else: it says what it looked at.
    expect(explanation).toBe(
      "messages.5 is an assistant message (thinking, text, tool use); no tool-call-interrupted or tool-result-missing finding anywhere in the 10 messages of the request either, so recover found nothing this error is about",
    );
  });
});

describe.each(FORMATS)("thinking_empty in two turns, the error naming the first (issue 38; %s store)", (format) => {
  const EMPTY = (n: number) => `messages.${n}.content.0.thinking: each thinking block must contain non-whitespace thinking`;
  /** Request: 0 prompt · 1 [thinking (empty), text] · 2 prompt · 3 [thinking (whitespace), text] · 4 prompt · 5 [text]. */
  const twoEmptied = () =>
    storeOf(
      sessionOf(
        (w) => [
          w.user("Think, then say one."),
          w.assistant([w.stepStart(), w.reasoning(""), w.text("one"), w.stepFinish("stop")]),
          w.user("Think, then say two."),
          w.assistant([w.stepStart(), w.reasoning("  \n "), w.text("two"), w.stepFinish("stop")]),
          w.user("Say three."),
          w.assistant([w.stepStart(), w.text("three"), w.stepFinish("stop")]),
        ],
        { opening: false },
      ),
    );

  it("the plan reaches the second empty block too (the API refuses it next), says so, and answers only through the named one", () => {
    const built = twoEmptied();
    const [first, second] = reasoningIds(built);
    const fx = setup(format, built);
    const records = load(fx);
    const view = sessionView(records, { now: fx.now, liveWindowMs: DEFAULT_RULE_OPTIONS.liveWindowMs });
    const aimed = planForError(classifyProviderError(EMPTY(1)), view);
    const messageOf = (partId: string) => built.sessions[0]!.messages.find((m) => m.parts.some((p) => p.id === partId))!.id;
    expect(aimed.scopedRules?.messageIds).toEqual(new Set([messageOf(first!), messageOf(second!)]));
    expect(aimed.targets).toEqual(new Set([messageOf(first!)]));
    expect(aimed.explanation).toBe(
      "an empty thinking block at messages.1.content.0: it is removed (a signature cannot be made up); the API checks the whole request and would refuse the same at messages.3.content.0 next, so this repair fixes that too",
    );

    // Only the rules the error brings (no default ones): both blocks go, and a scan finds no error left.
    const { plan, backup } = repairForError(fx, EMPTY(1), { only: true });
    expect(ops(plan.changes)).toEqual(sorted(`delete part ${first}`, `delete part ${second}`));
    expect(plan.remaining.filter((f) => f.severity === "error")).toEqual([]);
    expect(backup).toBeDefined();
    expect(rescan(fx).filter((f) => f.severity === "error")).toEqual([]);
  });

  it("a finding the plan's filter keeps from being fixed is reported as left, as a scan after the write finds it", () => {
    const built = twoEmptied();
    const [first, second] = reasoningIds(built);
    const fx = setup(format, built);
    const planned = withOpen(fx, (store) =>
      planSession(store.loadSession(fx.sessionId, "full"), store.fixing, {
        ...DEFAULT_RULE_OPTIONS,
        now: fx.now,
        rules: DEFAULT_REPAIR_RULES,
        judgeWith: DEFAULT_REPAIR_RULES,
        filter: (f) => f.partId !== second,
      }),
    );
    expect(ops(planned.changes)).toEqual([`delete part ${first}`]);
    expect(planned.remaining.filter((f) => f.severity === "error").map((f) => `${f.rule} ${f.partId}`)).toEqual([`empty-thinking ${second}`]);
  });
});

// ---------------------------------------------------------------------------------------------
// The built CLI
// ---------------------------------------------------------------------------------------------

/** The stored error of the last message, as opencode saves an API error. */
const STORED_SIGNATURE_ERROR: Json = {
  name: "APIError",
  data: { message: "messages.1.content.0: Invalid `signature` in `thinking` block", statusCode: 400, isRetryable: false },
};

/** The opening turn (R1 at messages.1.content.0), then a prompt whose answer failed with the stored error. */
function storedErrorSession(start: number) {
  return sessionOf(
    (w) => [
      w.user("Now apply the fix."),
      {
        role: "assistant",
        created: w.tick(2 * SECOND),
        parts: [],
        info: { time: { completed: w.tick(SECOND) }, error: STORED_SIGNATURE_ERROR, finish: undefined },
      } as MessageSpec,
    ],
    { start },
  );
}

function cliStore(
  session: ReturnType<typeof threeTurns>,
  format: "opencode-sqlite" | "opencode-json" = "opencode-sqlite",
  extra: ReturnType<typeof threeTurns>[] = [],
) {
  const built = buildStore({ seed: 19, sessions: [session, ...extra] });
  return { built, id: built.sessions[0]!.id, store: writeTestStore(built, format) };
}

const noBackups = (sb: ReturnType<typeof sandbox>) => expect(fs.existsSync(sb.backups)).toBe(false);

describe("session repair --error through the CLI", () => {
  it("--error - (stdin): the plan deletes the named reasoning and every signed one before the latest assistant message, with the rule provider-error", () => {
    const { built, id, store } = cliStore(threeTurns(T0));
    const r3 = partWhere(built, hasText("R3: sum integer cents"));
    const sb = sandbox();
    const before = storeBytes(store);
    const r = runWithStdin(["session", "repair", id, "--error", "-", "--dry-run", "--json", "--store", store.store], `${SIG(5)}\n`, sb.env);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toBe("");
    const doc = changeDoc(r);
    const earlier = reasoningIds(built).slice(0, -1);
    expect(earlier).toContain(r3.partId);
    expect(doc.sessions[0]!.changes.map((c) => [c.op, c.record, c.id, c.rules])).toEqual(
      earlier.map((partId) => ["delete", "part", partId, ["provider-error"]]).sort((a, b) => String(a[2]).localeCompare(String(b[2]))),
    );
    expect(doc.store.notices).toEqual([
      `session ${id}: the error given (thinking_signature): the provider rejected the signature of the thinking at messages.5.content.0; a model or system-prompt switch makes every earlier signature fail, one request at a time, so all 4 signed thinking blocks named or before the latest assistant message go in this one repair (kept verbatim in the backup; in the latest tool-use turn the turn goes whole)`,
    ]);
    expectStoreBytes(store, before);
    noBackups(sb);
  });

  it("--error-file with --yes --resume: removes those parts only, backs up, and prints the command that continues the session", async () => {
    const { built, id, store } = cliStore(threeTurns(T0));
    const r3 = partWhere(built, hasText("R3: sum integer cents"));
    const sb = sandbox();
    const file = path.join(tempDir(), "error.txt");
    // As copied from opencode's UI: a JSON body with the message inside.
    fs.writeFileSync(file, JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: SIG(5) }, request_id: "req_011CUeXk9pX7Q3" }));
    const before = storeState(store);
    const r = await sb.run(["session", "repair", id, "--error-file", file, "--yes", "--resume", "--store", store.store]);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stderr).toBe(
      `note: session ${id}: the error given (thinking_signature): the provider rejected the signature of the thinking at messages.5.content.0; a model or system-prompt switch makes every earlier signature fail, one request at a time, so all 4 signed thinking blocks named or before the latest assistant message go in this one repair (kept verbatim in the backup; in the latest tool-use turn the turn goes whole)\n`,
    );
    expect(r.stdout).toMatch(new RegExp(`^  delete part ${r3.partId} \\[provider-error\\]  removed thinking whose signature the provider rejected`, "m"));
    expect(r.stdout).toContain(`\ncontinue with: opencode --session ${id}\n`);
    expect(r.stdout).toMatch(/^undo with: recover session restore \S+ --store \S+$/m);
    // SQLite rows: the reasoning rows before the latest assistant message are gone, the session row's update time
    // moved, nothing else differs.
    const after = storeState(store);
    const changed = Object.keys(before).filter((k) => before[k] !== after[k]);
    const earlier = built.sessions[0]!.messages.slice(0, -1).flatMap((m) =>
      m.parts.filter((p) => p.data?.type === "reasoning").map((p) => partKey(store, m.id, p.id)),
    );
    expect(changed.sort()).toEqual(sorted(...earlier, `session/${id}`));
    expect(after[partKey(store, r3.messageId, r3.partId)]).toBeUndefined();
    expect(Object.keys(after).filter((k) => !(k in before))).toEqual([]);
  });

  it("--resume in --json: the document carries resume", () => {
    const { id, store } = cliStore(threeTurns(T0));
    const sb = sandbox();
    const r = runWithStdin(["session", "repair", id, "--error", "-", "--yes", "--resume", "--json", "--store", store.store], SIG(5), sb.env);
    expect(r.status, r.stderr).toBe(0);
    const doc = changeDoc(r) as unknown as { resume: string[]; backup: { id: string } | null };
    expect(doc.resume).toEqual([`opencode --session ${id}`]);
    expect(doc.backup).not.toBeNull();
  });

  it("an --error that names nothing in the session: exit 1, nothing written", async () => {
    const { id, store } = cliStore(threeTurns(T0));
    const sb = sandbox();
    const before = storeBytes(store);
    const line = await expectFailure(
      sb,
      ["session", "repair", id, "--yes", "--error", ORPHAN(5, ["toolu_01NotInThisSession000000"]), "--store", store.store],
      1,
      "fix-failed",
      /so recover found nothing this error is about; nothing was changed/,
    );
    expect(line).toContain("the error given (orphan_tool_use)");
    expectStoreBytes(store, before);
    noBackups(sb);
  });

  it("a context overflow on a session already under the limit it states: exit 1, saying so, nothing written", async () => {
    const { id, store } = cliStore(threeTurns(T0));
    const sb = sandbox();
    const before = storeBytes(store);
    const r = await sb.run(["session", "repair", id, "--yes", "--error", "prompt is too long: 219898 tokens > 200000 maximum", "--store", store.store]);
    expect(r.status).toBe(1);
    expectOneLineError(
      r,
      /^recover: the error given \(context_overflow\): the conversation is over the model's window \(219,898 > 200,000 tokens\): the context trim strategies shrink it under that limit; the session is already under the limit it states \(about [\d,]+ tokens, target 160,000\), so nothing was changed$/,
    );
    expectStoreBytes(store, before);
    noBackups(sb);
  });

  it("a rate limit is nobody's fault in the session: exit 1, saying so, nothing written", async () => {
    const { id, store } = cliStore(threeTurns(T0));
    const sb = sandbox();
    const before = storeBytes(store);
    const body = '429 {"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}';
    const r = await sb.run(["session", "repair", id, "--yes", "--error", body, "--store", store.store]);
    expect(r.status).toBe(1);
    expectOneLineError(r, /the error given \(unknown\): a rate limit: wait and retry; nothing in the session is wrong; nothing was changed$/);
    expectStoreBytes(store, before);
    noBackups(sb);
  });

  it("--error with two sessions, or with --error-file too: usage errors (exit 2)", async () => {
    const { built, store } = cliStore(threeTurns(T0), "opencode-sqlite", [twoRunningCalls(T0 + 24 * 60 * MINUTE)]);
    const sb = sandbox();
    const before = storeBytes(store);
    const [one, two] = built.sessions.map((s) => s.id);
    await expectFailure(
      sb,
      ["session", "repair", one!, two!, "--error", SIG(5), "--store", store.store],
      2,
      "usage",
      /--error names one session's error: give exactly one session/,
    );
    await expectFailure(sb, ["session", "repair", "--all", "--error", SIG(5), "--store", store.store], 2, "usage", /give exactly one session/);
    const file = path.join(tempDir(), "e.txt");
    fs.writeFileSync(file, SIG(5));
    await expectFailure(
      sb,
      ["session", "repair", one!, "--error", SIG(5), "--error-file", file, "--store", store.store],
      2,
      "usage",
      /give --error or --error-file, not both/,
    );
    const empty = runWithStdin(["session", "repair", one!, "--error", "-", "--store", store.store], "  \n", sb.env);
    expect(empty.status).toBe(2);
    expectOneLineError(empty, /the error text is empty/);
    expectStoreBytes(store, before);
    noBackups(sb);
  });

  // The default rule tool-call-interrupted closes the named call before the error's own rule gets to it: the error
  // is answered all the same, since what counts is that the records it names changed.
  it("orphan_tool_use naming a running call: that call is closed (exit 0)", async () => {
    const { built, id, store } = cliStore(twoRunningCalls(T0));
    const calls = built.sessions[0]!.messages[3]!.parts.filter((p) => p.data?.type === "tool");
    const callA = (calls[0]!.data as { callID: string }).callID;
    const sb = sandbox();
    const r = await sb.run(["session", "repair", id, "--yes", "--json", "--error", ORPHAN(5, [callA]), "--store", store.store]);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    const doc = changeDoc(r);
    expect(doc.sessions[0]!.changes.map((c) => c.id)).toContain(calls[0]!.id);
  });
});

describe.each(["opencode-sqlite", "opencode-json"] as const)("the error opencode stored on the last message (%s)", (format) => {
  it("plain repair --yes removes the reasoning it names and says why; a second run plans nothing (the error is stale)", async () => {
    const { built, id, store } = cliStore(storedErrorSession(T0), format);
    const r1 = partWhere(built, hasText("A one-cent drift smells like rounding"));
    const sb = sandbox();

    // The stored error is read as it is.
    withOpen({ dir: store.store, format: format === "opencode-sqlite" ? "sqlite" : "json" }, (s) => {
      const view = sessionView(s.loadSession(id, "lean"), { now: Date.now(), liveWindowMs: DEFAULT_RULE_OPTIONS.liveWindowMs });
      expect(storedError(view)).toEqual(STORED_SIGNATURE_ERROR);
    });

    const before = storeState(store);
    const first = await sb.run(["session", "repair", id, "--yes", "--store", store.store]);
    expect(first.status, first.stdout + first.stderr).toBe(0);
    expect(first.stderr).toBe(
      `note: session ${id}: the error opencode stored on the last message (thinking_signature): the provider rejected the signature of the thinking at messages.1.content.0; a model or system-prompt switch makes every earlier signature fail, one request at a time, so the one signed thinking block named or before the latest assistant message goes in this one repair (kept verbatim in the backup; in the latest tool-use turn the turn goes whole)\n`,
    );
    expect(first.stdout).toMatch(new RegExp(`^  delete part ${r1.partId} \\[provider-error\\]`, "m"));
    expect(first.stdout).toContain("✔ repaired: 1 change in 1 session");
    const after = storeState(store);
    const gone = Object.keys(before).filter((k) => !(k in after));
    expect(gone).toEqual([partKey(store, r1.messageId, r1.partId)]);
    // Every other reasoning part is as it was.
    const otherReasoning = built.sessions[0]!.messages.flatMap((m) =>
      m.parts.filter((p) => p.data?.type === "reasoning" && p.id !== r1.partId).map((p) => partKey(store, m.id, p.id)),
    );
    expect(otherReasoning.length).toBeGreaterThan(0);
    for (const key of otherReasoning) expect(after[key]).toBe(before[key]);

    const again = await sb.run(["session", "repair", id, "--yes", "--store", store.store]);
    expect(again.status, again.stdout + again.stderr).toBe(0);
    expect(again.stderr).toBe("");
    expect(again.stdout.trim()).toBe("✔ nothing to repair");
    expect(storeState(store)).toEqual(after);
  });
});
