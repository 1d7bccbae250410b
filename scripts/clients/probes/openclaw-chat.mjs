#!/usr/bin/env node
// Probe (issue 41): does `openclaw chat --session <key>` continue the session its key points at?
//
//   node scripts/clients/probes/openclaw-chat.mjs [--version V] [--out /tmp/openclaw-chat]
//
// Two steps through the client suite's engine, offline against the Messages API mock: a turn of the agent's main
// session (`openclaw agent --local`), then `openclaw chat --session agent:main:main --message <prompt>` (the TUI on the
// embedded agent), killed once the mock has answered it. The verdict says whether that request carried the first turn.
import fs from "node:fs";
import path from "node:path";
import { APIS } from "../lib/engine.mjs";
import { probeTarget, requestsOfStep, runProbe } from "./probe.mjs";

const target = await probeTarget("openclaw", "/tmp/openclaw-chat");
const { version } = target;
const reply = APIS.messages.plainReply;
const scenario = {
  about: "a turn of the main session, then the TUI on its key",
  steps: [
    { prompt: "Remember the word tangerine.", replies: [reply("ok")] },
    {
      argv: ["chat", "--session", "agent:main:main", "--message", "Which word?"],
      replies: [reply("tangerine")],
      kill: { afterRequest: 1, afterMs: 1500 },
      // The TUI ends when its input does: held open (a pipe, no terminal) until the mock has answered.
      stdin: [{ text: "", afterMs: 150_000 }],
      check(ctx, r) {
        const reqs = requestsOfStep(ctx, 2);
        const sentHistory = reqs.some((q) => JSON.stringify(q.body).includes("tangerine."));
        const result = {
          exit: r.code,
          signal: r.signal,
          requests: reqs.length,
          sentHistory,
          stderrTail: r.stderr.trim().split("\n").slice(-5),
          stdoutTail: r.stdout.trim().split("\n").slice(-5),
        };
        fs.writeFileSync(path.join(ctx.out, "openclaw-chat.json"), `${JSON.stringify(result, null, 2)}\n`);
        console.error(`[openclaw ${version}] chat --session: ${JSON.stringify(result)}`);
        return [];
      },
    },
  ],
};
await runProbe(target, "openclaw-chat", scenario, { timeout: 200 });
