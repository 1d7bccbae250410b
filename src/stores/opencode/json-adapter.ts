/** opencode ≤1.1's store, the JSON tree (`storage/session/`, `message/`, `part/`): one file per record. */
import type { StoreAdapter } from "../adapter.js";
import { defaultDataDir, holdsJsonTree, openDataDir } from "./data-dir.js";

export const opencodeJsonStore: StoreAdapter = {
  format: "opencode-json",
  agent: "opencode",
  noun: "an opencode JSON tree",
  expects: "a storage/ folder with session/, message/, part/, or a data dir holding one",
  signs: { folder: ["storage/"] },
  detect: (probe) => (holdsJsonTree(probe) ? "an opencode JSON tree (storage/)" : undefined),
  // No claim: a data dir holding both opencode stores is read from its database unless --format says otherwise.
  open: ({ target, discovered }) => openDataDir(target, "opencode-json", discovered),
  locate: defaultDataDir,
  resumeArgv: (id) => ["opencode", "--session", id],
  capabilities: { writesBesideStore: false },
};
