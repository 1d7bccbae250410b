// provider-rejects: the request the agent would send, checked against the Anthropic API's own rules. Run with every
// rule it reports only what no specific rule reported (one defect, one finding); run alone it reports each
// violation in the API's words. Through the rule harness on both store formats, the bundled demo store, and once
// through the built CLI.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { RULES } from "../../src/rules/index.js";
import { providerRejects } from "../../src/rules/provider-rejects.js";
import type { Finding, Rule } from "../../src/rules/rule.js";
import { scanSession } from "../../src/scan/scan.js";
import { openStore } from "../../src/stores/discover.js";
import { healthySession, MINUTE, SECOND, type BuiltStore, type Json } from "../support/opencode-fixtures.js";
import {
  expected,
  FORMATS,
  HOUR,
  lastWrite,
  LIMITS,
  scan,
  sessionOf,
  spots,
  START,
  storeOf,
  tempDir,
  textPart,
  TOTALS_TS,
  UNFINISHED,
  unsignedReasoning,
  userMessage,
  withStore,
  writeStore,
  type Format,
} from "./harness.js";
import { partsOf, messageIdOf } from "../provider/request-support.js";
import { run } from "../cli/run.js";

const API = (text: string) => `the API would answer: ${text}`;

/** These rules only, over the first session, an hour after its last write. */
function scanWith(format: Format, built: BuiltStore, rules: readonly Rule[], now = lastWrite(built) + HOUR): Finding[] {
  return withStore(format, built, (store) => scanSession(store, built.sessions[0]!.id, { rules, now, ...LIMITS }).findings);
}

const ofRule = (findings: Finding[], rule: string) => findings.filter((f) => f.rule === rule);

