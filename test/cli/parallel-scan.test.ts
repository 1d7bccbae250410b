import { describe, expect, it } from "vitest";
import { buildStore, healthySession } from "../support/opencode-fixtures.js";
import { expectNoStack, run } from "./run.js";
import { brokenTurnSession, DAY, FORMATS, T0, warningsOnlySession, writeStore } from "./stores.js";

/** Enough sessions, healthy and damaged, for the scan to spread them over threads. */
function manySessions() {
  const sessions = Array.from({ length: 12 }, (_, i) => [
    healthySession({ start: T0 + i * DAY, title: `Healthy ${i}` }),
    i % 3 === 0 ? brokenTurnSession(T0 + i * DAY + 3_600_000) : warningsOnlySession(T0 + i * DAY + 3_600_000),
  ]).flat();
  return buildStore({ seed: 5, sessions });
}

describe.each(FORMATS)("scanning on several threads (%s)", (format) => {
  const { store } = writeStore(manySessions(), format);
  const scan = async (threads: string) => await run(["session", "scan", "--all", "--json", "--store", store], { env: { RECOVER_SCAN_THREADS: threads } });

  it("gives byte-identical output and exit code to a scan on one thread", async () => {
    const single = await scan("1");
    const parallel = await scan("3");
    expectNoStack(parallel.stderr);
    expect(single.status).toBe(1);
    expect(parallel.status).toBe(single.status);
    expect(parallel.stdout).toBe(single.stdout);
    const document = JSON.parse(parallel.stdout) as { sessions: { findings: unknown[] }[]; summary: { sessions: number; errors: number } };
    expect(document.summary.sessions).toBe(24);
    expect(document.summary.errors).toBeGreaterThan(0);
  });
});
