/**
 * A folder of whole files recover writes for a Ralph loop (a pokeralph battle's state, Claude Code's ralph-loop
 * state), as a store: every change goes through the transaction layer (backup, journal, atomic write), and
 * `session restore <backup-id>` puts it back like any repair. It holds no sessions: the files are restored as
 * images, never parsed as records.
 */
import { RecoverError } from "../errors.js";
import type { LoadMode, SessionRecords, SessionSummary } from "../model/opencode-records.js";
import type { StoreFixing } from "../model/fixing.js";
import { FileWriter } from "./file-writer.js";
import { sqliteCodec } from "./opencode/codec.js";
import type { RecordCodec, SessionStore, StoreInfo, StoreWriter } from "./store.js";

export class WholeFilesStore implements SessionStore {
  readonly info: StoreInfo;
  /** Never used: the files are restored as images, not re-encoded records. */
  readonly codec: RecordCodec = sqliteCodec;
  /** Never used: it holds no sessions to plan fixes for. */
  readonly fixing: StoreFixing = {
    family: () => {
      throw this.notSessions();
    },
  };

  /** `what`: how errors name the folder ("a pokeralph battle folder"). */
  constructor(
    format: string,
    dir: string,
    private readonly what: string,
  ) {
    this.info = { format, path: dir, notices: [] };
  }

  private notSessions(): RecoverError {
    return new RecoverError("usage", `${this.info.path} is ${this.what}, not a session store`);
  }

  listSessions(): SessionSummary[] {
    return [];
  }

  listStraySessionIds(): string[] {
    return [];
  }

  loadSession(_id: string, _mode: LoadMode): SessionRecords {
    throw this.notSessions();
  }

  openWriter(): StoreWriter {
    return new FileWriter(this.info);
  }

  close(): void {}
}