describe.each(FORMATS)("provider-rejects on sessions the API accepts (%s store)", (format) => {
  it("a healthy six-turn session: no finding of any rule", () => {
    const built = storeOf(healthySession({ start: START, turns: 6 }));
    expect(scan(format, built, { now: lastWrite(built) + HOUR })).toEqual([]);
    expect(scanWith(format, built, [providerRejects])).toEqual([]);
  });

  it("skipped errored and empty turns, merged prompts, an interrupted call, unsigned and other-model reasoning: nothing the API rejects", () => {
    const opus = { providerID: "anthropic", modelID: "claude-opus-4-1" };
    const built = storeOf(
      sessionOf((w) => [
        w.user("Apply the fix.", { info: { model: opus } }),
        w.assistant([w.stepStart(), w.reasoning("Opus: edit totals.ts.")], {
          ...opus,
          error: { name: "APIError", data: { message: "Overloaded", statusCode: 529, isRetryable: true } },
        }),
        w.user("Try again, please."),
        w.assistant([
          w.stepStart(),
          unsignedReasoning(w, "Sum integer cents, round once."),
          w.text("Applying the fix and running the tests."),
          w.edit("src/invoices/totals.ts", "Math.round(l.quantity * l.unitPrice * 100) / 100", "l.quantity * l.unitPrice"),
          w.bash("npx vitest run test/invoices", "Run invoice tests", " ✓ test/invoices/totals.test.ts (1 test) 4ms\n"),
          w.stepFinish("tool-calls"),
          w.stepStart(),
          w.text("Done: totals are rounded once and the tests pass."),
          w.stepFinish("stop"),
        ]),
      ]),
    );
    expect(scanWith(format, built, [providerRejects])).toEqual([]);
    expect(ofRule(scan(format, built, { now: lastWrite(built) + HOUR }), "provider-rejects")).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
describe("provider-rejects on the bundled demo store, with every rule", () => {
  it.each([
    ["opencode-sqlite", "fixtures/demo/opencode"],
    ["opencode-json", "fixtures/demo/opencode-legacy"],
  ])("%s: not one provider-rejects finding (every planted defect belongs to a specific rule)", (format, source) => {
    const copy = path.join(tempDir(), "store");
    fs.cpSync(source, copy, { recursive: true });
    try {
      const store = openStore({ store: copy });
      try {
        expect(store.info.format).toBe(format);
        const ids = store.listSessions().map((s) => s.id);
        expect(ids.length).toBeGreaterThan(5);
        const now = Date.now();
        const findings = ids.flatMap((id) => scanSession(store, id, { rules: RULES, now, ...LIMITS }).findings);
        // The demo has defects for the other rules, so the check is not vacuous…
        expect(new Set(findings.map((f) => f.rule)).size).toBeGreaterThan(10);
        // …but provider-rejects adds nothing to them.
        expect(ofRule(findings, "provider-rejects")).toEqual([]);
        // Alone, it sees what the API would reject in the planted defects.
        const alone = ids.flatMap((id) => scanSession(store, id, { rules: [providerRejects], now, ...LIMITS }).findings);
        expect(alone.length).toBeGreaterThan(0);
        for (const f of alone) expect(f.message).toMatch(/^the API would answer: /);
      } finally {
        store.close();
      }
    } finally {
      fs.rmSync(path.dirname(copy), { recursive: true, force: true });
    }
  });
});

// ---------------------------------------------------------------------------------------------
describe.each(FORMATS)("what only provider-rejects catches (%s store)", (format) => {
  it("the first prompt's record is gone: the request opens on an assistant message, which leading-assistant reports (and fixes), not this rule", () => {
    const built = storeOf(
      sessionOf(
        (w) => [
          // The assistant answers a user message that is no longer in the store.
          w.assistant([w.stepStart(), w.reasoning("Continue the refactor where it stopped."), w.text("Continuing the refactor."), w.stepFinish("stop")], {
            parentID: "msg_0f6b12e50001g9BHONa7bZPqnX",
          }),
          w.user("Thanks, now run the tests.", { gap: 2 * SECOND }),
          w.assistant([w.stepStart(), w.text("All green."), w.stepFinish("stop")]),
        ],
        { opening: false },
      ),
    );
    const reasoning = partsOf(built, 0)[1]!;
    const findings = scan(format, built, { now: lastWrite(built) + HOUR });
    expect(spots(findings)).toEqual(expected({ rule: "leading-assistant", severity: "error", messageId: reasoning.messageId, partId: reasoning.id }));
    expect(findings[0]!.message).toContain('first message must use the "user" role');
    expect(findings[0]!.fixable).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------
interface Defect {
  name: string;
  built: BuiltStore;
  /** The specific rule that reports it (with every rule). */
  rule: string;
  /** Where both report it. */
  at: () => { messageId: string; partId?: string };
  /** What provider-rejects says, run alone. */
  text: string;
}

const TAX_TS = "export const tax = (subtotalCents: number) => Math.round(subtotalCents * 0.2);";

// In every session the opening turn is request messages 0–3; the next prompt is 4, its answer 5…
const DEFECTS: Defect[] = [
  (() => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Check the tax module."),
        w.assistant([w.stepStart(), w.text("   "), w.text("The tax module rounds once."), w.stepFinish("stop")]),
      ]),
    );
    return {
      name: "a whitespace-only text part",
      built,
      rule: "empty-text-part",
      at: () => ({ messageId: messageIdOf(built, 3), partId: partsOf(built, 3)[1]!.id }),
      text: "text content blocks must contain non-whitespace text",
    };
  })(),
  (() => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Check the tax module."),
        // opencode 1.18 sends "" beside signed reasoning as " " (fixtures/opencode-1.18/edited-text-thinking).
        w.assistant([w.stepStart(), w.reasoning("Tax rounds once."), textPart(w, ""), w.text("The tax module rounds once."), w.stepFinish("stop")]),
      ]),
    );
    return {
      name: "an empty text part beside signed reasoning (sent as a space)",
      built,
      rule: "empty-text-part",
      at: () => ({ messageId: messageIdOf(built, 3), partId: partsOf(built, 3)[2]!.id }),
      text: "text content blocks must contain non-whitespace text",
    };
  })(),
  (() => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Check the tax module."),
        w.assistant([
          w.stepStart(),
          w.text("Let me look at the tax module."),
          w.reasoning("Tax might round per line too."),
          w.read("src/invoices/tax.ts", TAX_TS),
          w.stepFinish("tool-calls"),
          w.stepStart(),
          w.text("It rounds once."),
          w.stepFinish("stop"),
        ]),
      ]),
    );
    return {
      name: "reasoning after text in one step",
      built,
      rule: "thinking-block-order",
      at: () => ({ messageId: messageIdOf(built, 3), partId: partsOf(built, 3)[2]!.id }),
      text: "messages.5.content.0: If an assistant message contains any thinking blocks, the first block must be thinking or redacted_thinking. Found text.",
    };
  })(),
  (() => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Check the tax module."),
        w.assistant([
          w.stepStart(),
          w.reasoning("Read the tax module."),
          w.read("src/invoices/tax.ts", TAX_TS),
          w.stepFinish("tool-calls"),
          w.stepStart(),
          w.reasoning("It rounds once: fine."),
          w.stepFinish("stop"),
        ]),
        w.user("And?"),
        w.assistant([w.stepStart(), w.text("It rounds once: nothing to change."), w.stepFinish("stop")]),
      ]),
    );
    return {
      name: "a step that ends on reasoning",
      built,
      rule: "trailing-thinking",
      at: () => ({ messageId: messageIdOf(built, 3), partId: partsOf(built, 3)[5]!.id }),
      text: "messages.7: The final block in an assistant message cannot be `thinking`.",
    };
  })(),
  (() => {
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
    // A replaying proxy handed out the first call's id again.
    const first = partsOf(built, 1).find((p) => p.data?.type === "tool")!;
    const again = partsOf(built, 3).find((p) => p.data?.type === "tool")!;
    (again.data as Json).callID = (first.data as Json).callID;
    return {
      name: "a reused tool call id",
      built,
      rule: "duplicate-tool-call-id",
      at: () => ({ messageId: messageIdOf(built, 3), partId: again.id }),
      text: "messages.5.content.0: `tool_use` ids must be unique",
    };
  })(),
  (() => {
    const built = storeOf(
      sessionOf((w) => [
        // Only the attached file's part survived; the prompt and the expanded text were lost.
        userMessage(w, [{ type: "file", mime: "text/plain", filename: "src/invoices/tax.ts", url: "file:///home/dana/code/invoice-api/src/invoices/tax.ts" }]),
        w.assistant([w.stepStart(), w.text("What should I do with tax.ts?"), w.stepFinish("stop")]),
      ]),
    );
    return {
      name: "a prompt with nothing the provider receives",
      built,
      rule: "empty-message",
      at: () => ({ messageId: messageIdOf(built, 2) }),
      text: "messages.4: all messages must have non-empty content except for the optional final assistant message",
      // opencode 1.18 leaves such a message out and merges its neighbours (fixtures/opencode-1.18/edited-text): the
      // API never sees it. empty-message still reports the stored message that lost its content.
      leftOut: true,
    };
  })(),
];

