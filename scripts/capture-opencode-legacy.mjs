#!/usr/bin/env node
// Capture a JSON-tree session store (`$XDG_DATA_HOME/opencode/storage/`) written by the real opencode 1.1.65, the last
// release before opencode moved its sessions into SQLite (1.2.0).
//
// Runs opencode offline (`opencode run`) three times in one project against a loopback mock of the Anthropic Messages
// API (scripts/mock-messages-api.mjs streams the replies); every run starts a NEW session:
//
//   1. "What is the capital of France?"            -> text
//   2. "List the files here with bash."            -> text + tool_use bash `ls`, the result, a final text
//   3. "Say goodbye."                              -> text
//
// The client also asks for a session title (a request without `tools`); the mock answers it with a fixed title per
// run. Then the whole `storage/` tree is copied, as the client wrote it, to <fixtures>/storage/.
//
// Install the client (no global install, no network besides the npm registry):
//
//   npm install --prefix /tmp/oc-legacy opencode-ai@1.1.65
//   # the native binary comes with the optional dependency opencode-linux-x64 (and -baseline, -musl); npm already
//   # links node_modules/opencode-ai/bin/opencode to it, so the postinstall (which only picks the platform binary) is
//   # not needed on linux-x64.
//   /tmp/oc-legacy/node_modules/.bin/opencode --version   # 1.1.65
//
// Run:
//
//   node scripts/capture-opencode-legacy.mjs --client /tmp/oc-legacy/node_modules/.bin/opencode
//
// Options: --work <dir> (scratch root, wiped per run; default /tmp/oc-legacy-capture, kept fixed so the directories
// stored in sessions and messages are the same on every run), --model <provider/id> (default
// anthropic/claude-sonnet-4-5), --timeout <s> per client run (default 120), --fixtures <dir> (where storage/ goes,
// replaced per run; default fixtures/opencode-1.1.65 in this repo).
//
// Output in <work>/logs: requests.jsonl (every request: run, method, path, headers without credentials, body),
// run-<n>.stdout/.stderr (`--format json` events), meta.json (session id, title and counts per run). The fixture is
// only <fixtures>/storage/ (the client's files, byte for byte); the README next to it is written by hand.
//
// Isolation: HOME and XDG_{DATA,CONFIG,STATE,CACHE}_HOME under --work, cwd <work>/project (a git repo with one commit
// of fixed author and date, so the project id, the git root commit, is the same on every run), config in
// $XDG_CONFIG_HOME/opencode/opencode.json: provider.anthropic.options.baseURL = the mock on 127.0.0.1, autoupdate
// false, share disabled, permission bash/edit allow (no prompt can block). 1.1.65 has no `--pure` and no `--auto`; its
// equivalents: OPENCODE_DISABLE_DEFAULT_PLUGINS=1 (else it installs opencode-anthropic-auth from npm) and the
// permission config. Env: ANTHROPIC_API_KEY=sk-ant-test, OPENCODE_DISABLE_MODELS_FETCH=1 (the models.dev snapshot
// compiled into the binary is used; without it the client fetches models.dev), OPENCODE_DISABLE_AUTOUPDATE,
// OPENCODE_DISABLE_SHARE, OPENCODE_DISABLE_LSP_DOWNLOAD. No `--title`: the client generates the title as a real user
// would get it. Plain Node ESM, no dependencies.

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { reply, runCollected, startScriptedMock, text, toolUse } from "./clients/api/messages.mjs";
import { listFiles, opencodeEnv, treeSessions, writeOpencodeConfig } from "./opencode-sandbox.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));

// One run of the client each; every run starts a new session. `title` answers the title request(s) (no `tools`).
const runs = [
  {
    prompt: "What is the capital of France?",
    title: "Capital of France",
    replies: [reply([text("The capital of France is Paris.")])],
  },
  {
    prompt: "List the files here with bash.",
    title: "List project files",
    replies: [
      reply([text("I'll list them."), toolUse("toolu_mock_bash_01", "bash", { command: "ls", description: "List files in the project" })]),
      reply([text("The project holds one file: notes.txt.")]),
    ],
  },
  {
    prompt: "Say goodbye.",
    title: "Saying goodbye",
    replies: [reply([text("Goodbye!")])],
  },
];

const PROJECT_FILES = { "notes.txt": "alpha\nbeta\n" };

// ---------------------------------------------------------------------------------------------------------------
// Driver.

function parseArgs(argv) {
  const a = {
    work: "/tmp/oc-legacy-capture",
    model: "anthropic/claude-sonnet-4-5",
    timeout: 120,
    fixtures: path.join(HERE, "..", "fixtures", "opencode-1.1.65"),
  };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    const v = () => argv[++i];
    if (k === "--client") a.client = v();
    else if (k === "--work") a.work = v();
    else if (k === "--model") a.model = v();
    else if (k === "--timeout") a.timeout = Number(v());
    else if (k === "--fixtures") a.fixtures = v();
    else throw new Error("unknown argument " + k);
  }
  return a;
}

