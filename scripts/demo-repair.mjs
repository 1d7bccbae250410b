#!/usr/bin/env node
// `npm run demo:repair`: the whole loop on a throw-away copy of the bundled demo store — scan, repair with
// backups, scan again, restore — so the committed fixtures are never touched and nothing lands in ~/.local/state.
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const work = mkdtempSync(join(tmpdir(), "recover-demo-"));
const store = join(work, "opencode");
const backups = join(work, "backups");
cpSync(join(root, "fixtures/demo/opencode"), store, { recursive: true });
// Locks and the journal stay out of ~/.local/state; backups go where --backup-dir says, so every command printed
// below (and the `undo with:` recover prints) works when pasted into a shell in this folder.
const env = { ...process.env, XDG_STATE_HOME: join(work, "state") };
const quote = (word) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

function recover(...args) {
  const argv = ["bin/recover", ...args, "--store", store, "--backup-dir", backups];
  console.log(`\n$ node ${argv.map(quote).join(" ")}`);
  const result = spawnSync(process.execPath, argv, { stdio: "inherit", env, cwd: root });
  return result.status;
}

recover("session", "scan", "--exit-zero", "-q");
recover("session", "repair", "--all", "--yes", "-q");
recover("session", "scan", "--exit-zero", "-q");
const [first] = readdirSync(backups);
recover("session", "restore", first, "--yes", "-q");
console.log(`\n(the copy and its backups are in ${work}; run these commands from ${root})`);
