import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
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
