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
cpSync(join(root, "fixtures/demo/opencode"), store, { recursive: true });
const env = { ...process.env, XDG_STATE_HOME: join(work, "state") };

function recover(...args) {
  console.log(`\n$ recover ${args.join(" ")}`);
  const result = spawnSync(process.execPath, [join(root, "bin/recover"), ...args, "--store", store], { stdio: "inherit", env });
  return result.status;
}

recover("session", "scan", "--exit-zero", "-q");
recover("session", "repair", "--all", "--yes", "-q");
recover("session", "scan", "--exit-zero", "-q");
const backups = readdirSync(join(work, "state/recover/backups"));
recover("session", "restore", backups[0], "--yes", "-q");
console.log(`\n(the copy, its backups and state are in ${work})`);
