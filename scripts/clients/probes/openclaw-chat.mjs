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
import { APIS, runScenario } from "../lib/engine.mjs";
import { installClient } from "../lib/install.mjs";
import { loadClient } from "../index.mjs";

const arg = (n, d) => {
  const i = process.argv.indexOf(`--${n}`);
  return i > 0 ? process.argv[i + 1] : d;
};
const client = await loadClient("openclaw");
const version = arg("version", client.driver.versions.at(-1));
const out = path.resolve(arg("out", "/tmp/openclaw-chat"));
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
        const reqs = fs
          .readFileSync(path.join(ctx.out, "requests.jsonl"), "utf8")
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l))
          .filter((q) => q.tag === 2 && q.body);
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
const installed = installClient(client.driver, version);
await runScenario({ driver: client.driver, scenarios: { "openclaw-chat": scenario } }, "openclaw-chat", installed, {
  out,
  work: `${out}-work`,
  quiet: true,
  timeout: 200,
});
