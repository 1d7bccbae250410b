#!/usr/bin/env node
// Probe (issue 41): does a client resume a session by its id from another directory than the one it was made in?
// `recover session resume` must know whether to run the client in the session's own directory.
//
//   node scripts/clients/probes/resume-cwd.mjs <client> [--version V] [--out /tmp/resume-cwd-<client>]
//
// Two steps through the client suite's engine (lib/engine.mjs), offline against the client's API mock: a new session
// in the sandbox's project dir, then the driver's resume of it by id with the cwd moved to <work>/elsewhere (an empty
// dir; the step's `edit` moves it). The verdict says whether the resumed run sent the first turn (the history found)
// and how it exited. openclaw is left out: its sessions are keyed by agent, not by directory.
import fs from "node:fs";
import path from "node:path";
import { APIS, runScenario } from "../lib/engine.mjs";
import { installClient } from "../lib/install.mjs";
import { loadClient } from "../index.mjs";

const name = process.argv[2];
const arg = (n, d) => {
  const i = process.argv.indexOf(`--${n}`);
  return i > 0 ? process.argv[i + 1] : d;
};
const client = await loadClient(name);
const version = arg("version", client.driver.versions.at(-1));
const out = path.resolve(arg("out", `/tmp/resume-cwd-${name}`));
const reply = APIS[client.driver.api].plainReply;
const FIRST = "Remember the word tangerine.";
const scenario = {
  about: "a new session, then its resume by id from another directory",
  steps: [
    { prompt: FIRST, replies: [reply("ok")] },
    {
      prompt: "Which word?",
      resume: true,
      replies: [reply("tangerine")],
      edit(ctx) {
        const elsewhere = path.join(ctx.work, "elsewhere");
        fs.mkdirSync(elsewhere, { recursive: true });
        ctx.sandbox.cwd = elsewhere;
        return `cwd moved to ${elsewhere}`;
      },
      check(ctx, r) {
        const reqs = fs
          .readFileSync(path.join(ctx.out, "requests.jsonl"), "utf8")
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l))
          .filter((q) => q.tag === 2 && q.body);
        const sentHistory = reqs.some((q) => JSON.stringify(q.body).includes("tangerine."));
        const result = { exit: r.code, requests: reqs.length, sentHistory, stderrTail: r.stderr.trim().split("\n").slice(-3) };
        fs.writeFileSync(path.join(ctx.out, "resume-cwd.json"), `${JSON.stringify(result, null, 2)}\n`);
        console.error(`[${name} ${version}] resume from another cwd: ${JSON.stringify(result)}`);
        return [];
      },
    },
  ],
};
const installed = installClient(client.driver, version);
await runScenario({ driver: client.driver, scenarios: { "resume-cwd": scenario } }, "resume-cwd", installed, {
  out,
  work: `${out}-work`,
  quiet: true,
});
