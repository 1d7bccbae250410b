#!/usr/bin/env node
// `npm run demo:battle [dir]`: builds a throw-away pokeralph repository to try the battle commands on.
// The builder is TypeScript (scripts/demo-battle-entry.ts, reusing the test fixtures) and plain node has no TS
// loader, so esbuild bundles it first. Dependencies stay external (simple-git & co. are not bundled): the bundle is
// written under this checkout's node_modules/ so that they resolve from node_modules/ as usual.
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const outfile = join(root, "node_modules/.cache/recover-demo/demo-battle.mjs");
mkdirSync(dirname(outfile), { recursive: true });
await build({
  absWorkingDir: root,
  entryPoints: ["scripts/demo-battle-entry.ts"],
  outfile,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  logLevel: "warning",
});
// Same process, same argv (process.argv[2] is the target dir); the entry sets the exit code itself.
await import(pathToFileURL(outfile).href);
