#!/usr/bin/env node
// Probe (issue 41): what does Gemini CLI's interactive UI store in the chat file when the API refuses a request?
// (Headless `-p` stores nothing: docs/research/resume-commands.md.) `recover session resume` reads a refusal the
// session recorded; this says whether Gemini's interactive one is there, and in what words.
//
//   node scripts/clients/probes/gemini-ui-error.mjs [--version V] [--out /tmp/gemini-ui-error]
//
// Two steps through the client suite's engine, offline against the Gemini API mock: a turn through `-p`, then the
// interactive UI resuming it on a terminal of its own (`script`), a prompt typed at it, the mock answering with a 400;
// killed a while after. The chat file after each step is in <out> (chat-after-step-N*.json[l]); the records of the
// resumed session that are not user or model turns are in <out>/gemini-ui-error.json.
import fs from "node:fs";
import path from "node:path";
import { httpError } from "../api/gemini.mjs";
import { APIS } from "../lib/engine.mjs";
import { probeTarget, runProbe } from "./probe.mjs";

const target = await probeTarget("gemini", "/tmp/gemini-ui-error");
const { version } = target;
const REFUSAL = "Corrupted thought signature.";
const scenario = {
  about: "a -p turn, then the interactive UI resuming it, refused with a 400",
  enforce: false,
  steps: [
    { prompt: "Remember the word tangerine.", replies: [APIS.gemini.plainReply("ok")] },
    {
      argv: (ctx) => ["--yolo", "--resume", ctx.session?.id ?? "latest"],
      pty: true,
      clientEnv: { TERM: "xterm-256color", COLUMNS: "100", LINES: "40" },
      replies: [httpError(400, REFUSAL), httpError(400, REFUSAL), httpError(400, REFUSAL), httpError(400, REFUSAL)],
      kill: { afterRequest: 1, afterMs: 8000 },
      // Typed once the UI is up; the input stays open until the kill.
      stdin: [
        { text: "Which word?", afterMs: 20_000 },
        { text: "\r", afterMs: 1_000 },
        { text: "", afterMs: 120_000 },
      ],
      check(ctx) {
        const file = ctx.session?.file;
        const text = file && fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "";
        const records =
          text.trim().startsWith("{") && !file.endsWith(".jsonl")
            ? (JSON.parse(text).messages ?? [])
            : text
                .split("\n")
                .filter(Boolean)
                .map((l) => JSON.parse(l));
        const other = records.filter((r) => r.type !== "user" && r.type !== "gemini");
        const result = { file, records: records.length, types: [...new Set(records.map((r) => r.type))], other };
        fs.writeFileSync(path.join(ctx.out, "gemini-ui-error.json"), `${JSON.stringify(result, null, 2)}\n`);
        console.error(`[gemini ${version}] ${JSON.stringify(result).slice(0, 2000)}`);
        return [];
      },
    },
  ],
};
await runProbe(target, "gemini-ui-error", scenario, { quiet: false, timeout: 240 });
