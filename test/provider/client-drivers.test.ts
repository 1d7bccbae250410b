// The client suite's tables (scripts/clients/: one driver and one scenario table per client) hold what the suite and
// CI rely on: every driver names its checked versions oldest first, every client has repair loops and exactly one
// smoke scenario (the one CI runs), every step is one the engine knows, and a loop ends with recover and a resume
// that must be accepted. No client runs here: `npm run test:clients` runs them.
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { compareVersions } from "../../src/stores/checked-clients.js";

const CLIENTS = path.resolve(import.meta.dirname, "..", "..", "scripts", "clients");

interface Step {
  prompt?: unknown;
  argv?: unknown;
  recover?: unknown;
  expect?: unknown;
  replies?: unknown[];
  version?: string;
}
interface Scenario {
  about?: unknown;
  steps: Step[];
  loop?: unknown;
  smoke?: unknown;
  versions?: string[];
  knownGap?: { versions?: string[]; issue: number; why: string; expectExit: number };
}
interface Driver {
  name: string;
  title: string;
  api: string;
  package: string;
  versions: string[];
  launch: unknown;
  sandbox: unknown;
  args: unknown;
  locate: unknown;
  snapshot: unknown;
}

const load = async <T>(file: string): Promise<T> => (await import(pathToFileURL(path.join(CLIENTS, file)).href)) as T;
const { CLIENT_NAMES, loadClient } = await load<{ CLIENT_NAMES: string[]; loadClient(name: string): Promise<{ driver: unknown }> }>("index.mjs");
const { APIS, withRepairLoop } = await load<{
  APIS: Record<string, unknown>;
  withRepairLoop(s: Scenario, api: string): Scenario;
}>("lib/engine.mjs");

describe.each(CLIENT_NAMES)("client %s", async (name) => {
  const { driver } = (await loadClient(name)) as { driver: Driver };
  const { scenarios } = await load<{ scenarios: Record<string, Scenario> }>(`scenarios/${name}.mjs`);

  it("is the driver its name says, for an API the engine mocks, with the parts the engine calls", () => {
    expect(driver.name).toBe(name);
    expect(Object.keys(APIS)).toContain(driver.api);
    for (const part of ["sandbox", "args", "locate", "snapshot"] as const) expect(typeof driver[part], part).toBe("function");
    expect(typeof driver.launch).toBe("function");
  });

  it("names its checked versions oldest first, each an npm package spec", () => {
    expect(driver.versions.length).toBeGreaterThan(0);
    for (const [i, v] of driver.versions.entries()) {
      if (i > 0) expect(compareVersions(driver.versions[i - 1]!, v), `${driver.versions[i - 1]} before ${v}`).toBeLessThan(0);
      expect(`${driver.package}@${v}`).toMatch(/^(@[\w.-]+\/)?[\w.-]+@[\w.-]+$/);
    }
  });

  it("has repair loops, and exactly one smoke scenario (what CI runs) on its newest version", () => {
    const smoke = Object.entries(scenarios).filter(([, s]) => s.smoke);
    expect(
      smoke.map(([n]) => n),
      "smoke scenarios",
    ).toHaveLength(1);
    const only = smoke[0]![1].versions;
    if (only) expect(only).toContain(driver.versions.at(-1));
    expect(Object.values(scenarios).some((s) => s.loop)).toBe(true);
  });

  it.each(Object.keys(scenarios))("scenario %s: says what it does, and every step is one the engine runs", (scenarioName) => {
    const s = scenarios[scenarioName]!;
    expect(typeof s.about).toBe("string");
    expect(s.steps.length).toBeGreaterThan(0);
    for (const v of [...(s.versions ?? []), ...(s.knownGap?.versions ?? [])]) expect(driver.versions).toContain(v);
    // A known gap names the issue that closes it and the exit recover gives there today.
    if (s.knownGap) expect(s.knownGap).toMatchObject({ issue: expect.any(Number), why: expect.any(String), expectExit: expect.any(Number) });
    for (const step of s.steps) {
      if (step.recover !== undefined) expect(["repair", "trim", "import", "resume"]).toContain(step.recover);
      // A client step is a prompt, or another command of the client (its argv: e.g. listing its sessions).
      else expect(typeof step.prompt === "string" || Array.isArray(step.argv), JSON.stringify(step).slice(0, 120)).toBe(true);
      if (step.expect !== undefined) expect([200, 400, 413]).toContain(step.expect);
    }
    if (!s.loop) return;
    const looped = withRepairLoop(s, driver.api).steps;
    // The scenario's steps, recover, the client steps the loop runs between (`loop.between`), the continuation.
    const between = (typeof s.loop === "object" ? (s.loop as { between?: unknown[] }).between : undefined) ?? [];
    expect(looped.slice(0, s.steps.length)).toEqual(s.steps);
    expect(looped[s.steps.length]!.recover).toBeTruthy();
    expect(looped.slice(s.steps.length + 1, -1)).toEqual(between);
    expect(looped.at(-1)).toMatchObject({ resume: true, expect: 200 });
  });
});
