// The backup manifest as a property (issue 35): any change recover can plan survives write → read → restore. Keys hold
// whatever a store may name a record by: any Unicode text (lone surrogates included: a damaged transcript's ids), and
// the label a SQLite id or link column gets when damage left a blob, a number or a NULL there (idText). Images are any
// bytes, present or absent, with or without a file mode and modification time. For each drawn transaction the manifest
// is built and written as the transaction does (manifestOf, writeBackup), then read back through what `session restore`
// uses: the read-back check passes, the manifest reads back equal, and every before-image comes back byte for byte.
import fc from "fast-check";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { RecordKey, StoredImage } from "../../src/model/change.js";
import { idText } from "../../src/stores/sqlite/row.js";
import { beforeImage, modeOf, readBackup, verifyBackup, writeBackup } from "../../src/txn/backup-store.js";
import { changesOfTargets } from "../../src/txn/targets.js";
import { manifestOf } from "../../src/txn/transaction.js";

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "recover-manifest-"));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** What a SQLite id or link column can hold once damaged, as the record model names it. */
const sqliteValueId = fc
  .oneof(
    fc.constant(null),
    fc.uint8Array({ maxLength: 80 }).map((bytes) => Buffer.from(bytes)),
    fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 40 }).map((text) => Buffer.from(text)),
    fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
    fc.double({ noNaN: true }),
  )
  .map(idText);

/** Any id a record can have: store text of any Unicode (lone surrogates too), or a damaged column's label. */
const anyId = fc.oneof(fc.string({ unit: "binary", maxLength: 40 }), sqliteValueId, fc.uuid());

const key: fc.Arbitrary<RecordKey> = fc
  .record(
    {
      record: fc.constantFrom("project", "session", "message", "part", "file", "line"),
      id: anyId,
      sessionId: anyId,
      messageId: anyId,
      path: fc.string({ unit: "binary", minLength: 1, maxLength: 60 }),
    },
    { requiredKeys: ["record", "id", "sessionId"] },
  )
  .map((k) => k as RecordKey);

const image: fc.Arbitrary<StoredImage> = fc.oneof(
  fc.constant({ exists: false } as const),
  fc.record(
    {
      exists: fc.constant(true as const),
      bytes: fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)),
      mode: fc.constantFrom(0o600, 0o644, 0o755),
      mtimeMs: fc.double({ min: 0, max: 4e12, noNaN: true }),
    },
    { requiredKeys: ["exists", "bytes"] },
  ),
);

const transaction = fc.record({
  kind: fc.constantFrom("repair", "restore", "trim", "import", "salvage" as const),
  targets: fc.array(fc.record({ key, before: image, after: image }), { minLength: 1, maxLength: 12 }),
  now: fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2040, 0, 1) }),
  storePath: fc.string({ unit: "binary", minLength: 1, maxLength: 60 }),
});

describe("the backup manifest round-trips any change recover can plan", () => {
  it("write → read back → every key, fingerprint and before-image as planned", () => {
    let n = 0;
    fc.assert(
      fc.property(transaction, ({ kind, targets, now, storePath }) => {
        const root = path.join(scratch, `case-${n++}`);
        const sessions = [...new Set(targets.map((t) => t.key.sessionId))];
        const manifest = manifestOf({ kind, sessions, changes: changesOfTargets(targets, kind), targets, now }, { format: "opencode-sqlite", path: storePath });
        const written = JSON.parse(JSON.stringify(manifest)) as unknown;
        const backup = writeBackup(
          root,
          manifest,
          targets.map((t) => t.before),
        );
        // The transaction's own check: it must find nothing to refuse.
        verifyBackup(backup);
        const read = readBackup(root, manifest.id);
        expect(JSON.parse(JSON.stringify(read.manifest))).toEqual({
          ...(written as object),
          images: read.manifest.images.map((e, i) => ({ ...manifest.images[i], ...e })),
        });
        read.manifest.images.forEach((entry, i) => {
          expect(entry.key).toEqual(targets[i]!.key);
          const back = beforeImage(read, entry, modeOf(entry.before));
          const before = targets[i]!.before;
          expect(back.exists).toBe(before.exists);
          if (back.exists && before.exists) {
            expect(back.bytes.equals(before.bytes)).toBe(true);
            expect(back.mode).toBe(before.mode);
            expect(back.mtimeMs).toBe(before.mtimeMs);
          }
        });
        fs.rmSync(root, { recursive: true, force: true });
      }),
      { numRuns: Number(process.env.MANIFEST_RUNS ?? 150) },
    );
  });

  it("an id label never reads as text a store wrote: non-text values are labelled in parentheses", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.constant(null),
          fc.uint8Array().map((b) => Buffer.from(b)),
          fc.bigInt(),
          fc.double(),
        ),
        (value) => {
          expect(idText(value)).toMatch(/^\((null|blob '.+'|blob X'[0-9a-f]*'(… \d+ bytes)?|integer -?\d+|real .+)\)$/);
        },
      ),
    );
  });
});
