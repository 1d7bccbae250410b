// `npm run demo:battle [dir]`: a throw-away pokeralph project to try the battle commands on. It is the test
// fixture builder (test/support/pokeralph-fixtures.ts), so the demo shows exactly the states the tests cover:
// a completed battle, a failed feedback loop, and 002-auth-system crashed during iteration 4 with stale progress;
// plus recover's own checkpoint of the crashed battle and a stale Claude Code ralph-loop state file.
// scripts/demo-battle.mjs bundles this file (no TS loader here) and runs it; it is not run directly.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { completedBattle, crashedBattle, createPokeralphRepo, failedFeedbackBattle, HOUR, TASKS } from "../test/support/pokeralph-fixtures.js";

const TASK = TASKS.auth.id;

/** This checkout: run from scripts/ or from the bundle in node_modules/.cache/recover-demo/, so look upward. */
function checkoutRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, "bin", "recover")) || !fs.existsSync(path.join(dir, "package.json"))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error("cannot find bin/recover above this script");
    dir = parent;
  }
  return dir;
}

function fail(message: string, code: number): never {
  process.stderr.write(`demo:battle: ${message}\n`);
  process.exit(code);
}

/** The target: argv[2] (absent or empty), else a fresh temp dir. Checked before anything is written. */
function target(arg: string | undefined): string {
  if (arg === undefined) return fs.mkdtempSync(path.join(os.tmpdir(), "recover-demo-battle-"));
  // `npm run demo:battle -- dir` runs in the checkout: a relative dir means the one npm was started from.
  const base = process.env.npm_lifecycle_event === "demo:battle" ? (process.env.INIT_CWD ?? process.cwd()) : process.cwd();
  const dir = path.resolve(base, arg);
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(dir);
  } catch {
    /* does not exist yet: fine */
  }
  if (stat && !stat.isDirectory()) fail(`${dir} exists and is not a directory; give a new or empty directory`, 2);
  if (stat && fs.readdirSync(dir).length > 0) fail(`${dir} is not empty; give a new or empty directory`, 2);
  fs.mkdirSync(dir, { recursive: true });
  return fs.realpathSync(dir);
}

const quote = (word: string) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

const checkout = checkoutRoot();
const bin = path.join(checkout, "bin", "recover");
const root = target(process.argv[2]);

const fx = await createPokeralphRepo({ root });
await completedBattle(fx);
await failedFeedbackBattle(fx);
await crashedBattle(fx);

// recover's own checkpoint of the crashed battle as pokeralph left it (after iteration 3), taken the way a user takes one:
// the built CLI, in recover's default state dir (XDG_STATE_HOME as the user has it), never inside the demo repo.
const checkpoint = spawnSync(process.execPath, [bin, "checkpoint", "create", TASK, "--iteration", "3", "--repo", root], {
  encoding: "utf8",
  env: { ...process.env, NO_COLOR: "1" },
});
if (checkpoint.status !== 0) {
  fail(`recover checkpoint create failed (exit ${checkpoint.status ?? checkpoint.signal}): ${(checkpoint.stderr || checkpoint.stdout).trim()}`, 1);
}

// A Claude Code ralph-loop left "active" by a session that ended hours ago (the plugin's state file). Written after
// the checkpoint: it is no part of the battle, so `battle fix` shows it as a change made since.
const startedAt = new Date(fx.now - 5 * HOUR).toISOString().replace(/\.\d{3}Z$/, "Z");
fs.mkdirSync(path.join(root, ".claude"), { recursive: true });
fs.writeFileSync(
  path.join(root, ".claude", "ralph-loop.local.md"),
  [
    "---",
    "active: true",
    "iteration: 7",
    "max_iterations: 20",
    'completion_promise: "DONE"',
    "session_id: 6f1c2d9e-4b7a-4e21-9c3f-2a8d5e0b7c41",
    `started_at: "${startedAt}"`,
    "---",
    "",
    "Make the invoice PDF tests pass. Output <promise>DONE</promise> when they do.",
    "",
  ].join("\n"),
);

const recover = `node ${quote(bin)}`;
const repo = `--repo ${quote(root)}`;
const commands = [
  `${recover} battle status ${repo}`,
  `${recover} checkpoint list ${TASK} ${repo}`,
  `${recover} battle rollback ${TASK} --iteration 3 --dry-run ${repo}`,
  `${recover} battle resume ${TASK} ${repo}`,
  `${recover} battle fix ${TASK} ${repo}`,
];
process.stdout.write(
  [
    `Demo pokeralph repository: ${root}`,
    `  ${TASKS.setup.id} completed, ${TASKS.pdf.id} failed its feedback loop, ${TASK} crashed during iteration 4;`,
    "  one recover checkpoint of the crashed battle; a stale .claude/ralph-loop.local.md.",
    "",
    "Try these:",
    ...commands.map((command) => `  ${command}`),
    "",
    "It is a throw-away copy: delete the directory when done.",
    "",
  ].join("\n"),
);
