import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { PARALLEL_MIN_SESSIONS, workerCount } from "../../src/scan/parallel-scan.js";
import { buildStore, healthySession } from "../support/opencode-fixtures.js";
import { expectNoStack, run, tempDir } from "./run.js";
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

  it("the worker threads compile their bundle through the code cache, kept where the run's environment says", async () => {
    const cacheHome = tempDir();
    const first = await run(["session", "scan", "--all", "--json", "--store", store], { env: { RECOVER_SCAN_THREADS: "2", XDG_CACHE_HOME: cacheHome } });
    const id = fs.readFileSync("dist/scan-worker.cjs.id", "utf8").trim();
    const cache = path.join(cacheHome, "recover", `scan-worker.cjs-${id}-${process.version}-${process.arch}.v8cache`);
    // Written by the worker before the scan returned: the scan waits for its workers to end by themselves.
    expect(fs.statSync(cache).size).toBeGreaterThan(0);
    const bytes = fs.readFileSync(cache);
    const second = await run(["session", "scan", "--all", "--json", "--store", store], { env: { RECOVER_SCAN_THREADS: "2", XDG_CACHE_HOME: cacheHome } });
    expect([second.status, second.stdout]).toEqual([first.status, first.stdout]);
    expect(fs.readFileSync(cache).equals(bytes)).toBe(true);
  });
});

describe("how many threads a scan uses", () => {
  it("RECOVER_SCAN_THREADS decides, but never more threads than sessions", () => {
    expect(workerCount(2000, { RECOVER_SCAN_THREADS: "8" })).toBe(8);
    expect(workerCount(5, { RECOVER_SCAN_THREADS: "300" })).toBe(5);
    expect(workerCount(1, { RECOVER_SCAN_THREADS: "2" })).toBe(1);
    expect(workerCount(2000, { RECOVER_SCAN_THREADS: "1" })).toBe(1);
    expect(workerCount(2000, { RECOVER_SCAN_THREADS: "0" })).toBe(0);
  });

  it("without it: this thread alone for a small scan, more for a large one, at most 4", () => {
    expect(workerCount(PARALLEL_MIN_SESSIONS - 1, {})).toBe(0);
    expect(workerCount(PARALLEL_MIN_SESSIONS * 2, {})).toBeGreaterThanOrEqual(1);
    expect(workerCount(100_000, { RECOVER_SCAN_THREADS: "not a number" })).toBeLessThanOrEqual(4);
  });
});
