// The prefix invariant as a property (issue 36): for random sessions on a model that binds thinking to its prefix,
// with random damage in random turns, the real repair (planned, backed up and written as `session repair` does) leaves
// no prefix-bound thinking at or after the first position of the request it changed, and keeps every thinking block
// before that position. Both opencode formats; the views are built from the stores as written.
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import type { Conversation, ThinkingBlock } from "../../src/model/conversation.js";
import { boundThinkingFrom, firstChange } from "../../src/plan/prefix-thinking.js";
import { DEFAULT_RULE_OPTIONS } from "../../src/rules/rule.js";
import { sessionView } from "../../src/scan/session-view.js";
import { abortedTool, pendingTool, sessionOf, storeOf, textPart } from "../rules/harness.js";
import { cleanupAll, FORMATS, plan, repair, setup, withOpen, type Fixture } from "../repair/harness.js";
import type { PartSpec, Transcript } from "../support/opencode-fixtures.js";

afterAll(cleanupAll);

const MODELS = ["claude-opus-5-5", "claude-fable-5-2", "claude-sonnet-4-5"] as const;
type Damage = "none" | "blank-text" | "pending-call" | "aborted-call";

function damagePart(w: Transcript, damage: Damage): PartSpec[] {
  switch (damage) {
    case "blank-text":
      return [textPart(w, "  ")];
    case "pending-call":
      return [pendingTool(w, "bash", '{"command":"npm te')];
    case "aborted-call":
      return [abortedTool(w, "bash", { command: "npm test" }, "RUN v3")];
    default:
      return [];
  }
}

function store(model: string, damages: readonly Damage[]) {
  const as = { model: { providerID: "anthropic", modelID: model } };
  return storeOf(
    sessionOf(
      (w) =>
        damages.flatMap((damage, n) => [
          w.user(`Turn ${n + 1}: go on with the migration.`, { info: as }),
          w.assistant([w.stepStart(), w.reasoning(`Thinking of turn ${n + 1}.`), w.text(`Turn ${n + 1} done.`), ...damagePart(w, damage)], {
            modelID: model,
            providerID: "anthropic",
          }),
        ]),
      { opening: false },
    ),
  );
}

function conversationOf(fx: Fixture): Conversation {
  return withOpen(fx, (s) => sessionView(s.loadSession(fx.sessionId, "full"), { ...DEFAULT_RULE_OPTIONS, now: fx.later }).conversation);
}

const thinkingBefore = (conversation: Conversation, at: { message: number; block: number } | undefined): ThinkingBlock[] =>
  conversation.messages.flatMap((m, i) =>
    m.blocks.filter((b, j): b is ThinkingBlock => b.type === "thinking" && (at === undefined || i < at.message || (i === at.message && j < at.block))),
  );

describe.each(FORMATS)("%s: no kept prefix-bound thinking follows a changed position", (format) => {
  it("random sessions, random damage, the real repair", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...MODELS),
        fc.array(fc.constantFrom<Damage>("none", "none", "blank-text", "pending-call", "aborted-call"), { minLength: 2, maxLength: 5 }),
        (model, damages) => {
          fc.pre(damages.some((d) => d !== "none"));
          const fx = setup(format, store(model, damages));
          const before = conversationOf(fx);
          // Damage that is no damage where it fell (an aborted call closing the session is a valid turn): nothing to do.
          fc.pre(plan(fx).changes.length > 0);
          repair(fx);
          const after = conversationOf(fx);
          const changed = firstChange(before, after);
          // Nothing prefix-bound is left where the repair changed the request, or after it.
          expect(boundThinkingFrom(after, changed)).toEqual([]);
          // Every thinking block before the change is still sent, as it was.
          const kept = thinkingBefore(after, changed).map((b) => b.signature);
          expect(kept).toEqual(thinkingBefore(before, changed).map((b) => b.signature));
        },
      ),
      { numRuns: Number(process.env.PREFIX_RUNS ?? 25) },
    );
  });
});
