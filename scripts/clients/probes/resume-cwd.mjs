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
import { APIS } from "../lib/engine.mjs";
import { probeTarget, requestsOfStep, runProbe } from "./probe.mjs";

const name = process.argv[2];
const target = await probeTarget(name, `/tmp/resume-cwd-${name}`);
const { client, version } = target;
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
        const reqs = requestsOfStep(ctx, 2);
        const sentHistory = reqs.some((q) => JSON.stringify(q.body).includes("tangerine."));
        const result = { exit: r.code, requests: reqs.length, sentHistory, stderrTail: r.stderr.trim().split("\n").slice(-3) };
        fs.writeFileSync(path.join(ctx.out, "resume-cwd.json"), `${JSON.stringify(result, null, 2)}\n`);
        console.error(`[${name} ${version}] resume from another cwd: ${JSON.stringify(result)}`);
        return [];
      },
    },
  ],
};
await runProbe(target, "resume-cwd", scenario);
