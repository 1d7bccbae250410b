#!/usr/bin/env node
// Judge recover's Codex repairs by the real outcome: for each damaged capture in fixtures/codex-0.169, put the rollout
// in a fresh Codex home, run `recover session repair <id> --yes`, then let the real Codex CLI resume it
// (`codex exec resume <id> "Continue."`) against the loopback Responses mock, which checks the request as the API does
// (capture-codex-rollout.mjs apiCheck) and, for `bad-reasoning`, rejects the reasoning contents the stored error
// named, as the API did. Prints one line per scenario: what the client did before the repair and after it.
//
//   npm install --prefix /tmp/codex-client @openai/codex@0.169.0      # see capture-codex-rollout.mjs
//   npm run build && node scripts/resume-repaired-codex.mjs [--client <codex>] [--scenario <name>]
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { apiCheck, configToml, runClient } from "./capture-codex-rollout.mjs";
import { httpError, message, reply, startResponsesMock } from "./clients/api/responses.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const FIXTURES = path.join(ROOT, "fixtures", "codex-0.169");
const DAMAGED = ["killed-mid-call", "torn-tail", "nul-line", "duplicate-output", "empty-call-id", "orphan-output", "torn-output", "bad-reasoning"];

function parseArgs(argv) {
  const a = { client: "/tmp/codex-client/node_modules/.bin/codex", scenarios: DAMAGED };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--client") a.client = argv[++i];
    else if (argv[i] === "--scenario") a.scenarios = [argv[++i]];
  }
  return a;
}

/** The API's answer to the reasoning the stored error named (the mock cannot verify encrypted content). */
function rejectsReasoning(bad) {
  return (body) => {
    const item = (body.input ?? []).find((it) => it.type === "reasoning" && bad.has(it.encrypted_content));
    if (!item) return null;
    const c = item.encrypted_content;
    return httpError(400, `The encrypted content ${c.slice(0, 4)}...${c.slice(-4)} could not be verified.`, { code: "invalid_encrypted_content" });
  };
}

async function resume(client, scenario, repair) {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), `codex-resume-${scenario}-`));
  const home = path.join(work, "home");
  const codexHome = path.join(home, ".codex");
  const day = path.join(codexHome, "sessions", "2026", "11", "24");
  fs.mkdirSync(day, { recursive: true });
  fs.mkdirSync(path.join(work, "project"));
  // bad-reasoning: the rollout as the failed resume left it (its task_complete holds the API's answer).
  const source = scenario === "bad-reasoning" ? `${scenario}.after.jsonl` : `${scenario}.jsonl`;
  const bytes = fs.readFileSync(path.join(FIXTURES, source));
  const lines = bytes.toString("utf8").split("\n");
  const id = JSON.parse(lines[0]).payload.id;
  const file = path.join(day, `rollout-2026-11-24T19-07-00-${id}.jsonl`);
  fs.writeFileSync(file, bytes);
  const old = new Date("2026-11-24T19:10:00Z");
  fs.utimesSync(file, old, old);
  const bad = new Set(
    scenario === "bad-reasoning"
      ? lines.flatMap((l) => {
          try {
            const v = JSON.parse(l);
            return v.payload?.type === "reasoning" ? [v.payload.encrypted_content] : [];
          } catch {
            return [];
          }
        })
      : [],
  );
  let repaired = "not repaired";
  if (repair) {
    const r = spawnSync(process.execPath, [path.join(ROOT, "bin", "recover"), "session", "repair", id, "--yes", "--json", "--store", codexHome], {
      encoding: "utf8",
    });
    const doc = r.stdout ? JSON.parse(r.stdout) : {};
    repaired = `repair exit ${r.status}: ${(doc.sessions?.[0]?.changes ?? []).map((c) => `${c.op} [${c.rules.join(",")}]`).join(", ") || r.stderr.trim()}`;
  }
  const answered = [];
  const state = {
    log: path.join(work, "requests.jsonl"),
    next: (body) => {
      const refused = apiCheck(body) ?? rejectsReasoning(bad)(body);
      answered.push(refused ? refused.httpError.error.message : "accepted");
      return refused ?? reply([message("Continuing.")]);
    },
  };
  const mock = await startResponsesMock(state);
  fs.writeFileSync(path.join(codexHome, "config.toml"), configToml(mock.port, "gpt-5.5"));
  const env = { PATH: process.env.PATH, HOME: home, CODEX_HOME: codexHome, MOCK_API_KEY: "sk-mock-not-a-key", LANG: "C.UTF-8", TERM: "dumb", NO_COLOR: "1" };
  const args = ["exec", "resume", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", id, "Continue."];
  const r = await runClient(client, args, { cwd: path.join(work, "project"), env, timeoutMs: 120_000 });
  await mock.close();
  fs.rmSync(work, { recursive: true, force: true });
  return { exit: r.code, answered: answered[0] ?? "no request", repaired };
}

async function main() {
  const a = parseArgs(process.argv.slice(2));
  for (const scenario of a.scenarios) {
    const before = await resume(a.client, scenario, false);
    const after = await resume(a.client, scenario, true);
    console.log(
      `${scenario}\n  before: exit ${before.exit}, API: ${before.answered}\n  ${after.repaired}\n  after:  exit ${after.exit}, API: ${after.answered}`,
    );
  }
}

await main();
