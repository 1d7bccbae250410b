// The engine reuses what a rule found on a view it already checked with the same options (scan/check.ts), so the
// planner's passes and `session resume` do not run every rule over every part twice. Reuse must never change a result.
import { describe, expect, it } from "vitest";
import { RULES } from "../../src/rules/index.js";
import { DEFAULT_RULE_OPTIONS, type Rule } from "../../src/rules/rule.js";
import { TRIM_RULES } from "../../src/rules/trim/index.js";
import { checkSession } from "../../src/scan/check.js";
import { sessionView } from "../../src/scan/session-view.js";
import { openStore } from "../../src/stores/discover.js";

const DEMO = new URL("../../fixtures/demo/opencode", import.meta.url).pathname;

function demoView(now: number) {
  const store = openStore({ store: DEMO });
  try {
    const id = store.listSessions().find((s) => s.id)!.id;
    return sessionView(store.loadSession(id, "full"), { now, liveWindowMs: DEFAULT_RULE_OPTIONS.liveWindowMs });
  } finally {
    store.close();
  }
}

/** A rule that counts its runs and reports one finding per run of it. */
function counting(fillsGaps: boolean): Rule & { runs: number } {
  const rule = {
    id: fillsGaps ? "count-gaps" : "count",
    severity: "warning" as const,
    description: "counts its runs",
    fixedBy: "none" as const,
    runs: 0,
    check() {
      rule.runs++;
      return [{ message: `run ${rule.runs}` }];
    },
    ...(fillsGaps ? { fillsGaps: true as const } : {}),
  };
  return rule;
}

describe("checking a view again", () => {
  it("runs a rule once per view and options, and again when an option a rule reads differs", () => {
    const now = Date.UTC(2026, 10, 1);
    const view = demoView(now);
    const rule = counting(false);
    const options = { ...DEFAULT_RULE_OPTIONS, now };
    const first = checkSession(view, [rule], options);
    // Another options object saying the same (the planner's, after resume's): reused.
    const again = checkSession(view, [rule], { ...options, judgeWith: RULES } as typeof options);
    expect(rule.runs).toBe(1);
    expect(again).toEqual(first);
    checkSession(view, [rule], { ...options, now: now + 1 });
    expect(rule.runs).toBe(2);
    checkSession(view, [rule], { ...options, now: now + 1, liveWindowMs: 0 });
    expect(rule.runs).toBe(3);
    // A new view of the same records is another view.
    checkSession(demoView(now), [rule], options);
    expect(rule.runs).toBe(4);
  });

  it("always runs a rule that fills gaps, since what ran before it may differ", () => {
    const now = Date.UTC(2026, 10, 1);
    const view = demoView(now);
    const gaps = counting(true);
    const options = { ...DEFAULT_RULE_OPTIONS, now };
    checkSession(view, [gaps], options);
    checkSession(view, [gaps], options);
    expect(gaps.runs).toBe(2);
  });

  it("gives the findings every rule gives on a fresh check, in the same order", () => {
    const now = Date.UTC(2026, 10, 1);
    const options = { ...DEFAULT_RULE_OPTIONS, now };
    const view = demoView(now);
    const fresh = checkSession(demoView(now), RULES, options);
    expect(fresh.length).toBeGreaterThan(0);
    checkSession(view, RULES.slice(0, 5), options);
    expect(checkSession(view, RULES, options)).toEqual(fresh);
    expect(checkSession(view, [...RULES].reverse(), options)).toEqual(checkSession(demoView(now), [...RULES].reverse(), options));
  });

  it("knows every registered rule that reads what the rules before it found", () => {
    // A rule's check declaring its third parameter (`earlier`) reads it: it must say so, or reuse would hand it stale gaps.
    const reading = [...RULES, ...TRIM_RULES].filter((r) => r.check.length >= 3);
    expect(reading.map((r) => r.id)).toContain("provider-rejects");
    for (const rule of reading) expect(rule.fillsGaps, rule.id).toBe(true);
  });
});
