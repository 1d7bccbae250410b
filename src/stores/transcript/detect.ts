/**
 * Which transcript format a path holds, judged once for every transcript adapter: a folder holds at most one of
 * them, and what says which (a layout's home or part, the header line of a transcript) is theirs to share.
 */
import { join } from "node:path";
import type { PathProbe } from "../adapter.js";
import type { TranscriptDialect } from "../../model/transcript.js";
import { readHead } from "../probe.js";
import type { Dialect } from "./dialect.js";
import { knownFormats } from "./format.js";
import { folderMatch } from "./locate.js";

export interface TranscriptKind {
  /** Both, for an empty .jsonl: either agent may have just created it. */
  dialects: TranscriptDialect[];
  description: string;
}

const judged = new WeakMap<PathProbe, TranscriptKind | undefined>();

export function transcriptKind(probe: PathProbe): TranscriptKind | undefined {
  if (!judged.has(probe)) judged.set(probe, probe.kind === "file" ? fileKind(probe) : folderKind(probe));
  return judged.get(probe);
}

function fileKind(probe: PathProbe): TranscriptKind | undefined {
  const jsonl = probe.path.endsWith(".jsonl");
  if (probe.size === 0) return jsonl ? { dialects: knownFormats().map((f) => f.dialect.name), description: "an empty file" } : undefined;
  // A damaged transcript may begin with a NUL run or a torn line; its name still says what it is. A format that
  // writes a whole document (Gemini CLI's legacy .json) is known by its own header.
  const document = knownFormats().some((f) => f.dialect.oneDocument?.(probe.path) && f.dialect.sniff?.(probe.head().toString("utf8")));
  if (!jsonl && !document && !firstLineIsJsonObject(probe.head())) return undefined;
  const dialect = transcriptDialect(probe.head());
  if (!holdsItsRecords(probe.head(), dialect, jsonl)) return undefined;
  return { dialects: [dialect.name], description: `${/^[aeiou]/i.test(dialect.agent) ? "an" : "a"} ${dialect.agent} transcript` };
}

function folderKind({ path: dir, entries }: PathProbe): TranscriptKind | undefined {
  const matched = folderMatch(dir, entries);
  if (matched) return { dialects: [matched.format.dialect.name], description: matched.description };
  const transcript = entries.find((name) => name.endsWith(".jsonl"));
  if (transcript === undefined) return undefined;
  const head = readHead(join(dir, transcript));
  const dialect = transcriptDialect(head);
  if (!holdsItsRecords(head, dialect, true)) return undefined;
  return { dialects: [dialect.name], description: `a folder of ${dialect.agent} transcripts` };
}

/** The format whose own header opens the file; else the one that has none. */
function transcriptDialect(head: Buffer): Dialect {
  const text = head.toString("utf8");
  const dialects = knownFormats().map((f) => f.dialect);
  const found = dialects.find((d) => d.sniff?.(text)) ?? dialects.find((d) => d.sniff === undefined);
  if (!found) throw new Error("no transcript format without a header is registered");
  return found;
}

/**
 * The format without a header (Claude Code) is taken only on evidence: a line of the head that is one of its records.
 * JSON lines of none of its record types (`{"a":1}`) are no transcript of it. A head with no whole JSON line at all
 * (zero-filled, torn) is a damaged transcript when its name says `.jsonl`.
 */
function holdsItsRecords(head: Buffer, dialect: Dialect, named: boolean): boolean {
  if (dialect.sniff !== undefined) return true;
  let parsed = 0;
  for (const line of head.toString("utf8").split("\n")) {
    const text = line.replace(/^[\s\0]+/, "");
    if (!text.startsWith("{")) continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      continue;
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) continue;
    parsed++;
    if (dialect.interpret(value as Record<string, unknown>).role !== "unknown") return true;
  }
  return parsed === 0 && named;
}

function firstLineIsJsonObject(head: Buffer): boolean {
  const text = head.toString("utf8").replace(/^[\s\0]+/, "");
  const end = text.indexOf("\n");
  if (!text.startsWith("{") || end < 0) return false;
  try {
    const value: unknown = JSON.parse(text.slice(0, end));
    return typeof value === "object" && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}