describe.each(FORMATS)("provider-rejects does not repeat a specific rule (%s store)", (format) => {
  it.each(DEFECTS.map((d) => [d.name, d] as const))("%s: the specific rule reports it, provider-rejects stays silent", (_name, d) => {
    const findings = scan(format, d.built, { now: lastWrite(d.built) + HOUR });
    const at = d.at();
    expect(ofRule(findings, d.rule).map((f) => ({ messageId: f.messageId, ...(f.partId ? { partId: f.partId } : {}) }))).toContainEqual(at);
    expect(ofRule(findings, "provider-rejects")).toEqual([]);
  });

  it.each(DEFECTS.map((d) => [d.name, d] as const))("%s: alone, provider-rejects reports it in the API's words", (_name, d) => {
    const findings = scanWith(format, d.built, [providerRejects]);
    if ("leftOut" in d) {
      expect(findings).toEqual([]);
      return;
    }
    expect(
      findings.map((f) => ({
        rule: f.rule,
        severity: f.severity,
        fixable: f.fixable,
        messageId: f.messageId,
        ...(f.partId ? { partId: f.partId } : {}),
        message: f.message,
      })),
    ).toEqual([{ rule: "provider-rejects", severity: "error", fixable: false, ...d.at(), message: API(d.text) }]);
  });
});

