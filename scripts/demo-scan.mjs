#!/usr/bin/env node
// `npm start`: every agent's demo store (fixtures/demo: opencode, Claude Code, openclaw, Codex, Gemini), copied where
// each agent keeps its own under a throw-away HOME, scanned by one `recover session scan --all`, as a user with all
// five agents would run it. Every command the scan prints names the copies (--store, --backup-dir), so pasting one
// never touches the committed fixtures, your own agents' stores or ~/.local/state. Extra arguments go to the scan
// (`npm start -- --agent codex`, `npm start -- --json`).
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const work = mkdtempSync(join(tmpdir(), "recover-demo-"));
const home = join(work, "home");
const PLACES = { opencode: ".local/share/opencode", claude: ".claude", openclaw: ".openclaw", codex: ".codex", gemini: ".gemini" };
for (const [agent, place] of Object.entries(PLACES)) {
  mkdirSync(dirname(join(home, place)), { recursive: true });
  cpSync(join(root, "fixtures/demo", agent), join(home, place), { recursive: true });
}
// The agents' own variables would point elsewhere: only the copies under this HOME are found.
const env = { ...process.env, HOME: home, XDG_STATE_HOME: join(work, "state") };
for (const name of ["XDG_DATA_HOME", "OPENCODE_DB", "CLAUDE_CONFIG_DIR", "OPENCLAW_STATE_DIR", "CODEX_HOME", "GEMINI_CLI_HOME"]) delete env[name];
const args = ["bin/recover", "session", "scan", "--all", "--exit-zero", "--backup-dir", join(work, "backups"), ...process.argv.slice(2)];
const result = spawnSync(process.execPath, args, { stdio: "inherit", env, cwd: root });
if (!process.argv.includes("--json")) console.error(`\n(the demo stores were copied to ${home}: every command above acts on those copies)`);
process.exit(result.status ?? 1);
