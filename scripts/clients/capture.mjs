#!/usr/bin/env node
// Run scenarios of one real client and keep everything it did: every request, each step's output, the store around
// each step, the verdict; with --fixtures, the scenario's fixture files too (what fixtures/<client>-<version>/ holds).
//
//   node scripts/clients/capture.mjs <client> --list
//   node scripts/clients/capture.mjs <client> --scenario <name|all> [--version <v>] [--out <dir>] [--fixtures <dir>]
//        [--loop] [--enforce] [--model <id>] [--context-limit <tokens>] [--timeout <s>] [--work <dir>]
//        [--skip-recover] [--recover-wait <s>] [--recover <bin/recover>] [--set <field>=<json>]…
//
// The client is installed on first use into the cache (lib/install.mjs); --version defaults to the newest the driver
// is checked against. --loop runs a `loop` scenario as the client suite does (recover, then one more resume).
// --recover runs another build of recover (e.g. a worktree's bin/recover). --set overrides a field of the scenario for
// this run (e.g. `--set usage=null`: the mock's fixed usage; `--set 'enforcerOptions={"bindScope":"messages"}'`); a
// value that is not JSON is taken as a string. `all` runs the scenarios the version is checked with (their `versions`).
// Exits 1 when a scenario's verdict fails.
import path from "node:path";
import { parseCommand } from "./lib/args.mjs";
import { runScenario, withRepairLoop } from "./lib/engine.mjs";
import { installClient } from "./lib/install.mjs";
import { loadClient } from "./index.mjs";

const USAGE =
  "usage: node scripts/clients/capture.mjs <client> (--list | --scenario <name|all>) [--version <v>] [--out <dir>] [--fixtures <dir>] [--loop] [--enforce] [--model <id>] [--context-limit <tokens>] [--timeout <s>] [--work <dir>] [--skip-recover] [--recover-wait <s>] [--recover <bin/recover>] [--set <field>=<json>]…";

const { values: a, positionals } = parseCommand(process.argv.slice(2), {
  usage: USAGE,
  numbers: ["timeout", "context-limit", "recover-wait"],
  options: {
    list: { type: "boolean" },
    scenario: { type: "string" },
    version: { type: "string" },
    out: { type: "string" },
    fixtures: { type: "string" },
    loop: { type: "boolean" },
    enforce: { type: "boolean" },
    model: { type: "string" },
    "context-limit": { type: "string" },
    timeout: { type: "string" },
    work: { type: "string" },
    "skip-recover": { type: "boolean" },
    "recover-wait": { type: "string" },
    recover: { type: "string" },
    set: { type: "string", multiple: true },
  },
});
const overrides = {};
for (const kv of a.set ?? []) {
  const at = kv.indexOf("=");
  if (at < 1) {
    console.error(`--set takes <field>=<json>, not ${JSON.stringify(kv)}\n${USAGE}`);
    process.exit(2);
  }
  const raw = kv.slice(at + 1);
  try {
    overrides[kv.slice(0, at)] = JSON.parse(raw);
  } catch {
    overrides[kv.slice(0, at)] = raw;
  }
}
let client;
try {
  if (positionals.length !== 1) throw new Error("name one client");
  client = await loadClient(positionals[0]);
} catch (e) {
  console.error(`${e.message}\n${USAGE}`);
  process.exit(2);
}
const { driver, scenarios } = client;
if (a.list) {
  for (const [k, s] of Object.entries(scenarios))
    console.log(`${k.padEnd(28)} ${s.loop ? "[loop] " : ""}${s.versions ? `[${s.versions.join(", ")}] ` : ""}${s.about}`);
  process.exit(0);
}
if (!a.scenario) {
  console.error(`--scenario <name|all> or --list\n${USAGE}`);
  process.exit(2);
}
const version = a.version ?? driver.versions.at(-1);
const names = a.scenario === "all" ? Object.keys(scenarios).filter((n) => !scenarios[n].versions || scenarios[n].versions.includes(version)) : [a.scenario];
for (const n of names)
  if (!scenarios[n]) {
    console.error(`${driver.name} has no scenario ${n} (see --list)`);
    process.exit(2);
  }
const installed = installClient(driver, version, { log: (l) => console.error(l) });
let failed = 0;
for (const n of names) {
  const chosen = { ...scenarios[n], ...overrides };
  const sc = a.loop && chosen.loop ? withRepairLoop(chosen, driver.api, version) : chosen;
  const out = a.out ? (names.length > 1 ? path.join(a.out, n) : a.out) : path.join("/tmp", `${driver.name}-out`, n);
  const v = await runScenario({ driver, scenarios: { [n]: sc } }, n, installed, {
    out,
    work: a.work,
    model: a.model,
    timeout: a.timeout,
    enforce: a.enforce,
    contextLimit: a["context-limit"],
    fixtures: a.fixtures,
    skipRecover: a["skip-recover"],
    recoverWait: a["recover-wait"],
    recoverBin: a.recover && path.resolve(a.recover),
  });
  if (!v.pass) failed++;
  console.log(`${n}: ${v.pass ? "pass" : `FAIL: ${v.problems.join("; ")}`} (${out})`);
}
process.exit(failed ? 1 : 0);
