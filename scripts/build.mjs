#!/usr/bin/env node
// Builds dist/: the CLI as one ESM bundle split at its lazy imports (esbuild), so a command loads a handful of
// files instead of ~200 modules of ours and ~300 of its dependencies. Start-up was most of the cost of a small run
// (docs/performance.md). Type checking is `npm run typecheck` (part of `npm run lint`): esbuild only strips types.
//
//   node scripts/build.mjs            dist/ with source maps (their sources embedded, so stacks map to src/*.ts)
//   RECOVER_BUILD_MINIFY=0 node scripts/build.mjs   readable names, for a CPU profile (--cpu-prof)
//
// Layout (flat, so a chunk finds its siblings with `new URL("./x.js", import.meta.url)`):
//   dist/main.js          the CLI (bin/recover imports it; tests import it in-process)
//   dist/scan-worker.js   the parallel scan's worker thread
//   dist/<name>-<hash>.js one chunk per lazily imported command, and the code they share
//   dist/meta.json        what went into each output file (test/cli/lazy-commands.test.ts reads it; not packed)
//   dist/THIRD-PARTY-NOTICES.txt  the license of every package bundled in (their terms ask for it in every copy)
//   dist/recover.1        the man page, rendered from the built command tree (package.json "man")
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

/**
 * A dependency's own source map names sources its package does not ship (chardet's src/*.ts, …): esbuild would chain
 * to them and leave the bundle's map pointing at files nobody has. Map dependency code to the JavaScript that was
 * bundled instead, which the map then embeds.
 */
const dependencyCodeAsShipped = {
  name: "dependency-code-as-shipped",
  setup(builder) {
    builder.onLoad({ filter: /[\\/]node_modules[\\/].*\.[cm]?js$/ }, async ({ path }) => ({
      contents: (await readFile(path, "utf8")).replace(/\/\/[#@] sourceMappingURL=\S*\s*$/, ""),
      loader: "js",
    }));
  },
};

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const outdir = join(root, "dist");

// Hashed chunk names change with their content: a stale chunk must not stay behind.
rmSync(outdir, { recursive: true, force: true });
const result = await build({
  absWorkingDir: root,
  entryPoints: { main: "src/cli/main.ts", "scan-worker": "src/scan/scan-worker.ts" },
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  // A native addon: it is found in node_modules at run time, next to its .node file.
  external: ["better-sqlite3"],
  minify: process.env.RECOVER_BUILD_MINIFY !== "0",
  sourcemap: "linked",
  sourcesContent: true,
  metafile: true,
  legalComments: "none",
  // Some dependencies are CommonJS and call require() for Node's built-ins; in an ESM bundle that needs a require.
  banner: { js: 'import { createRequire as __recoverRequire } from "node:module"; const require = __recoverRequire(import.meta.url);' },
  plugins: [dependencyCodeAsShipped],
  logLevel: "warning",
});
writeFileSync(join(outdir, "meta.json"), JSON.stringify(result.metafile));

/** Each bundled package once: its name, version, license and license text. */
function notices(metafile) {
  const dirs = new Set();
  for (const input of Object.keys(metafile.inputs)) {
    const at = input.lastIndexOf("node_modules/");
    if (at < 0) continue;
    const rest = input.slice(at + "node_modules/".length).split("/");
    dirs.add(input.slice(0, at) + "node_modules/" + rest.slice(0, rest[0].startsWith("@") ? 2 : 1).join("/"));
  }
  return [...dirs].sort().map((dir) => {
    const pkg = JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8"));
    const file = readdirSync(join(root, dir)).find((f) => /^(licen[cs]e|copying)(\.|$)/i.test(f));
    const text = file ? readFileSync(join(root, dir, file), "utf8").trim() : `${pkg.license} (no license file in the package)`;
    return `${pkg.name}@${pkg.version} (${pkg.license})\n\n${text}\n`;
  });
}
const header = "recover bundles these packages into dist/; their licenses follow.\n";
writeFileSync(join(outdir, "THIRD-PARTY-NOTICES.txt"), [header, ...notices(result.metafile)].join(`\n${"-".repeat(78)}\n\n`));
if (!existsSync(join(outdir, "main.js"))) throw new Error("the build wrote no dist/main.js");

// recover(1) (package.json "man"), from the command tree just built: the same definitions --help prints.
const cli = await import(pathToFileURL(join(outdir, "main.js")).href);
writeFileSync(join(outdir, "recover.1"), await cli.manPage());
