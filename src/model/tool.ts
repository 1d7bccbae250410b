import { readFileSync } from "node:fs";

/**
 * The package's own version, read once from package.json next to dist/. In model/ because it is part of what
 * recover writes (backup manifests, JSON documents), not of the command line.
 */
export const TOOL_VERSION: string = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;

export const TOOL = { name: "recover", version: TOOL_VERSION } as const;
