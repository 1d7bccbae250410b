/**
 * Where transcripts are. `--store` may name an agent's own dir (the one its layout's homes mark: `~/.claude`,
 * `~/.openclaw`, …), a part of it its layout knows, a folder of transcripts, or one file. Without `--store`, each
 * agent's adapter looks in its own default places. Every format brings its layout (layout.ts): nothing here names one.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { WhatIsHere } from "../adapter.js";
import { knownFormats, type TranscriptFormat } from "./format.js";
import type { TranscriptRoot } from "./transcript-store.js";

/** The first of `candidates` its layout's homes mark is the store; every one marked is read (Claude Code's config dirs). */
export function rootAmong(format: TranscriptFormat, candidates: string[]): TranscriptRoot | undefined {
  const home = (dir: string) => format.layout.homes.find((h) => existsSync(join(dir, h.entry)) && (h.holds?.(dir) ?? true));
  const found = candidates.flatMap((dir) => {
    const marked = home(dir);
    return marked ? [{ dir, patterns: [...marked.patterns] }] : [];
  });
  if (found.length === 0) return undefined;
  return { dialect: format.dialect.name, path: found[0]!.dir, sources: found };
}

/** What a folder is to the transcript formats: whose, how to read it, and its session files' patterns. */
export interface FolderMatch {
  format: TranscriptFormat;
  patterns: string[];
  description: string;
}

/** A folder by its entries: an agent's home first, then a part of a store, in registry order. */
export function folderMatch(dir: string, entries: readonly string[]): FolderMatch | undefined {
  const formats = knownFormats();
  for (const format of formats) {
    for (const home of format.layout.homes) {
      if (entries.includes(home.entry) && (home.holds?.(dir) ?? true)) return { format, patterns: [...home.patterns], description: home.description };
    }
  }
  for (const format of formats) {
    const part = format.layout.part?.(dir, entries);
    if (part) return { format, ...part };
  }
  return undefined;
}

/**
 * The transcripts at `target`, or undefined when it is not a transcript store (opencode's detection goes next).
 * `here` is what is on disk there (what-is-here.ts), against which a forced `--format` has already been checked.
 */
export function transcriptRootAt(target: string, here: WhatIsHere): TranscriptRoot | undefined {
  const formats = knownFormats();
  // Judged by its bytes, not its name: a SQLite file called x.jsonl is still no transcript.
  const sniffed = formats.find((f) => here.formats.includes(f.dialect.name));
  const at = (format: TranscriptFormat, patterns: string[]): TranscriptRoot => ({
    dialect: format.dialect.name,
    path: format.layout.storeOf(target),
    sources: [{ dir: target, patterns }],
  });
  if (statSync(target).isFile())
    return sniffed ? { dialect: sniffed.dialect.name, path: sniffed.layout.storeOf(target), sources: [], file: target } : undefined;
  const entries = readdirSync(target);
  const matched = folderMatch(target, entries);
  if (matched) return at(matched.format, matched.patterns);
  if (!sniffed) return undefined;
  // A folder of transcripts side by side.
  return at(sniffed, [...sniffed.layout.flat]);
}
