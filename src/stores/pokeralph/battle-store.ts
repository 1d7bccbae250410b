/**
 * A pokeralph battle's files as a store of whole files, so `session restore <backup-id>` can put back what recover
 * changed like any repair: the battle folder (`.pokeralph/battles/<taskId>/`: history.json, progress.json,
 * checkpoints.json, written by `battle resume` and checkpoints). A `battle rollback` also writes the project's files
 * through it, in the same transaction: records are named by absolute path, so a backup goes back where it was taken
 * (not into a copy of the folder). It holds no sessions.
 *
 * The pokeralph adapter is this folder: where a project and its battles are (discover.ts), pokeralph's own files
 * read and validated (schemas.ts, read-file.ts, load.ts), the narrow history reader and paths checkpoints use
 * (battle-files.ts), recover's sidecar (sidecar.ts), and this store, whose writer every change goes through (the
 * transaction itself is txn/'s). battle/ and checkpoint/ touch `.pokeralph/` only through it.
 */
import { WholeFilesStore } from "../whole-files-store.js";

export class BattleFilesStore extends WholeFilesStore {
  constructor(battleDir: string) {
    super("pokeralph-battle", battleDir, "a pokeralph battle folder");
  }
}
