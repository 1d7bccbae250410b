import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The folder of recover's own package.json: the first one above this module. Found, not assumed, because this
 * module runs from src/model/ (tests), from a chunk of the dist/ bundle, and from an installed copy of it.
 */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let up = 0; up < 4 && !existsSync(join(dir, "package.json")); up++) dir = dirname(dir);
  return dir;
}

/**
 * The package's own version, read once from its package.json. In model/ because it is part of what recover writes
 * (backup manifests, JSON documents), not of the command line.
 */
export const TOOL_VERSION: string = (JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as { version: string }).version;

export const TOOL = { name: "recover", version: TOOL_VERSION } as const;
