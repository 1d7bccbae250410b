/**
 * The backup manifest: what a transaction changed and where every before-image is. It doubles as the intent
 * journal (planned → applying → done): a crash leaves it in `applying`, and the next command on the store
 * settles it (journal.ts). The zod schema is the type and the reader.
 */
import * as z from "zod";
import { onFirstUse } from "../model/on-first-use.js";
import { changeSchemas } from "../model/change.js";

/** The manifest's schemas, built when a manifest is first read or checked: a scan reads none. */
function buildSchemas() {
  const { ChangeSummary, RecordKey } = changeSchemas();
  const TransactionState = z.enum(["planned", "applying", "done", "rolled-back", "abandoned"]);
  const ImageEntry = z.object({
    key: RecordKey,
    /** Where the before-image is in the backup's images.bin; absent when the record did not exist before. */
    offset: z.number().int().nonnegative().optional(),
    length: z.number().int().nonnegative().optional(),
    /** Fingerprints of the record before and after (null: absent), to tell which state a record is in. */
    before: z.string().nullable(),
    after: z.string().nullable(),
    /** Files: the before-image's modification time, given back on restore. */
    mtimeMs: z.number().optional(),
  });
  const Manifest = z.object({
    schemaVersion: z.literal(1),
    id: z.string(),
    kind: z.enum(["repair", "restore", "trim", "import", "salvage"]),
    tool: z.object({ name: z.string(), version: z.string() }),
    createdAt: z.string(),
    state: TransactionState,
    store: z.object({ format: z.string(), path: z.string() }),
    sessions: z.array(z.string()),
    /** A restore names the backup it put back. */
    restoreOf: z.string().optional(),
    changes: z.array(ChangeSummary),
    images: z.array(ImageEntry),
  });
  return { TransactionState, ImageEntry, Manifest };
}

type Schemas = ReturnType<typeof buildSchemas>;

export const manifestSchemas: () => Schemas = onFirstUse(buildSchemas);

export type TransactionState = z.infer<Schemas["TransactionState"]>;
export type ImageEntry = z.infer<Schemas["ImageEntry"]>;
export type Manifest = z.infer<Schemas["Manifest"]>;