// ---------------------------------------------------------------------------------------------
describe.each(FORMATS)("provider-rejects leaves the live tail and damaged messages alone (%s store)", (format) => {
  // The last turn stopped after its first thought: a request ending on it would end on thinking.
  const built = storeOf(
    sessionOf((w) => [w.user("Now check the tax module."), w.assistant([w.stepStart(), w.reasoning("Read the tax module first.")], UNFINISHED)]),
  );
  const reasoning = partsOf(built, 3)[1]!;

  it("still being written (seconds after the last write): nothing", () => {
    expect(scanWith(format, built, [providerRejects], lastWrite(built) + 2 * SECOND)).toEqual([]);
  });

  it("the same turn an hour later is a crash: alone, provider-rejects reports the trailing thinking", () => {
    expect(scanWith(format, built, [providerRejects], lastWrite(built) + HOUR).map((f) => [f.partId, f.message])).toEqual([
      [reasoning.id, API("messages.5: The final block in an assistant message cannot be `thinking`.")],
    ]);
    // With every rule, the crash is someone else's finding.
    expect(ofRule(scan(format, built, { now: lastWrite(built) + HOUR }), "provider-rejects")).toEqual([]);
  });

  it("a message with a torn part is exempt (what it sends is unknowable)", () => {
    const session = (tear: boolean) =>
      storeOf(
        sessionOf((w) => [
          w.user("Check the tax module."),
          w.assistant([
            w.stepStart(),
            w.text("Let me look."),
            w.reasoning("Tax might round per line too."),
            { ...w.text("It rounds once, cut off here"), ...(tear ? { corrupt: (s: string) => s.slice(0, s.indexOf("cut off") + 7) } : {}) },
            w.stepFinish("stop"),
          ]),
          w.user("And?", { gap: MINUTE }),
          w.assistant([w.stepStart(), w.text("Nothing to change."), w.stepFinish("stop")]),
        ]),
      );
    // Intact, the misplaced reasoning is a violation…
    const intact = session(false);
    expect(scanWith(format, intact, [providerRejects]).map((f) => f.partId)).toEqual([partsOf(intact, 3)[2]!.id]);
    // …torn, the whole message is left to unreadable-record.
    expect(scanWith(format, session(true), [providerRejects])).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
describe("session scan --rule provider-rejects, through the CLI", () => {
  it.each(FORMATS)("%s: the finding carries the API text; with every rule it is the specific rule's", async (format) => {
    const d = DEFECTS[0]!;
    const dir = writeStore(format, d.built);
    try {
      // The harness stamps JSON files with opencode's times, which are far in the past for the CLI's clock.
      const alone = await run(["session", "scan", d.built.sessions[0]!.id, "--rule", "provider-rejects", "--json", "--store", dir]);
      expect(alone.status).toBe(1);
      const doc = JSON.parse(alone.stdout) as { sessions: { findings: { rule: string; partId?: string; message: string }[] }[] };
      expect(doc.sessions[0]!.findings).toEqual([expect.objectContaining({ rule: "provider-rejects", partId: d.at().partId, message: API(d.text) })]);
      const all = await run(["session", "scan", d.built.sessions[0]!.id, "--json", "--store", dir]);
      const every = JSON.parse(all.stdout) as typeof doc;
      expect(every.sessions[0]!.findings.map((f) => f.rule)).toEqual(["empty-text-part"]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
