// The redesign's "no change of behaviour" check (issue 13): every user-visible output of the demo stores and of a
// pokeralph repository with one battle of each kind, recorded through the built CLI as a user runs it. Run it before
// and after a structural change and diff the two folders:
//   GOLDEN_OUT=/tmp/before npx vitest run --config test/golden/vitest.config.ts
// Temp paths, backup ids and times are normalised; everything else must be byte-identical.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "vitest";
import { kitchenSinkRepo } from "../support/pokeralph-fixtures.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const OUT = process.env.GOLDEN_OUT ?? path.join(os.tmpdir(), "recover-golden");
const STORES = ["opencode", "opencode-legacy", "claude", "openclaw"];
const NOW = Date.parse("2026-11-20T12:00:00.000Z");

function normalise(text: string, work: string): string {
  return text
    .split(work)
    .join("<WORK>")
    .split(fs.realpathSync(work))
    .join("<WORK>")
    .replace(/\d{8}T\d{6}(\d{3})?Z?-[0-9a-z-]+/gi, "<BACKUP-ID>")
    .replace(/20\d\d-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "<ISO>");
}

function record(name: string, args: string[], work: string, cwd = ROOT): void {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1", CI: "1", XDG_STATE_HOME: path.join(work, "state") };
  delete env.FORCE_COLOR;
  const result = spawnSync(process.execPath, [path.join(ROOT, "bin/recover"), ...args], { encoding: "utf8", env, cwd });
  // A recording is only worth comparing when the command ran to an exit code of its own, not a crash or a timeout.
  expect(result.status, `${name}: ${result.stderr}`).not.toBeNull();
  expect(result.stderr, name).not.toMatch(/internal error|\n\s+at /);
  const text = `$ recover ${args.join(" ")}\nexit ${result.status}\n--- stdout\n${result.stdout}--- stderr\n${result.stderr}`;
  fs.writeFileSync(path.join(OUT, `${name}.txt`), normalise(text, work));
}

function sessionIds(store: string, work: string): string[] {
  const env = { ...process.env, NO_COLOR: "1", CI: "1", XDG_STATE_HOME: path.join(work, "state") };
  const result = spawnSync(process.execPath, [path.join(ROOT, "bin/recover"), "session", "list", "--json", "--store", store], { encoding: "utf8", env });
  const doc = JSON.parse(result.stdout) as { sessions: { id: string }[] };
  return doc.sessions.map((s) => s.id);
}

test("record the outputs of every command on every demo store", { timeout: 600_000 }, async () => {
  fs.rmSync(OUT, { recursive: true, force: true });
  fs.mkdirSync(OUT, { recursive: true });
  for (const kind of STORES) {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), "recover-golden-"));
    const store = path.join(work, kind);
    fs.cpSync(path.join(ROOT, "fixtures/demo", kind), store, { recursive: true });
    const s = ["--store", store, "--backup-dir", path.join(work, "backups")];
    record(`${kind}.list`, ["session", "list", ...s], work);
    record(`${kind}.list-json`, ["session", "list", "--json", ...s], work);
    record(`${kind}.scan`, ["session", "scan", "--all", ...s], work);
    record(`${kind}.scan-json`, ["session", "scan", "--all", "--json", ...s], work);
    record(`${kind}.repair-dry`, ["session", "repair", "--all", "--dry-run", ...s], work);
    record(`${kind}.repair-dry-json`, ["session", "repair", "--all", "--dry-run", "--json", ...s], work);
    for (const id of sessionIds(store, work)) {
      const safe = id.replace(/[^A-Za-z0-9_.-]/g, "_");
      record(`${kind}.trim-dry-json.${safe}`, ["context", "trim", id, "--limit", "2000", "--dry-run", "--json", ...s], work);
      record(`${kind}.trim-dry.${safe}`, ["context", "trim", id, "--limit", "2000", "--dry-run", ...s], work);
    }
    record(`${kind}.repair-yes-json`, ["session", "repair", "--all", "--yes", "--json", ...s], work);
    record(`${kind}.scan-after-json`, ["session", "scan", "--all", "--json", ...s], work);
    record(`${kind}.backups-json`, ["session", "backups", "--json", ...s], work);
    fs.rmSync(work, { recursive: true, force: true });
  }
  // npm start and npm run demo:repair, as a user runs them (the build is already there).
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "recover-golden-"));
  record("npm-start", ["session", "scan", "--all", "--exit-zero", "--store", "fixtures/demo/opencode"], work);
  const demo = spawnSync(process.execPath, ["scripts/demo-repair.mjs"], { encoding: "utf8", cwd: ROOT, env: { ...process.env, NO_COLOR: "1", CI: "1" } });
  const demoWork = /the copy and its backups are in (\S+);/.exec(demo.stdout)?.[1] ?? "<none>";
  fs.writeFileSync(path.join(OUT, "demo-repair.txt"), normalise(`exit ${demo.status}\n${demo.stdout}--- stderr\n${demo.stderr}`, demoWork));
  // Battles and checkpoints: one battle of each kind, at a pinned time.
  const { fx, scenarios } = await kitchenSinkRepo({ root: path.join(work, "repo"), now: NOW });
  record("battle.status", ["battle", "status"], work, fx.root);
  record("battle.status-json", ["battle", "status", "--json"], work, fx.root);
  for (const [name, scenario] of Object.entries(scenarios)) {
    const taskId = path.basename(scenario.dir);
    record(`battle.status-json.${name}`, ["battle", "status", taskId, "--json"], work, fx.root);
    record(`battle.rollback-dry-json.${name}`, ["battle", "rollback", taskId, "--iteration", "1", "--dry-run", "--json"], work, fx.root);
    record(`checkpoint.list-json.${name}`, ["checkpoint", "list", taskId, "--json"], work, fx.root);
    record(`battle.resume.${name}`, ["battle", "resume", taskId], work, fx.root);
    record(`battle.resume-json.${name}`, ["battle", "resume", taskId, "--json"], work, fx.root);
  }
  // Every command's help, as commander prints it (the command tree is built another way after the redesign).
  const commands = [
    [],
    ["session"],
    ["session", "list"],
    ["session", "scan"],
    ["session", "repair"],
    ["session", "restore"],
    ["session", "backups"],
    ["context"],
    ["context", "trim"],
    ["explain"],
    ["rules"],
    ["battle"],
    ["battle", "status"],
    ["battle", "resume"],
    ["battle", "fix"],
    ["battle", "rollback"],
    ["checkpoint"],
    ["checkpoint", "create"],
    ["checkpoint", "list"],
    ["checkpoint", "prune"],
  ];
  for (const words of commands) record(`help.${words.join("-") || "recover"}`, [...words, "--help"], work);
  record("rules", ["rules"], work);
  record("rules-json", ["rules", "--json"], work);
  record("version", ["--version"], work);
  fs.rmSync(work, { recursive: true, force: true });
});
