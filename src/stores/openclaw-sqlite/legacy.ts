/**
 * The legacy transcripts beside an openclaw database: `<state>/agents/<agent>/sessions/*.jsonl`, what openclaw up to
 * 2026.7 wrote, and `session-sqlite-import-archive/`, where `openclaw doctor` moves those it imported or refused.
 * 2026.8 and later never read them (docs/research/openclaw-request.md §0, openclaw-sqlite-damage.md).
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import type { HiddenSessions } from "../store.js";
import { openLegacySource } from "./import.js";

/** The folders of an agent's legacy transcripts, for its database at `dbPath`. */
export function legacyFolders(dbPath: string): string[] {
  const agentDir = dirname(dirname(dbPath));
  return [join(agentDir, "sessions"), join(agentDir, "session-sqlite-import-archive")].filter((dir) => existsSync(dir));
}

/** Per folder, the legacy sessions the database does not hold (`known`), newest first. */
export function legacySessionsBeside(dbPath: string, known: ReadonlySet<string>): HiddenSessions[] {
  const found: HiddenSessions[] = [];
  for (const dir of legacyFolders(dbPath)) {
    let source: ReturnType<typeof openLegacySource>;
    try {
      source = openLegacySource(dir);
    } catch {
      // No transcripts there (or two files claiming one session): nothing to list.
      continue;
    }
    try {
      const byStoreId = new Map(source.store.listSessions().map((s) => [s.id, s]));
      const sessions = source
        .sessionIds()
        .filter((id) => !known.has(id))
        .flatMap((id) => {
          const summary = byStoreId.get(source.storeId!(id));
          return summary ? [{ ...summary, id }] : [];
        });
      if (sessions.length > 0) found.push({ store: dir, sessions: sessions.sort((a, b) => b.updated - a.updated) });
    } finally {
      source.close();
    }
  }
  return found;
}
