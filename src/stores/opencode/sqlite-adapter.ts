/**
 * opencode ≥1.2's store, `opencode.db`. It is also the registry's default: what recover opens without `--store`
 * and `--format` (opencode's data dir, which may hold the legacy JSON tree instead), and what a path no other
 * adapter claims is opened as, so that what is not a store is refused with opencode's sentence.
 */
import type { StoreAdapter } from "../adapter.js";
import { isSqlite } from "../probe.js";
import { defaultDataDir, holdsDatabase, openDataDir } from "./data-dir.js";

export const opencodeSqliteStore: StoreAdapter = {
  format: "opencode-sqlite",
  agent: "opencode",
  noun: "an opencode SQLite store",
  expects: "an opencode.db file or a data dir holding one",
  signs: { file: "a SQLite database", folder: ["opencode.db"] },
  detect(probe) {
    if (probe.kind === "file") return isSqlite(probe.head()) ? "a SQLite database" : undefined;
    return holdsDatabase(probe) ? "an opencode data dir (opencode.db)" : undefined;
  },
  open: ({ target, forced, discovered, here }) => openDataDir(target, forced ? "opencode-sqlite" : undefined, discovered, here),
  locate: defaultDataDir,
  resumeArgv: (id) => ["opencode", "--session", id],
  capabilities: { writesBesideStore: true },
};
