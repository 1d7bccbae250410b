#!/usr/bin/env node
// Builds dist/: the CLI as one CommonJS bundle (esbuild), loaded by bin/recover through V8's code cache
// (src/launch/compile-cache.ts). Start-up was most of the cost of a small run (docs/performance.md): Node 20 can
// cache the compiled code of a script it is handed (vm.Script's cachedData) but not of an ES module, and one file
// with its modules initialised on first use (esbuild's lazy wrappers for every `await import()`) compiles from the
// cache in a few milliseconds, where 30 ES-module chunks cost their resolution, loading and compilation every run.
// Type checking is `npm run typecheck` (part of `npm run lint`): esbuild only strips types.
//
//   node scripts/build.mjs            dist/ with source maps (their sources embedded, so stacks map to src/*.ts)
//   RECOVER_BUILD_MINIFY=0 node scripts/build.mjs   readable names, for a CPU profile (--cpu-prof)
//
// Layout:
//   dist/main.cjs         the CLI (bin/recover loads it; tests require it in-process)
//   dist/main.cjs.id      a hash of main.cjs: the code cache is kept per build, so a cache never outlives its code
//   dist/launch.cjs       the loader bin/recover runs: compiles main.cjs with the code cache, writes the cache
//   dist/scan-worker.cjs  the parallel scan's worker thread (and its .id), started through dist/launch-worker.cjs
//   dist/meta.json        what went into each output file (not packed)
//   dist/THIRD-PARTY-NOTICES.txt  the license of every package bundled in (their terms ask for it in every copy)
//   dist/recover.1        the man page, rendered from the built command tree (package.json "man")
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
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

/**
 * commander requires child_process when it loads, for subcommands that are separate executables, which recover has
 * none of; loading it (and net, which it pulls in) was ~3 % of a one-session scan's CPU. Inside commander it is a
 * stand-in that requires the real module on first use.
 */
const childProcessOnFirstUse = {
  name: "child-process-on-first-use",
  setup(builder) {
    builder.onResolve({ filter: /^(node:)?child_process$/ }, ({ importer }) =>
      /[\\/]node_modules[\\/]commander[\\/]/.test(importer) ? { path: "child_process", namespace: "child-process-on-first-use" } : undefined,
    );
    builder.onLoad({ filter: /.*/, namespace: "child-process-on-first-use" }, () => ({
      contents: 'module.exports = new Proxy({}, { get: (_, key) => require("node:child_process")[key] });',
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
  entryPoints: {
    main: "src/cli/main.ts",
    "scan-worker": "src/scan/scan-worker.ts",
    launch: "src/launch/compile-cache.ts",
    "launch-worker": "src/launch/worker.ts",
  },
  outdir,
  outExtension: { ".js": ".cjs" },
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  // A native addon: it is found in node_modules at run time, next to its .node file.
  external: ["better-sqlite3", "@node-rs/xxhash", "fzstd"],
  minify: process.env.RECOVER_BUILD_MINIFY !== "0",
  sourcemap: "linked",
  sourcesContent: true,
  metafile: true,
  legalComments: "none",
  // The sources are ES modules: `import.meta.url` (where a module finds its package, its worker) is the bundle's.
  define: { "import.meta.url": "__recoverBundleUrl" },
  banner: { js: 'var __recoverBundleUrl = require("node:url").pathToFileURL(__filename).href;' },
  plugins: [dependencyCodeAsShipped, childProcessOnFirstUse],
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
if (!existsSync(join(outdir, "main.cjs"))) throw new Error("the build wrote no dist/main.cjs");
// Each bundle loaded through the code cache gets its build id: a hash of its bytes.
for (const bundle of ["main.cjs", "scan-worker.cjs"]) {
  const id = createHash("sha256")
    .update(readFileSync(join(outdir, bundle)))
    .digest("hex")
    .slice(0, 16);
  writeFileSync(join(outdir, `${bundle}.id`), `${id}\n`);
}

// recover(1) (package.json "man"), from the command tree just built: the same definitions --help prints.
const cli = createRequire(import.meta.url)(join(outdir, "main.cjs"));
writeFileSync(join(outdir, "recover.1"), await cli.manPage());
