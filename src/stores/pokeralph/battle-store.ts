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
import { lstatSync } from "node:fs";
import { RecoverError } from "../../errors.js";
import type { RecordKey, StoredImage } from "../../model/change.js";
import { FileWriter } from "../file-writer.js";
import type { StoreWriter } from "../store.js";
import { WholeFilesStore } from "../whole-files-store.js";

/**
 * Refuse (exit 3) a file that is a symbolic link: a change replaces the file (temp file, rename), which would put a
 * plain file where the link was, and the backup, read through the link, could never put the link back.
 */
export function refuseSymlink(path: string): void {
  let link = false;
  try {
    link = lstatSync(path).isSymbolicLink();
  } catch {
    return; // absent or unreadable: reading it says which
  }
  if (link) {
    throw new RecoverError(
      "restore-conflict",
      `${path} is a symbolic link: recover replaces the file, which would put a plain file where the link is; replace the link with the file it points to, then retry; nothing was changed`,
    );
  }
}

/** Every file the transaction reads (before it writes, and again as it writes) is checked for a link. */
class BattleFilesWriter extends FileWriter {
  override read(key: RecordKey): StoredImage {
    if (key.path !== undefined) refuseSymlink(key.path);
    return super.read(key);
  }
}

export class BattleFilesStore extends WholeFilesStore {
  constructor(battleDir: string) {
    super("pokeralph-battle", battleDir, "a pokeralph battle folder");
  }

  override openWriter(): StoreWriter {
    return new BattleFilesWriter(this.info);
  }
}
