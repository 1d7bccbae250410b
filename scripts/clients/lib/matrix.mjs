// The version matrix: docs/clients.json holds one row per client × version × scenario (the latest verdict of each,
// merged across runs, so a run of one client keeps the others' rows); docs/clients.md is made from it, never edited
// by hand.
import fs from "node:fs";
import path from "node:path";
import { ROOT } from "./engine.mjs";
import { CLIENT_NAMES, loadClient } from "../index.mjs";

const JSON_FILE = path.join(ROOT, "docs", "clients.json");
const MD_FILE = path.join(ROOT, "docs", "clients.md");

const key = (r) => `${r.client} ${r.version} ${r.scenario}`;

/** Merge `results` (suite rows) into docs/clients.json and regenerate docs/clients.md. */
export async function writeMatrix(results, { date }) {
  const old = fs.existsSync(JSON_FILE) ? JSON.parse(fs.readFileSync(JSON_FILE, "utf8")) : { rows: [] };
  const rows = new Map(old.rows.map((r) => [key(r), r]));
  for (const r of results)
    rows.set(key(r), {
      client: r.client,
      version: r.version,
      scenario: r.scenario,
      verdict: r.pass ? (r.knownGap ? "known gap" : "pass") : "fail",
      ...(r.knownGap ? { gap: r.knownGap } : {}),
      date,
      seconds: Math.round(r.ms / 100) / 10,
      ...(r.pass ? {} : { why: r.problems.join("; ") }),
      ...(r.changes ? { repaired: r.changes } : {}),
    });
  const sorted = [...rows.values()].sort((x, y) => key(x).localeCompare(key(y), "en", { numeric: true }));
  fs.writeFileSync(JSON_FILE, `${JSON.stringify({ rows: sorted }, null, 2)}\n`);
  fs.writeFileSync(MD_FILE, await markdown(sorted));
}

async function markdown(rows) {
  const lines = [
    "# The clients recover is checked against",
    "",
    "Made by `npm run test:clients -- --matrix` from docs/clients.json; do not edit by hand. Each row is the latest",
    "verdict of one repair loop with the real client, installed from npm into a cache and run offline against a loopback",
    "mock of its API that applies the API's rules (scripts/clients/api/*-rules.mjs, held against recover's own validators",
    "by test/provider/mock-rules-agree.test.ts): the client writes a session, the scenario damages it or kills the client",
    "mid-tool, `recover session repair` runs with the error the client was refused with (a plain repair when it was not",
    "refused), `session restore --last` must give the store back as it was, a second repair must plan the same changes,",
    "and the client must then continue the session with every request accepted and its reply printed.",
    "",
    "- `npm run test:clients [-- <client>…] [--version <v>] [--scenario <name>]`: the loops (about 15 minutes for all).",
    "- `npm run test:clients -- --smoke`: one kill-mid-tool loop per client on its newest version; CI runs it (`.ci/run`).",
    "- `node scripts/clients/capture.mjs <client> --list | --scenario <name> [--loop] [--fixtures <dir>]`: one scenario,",
    "  everything kept (requests, step output, the store around each step, verdict.json); `--fixtures` rewrites the",
    "  committed fixtures it comes from.",
    "- A client is one line in scripts/clients/index.mjs (package, API, checked versions: oldest still in use … newest),",
    "  one driver (scripts/clients/<name>.mjs: sandbox, arguments, where the session is, the store's image) and one",
    "  scenario table (scripts/clients/scenarios/<name>.mjs). `recover store list` names a newer client than the newest",
    "  checked here as not yet checked (src/stores/checked-clients.ts; a test holds the two equal).",
    "- A known gap is asserted, not skipped: recover must fail there exactly as documented and the client must still",
    "  continue; the loop fails once recover starts passing, so the mark cannot outlive the gap.",
    "",
  ];
  for (const name of CLIENT_NAMES) {
    const { driver, scenarios } = await loadClient(name);
    const mine = rows.filter((r) => r.client === name);
    lines.push(`## ${driver.title}`, "");
    lines.push(`Checked versions: ${driver.versions.join(", ")} (oldest still in use … newest).`, "");
    if (!mine.length) {
      lines.push("No verdicts yet.", "");
      continue;
    }
    const versions = driver.versions;
    const scenarioNames = [...new Set(mine.map((r) => r.scenario))];
    lines.push(`| scenario | ${versions.join(" | ")} | what recover changed (newest version) |`, `|---|${versions.map(() => "---").join("|")}|---|`);
    for (const s of scenarioNames) {
      const cells = versions.map((v) => {
        const r = mine.find((x) => x.version === v && x.scenario === s);
        return r ? `${r.verdict === "fail" ? "**fail**" : r.verdict} (${r.date})` : "—";
      });
      const newest = versions.map((v) => mine.find((x) => x.version === v && x.scenario === s)).findLast(Boolean);
      const changed = newest?.repaired ? Object.entries(newest.repaired).map(([rule, n]) => (n > 1 ? `${rule} ×${n}` : rule)) : [];
      const what = newest?.verdict === "known gap" ? "refused the store (known gap)" : changed.length ? changed.join(", ") : "nothing to repair";
      lines.push(`| ${s}${scenarios[s]?.smoke ? " (CI smoke)" : ""} | ${cells.join(" | ")} | ${what} |`);
    }
    const gaps = mine.filter((r) => r.verdict === "known gap");
    if (gaps.length) {
      lines.push("", "Known gaps (recover fails there exactly as documented, and the client still continues):", "");
      for (const g of gaps) lines.push(`- ${g.version} ${g.scenario}: ${g.gap}`);
    }
    const controls = Object.entries(scenarios).filter(([, sc]) => sc.notInSuite);
    if (controls.length) {
      lines.push("", "Not in the suite:", "");
      for (const [n, sc] of controls) lines.push(`- ${n}: ${sc.notInSuite}`);
    }
    const fails = mine.filter((r) => r.verdict === "fail");
    if (fails.length) {
      lines.push("", "Failures:", "");
      for (const f of fails) lines.push(`- ${f.version} ${f.scenario}: ${f.why}`);
    }
    lines.push("");
  }
  return `${lines.join("\n")}`;
}
