#!/usr/bin/env node
// The client suite: recover judged by the real outcome, with every client it supports. For each client, version and
// repair-loop scenario (`loop` in its table): the real client writes a session, the scenario damages it (or kills the
// client mid-tool), the client is refused (or not), `recover session repair` runs with the error text it was refused
// with, `session restore --last` must give the store back as it was and a second repair must plan the same changes,
// and the real client must then continue the session: every request accepted by the API's rules, the reply printed.
//
//   npm run test:clients [-- <client>…] [--smoke] [--version <v>] [--scenario <name>] [--update-fixtures]
//        [--out <dir>] [--matrix]
//
// --smoke: the newest version of each client, its one `smoke` scenario (what CI runs). --update-fixtures: the same
// runs also rewrite the scenario's fixture files (driver.fixtures: the folder that holds them). --matrix: write the
// verdicts into docs/clients.json (merged with the rows of other runs) and regenerate docs/clients.md from it.
// A client that cannot be installed is a failure, never a skip. Exits 1 when any case fails.
import fs from "node:fs";
import path from "node:path";
import { parseCommand } from "./lib/args.mjs";
import { knownGapOf, ROOT, runScenario, withRepairLoop } from "./lib/engine.mjs";
import { installClient } from "./lib/install.mjs";
import { writeMatrix } from "./lib/matrix.mjs";
import { CLIENT_NAMES, loadClient } from "./index.mjs";

const USAGE = "usage: npm run test:clients [-- <client>…] [--smoke] [--version <v>] [--scenario <name>] [--update-fixtures] [--out <dir>] [--matrix]";
const { values: a, positionals } = parseCommand(process.argv.slice(2), {
  usage: USAGE,
  options: {
    smoke: { type: "boolean" },
    version: { type: "string" },
    scenario: { type: "string" },
    "update-fixtures": { type: "boolean" },
    out: { type: "string" },
    matrix: { type: "boolean" },
  },
});
const names = positionals.length ? positionals : CLIENT_NAMES;
for (const n of names)
  if (!CLIENT_NAMES.includes(n)) {
    console.error(`no client ${JSON.stringify(n)}; there are: ${CLIENT_NAMES.join(", ")}`);
    process.exit(2);
  }
if (!fs.existsSync(path.join(ROOT, "dist", "main.cjs"))) {
  console.error("recover is not built: run `npm run build` first");
  process.exit(2);
}
const out = path.resolve(a.out ?? path.join("/tmp", "recover-client-suite"));
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });

/** The cases of one client: [version, scenario name] pairs. */
function casesOf({ driver, scenarios }) {
  const versions = a.version ? [a.version] : a.smoke ? [driver.versions.at(-1)] : driver.versions;
  const cases = [];
  for (const version of versions)
    for (const [name, sc] of Object.entries(scenarios)) {
      // The loops: a scenario made a loop by the suite (`loop`), or one that has its own recover steps; a control run
      // says why it is not one (`notInSuite`, listed in docs/clients.md).
      const isLoop = (sc.loop || sc.steps.some((st) => st.recover)) && !sc.notInSuite;
      if (a.scenario ? name !== a.scenario : a.smoke ? !sc.smoke : !isLoop) continue;
      if (sc.versions && !sc.versions.includes(version)) continue;
      cases.push({ version, name });
    }
  return cases;
}

/** What a recover step's plan changed, by rule; an import's inserts (no rule) by their op. */
function changedBy(plan) {
  if (!plan?.changes) return null;
  if (Object.keys(plan.rules).length) return plan.rules;
  const ops = {};
  for (const c of plan.list) ops[c.split(" ")[0]] = (ops[c.split(" ")[0]] ?? 0) + 1;
  return ops;
}

const results = [];
const t0 = Date.now();
for (const clientName of names) {
  const client = await loadClient(clientName);
  const { driver } = client;
  const byVersion = new Map();
  for (const c of casesOf(client)) {
    if (!byVersion.has(c.version)) {
      const t = Date.now();
      try {
        byVersion.set(c.version, installClient(driver, c.version, { log: (l) => console.log(`  ${l}`) }));
        console.log(`${driver.title} ${c.version}: ready in ${((Date.now() - t) / 1000).toFixed(1)} s`);
      } catch (e) {
        byVersion.set(c.version, null);
        console.log(`FAIL ${driver.name} ${c.version}: ${e.message}`);
        results.push({ client: driver.name, version: c.version, scenario: "(install)", pass: false, problems: [e.message], ms: 0 });
      }
    }
    const installed = byVersion.get(c.version);
    if (!installed) continue;
    const sc = client.scenarios[c.name];
    const scenario = sc.loop ? withRepairLoop(sc, driver.api, c.version) : sc;
    const gap = knownGapOf(sc, c.version);
    const fixtureDir = a["update-fixtures"] ? driver.fixtures?.(c.version, c.name) : null;
    const fixtures = fixtureDir ? path.join(ROOT, fixtureDir) : undefined;
    const t = Date.now();
    const v = await runScenario({ driver, scenarios: { [c.name]: scenario } }, c.name, installed, {
      out: path.join(out, driver.name, c.version, c.name),
      // The suite's own scratch folder, so it never races a capture running in the driver's fixed one; fixtures
      // are written from the fixed one, whose paths they record.
      work: fixtures ? undefined : path.join(out, ".work", driver.name),
      quiet: true,
      fixtures,
    });
    const ms = Date.now() - t;
    const repaired = v.steps.find((s) => s.kind === "recover");
    const row = {
      client: driver.name,
      version: c.version,
      scenario: c.name,
      pass: v.pass,
      ...(gap ? { knownGap: `issue ${gap.issue}: ${gap.why}` } : {}),
      problems: v.problems,
      ms,
      refused: v.steps.flatMap((s) => s.answers ?? []).find((x) => x.status >= 400)?.message ?? null,
      changes: changedBy(repaired?.plan),
      restored: repaired?.restore?.identical ?? null,
    };
    results.push(row);
    const verdict = v.pass ? (gap ? `pass (known gap, issue ${gap.issue}: recover fails as documented)` : "pass") : "FAIL";
    console.log(`${verdict} ${driver.name} ${c.version} ${c.name} (${(ms / 1000).toFixed(1)} s)${v.pass ? "" : `: ${v.problems.join("; ")}`}`);
  }
}
const failed = results.filter((r) => !r.pass);
const seconds = ((Date.now() - t0) / 1000).toFixed(0);
fs.writeFileSync(path.join(out, "results.json"), `${JSON.stringify(results, null, 2)}\n`);
console.log(`${results.length - failed.length} passed, ${failed.length} failed, in ${seconds} s (details: ${out})`);
if (a.matrix) await writeMatrix(results, { date: new Date().toISOString().slice(0, 10) });
process.exit(failed.length || results.length === 0 ? 1 : 0);
