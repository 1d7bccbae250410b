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
import { RecoverError } from "../../errors.js";
import type { LoadMode, SessionRecords, SessionSummary } from "../../model/opencode-records.js";
import type { StoreFixing } from "../../model/fixing.js";
import { FileWriter } from "../file-writer.js";
import { sqliteCodec } from "../opencode/codec.js";
import type { RecordCodec, SessionStore, StoreInfo, StoreWriter } from "../store.js";

export class BattleFilesStore implements SessionStore {
  readonly info: StoreInfo;
  /** Never used: a battle's files are restored as images, not re-encoded records. */
  readonly codec: RecordCodec = sqliteCodec;
  /** Never used: it holds no sessions to plan fixes for. */
  readonly fixing: StoreFixing = {
    family: () => {
      throw new RecoverError("usage", `${this.info.path} is a pokeralph battle folder, not a session store`);
    },
  };

  constructor(battleDir: string) {
    this.info = { format: "pokeralph-battle", path: battleDir, notices: [] };
  }

  listSessions(): SessionSummary[] {
    return [];
  }

  listStraySessionIds(): string[] {
    return [];
  }

  loadSession(_id: string, _mode: LoadMode): SessionRecords {
    throw new RecoverError("usage", `${this.info.path} is a pokeralph battle folder, not a session store`);
  }

  openWriter(): StoreWriter {
    return new FileWriter(this.info);
  }

  close(): void {}
}
