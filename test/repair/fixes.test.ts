// Every repair fix, applied to a real store of each format, checked record by record: what the fix writes, that
// nothing else changed, that a rescan is clean and a re-plan empty, and that restore gives back every byte.
import { afterAll, describe, expect, it } from "vitest";
import { repairRules } from "../../src/cli/commands/session-repair.js";
import { CORRUPTED_OUTPUT_PLACEHOLDER, INTERRUPTED_PLACEHOLDER, OpencodeFixContext } from "../../src/stores/opencode/fixing.js";
import { selectSessions } from "../../src/cli/select-sessions.js";
import { RULES } from "../../src/rules/index.js";
import { scanSession } from "../../src/scan/scan.js";
import { readBackup } from "../../src/txn/backup-store.js";
import { incompleteMessage } from "../../src/rules/incomplete-message.js";
import { DEFAULT_RULE_OPTIONS } from "../../src/rules/rule.js";
import { opencodeSessionView } from "../../src/stores/opencode/view.js";
import { firstChange } from "../../src/plan/prefix-thinking.js";
import { MINUTE, SECOND, replaceWithBytes, truncateAfter, type Json } from "../support/opencode-fixtures.js";
import {
  ABORTED,
  dropSessionRecord,
  hasText,
  messageWhere,
  messageWithText,
  partWhere,
  pendingTool,
  sessionOf,
  storeOf,
  textPart,
  UNFINISHED,
} from "../rules/harness.js";
import {
  cleanupAll,
  diff,
  expectRestoresExactly,
  expectSettledAndRestorable,
  FORMATS,
  load,
  ops,
  withOpen,
  PART_ID,
  plan,
  repair,
  rescan,
  setup,
  snapshot,
  sorted,
  storedMessage,
  storedPart,
  TOOLU_ID,
  partIds,
} from "./harness.js";

afterAll(cleanupAll);

const readBackupState = (fx: { backupRoot: string }, id: string) => readBackup(fx.backupRoot, id).manifest.state;

const TAX_TS = "export const tax = (subtotalCents: number) => Math.round(subtotalCents * 0.2);";
const SUITE_OUTPUT =
  " ✓ test/config.test.ts (5 tests) 6ms\n ✓ test/invoices.test.ts (12 tests) 41ms\n\n Test Files  2 passed (2)\n      Tests  17 passed (17)\n";

const isTool = (status: string) => (d: Json) => d.type === "tool" && (d.state as { status: string }).status === status;

