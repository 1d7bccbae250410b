// Shared by resume.test.ts and fix.test.ts: a pokeralph repository whose feedback loops are tiny node one-liners
// (npm: no lock file), stand-ins for the `claude` binary (node scripts, chmod +x), and the environment the CLI runs
// in (no real pokeralph server, recover's state in a temp dir).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { writeJson, writeProjectFile, type PokeralphFixture } from "../support/pokeralph-fixtures.js";

export function tmp(prefix: string): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
}

/** `test` and `lint` pass or fail as asked; config.json runs exactly those two loops. */
export function feedbackScripts(fx: PokeralphFixture, outcome: { test: boolean; lint: boolean }): void {
  const script = (name: string, pass: boolean) => `node -e "console.log('${name} ${pass ? "ok" : "FAILED"}'); process.exit(${pass ? 0 : 1})"`;
  writeProjectFile(
    fx,
    "package.json",
    `${JSON.stringify({ name: "invoice-service", private: true, scripts: { test: script("test", outcome.test), lint: script("lint", outcome.lint) } }, null, 2)}\n`,
  );
  writeJson(path.join(fx.dir, "config.json"), { ...fx.config, feedbackLoops: ["test", "lint"] });
}

export type ClaudeKind = "ok" | "fail" | "sleep";

/**
 * A `claude` stand-in: prints its argv and the prompt, edits src/claude-was-here.ts in the cwd (the repo), then
 * exits 0 ("ok"), exits 1 ("fail"), or sleeps a minute ("sleep", for the timeout).
 */
export function fakeClaude(kind: ClaudeKind): string {
  const dir = tmp("recover-claude-");
  const file = path.join(dir, "claude");
  const body = `#!${process.execPath}
const fs = require("node:fs");
const args = process.argv.slice(2);
console.log("ARGS " + JSON.stringify(args.slice(0, -1)));
console.log("CI=" + process.env.CI + " CWD=" + process.cwd());
console.log("TTY stdin=" + Boolean(process.stdin.isTTY) + " stdout=" + Boolean(process.stdout.isTTY));
console.log("PROMPT-BEGIN\\n" + args.at(-1) + "\\nPROMPT-END");
console.error("a line on stderr");
fs.writeFileSync("src/claude-was-here.ts", "export const fixed = true;\\n");
${kind === "fail" ? 'console.error("API Error: overloaded"); process.exit(1);' : kind === "sleep" ? "setTimeout(() => {}, 60000);" : "process.exit(0);"}
`;
  fs.writeFileSync(file.endsWith(".cjs") ? file : file, body);
  fs.chmodSync(file, 0o755);
  return file;
}
