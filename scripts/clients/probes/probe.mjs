// What the engine-driven probes share: their flags, the requests a step sent the mock, and running their one
// scenario (each probe is one scenario of two steps or so, run once, its findings written to its --out).
import fs from "node:fs";
import path from "node:path";
import { loadClient } from "../index.mjs";
import { runScenario } from "../lib/engine.mjs";
import { installClient } from "../lib/install.mjs";

/** `--<name> <value>` from the command line, else `fallback`. */
export function flag(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
}

/** The client, the version asked for (`--version`, else its newest) and the output folder (`--out`, else `fallbackOut`). */
export async function probeTarget(clientName, fallbackOut) {
  const client = await loadClient(clientName);
  return { client, version: flag("version", client.driver.versions.at(-1)), out: path.resolve(flag("out", fallbackOut)) };
}

/** The requests step `tag` (1-based) sent the mock, parsed, those with a body. */
export function requestsOfStep(ctx, tag) {
  return fs
    .readFileSync(path.join(ctx.out, "requests.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((q) => q.tag === tag && q.body);
}

/** Run the probe's scenario `name` with the client at its version, the work folder beside `out`. */
export function runProbe({ client, version, out }, name, scenario, options = {}) {
  const installed = installClient(client.driver, version);
  return runScenario({ driver: client.driver, scenarios: { [name]: scenario } }, name, installed, { out, work: `${out}-work`, quiet: true, ...options });
}