describe.each(FORMATS)("repair fixes (%s store)", (format) => {
  // ------------------------------------------------------------------------------------------
  it("tool-call-interrupted: a running bash and a pending edit are closed with the result opencode already sends for them, so the request does not change", () => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Fix the rounding and run the whole test suite."),
        w.assistant([
          w.stepStart(),
          w.text("Editing, then running the suite."),
          w.running("bash", { command: "npm test", description: "Run all tests" }, { title: "Run all tests", metadata: { output: "\n RUN  v3.2.4\n" } }),
          pendingTool(w, "edit", '{"filePath":"/ho'),
        ]),
        w.user("opencode crashed, are you still there?", { gap: 20 * MINUTE }),
        w.assistant([w.stepStart(), w.text("Yes. The previous test run was cut off; I can start it again."), w.stepFinish("stop")]),
      ]),
    );
    const bash = partWhere(built, isTool("running"));
    const edit = partWhere(built, isTool("pending"));
    const fx = setup(format, built);
    const before = load(fx);
    const bashBefore = storedPart(before, bash.partId);
    const editBefore = storedPart(before, edit.partId);
    const original = snapshot(fx);
    const requestOf = (records: typeof before) => opencodeSessionView(records, { ...DEFAULT_RULE_OPTIONS, now: fx.later }).conversation;
    const sentBefore = requestOf(before);

    const { plan: p, backup } = repair(fx);
    expect(ops(p.changes)).toEqual(sorted(`update part ${bash.partId}`, `update part ${edit.partId}`));
    expect(p.fixed.map((f) => `${f.rule} ${f.partId}`).sort()).toEqual(sorted(`tool-call-interrupted ${bash.partId}`, `tool-call-interrupted ${edit.partId}`));
    expect(diff(original, snapshot(fx))).toEqual({
      added: [],
      removed: [],
      changed: sorted(`part:${bash.partId}`, `part:${edit.partId}`, `session:${fx.sessionId}`),
    });

    const after = load(fx);
    const bashState = bashBefore.state as Json;
    expect(storedPart(after, bash.partId)).toEqual({
      ...bashBefore,
      state: {
        status: "error",
        input: { command: "npm test", description: "Run all tests" },
        error: "[Tool execution was interrupted]",
        metadata: { output: "\n RUN  v3.2.4\n" },
        time: { start: (bashState.time as { start: number }).start, end: fx.now },
      },
    });
    // The request the client builds is the same, so thinking bound to it stays valid (issue 36).
    expect(firstChange(sentBefore, requestOf(after))).toBeUndefined();
    expect(storedPart(after, edit.partId)).toEqual({
      ...editBefore,
      state: { status: "error", input: {}, error: "[Tool execution was interrupted]", time: { start: fx.now, end: fx.now } },
    });
    expectSettledAndRestorable(fx, { rules: ["tool-call-interrupted"], original, backup });
  });

  // ------------------------------------------------------------------------------------------
  it("incomplete-message: an unfinished turn that is not the last is completed as aborted; nothing else is touched", () => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Why does the PDF export return 500?"),
        w.assistant([w.stepStart(), w.text("Looking at the export handler.")], UNFINISHED),
        w.user("Still there?", { gap: 30 * MINUTE }),
        w.assistant([w.stepStart(), w.text("Yes: the handler awaits a stream that is never closed."), w.stepFinish("stop")]),
      ]),
    );
    const unfinished = messageWhere(built, messageWithText("Looking at the export handler."));
    const fx = setup(format, built);
    const before = storedMessage(load(fx), unfinished);
    expect((before.time as Json).completed).toBeUndefined();
    const original = snapshot(fx);

    const { plan: p, backup } = repair(fx);
    expect(ops(p.changes)).toEqual([`update message ${unfinished}`]);
    expect(diff(original, snapshot(fx))).toEqual({ added: [], removed: [], changed: sorted(`message:${unfinished}`, `session:${fx.sessionId}`) });
    expect(storedMessage(load(fx), unfinished)).toEqual({
      ...before,
      time: { ...(before.time as Json), completed: fx.now },
      error: { name: "MessageAbortedError", data: { message: "The agent stopped before this turn finished (closed by recover)" } },
    });
    expectSettledAndRestorable(fx, { rules: ["incomplete-message"], original, backup });
  });

  it("incomplete-message: an errored turn without time.completed is finished as far as opencode is concerned: not reported, left alone", () => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Why does the PDF export return 500?"),
        w.assistant([w.stepStart(), w.text("Looking at the export handler.")], { ...UNFINISHED, ...ABORTED }),
        w.user("Still there?", { gap: 30 * MINUTE }),
        w.assistant([w.stepStart(), w.text("Yes: the handler awaits a stream that is never closed."), w.stepFinish("stop")]),
      ]),
    );
    const fx = setup(format, built);
    const errored = storedMessage(load(fx), messageWhere(built, messageWithText("Looking at the export handler.")));
    expect((errored.time as Json).completed).toBeUndefined();
    expect(errored.error).toEqual(ABORTED.error);
    expect(rescan(fx).filter((f) => f.rule === "incomplete-message")).toEqual([]);
    expect(plan(fx).changes).toEqual([]);
  });

  it("incomplete-message: the fix itself, handed a message that already has an error, only adds time.completed", () => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Why does the PDF export return 500?"),
        w.assistant([w.stepStart(), w.text("Looking at the export handler.")], { ...UNFINISHED, ...ABORTED }),
        w.user("Still there?", { gap: 30 * MINUTE }),
        w.assistant([w.stepStart(), w.text("Yes."), w.stepFinish("stop")]),
      ]),
    );
    const id = messageWhere(built, messageWithText("Looking at the export handler."));
    const fx = setup(format, built);
    const edits = withOpen(fx, (store) => {
      const records = store.loadSession(fx.sessionId, "full");
      const options = { ...DEFAULT_RULE_OPTIONS, now: fx.now };
      const context = new OpencodeFixContext(records, opencodeSessionView(records, options), fx.now, store.codec, options);
      return incompleteMessage.fix!(
        { rule: "incomplete-message", severity: "warning", sessionId: fx.sessionId, fixable: true, messageId: id, message: "" },
        context,
      );
    });
    expect(edits).toHaveLength(1);
    const edit = edits[0]!;
    if (edit.op !== "update") throw new Error(`expected an update, got ${edit.op}`);
    const before = (edit.target as { original?: Json }).original!;
    expect(edit.value).toEqual({ ...before, time: { ...(before.time as Json), completed: fx.now } });
    expect(edit.value.error).toEqual(ABORTED.error);
  });

  it("tool-call-interrupted and incomplete-message on the same killed last turn settle together in one plan", () => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Run the whole test suite."),
        w.assistant(
          [
            w.stepStart(),
            w.text("Running the full suite."),
            w.running("bash", { command: "npm test", description: "Run all tests" }, { title: "Run all tests", metadata: { output: "\n RUN  v3.2.4\n" } }),
          ],
          UNFINISHED,
        ),
      ]),
    );
    const bash = partWhere(built, isTool("running"));
    const fx = setup(format, built);
    const messageBefore = storedMessage(load(fx), bash.messageId);
    const original = snapshot(fx);
    const { plan: p, backup } = repair(fx);
    expect(ops(p.changes)).toEqual(sorted(`update message ${bash.messageId}`, `update part ${bash.partId}`));
    expect(p.fixed.map((f) => f.rule).sort()).toEqual(["incomplete-message", "tool-call-interrupted"]);
    const after = load(fx);
    expect((storedPart(after, bash.partId).state as Json).status).toBe("error");
    expect(storedMessage(after, bash.messageId)).toEqual({
      ...messageBefore,
      time: { ...(messageBefore.time as Json), completed: fx.now },
      error: { name: "MessageAbortedError", data: { message: "The agent stopped before this turn finished (closed by recover)" } },
    });
    expectSettledAndRestorable(fx, { rules: ["incomplete-message", "tool-call-interrupted"], original, backup });
  });

  // ------------------------------------------------------------------------------------------
  it("empty-text-part: a blank text next to a tool call is deleted; a blank text that is a reply's only content becomes the placeholder", () => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Check the tax module too."),
        w.assistant([
          w.stepStart(),
          // Whitespace: opencode 1.18 leaves a "" out of the request here (fixtures/opencode-1.18/edited-text).
          textPart(w, "  "),
          w.read("src/invoices/tax.ts", TAX_TS),
          w.stepFinish("tool-calls"),
          w.stepStart(),
          w.text("The tax module already rounds once from integer cents."),
          w.stepFinish("stop"),
        ]),
        w.user("And the discounts module?", { gap: 2 * MINUTE }),
        w.assistant([w.stepStart(), textPart(w, " \n\t "), w.stepFinish("stop")]),
        w.user("Hello?", { gap: 2 * MINUTE }),
        w.assistant([w.stepStart(), w.text("Sorry: discounts are applied before rounding, so they are fine."), w.stepFinish("stop")]),
      ]),
    );
    const empty = partWhere(built, (d) => d.type === "text" && d.text === "  ");
    const blank = partWhere(built, (d) => d.type === "text" && d.text === " \n\t ");
    const fx = setup(format, built);
    const blankBefore = storedPart(load(fx), blank.partId);
    const original = snapshot(fx);

    const { plan: p, backup } = repair(fx);
    expect(ops(p.changes)).toEqual(sorted(`delete part ${empty.partId}`, `update part ${blank.partId}`));
    expect(diff(original, snapshot(fx))).toEqual({
      added: [],
      removed: [`part:${empty.partId}`],
      changed: sorted(`part:${blank.partId}`, `session:${fx.sessionId}`),
    });
    const after = load(fx);
    expect(partIds(after, empty.messageId)).not.toContain(empty.partId);
    expect(storedPart(after, blank.partId)).toEqual({ ...blankBefore, text: INTERRUPTED_PLACEHOLDER, synthetic: true });
    expectSettledAndRestorable(fx, { rules: ["empty-text-part"], original, backup });
  });

  // ------------------------------------------------------------------------------------------
  it("empty-message and thinking-only-message: a placeholder text part, with an opencode-shaped id that sorts last; the signed reasoning stays byte-identical", () => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Rename the rows prop of InvoiceTable to lines."),
        w.assistant([w.stepStart(), w.stepFinish("stop")]),
        w.user("Hello? And is the fix for the totals complete?", { gap: 2 * MINUTE }),
        w.assistant([w.stepStart(), w.reasoning("The totals fix is complete once the tests pass; say so."), w.stepFinish("stop")]),
        w.user("OK, thanks.", { gap: 2 * MINUTE }),
        w.assistant([w.stepStart(), w.text("You're welcome."), w.stepFinish("stop")]),
      ]),
    );
    const emptyId = built.sessions[0]!.messages[3]!.id;
    const thinkingId = messageWhere(built, (m) => m.parts.some((p) => hasText("totals fix is complete")(p.data ?? {})));
    const reasoning = partWhere(built, hasText("totals fix is complete"));
    const fx = setup(format, built);
    const original = snapshot(fx);
    const before = load(fx);
    const emptyParts = partIds(before, emptyId);
    const thinkingParts = partIds(before, thinkingId);
    expect(emptyParts).toHaveLength(2);

    const { plan: p, backup } = repair(fx);
    expect(p.changes.map((c) => `${c.op} ${c.key.record} ${c.key.messageId}`).sort()).toEqual(sorted(`insert part ${emptyId}`, `insert part ${thinkingId}`));
    expect(p.fixed.map((f) => f.rule).sort()).toEqual(["empty-message", "thinking-only-message"]);
    const after = load(fx);
    for (const [messageId, old] of [
      [emptyId, emptyParts],
      [thinkingId, thinkingParts],
    ] as const) {
      const ids = partIds(after, messageId);
      expect(ids.slice(0, -1)).toEqual(old);
      const inserted = ids.at(-1)!;
      expect(inserted).toMatch(PART_ID);
      for (const id of old) expect(inserted > id).toBe(true);
      expect(storedPart(after, inserted)).toEqual({ type: "text", text: INTERRUPTED_PLACEHOLDER, synthetic: true, time: { start: fx.now, end: fx.now } });
    }
    const d = diff(original, snapshot(fx));
    expect(d.removed).toEqual([]);
    expect(d.changed).toEqual([`session:${fx.sessionId}`]);
    expect(d.added).toEqual(sorted(...p.changes.map((c) => `part:${c.key.id}`)));
    // The signed reasoning: the same bytes, its signature untouched.
    expect(snapshot(fx).records.get(`part:${reasoning.partId}`)).toBe(original.records.get(`part:${reasoning.partId}`));
    expect((storedPart(after, reasoning.partId).metadata as { anthropic: { signature: string } }).anthropic.signature).toMatch(/^EqQB[A-Za-z0-9+/]{320}$/);
    expectSettledAndRestorable(fx, { rules: ["empty-message", "thinking-only-message"], original, backup });
  });

  it("empty-message: an assistant message with no parts at all gets the placeholder as its only part", () => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Rename the rows prop of InvoiceTable to lines."),
        w.assistant([]),
        w.user("Hello?", { gap: 2 * MINUTE }),
        w.assistant([w.stepStart(), w.text("Renamed it in InvoiceTable.tsx and its two callers."), w.stepFinish("stop")]),
      ]),
    );
    const emptyId = built.sessions[0]!.messages[3]!.id;
    expect(built.sessions[0]!.messages[3]!.parts).toEqual([]);
    const fx = setup(format, built);
    const findings = rescan(fx).map((f) => `${f.rule} ${f.messageId}`);
    expect(findings).toEqual([`empty-message ${emptyId}`]);
    const original = snapshot(fx);
    const { plan: p, backup } = repair(fx);
    expect(p.changes.map((c) => `${c.op} ${c.key.record} ${c.key.messageId}`)).toEqual([`insert part ${emptyId}`]);
    const [only] = partIds(load(fx), emptyId);
    expect(only).toMatch(PART_ID);
    // The id's time field is the message's creation time (opencode mints a part after its message).
    expect(only!.slice(4, 16) >= emptyId.slice(4, 16)).toBe(true);
    expectSettledAndRestorable(fx, { rules: ["empty-message"], original, backup });
  });

  // ------------------------------------------------------------------------------------------
  it("trailing-thinking: the placeholder goes right after the trailing reasoning, before the next step-start", () => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Check the tax module and the discounts module."),
        w.assistant([
          w.stepStart(),
          w.reasoning("Read the tax module first."),
          w.read("src/invoices/tax.ts", TAX_TS),
          w.reasoning("Tax rounds once. Discounts next."),
          w.stepFinish("tool-calls"),
          w.stepStart(),
          w.text("Both modules round once from integer cents; nothing to change."),
          w.stepFinish("stop"),
        ]),
      ]),
    );
    const trailing = partWhere(built, hasText("Discounts next."));
    const fx = setup(format, built);
    expect(rescan(fx).map((f) => `${f.rule} ${f.partId}`)).toEqual([`trailing-thinking ${trailing.partId}`]);
    const before = partIds(load(fx), trailing.messageId);
    const original = snapshot(fx);

    const { plan: p, backup } = repair(fx);
    expect(p.changes).toHaveLength(1);
    const inserted = p.changes[0]!.key.id;
    expect(inserted).toMatch(PART_ID);
    const after = partIds(load(fx), trailing.messageId);
    const at = before.indexOf(trailing.partId);
    expect(after).toEqual([...before.slice(0, at + 1), inserted, ...before.slice(at + 1)]);
    expect(inserted > trailing.partId && inserted < before[at + 2]!).toBe(true);
    expect(diff(original, snapshot(fx))).toEqual({ added: [`part:${inserted}`], removed: [], changed: [`session:${fx.sessionId}`] });
    expectSettledAndRestorable(fx, { rules: ["trailing-thinking"], original, backup });
  });

  it("trailing-thinking: when the next part was minted in the same millisecond there is no room in the time field, and the id still sorts between", () => {
    const built = storeOf(
      sessionOf((w) => {
        const prompt = w.user("Check the tax module too.");
        const firstStep = [
          w.stepStart(),
          w.reasoning("Read the tax module first."),
          w.text("Reading the tax module."),
          w.read("src/invoices/tax.ts", TAX_TS),
          w.stepFinish("tool-calls"),
        ];
        const stepStart = w.stepStart();
        // The reasoning and the step-finish after it land in the same millisecond: ids with counters 1 and 2.
        const reasoning = w.reasoning("It rounds once from integer cents, so nothing to change. Tell the user.");
        const finish = { ...w.stepFinish("stop"), time: reasoning.time! };
        return [
          prompt,
          w.assistant([...firstStep, stepStart, reasoning, finish]),
          w.user("So?", { gap: 2 * MINUTE }),
          w.assistant([w.stepStart(), w.text("The tax module is fine."), w.stepFinish("stop")]),
        ];
      }),
    );
    const trailing = partWhere(built, hasText("Tell the user"));
    const fx = setup(format, built);
    const before = partIds(load(fx), trailing.messageId);
    const at = before.indexOf(trailing.partId);
    const next = before[at + 1]!;
    expect(next.slice(4, 16), "precondition: consecutive ticks of one millisecond").toBe(
      (Number.parseInt(trailing.partId.slice(4, 16), 16) + 1).toString(16).padStart(12, "0"),
    );
    const original = snapshot(fx);
    const { plan: p, backup } = repair(fx);
    const inserted = p.changes[0]!.key.id;
    expect(inserted).toMatch(PART_ID);
    expect(inserted > trailing.partId && inserted < next).toBe(true);
    expect(partIds(load(fx), trailing.messageId)).toEqual([...before.slice(0, at + 1), inserted, ...before.slice(at + 1)]);
    expectSettledAndRestorable(fx, { rules: ["trailing-thinking"], original, backup });
  });

  // BUG: idAfter (src/stores/opencode/ids.ts:63 and :67) decides whether its candidate sorts before `next` by
  // comparing id strings. Across the 2026-08-14T11:19:55.136Z wrap of the 48-bit id time field a part minted just
  // before the wrap (prt_fffff…) sorts AFTER one minted just after it (prt_00000…) as strings, although the store
  // loads them in time order (record-builder sortParts unwraps the time). So for a turn that straddles the wrap
  // there is "no id between" them, idAfter throws a plain Error, and planning the session crashes (no plan at all,
  // not a RecoverError). The candidate (previous time + 1 tick) was right: compared unwrapped it sorts between.
  it("trailing-thinking: a turn straddling the id wrap gets its placeholder between the pre-wrap reasoning and the post-wrap step-finish", () => {
    const WRAP = Date.parse("2026-08-14T11:19:55.136Z");
    const built = storeOf(
      sessionOf(
        (w) => {
          const prompt = w.user("Check the tax module too.", { gap: 2 * SECOND });
          const firstStep = [
            w.stepStart(),
            w.reasoning("Read the tax module first."),
            w.text("Reading the tax module."),
            w.read("src/invoices/tax.ts", TAX_TS),
            w.stepFinish("tool-calls"),
          ];
          const stepStart = w.stepStart();
          const reasoning = { ...w.reasoning("It rounds once from integer cents, so nothing to change. Tell the user."), time: WRAP - 2 * SECOND };
          const finish = { ...w.stepFinish("stop"), time: WRAP + 150 };
          return [
            prompt,
            w.assistant([...firstStep, stepStart, reasoning, finish]),
            w.user("So?", { gap: 2 * MINUTE }),
            w.assistant([w.stepStart(), w.text("The tax module is fine."), w.stepFinish("stop")]),
          ];
        },
        { start: WRAP - 2 * MINUTE, opening: false },
      ),
    );
    const trailing = partWhere(built, hasText("Tell the user"));
    const fx = setup(format, built);
    expect(rescan(fx).map((f) => `${f.rule} ${f.partId}`)).toEqual([`trailing-thinking ${trailing.partId}`]);
    const before = partIds(load(fx), trailing.messageId);
    const at = before.indexOf(trailing.partId);
    expect(before[at + 1]!.startsWith("prt_0000"), "precondition: the step-finish was minted after the wrap").toBe(true);
    const original = snapshot(fx);
    const { plan: p, backup } = repair(fx);
    const inserted = p.changes[0]!.key.id;
    expect(inserted).toMatch(PART_ID);
    expect(partIds(load(fx), trailing.messageId)).toEqual([...before.slice(0, at + 1), inserted, ...before.slice(at + 1)]);
    expectSettledAndRestorable(fx, { rules: ["trailing-thinking"], original, backup });
  });

  // ------------------------------------------------------------------------------------------
  it("thinking-block-order: reasoning after text in an earlier turn is deleted, nothing else changes", () => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Check the tax module too."),
        w.assistant([
          w.stepStart(),
          w.text("Let me look at the tax module."),
          w.reasoning("Tax might round per line as well; read it."),
          w.read("src/invoices/tax.ts", TAX_TS),
          w.stepFinish("tool-calls"),
          w.stepStart(),
          w.reasoning("It rounds once from integer cents: fine."),
          w.text("The tax module already rounds once from integer cents; nothing to change there."),
          w.stepFinish("stop"),
        ]),
        w.user("Great. Commit it.", { gap: 2 * MINUTE }),
        w.assistant([
          w.stepStart(),
          w.bash("git commit -am 'Round invoice totals once'", "Commit", "[main 4f2a9c1] Round invoice totals once\n"),
          w.stepFinish("tool-calls"),
          w.stepStart(),
          w.text("Committed."),
          w.stepFinish("stop"),
        ]),
      ]),
    );
    const late = partWhere(built, hasText("Tax might round per line"));
    const fx = setup(format, built);
    const original = snapshot(fx);
    const { plan: p, backup } = repair(fx);
    expect(ops(p.changes)).toEqual([`delete part ${late.partId}`]);
    expect(diff(original, snapshot(fx))).toEqual({ added: [], removed: [`part:${late.partId}`], changed: [`session:${fx.sessionId}`] });
    expectSettledAndRestorable(fx, { rules: ["thinking-block-order"], original, backup });
  });

  it("thinking-block-order: misplaced reasoning in the latest tool-use turn takes the whole turn out, every part listed; the session ends on the prompt", () => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Check the tax module too."),
        // The provider ended the stream without a usable finish reason; opencode went on in a second message.
        w.assistant([w.stepStart(), w.text("Let me look at the tax module."), w.stepFinish("unknown")]),
        w.assistant([
          w.stepStart(),
          w.reasoning("Tax might round per line as well; read it."),
          w.read("src/invoices/tax.ts", TAX_TS),
          w.stepFinish("tool-calls"),
          w.stepStart(),
          w.reasoning("It rounds once from integer cents: fine."),
          w.text("The tax module already rounds once from integer cents; nothing to change there."),
          w.stepFinish("stop"),
        ]),
      ]),
    );
    const session = built.sessions[0]!;
    const prompt = session.messages[2]!;
    const turn = session.messages.slice(3);
    expect(turn.map((m) => m.role)).toEqual(["assistant", "assistant"]);
    const fx = setup(format, built);
    const original = snapshot(fx);
    const { plan: p, backup } = repair(fx);
    const expectedKeys = turn.flatMap((m) => [`message ${m.id}`, ...m.parts.map((x) => `part ${x.id}`)]);
    expect(ops(p.changes)).toEqual(expectedKeys.map((k) => `delete ${k}`).sort());
    expect(diff(original, snapshot(fx))).toEqual({
      added: [],
      removed: expectedKeys.map((k) => k.replace(" ", ":")).sort(),
      changed: [`session:${fx.sessionId}`],
    });
    const after = load(fx);
    expect(after.messages.map((m) => m.ref.id)).toEqual(session.messages.slice(0, 3).map((m) => m.id));
    expect(after.messages.at(-1)!.ref.id).toBe(prompt.id);
    expect(after.orphanParts).toEqual([]);
    expectSettledAndRestorable(fx, { rules: ["thinking-block-order"], original, backup });
  });

  // ------------------------------------------------------------------------------------------
  it("unsigned-thinking: left alone by default, the reasoning is deleted when the rule is asked for", () => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Is the fix safe for negative amounts (credit notes)?"),
        w.assistant([
          w.stepStart(),
          w.reasoning("Math.round rounds half up, toward +infinity, so -0.5 becomes -0 and not -1.", { signed: false }),
          w.text("Mostly: `Math.round(-0.5)` is `-0`, so credit notes round toward zero on exact halves."),
          w.stepFinish("stop"),
        ]),
      ]),
    );
    const reasoning = partWhere(built, hasText("rounds half up"));
    const fx = setup(format, built);
    const original = snapshot(fx);
    const byDefault = plan(fx);
    expect(byDefault.changes).toEqual([]);
    expect(byDefault.fixed).toEqual([]);
    expect(snapshot(fx).records).toEqual(original.records);

    const asked = repairRules("unsigned-thinking");
    const { plan: p, backup } = repair(fx, { rules: asked });
    expect(ops(p.changes)).toEqual([`delete part ${reasoning.partId}`]);
    expect(diff(original, snapshot(fx))).toEqual({ added: [], removed: [`part:${reasoning.partId}`], changed: [`session:${fx.sessionId}`] });
    expectSettledAndRestorable(fx, { rules: ["unsigned-thinking"], original, backup, replanRules: asked });
  });

  // ------------------------------------------------------------------------------------------
  it("duplicate-tool-call-id: the later call gets a fresh toolu_01 id, the first keeps its own, nothing is deleted", () => {
    const dup = "toolu_01P11ApEG5TWOVSLC0aLjscP";
    const built = storeOf(
      sessionOf((w) => [
        w.user("Which dependencies are outdated?"),
        w.assistant([
          w.stepStart(),
          w.tool("bash", { command: "npm outdated", description: "List outdated" }, { output: "zod 3.23.8 4.1.0\n", title: "List outdated", callID: dup }),
          w.stepFinish("tool-calls"),
          w.stepStart(),
          w.text("Only zod."),
          w.stepFinish("stop"),
        ]),
        w.user("Bump it.", { gap: 2 * MINUTE }),
        w.assistant([
          w.stepStart(),
          w.tool("bash", { command: "npm install zod@4", description: "Bump zod" }, { output: "changed 1 package\n", title: "Bump zod", callID: dup }),
          w.stepFinish("tool-calls"),
          w.stepStart(),
          w.text("Bumped zod to 4.1.0."),
          w.stepFinish("stop"),
        ]),
      ]),
    );
    const first = partWhere(built, (d) => d.type === "tool" && (d.state as { input: Json }).input.command === "npm outdated");
    const later = partWhere(built, (d) => d.type === "tool" && (d.state as { input: Json }).input.command === "npm install zod@4");
    const fx = setup(format, built);
    const laterBefore = storedPart(load(fx), later.partId);
    const original = snapshot(fx);
    const { plan: p, backup } = repair(fx);
    expect(ops(p.changes)).toEqual([`update part ${later.partId}`]);
    expect(diff(original, snapshot(fx))).toEqual({ added: [], removed: [], changed: sorted(`part:${later.partId}`, `session:${fx.sessionId}`) });
    const after = load(fx);
    expect(storedPart(after, first.partId).callID).toBe(dup);
    const fresh = storedPart(after, later.partId).callID as string;
    expect(fresh).toMatch(TOOLU_ID);
    expect(fresh).not.toBe(dup);
    expect(storedPart(after, later.partId)).toEqual({ ...laterBefore, callID: fresh });
    expectSettledAndRestorable(fx, { rules: ["duplicate-tool-call-id"], original, backup });
  });

  it("duplicate-tool-call-id: an OpenAI-style call_ id is replaced by one of the same family", () => {
    const dup = "call_Xy7Qe2mN4pR8sT1uV3wZ5aB9";
    const built = storeOf(
      sessionOf((w) => [
        w.user("Which dependencies are outdated?"),
        w.assistant([
          w.stepStart(),
          w.tool("bash", { command: "npm outdated", description: "List outdated" }, { output: "zod 3.23.8 4.1.0\n", title: "List outdated", callID: dup }),
          w.stepFinish("tool-calls"),
          w.stepStart(),
          w.text("Only zod."),
          w.stepFinish("stop"),
        ]),
        w.user("Bump it.", { gap: 2 * MINUTE }),
        w.assistant([
          w.stepStart(),
          w.tool("bash", { command: "npm install zod@4", description: "Bump zod" }, { output: "changed 1 package\n", title: "Bump zod", callID: dup }),
          w.stepFinish("tool-calls"),
          w.stepStart(),
          w.text("Bumped."),
          w.stepFinish("stop"),
        ]),
      ]),
    );
    const later = partWhere(built, (d) => d.type === "tool" && (d.state as { input: Json }).input.command === "npm install zod@4");
    const fx = setup(format, built);
    const original = snapshot(fx);
    const { backup } = repair(fx);
    expect(storedPart(load(fx), later.partId).callID).toMatch(/^call_[0-9A-Za-z]{24}$/);
    expectSettledAndRestorable(fx, { rules: ["duplicate-tool-call-id"], original, backup });
  });

  // ------------------------------------------------------------------------------------------
  it("corrupted-tool-output: NUL characters, a lone surrogate and invalid UTF-8 bytes are stripped; the rest of each record is unchanged", () => {
    const NUL_OUTPUT = "\u0089PNG\r\n\u001a\n\u0000\u0000\u0000\rIHDR\u0000\u0000\u0002\u0080";
    const EMOJI_CUT = "Export finished \u{1F600}".slice(0, -1); // the high surrogate \ud83d alone
    const CSV = "id;name\n1;Hans Mueller\n2;Lena Mueller\n";
    const built = storeOf(
      sessionOf((w) => [
        w.user("What do the export scripts print?"),
        w.assistant([
          w.stepStart(),
          w.text("Running them."),
          w.bash("head -c 24 logo.png", "Dump logo header", NUL_OUTPUT),
          w.tool("bash", { command: "bash scripts/export.sh", description: "Run export script" }, { output: EMOJI_CUT, title: "Run export script" }),
          {
            ...w.tool("bash", { command: "cat customers.csv", description: "Show customers" }, { output: CSV, title: "Show customers" }),
            corrupt: replaceWithBytes("Mueller", Buffer.from([0x4d, 0xfc, 0x6c, 0x6c, 0x65, 0x72])),
          },
          w.stepFinish("tool-calls"),
          w.stepStart(),
          w.text("The logo is a PNG, the export prints its header, and the CSV holds two customers."),
          w.stepFinish("stop"),
        ]),
      ]),
    );
    const command = (c: string) => (d: Json) => d.type === "tool" && (d.state as { input: Json }).input.command === c;
    const nul = partWhere(built, command("head -c 24 logo.png"));
    const lone = partWhere(built, command("bash scripts/export.sh"));
    const latin1 = partWhere(built, command("cat customers.csv"));
    const fx = setup(format, built);
    const before = load(fx);
    // Preconditions: the damage is really stored as described.
    const raw = (id: string) => before.messages.flatMap((m) => m.parts).find((x) => x.ref.id === id)!.raw!;
    expect(raw(lone.partId).toString("latin1")).toContain("\\ud83d");
    expect(raw(latin1.partId).includes(Buffer.from([0x4d, 0xfc, 0x6c]))).toBe(true);
    expect(raw(nul.partId).toString("latin1")).toContain("\\u0000");
    expect(
      rescan(fx)
        .map((f) => `${f.rule} ${f.partId}`)
        .sort(),
    ).toEqual(sorted(...[nul, lone, latin1].map((x) => `corrupted-tool-output ${x.partId}`)));
    const nulBefore = storedPart(before, nul.partId);
    const loneBefore = storedPart(before, lone.partId);
    const latinBefore = storedPart(before, latin1.partId);
    const original = snapshot(fx);

    const { plan: p, backup } = repair(fx);
    expect(ops(p.changes)).toEqual(sorted(...[nul, lone, latin1].map((x) => `update part ${x.partId}`)));
    expect(diff(original, snapshot(fx))).toEqual({
      added: [],
      removed: [],
      changed: sorted(...[nul, lone, latin1].map((x) => `part:${x.partId}`), `session:${fx.sessionId}`),
    });
    const after = load(fx);
    const clean = NUL_OUTPUT.replaceAll("\u0000", "");
    const nulState = nulBefore.state as Json;
    expect(storedPart(after, nul.partId)).toEqual({
      ...nulBefore,
      state: { ...nulState, output: clean, metadata: { ...(nulState.metadata as Json), output: clean } },
    });
    expect(storedPart(after, lone.partId)).toEqual({ ...loneBefore, state: { ...(loneBefore.state as Json), output: "Export finished " } });
    const latinState = latinBefore.state as Json;
    expect(latinState.output).toBe("id;name\n1;Hans M\ufffdller\n2;Lena M\ufffdller\n");
    expect(storedPart(after, latin1.partId)).toEqual({ ...latinBefore, state: { ...latinState, output: "id;name\n1;Hans Mller\n2;Lena Mller\n" } });
    for (const x of [nul, lone, latin1]) {
      const bytes = after.messages.flatMap((m) => m.parts).find((r) => r.ref.id === x.partId)!.raw!;
      expect(new TextDecoder("utf-8", { fatal: true }).decode(bytes).isWellFormed()).toBe(true);
    }
    expectSettledAndRestorable(fx, { rules: ["corrupted-tool-output"], original, backup });
  });

  it("corrupted-tool-output: a lone surrogate in a tool call's input goes, and the call stays the same call with the same fields", () => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Print the party emoji."),
        w.assistant([
          w.stepStart(),
          w.tool("bash", { command: "echo \ud83d done", description: "Print it" }, { output: "\n", title: "Print it" }),
          w.stepFinish("tool-calls"),
          w.stepStart(),
          w.text("It printed a broken character."),
          w.stepFinish("stop"),
        ]),
      ]),
    );
    const call = partWhere(built, (d) => d.type === "tool" && (d.state as { input: Json }).input.description === "Print it");
    const fx = setup(format, built);
    const before = storedPart(load(fx), call.partId);
    const original = snapshot(fx);
    const { plan: p, backup } = repair(fx);
    expect(ops(p.changes)).toEqual([`update part ${call.partId}`]);
    const state = before.state as Json;
    expect(storedPart(load(fx), call.partId)).toEqual({ ...before, state: { ...state, input: { command: "echo  done", description: "Print it" } } });
    expectSettledAndRestorable(fx, { rules: ["corrupted-tool-output"], original, backup });
  });

  // BUG: cleanStrings(value, true) (src/plan/fixes.ts:34) deletes EVERY U+FFFD of every string in the record. The
  // invalid bytes became U+FFFD in the lossy decode, but so is a real, validly encoded U+FFFD elsewhere in the
  // record (the rule's own tests call that valid text), and the fix cannot tell them apart in the decoded string.
  // Input: output "name: Gr\uFFFDn (decoded upstream)\n1;Hans M<0xFC>ller\n". Expected output after the fix:
  // "name: Gr\uFFFDn (decoded upstream)\n1;Hans Mller\n". Actual: "name: Grn (decoded upstream)\n1;Hans Mller\n".
  it("corrupted-tool-output: only the invalid bytes go; a real U+FFFD elsewhere in the output is valid text and stays", () => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("What does the customers file hold?"),
        w.assistant([
          w.stepStart(),
          w.text("Showing it."),
          {
            ...w.tool(
              "bash",
              { command: "cat customers.csv", description: "Show customers" },
              { output: "name: Gr\uFFFDn (decoded upstream)\n1;Hans Mueller\n", title: "Show customers" },
            ),
            corrupt: replaceWithBytes("Mueller", Buffer.from([0x4d, 0xfc, 0x6c, 0x6c, 0x65, 0x72])),
          },
          w.stepFinish("tool-calls"),
          w.stepStart(),
          w.text("Two customers."),
          w.stepFinish("stop"),
        ]),
      ]),
    );
    const tool = partWhere(built, (d) => d.type === "tool" && d.tool === "bash");
    const fx = setup(format, built);
    expect(rescan(fx).map((f) => `${f.rule} ${f.partId}`)).toEqual([`corrupted-tool-output ${tool.partId}`]);
    const original = snapshot(fx);
    const { backup } = repair(fx);
    expect((storedPart(load(fx), tool.partId).state as Json).output).toBe("name: Gr\uFFFDn (decoded upstream)\n1;Hans Mller\n");
    expectSettledAndRestorable(fx, { rules: ["corrupted-tool-output"], original, backup });
  });

  // BUG: salvagePart (src/plan/fixes.ts:61, `cleanStrings(salvaged.value, true)`) strips every U+FFFD from a torn
  // record even when its bytes are valid UTF-8: a torn text "Customer Gr\uFFFDn has total 12…" is salvaged as
  // "Customer Grn has total 12" instead of "Customer Gr\uFFFDn has total 12" (salvageMessage, :89, does the same).
  it("unreadable-record: salvaging a torn record keeps a real U+FFFD its valid UTF-8 bytes hold", () => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Summarise the customers."),
        w.assistant([w.stepStart(), { ...w.text("Customer Gr\uFFFDn has total 12.50 EUR."), corrupt: truncateAfter("total 12") }, w.stepFinish("stop")]),
      ]),
    );
    const torn = partWhere(built, hasText("total 12.50"));
    const fx = setup(format, built);
    expect(rescan(fx).map((f) => `${f.rule} ${f.partId}`)).toEqual([`unreadable-record ${torn.partId}`]);
    const original = snapshot(fx);
    const { backup } = repair(fx);
    expect(storedPart(load(fx), torn.partId)).toEqual({ type: "text", text: "Customer Gr\uFFFDn has total 12" });
    expectSettledAndRestorable(fx, { rules: ["unreadable-record"], original, backup });
  });

  // ------------------------------------------------------------------------------------------
  it("unreadable-record: a torn text part keeps its prefix; a torn tool output becomes an interrupted call; a zero-filled part is deleted", () => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Run the whole suite."),
        w.assistant([
          w.stepStart(),
          w.reasoning("Run everything once to be sure."),
          w.text("Running the full suite."),
          { ...w.bash("npm test", "Run all tests", SUITE_OUTPUT), corrupt: truncateAfter("(12 tests)") },
          w.stepFinish("tool-calls"),
          w.stepStart(),
          { ...w.text("Totals are now summed in integer cents and rounded once."), corrupt: truncateAfter("summed in") },
          { ...w.text("All 17 tests pass."), raw: Buffer.alloc(300) },
          w.stepFinish("stop"),
        ]),
      ]),
    );
    const tornTool = partWhere(built, (d) => d.type === "tool" && d.tool === "bash");
    const tornText = partWhere(built, hasText("summed in integer cents"));
    const zeroed = partWhere(built, hasText("All 17 tests pass."));
    const callID = (built.sessions[0]!.messages[3]!.parts.find((x) => x.id === tornTool.partId)!.data as Json).callID as string;
    const fx = setup(format, built);
    expect(
      rescan(fx)
        .map((f) => `${f.rule} ${f.partId}`)
        .sort(),
    ).toEqual(sorted(...[tornTool, tornText, zeroed].map((x) => `unreadable-record ${x.partId}`)));
    const original = snapshot(fx);

    const { plan: p, backup } = repair(fx);
    expect(ops(p.changes)).toEqual(sorted(`update part ${tornTool.partId}`, `update part ${tornText.partId}`, `delete part ${zeroed.partId}`));
    expect(diff(original, snapshot(fx))).toEqual({
      added: [],
      removed: [`part:${zeroed.partId}`],
      changed: sorted(`part:${tornTool.partId}`, `part:${tornText.partId}`, `session:${fx.sessionId}`),
    });
    const after = load(fx);
    expect(storedPart(after, tornText.partId)).toEqual({ type: "text", text: "Totals are now summed in" });
    const prefix = SUITE_OUTPUT.slice(0, SUITE_OUTPUT.indexOf("(12 tests)") + "(12 tests)".length);
    expect(storedPart(after, tornTool.partId)).toEqual({
      type: "tool",
      callID,
      tool: "bash",
      state: {
        status: "error",
        input: { command: "npm test", description: "Run all tests" },
        error: CORRUPTED_OUTPUT_PLACEHOLDER,
        metadata: { interrupted: true, output: `${prefix}\n${CORRUPTED_OUTPUT_PLACEHOLDER}` },
        time: { start: fx.now, end: fx.now },
      },
    });
    expect(partIds(after, zeroed.messageId)).not.toContain(zeroed.partId);
    expectSettledAndRestorable(fx, { rules: ["unreadable-record"], original, backup });
  });

  it("unreadable-record: a torn message record is rebuilt around its parts, which are kept as they are", () => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Run the whole suite."),
        {
          ...w.assistant([w.stepStart(), w.text("Running the full suite."), w.bash("npm test", "Run all tests", SUITE_OUTPUT), w.stepFinish("tool-calls")]),
          raw: '{"role":"assistant","ti',
        },
        w.user("Did it pass?", { gap: 5 * MINUTE }),
        w.assistant([w.stepStart(), w.text("Yes, all 17 tests passed."), w.stepFinish("stop")]),
      ]),
    );
    const session = built.sessions[0]!;
    const torn = session.messages[3]!;
    const previousUser = session.messages[2]!;
    const fx = setup(format, built);
    expect(rescan(fx).map((f) => `${f.rule} ${f.messageId} ${f.partId ?? "-"}`)).toEqual([`unreadable-record ${torn.id} -`]);
    const before = load(fx);
    const tornRecord = before.messages.find((m) => m.ref.id === torn.id)!;
    const createdAt = tornRecord.created;
    const original = snapshot(fx);

    const { plan: p, backup } = repair(fx);
    expect(ops(p.changes)).toEqual([`update message ${torn.id}`]);
    expect(diff(original, snapshot(fx))).toEqual({ added: [], removed: [], changed: sorted(`message:${torn.id}`, `session:${fx.sessionId}`) });
    const after = load(fx);
    const rebuilt = after.messages.find((m) => m.ref.id === torn.id)!;
    expect(rebuilt.problem).toBeUndefined();
    expect(rebuilt.info).toBeDefined();
    expect(storedMessage(after, torn.id)).toEqual({
      role: "assistant",
      time: { created: createdAt, completed: createdAt },
      error: { name: "MessageAbortedError", data: { message: "The message record was damaged; rebuilt by recover" } },
      parentID: previousUser.id,
      modelID: "claude-sonnet-4-5",
      providerID: "anthropic",
      mode: "build",
      agent: "build",
      path: { cwd: "/home/dana/code/invoice-api", root: "/home/dana/code/invoice-api" },
      cost: 0,
      tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
    });
    expect(rebuilt.parts.map((x) => x.ref.id)).toEqual(torn.parts.map((x) => x.id));
    // The session keeps its order: the rebuilt message stays between its prompt and the next one.
    expect(after.messages.map((m) => m.ref.id)).toEqual(session.messages.map((m) => m.id));
    expectSettledAndRestorable(fx, { rules: ["unreadable-record"], original, backup });
  });

  // ------------------------------------------------------------------------------------------
  it("orphan-part: parts whose message is gone are deleted", () => {
    const spec = sessionOf((w) => [w.user("Thanks, that's all.")]);
    const goneAt = Date.UTC(2026, 9, 1, 9, 20, 0);
    const gone = "msg_0a4a7e826001rw3KUB6PZXav00";
    spec.orphanParts = [
      {
        messageId: gone,
        parts: [
          { time: goneAt + SECOND, data: { type: "step-start", snapshot: "9f2c1e0d5b7a43e1c2d8f6a0b9e7c5d3a1f2e4b6" } },
          {
            time: goneAt + 2 * SECOND,
            data: { type: "text", text: "Reverting the rounding change.", time: { start: goneAt + 2 * SECOND, end: goneAt + 3 * SECOND } },
          },
        ],
      },
    ];
    const built = storeOf(spec);
    const orphans = built.sessions[0]!.orphanParts.map((x) => x.id);
    const fx = setup(format, built);
    expect(
      load(fx)
        .orphanParts.map((x) => x.ref.id)
        .sort(),
    ).toEqual(sorted(...orphans));
    const original = snapshot(fx);
    const { plan: p, backup } = repair(fx);
    expect(ops(p.changes)).toEqual(sorted(...orphans.map((id) => `delete part ${id}`)));
    expect(diff(original, snapshot(fx))).toEqual({ added: [], removed: sorted(...orphans.map((id) => `part:${id}`)), changed: [`session:${fx.sessionId}`] });
    expect(load(fx).orphanParts).toEqual([]);
    expectSettledAndRestorable(fx, { rules: ["orphan-part"], original, backup });
  });

  // Issue 14.5: a warning never wipes a conversation. The messages are kept; the session record is recreated.
  it("orphan-part: a session whose record is gone gets it back, and none of its messages or parts is deleted", () => {
    const built = storeOf(sessionOf((w) => [w.user("Thanks, that's all."), w.assistant([w.stepStart(), w.text("You're welcome."), w.stepFinish("stop")])]));
    const session = built.sessions[0]!;
    const fx = setup(format, built, { tamper: dropSessionRecord(session) });
    expect(rescan(fx).map((f) => `${f.rule} ${f.messageId}`)).toEqual(session.messages.map((m) => `orphan-part ${m.id}`));
    const original = snapshot(fx);
    const { plan: p, backup } = repair(fx);
    expect(ops(p.changes)).toEqual([`insert session ${session.id}`]);
    expect(diff(original, snapshot(fx))).toEqual({ added: [`session:${session.id}`], removed: [], changed: [] });
    expect(load(fx).missingSessionRecord).toBeUndefined();
    expect(rescan(fx)).toEqual([]);
    expect(readBackupState(fx, backup.manifest.id)).toBe("done");
    expectRestoresExactly(fx, backup, original);
    expect(rescan(fx).map((f) => `${f.rule} ${f.messageId}`)).toEqual(session.messages.map((m) => `orphan-part ${m.id}`));
  });

  // BUG (JSON tree only): the repair unlinks the message files but leaves the emptied `message/<sessionId>/` folder;
  // OpencodeJsonStore.listStraySessionIds (src/stores/opencode/json-store.ts:101-105) counts every folder under
  // message/ without a session record as a stray session, whether or not it holds a record, and loadSession then
  // throws session-not-found for it. So after this repair `session scan --all` and `session repair --all` exit 2
  // with "recover: no session ses_… in …/storage".
  it("orphan-part: after the orphaned messages are repaired away, every session of the store can still be scanned (--all)", () => {
    const built = storeOf(sessionOf((w) => [w.user("Thanks, that's all."), w.assistant([w.stepStart(), w.text("You're welcome."), w.stepFinish("stop")])]));
    const fx = setup(format, built, { tamper: dropSessionRecord(built.sessions[0]!) });
    repair(fx);
    withOpen(fx, (store) => {
      const ids = selectSessions(store, { ids: [], all: true }, { emptyMeansAll: true });
      for (const id of ids) scanSession(store, id, { rules: RULES, now: fx.later, ...DEFAULT_RULE_OPTIONS });
    });
  });

  it("schema-violation then tool-call-interrupted: a running call without callID gets an id, then is closed, in one record change", () => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Run the invoice tests."),
        w.assistant([
          w.stepStart(),
          w.text("Running them."),
          (() => {
            const spec = w.running("bash", { command: "npx vitest run test/invoices.test.ts", description: "Run invoice tests" });
            delete (spec.data as { callID?: string }).callID;
            return spec;
          })(),
        ]),
        w.user("Still running?", { gap: 20 * MINUTE }),
        w.assistant([w.stepStart(), w.text("It was cut off."), w.stepFinish("stop")]),
      ]),
    );
    const bad = partWhere(built, (d) => d.type === "tool" && !("callID" in d));
    const fx = setup(format, built);
    expect(rescan(fx).map((f) => `${f.rule} ${f.partId}`)).toEqual([`schema-violation ${bad.partId}`]);
    const original = snapshot(fx);
    const { plan: p, backup } = repair(fx);
    expect(ops(p.changes)).toEqual([`update part ${bad.partId}`]);
    expect(p.changes[0]!.rules).toEqual(["schema-violation", "tool-call-interrupted"]);
    const after = storedPart(load(fx), bad.partId);
    expect(after.callID).toMatch(TOOLU_ID);
    expect(after.state).toMatchObject({ status: "error", error: "[Tool execution was interrupted]" });
    expectSettledAndRestorable(fx, { rules: ["schema-violation", "tool-call-interrupted"], original, backup });
  });

  // ------------------------------------------------------------------------------------------
  it("schema-violation: a tool part without callID gets a fresh one and nothing else", () => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Run the invoice tests."),
        w.assistant([
          w.stepStart(),
          w.text("Running them."),
          (() => {
            const spec = w.bash("npx vitest run test/invoices.test.ts", "Run invoice tests", " ✓ test/invoices.test.ts (12 tests)\n");
            delete (spec.data as { callID?: string }).callID;
            return spec;
          })(),
          w.stepFinish("tool-calls"),
          w.stepStart(),
          w.text("All 12 pass."),
          w.stepFinish("stop"),
        ]),
      ]),
    );
    const bad = partWhere(built, (d) => d.type === "tool" && !("callID" in d));
    const fx = setup(format, built);
    const before = storedPart(load(fx), bad.partId);
    const original = snapshot(fx);
    const { plan: p, backup } = repair(fx);
    expect(ops(p.changes)).toEqual([`update part ${bad.partId}`]);
    expect(diff(original, snapshot(fx))).toEqual({ added: [], removed: [], changed: sorted(`part:${bad.partId}`, `session:${fx.sessionId}`) });
    const after = storedPart(load(fx), bad.partId);
    expect(after.callID).toMatch(TOOLU_ID);
    expect(after).toEqual({ ...before, callID: after.callID });
    expectSettledAndRestorable(fx, { rules: ["schema-violation"], original, backup });
  });
});
