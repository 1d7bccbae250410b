/**
 * What a path holds, judged from its bytes and layout alone, before any adapter reads it: a forced `--format`
 * that does not match what is on disk is refused here, so no adapter ever parses (or rewrites) a store of
 * another kind (a SQLite file read as a transcript "repaired" into 0 bytes). Each adapter judges its own format
 * (`detect`); this file only asks them, in the registry's order.
 */
import { RecoverError } from "../errors.js";
import type { PathProbe, StoreAdapter, WhatIsHere } from "./adapter.js";
import { basename } from "node:path";
import { probePath } from "./probe.js";

/** Refuse a forced format that does not match what is at `target` (exit 2, one line saying what is there). */
export function assertFormatMatches(target: string, adapter: StoreAdapter, found: WhatIsHere): void {
  if (found.formats.includes(adapter.format)) return;
  throw new RecoverError("not-a-store", `--format ${adapter.format}: ${target} is ${found.description}, not ${adapter.noun} (expected ${adapter.expects})`);
}

export function whatIsAt(target: string, adapters: readonly StoreAdapter[]): WhatIsHere {
  const probe = probePath(target);
  if (probe === undefined) return { description: "neither a file nor a folder", formats: [] };
  return probe.kind === "file" ? fileKind(probe, adapters) : folderKind(probe, adapters);
}

/**
 * A file is one thing: the adapter whose agent names its store file so (openclaw-agent.sqlite), else the first adapter
 * that knows it (the default adapter knows every SQLite file). An empty file may be any format that can start empty.
 */
function fileKind(probe: PathProbe, adapters: readonly StoreAdapter[]): WhatIsHere {
  if (probe.size === 0) return { description: "an empty file", formats: adapters.filter((a) => a.detect(probe) !== undefined).map((a) => a.format) };
  const name = basename(probe.path);
  for (const adapter of [...adapters.filter((a) => a.fileName === name), ...adapters.filter((a) => a.fileName !== name)]) {
    const description = adapter.detect(probe);
    if (description !== undefined) return { description, formats: [adapter.format] };
  }
  return {
    description: `a file that is neither ${listed(
      adapters.flatMap((a) => (a.signs.file ? [a.signs.file] : [])),
      "nor",
    )}`,
    formats: [],
  };
}

/** A folder may hold several stores at once (an opencode data dir with its legacy JSON tree): every one is named. */
function folderKind(probe: PathProbe, adapters: readonly StoreAdapter[]): WhatIsHere {
  if (probe.entries.length === 0) return { description: "an empty folder", formats: [] };
  const formats: string[] = [];
  const described: string[] = [];
  for (const adapter of adapters) {
    const description = adapter.detect(probe);
    if (description === undefined) continue;
    formats.push(adapter.format);
    described.push(description);
  }
  if (described.length > 0) return { description: described.join(" and "), formats };
  const signs = listed(
    adapters.flatMap((a) => a.signs.folder),
    "or",
  );
  return { description: `a folder holding no store recover knows (no ${signs})`, formats };
}

/** "a, b or c", each sign once, at its last mention: a family's shared sign (.jsonl) follows the family's own ones. */
function listed(signs: readonly string[], last: "or" | "nor"): string {
  const once = signs.filter((sign, i) => signs.lastIndexOf(sign) === i);
  return once.length <= 1 ? (once[0] ?? "") : `${once.slice(0, -1).join(", ")} ${last} ${once.at(-1)}`;
}
