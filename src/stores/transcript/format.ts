/**
 * A transcript format: how its lines read (its Dialect), what its agent writes where a fix needs it (its
 * AgentFixes) and where it keeps them (its TranscriptLayout). Each format's store adapter registers it (family.ts), so the shared transcript code finds a format
 * by the name its records carry, and a new format is its folder plus its line in stores/registry.ts, nothing here.
 */
import type { Dialect } from "./dialect.js";
import type { AgentFixes } from "./fixing.js";
import type { TranscriptLayout } from "./layout.js";

export interface TranscriptFormat {
  dialect: Dialect;
  fixes: AgentFixes;
  layout: TranscriptLayout;
  /**
   * Its transcripts are rows of a database (openclaw 2026.9's SQLite store), never files: the shared line reading,
   * views and fixes are its, file discovery passes it by.
   */
  rows?: true;
}

const formats = new Map<string, TranscriptFormat>();

/** Registered once per format, when its adapter is made (stores/registry.ts imports every adapter). */
export function registerFormat(format: TranscriptFormat): void {
  const known = formats.get(format.dialect.name);
  if (known && known !== format) throw new Error(`transcript format ${format.dialect.name} is registered already`);
  formats.set(format.dialect.name, format);
}

export function formatNamed(name: string): TranscriptFormat {
  const format = formats.get(name);
  if (!format) throw new Error(`no transcript format ${name} is registered (stores/registry.ts registers them)`);
  return format;
}

export function dialectNamed(name: string): Dialect {
  return formatNamed(name).dialect;
}

/** Every registered format whose transcripts are files, in registration order (the registry's). */
export function knownFormats(): TranscriptFormat[] {
  return [...formats.values()].filter((f) => !f.rows);
}
