import { describe, expect, it } from "vitest";
import type { BattleAssessment } from "../../src/battle/assess.js";
import { chooseStrategy } from "../../src/battle/resume.js";
import { EXIT_CODES, exitCodeOf } from "../../src/cli/exit-codes.js";
import { ExitCode, RecoverError } from "../../src/errors.js";

// The README's contract: 1 findings (or a change declined), 2 usage/input error, 3 refused for safety.
describe("one table from error code to exit code", () => {
  it("every code maps to an exit code of the contract", () => {
    const allowed = new Set<number>([ExitCode.findings, ExitCode.usage, ExitCode.refused, ExitCode.interrupted]);
    for (const [code, exit] of Object.entries(EXIT_CODES)) expect(allowed.has(exit), code).toBe(true);
  });

  it("a store that is busy, changed or locked under us is refused (3); a bad input is 2; a declined change is 1", () => {
    for (const code of ["store-busy", "store-changed", "store-locked", "live-writer", "restore-conflict", "unsupported-repository"] as const) {
      expect(exitCodeOf(new RecoverError(code, "x")), code).toBe(3);
    }
    for (const code of ["usage", "store-not-found", "not-a-store", "store-corrupt", "unsupported-store", "needs-confirmation"] as const) {
      expect(exitCodeOf(new RecoverError(code, "x")), code).toBe(2);
    }
    expect(exitCodeOf(new RecoverError("not-confirmed", "x"))).toBe(1);
    expect(exitCodeOf(new RecoverError("interrupted", "x"))).toBe(130);
  });

  // Thrown deep in battle/, mapped only here: the code says what happened, the table what a shell sees.
  it("resuming a battle a pokeralph server is running is store-busy (3), resuming a completed one a usage error (2)", () => {
    const battle = (status: string) => ({ taskId: "t-1", status, failure: null }) as unknown as BattleAssessment;
    const running = catchError(() => chooseStrategy(battle("running"), undefined, "/src/invoices"));
    expect([running.code, exitCodeOf(running)]).toEqual(["store-busy", 3]);
    expect(running.message).toMatch(/t-1 is running and a pokeralph server is running it/);
    expect(running.next).toEqual({ words: ["battle", "status", "t-1"], why: "to see what it is doing", repo: "/src/invoices" });
    const done = catchError(() => chooseStrategy(battle("completed"), undefined, "/src/invoices"));
    expect([done.code, exitCodeOf(done)]).toEqual(["usage", 2]);
  });
});

function catchError(work: () => unknown): RecoverError {
  try {
    work();
  } catch (error) {
    if (error instanceof RecoverError) return error;
    throw error;
  }
  throw new Error("expected a RecoverError");
}