function countsFor(storage, sessionId) {
  const msgDir = path.join(storage, "message", sessionId);
  const messages = fs.existsSync(msgDir) ? fs.readdirSync(msgDir).map((f) => f.replace(/\.json$/, "")) : [];
  const parts = messages.reduce((n, m) => n + listFiles(path.join(storage, "part", m)).length, 0);
  return { messages: messages.length, parts };
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  if (!args.client) {
    console.error("usage: node scripts/capture-opencode-legacy.mjs --client <opencode 1.1.65 binary> [--fixtures <dir>] [--work <dir>]");
    process.exit(2);
  }

  const work = path.resolve(args.work);
  fs.rmSync(work, { recursive: true, force: true });
  const dirs = Object.fromEntries(["home", "data", "config", "state", "cache", "project", "logs"].map((d) => [d, path.join(work, d)]));
  for (const d of Object.values(dirs)) fs.mkdirSync(d, { recursive: true });
  const project = dirs.project;
  for (const [name, content] of Object.entries(PROJECT_FILES)) fs.writeFileSync(path.join(project, name), content);
  // A git repo with one commit of fixed author and date: the project id (the root commit) is the same on every run.
  const gitEnv = {
    ...process.env,
    HOME: dirs.home,
    GIT_AUTHOR_NAME: "mock",
    GIT_AUTHOR_EMAIL: "mock@example.invalid",
    GIT_COMMITTER_NAME: "mock",
    GIT_COMMITTER_EMAIL: "mock@example.invalid",
    GIT_AUTHOR_DATE: "2026-01-01T00:00:00Z",
    GIT_COMMITTER_DATE: "2026-01-01T00:00:00Z",
  };
  execFileSync("git", ["init", "-q", "-b", "main"], { cwd: project, env: gitEnv });
  execFileSync("git", ["add", "-A"], { cwd: project, env: gitEnv });
  execFileSync("git", ["commit", "-q", "-m", "init"], { cwd: project, env: gitEnv });

  const log = path.join(dirs.logs, "requests.jsonl");
  const state = { seq: 0, run: 0, replies: [], title: "", side: 0, log };
  const server = await startScriptedMock(state, () => ({ run: state.run }));
  const port = server.address().port;
  writeOpencodeConfig(dirs, { model: args.model, port, permission: { bash: "allow", edit: "allow" } });
  const env = { ...opencodeEnv(dirs), OPENCODE_DISABLE_DEFAULT_PLUGINS: "1" };
  const storage = path.join(dirs.data, "opencode", "storage");

  const meta = [];
  try {
    for (const [i, run] of runs.entries()) {
      state.run = i + 1;
      state.replies = [...run.replies];
      state.title = run.title;
      state.side = 0;
      const before = new Set(treeSessions(storage).map((s) => s.id));
      // `opencode run` joins its positional words with " " (a word holding a space would be quoted), so the prompt
      // goes in word by word.
      const cli = ["run", "--format", "json", "--model", args.model, "--", ...run.prompt.split(" ")];
      const r = await runCollected(args.client, cli, { cwd: project, env, timeoutMs: args.timeout * 1000 });
      fs.writeFileSync(path.join(dirs.logs, `run-${i + 1}.stdout`), r.stdout);
      fs.writeFileSync(path.join(dirs.logs, `run-${i + 1}.stderr`), r.stderr);
      const created = treeSessions(storage).filter((s) => !before.has(s.id));
      console.error(`run ${i + 1}: exit ${r.code}${r.signal ? " " + r.signal : ""}, new sessions ${created.map((s) => s.id).join(", ") || "none"}`);
      if (created.length !== 1) throw new Error(`run ${i + 1} made ${created.length} sessions (see ${dirs.logs}/run-${i + 1}.stdout/.stderr)`);
      if (r.code !== 0) throw new Error(`run ${i + 1} exited ${r.code} (see ${dirs.logs}/run-${i + 1}.stderr)`);
      const unused = state.replies.length;
      meta.push({ run: i + 1, prompt: run.prompt, sessionId: created[0].id, projectID: created[0].projectID, sideRequests: state.side, unusedReplies: unused });
    }
  } finally {
    server.close();
  }

  // Titles are written after the run's reply; read the sessions again at the end.
  for (const m of meta) {
    const s = treeSessions(storage).find((x) => x.id === m.sessionId);
    Object.assign(m, { title: s.title }, countsFor(storage, m.sessionId));
  }
  fs.writeFileSync(path.join(dirs.logs, "meta.json"), JSON.stringify({ project, runs: meta }, null, 2) + "\n");

  const dest = path.join(path.resolve(args.fixtures), "storage");
  fs.rmSync(dest, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(dest), { recursive: true });
  fs.cpSync(storage, dest, { recursive: true });
  const files = listFiles(dest);
  for (const m of meta)
    console.error(
      `session ${m.sessionId} (project ${m.projectID}): "${m.title}", ${m.messages} messages, ${m.parts} parts, ${m.sideRequests} side request(s)` +
        (m.unusedReplies ? `, ${m.unusedReplies} scripted repl(ies) not consumed` : ""),
    );
  console.error(`${files.length} files copied to ${dest}; logs in ${dirs.logs}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main().catch((e) => {
    console.error(e.stack || String(e));
    process.exit(1);
  });
}
