#!/usr/bin/env node
// Judge recover's Gemini CLI repairs by the real outcome: for each damaged capture in fixtures/gemini-0.61, put the
// chat file in a fresh Gemini home (the project at the path it was captured from, so the client finds it), let the
// real Gemini CLI resume it (`gemini --resume <id> -p "Continue."`) against the loopback Gemini mock, which checks the
// request as the API does (mock-gemini-api.mjs checkContents); then repair a fresh copy with `recover session repair
// <id> --yes` and resume that. Prints one line per scenario: what the client did before the repair and after it.
//
//   npm install --prefix /tmp/gemini-client @google/gemini-cli@0.61.0      # see capture-gemini-chat.mjs
//   npm run build && node scripts/resume-repaired-gemini.mjs [--client <gemini.js>] [--scenario <name>]
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { checkContents, reply, startGeminiMock, text } from "./clients/api/gemini.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const FIXTURES = path.join(ROOT, "fixtures", "gemini-0.61");
const WORK = "/tmp/gemini-capture";
const DAMAGED = ["tool", "tool-failed-twice", "result-null-repaired", "torn-line", "rewind-unknown", "empty-gemini", "empty-gemini-text", "killed-mid-call"];

function parseArgs(argv) {
  const a = { client: "/tmp/gemini-client/node_modules/@google/gemini-cli/bundle/gemini.js", scenarios: DAMAGED };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--client") a.client = argv[++i];
    else if (argv[i] === "--scenario") a.scenarios = [argv[++i]];
  }
  return a;
}

function clientRun(client, args, env, cwd) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [client, ...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => process.kill(-child.pid, "SIGKILL"), 120_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

async function resume(client, scenario, repair) {
  fs.rmSync(WORK, { recursive: true, force: true });
  const home = path.join(WORK, "home");
  const project = path.join(WORK, "project");
  const chats = path.join(home, ".gemini", "tmp", "project", "chats");
  for (const d of [chats, project, path.join(WORK, "tmp")]) fs.mkdirSync(d, { recursive: true });
  fs.writeFileSync(
    path.join(home, ".gemini", "settings.json"),
    JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" } }, model: { name: "gemini-2.5-pro" }, privacy: { usageStatisticsEnabled: false } }),
  );
  fs.writeFileSync(path.join(home, ".gemini", "projects.json"), JSON.stringify({ projects: { [project]: "project" } }));
  const bytes = fs.readFileSync(path.join(FIXTURES, `${scenario}.jsonl`));
  const id = JSON.parse(bytes.toString("utf8", 0, bytes.indexOf(0x0a))).sessionId;
  const file = path.join(chats, `session-2026-11-24T19-21-${id.slice(0, 8)}.jsonl`);
  fs.writeFileSync(file, bytes);
  const old = new Date("2026-11-24T19:30:00Z");
  fs.utimesSync(file, old, old);
  let repaired = "not repaired";
  if (repair) {
    const r = spawnSync(
      process.execPath,
      [path.join(ROOT, "bin", "recover"), "session", "repair", id, "--yes", "--json", "--store", path.join(home, ".gemini")],
      {
        encoding: "utf8",
        env: { ...process.env, XDG_STATE_HOME: path.join(WORK, "state") },
      },
    );
    const doc = r.stdout ? JSON.parse(r.stdout) : {};
    repaired = `repair exit ${r.status}: ${(doc.sessions?.[0]?.changes ?? []).map((c) => `${c.op} [${c.rules.join(",")}]`).join(", ") || r.stderr.trim()}`;
  }
  const answered = [];
  const mock = await startGeminiMock({
    log: path.join(WORK, "requests.jsonl"),
    next: (body) => {
      const refused = checkContents(body);
      answered.push(refused ? refused.httpError.message.trim() : "accepted");
      return refused ?? reply([text("Continuing.")]);
    },
  });
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    TMPDIR: path.join(WORK, "tmp"),
    LANG: "C.UTF-8",
    TERM: "dumb",
    NO_COLOR: "1",
    GEMINI_API_KEY: "dummy",
    GOOGLE_GEMINI_BASE_URL: mock.url,
    GEMINI_CLI_NO_RELAUNCH: "1",
    GEMINI_CLI_TRUST_WORKSPACE: "true",
  };
  const r = await clientRun(client, ["--yolo", "--resume", id, "-p", "Continue."], env, project);
  await mock.close();
  const said = answered[0] ?? (r.stderr.match(/Error resuming session: [^\n]*/)?.[0] || "no request");
  return { exit: r.code, answered: said, repaired };
}

async function main() {
  const a = parseArgs(process.argv.slice(2));
  for (const scenario of a.scenarios) {
    const before = await resume(a.client, scenario, false);
    const after = await resume(a.client, scenario, true);
    console.log(`${scenario}\n  before: exit ${before.exit}, ${before.answered}\n  ${after.repaired}\n  after:  exit ${after.exit}, ${after.answered}`);
  }
  fs.rmSync(WORK, { recursive: true, force: true });
}

await main();
