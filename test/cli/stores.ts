// Stores the CLI tests scan: built with the shared fixture builder, each planted defect named here once.
import Database from "better-sqlite3";
import fs from "node:fs";
import path from "node:path";
import {
  buildStore,
  healthySession,
  MINUTE,
  SECOND,
  Transcript,
  truncateAfter,
  writeJsonStore,
  writeSqliteStore,
  type BuiltStore,
  type SessionSpec,
} from "../support/opencode-fixtures.js";
import { tempDir } from "./run.js";

export const DAY = 24 * 60 * MINUTE;

/**
 * Every fixture lives well in the past (so no unfinished turn counts as live) but relative to the clock, so the
 * tests do not depend on the date they run on.
 */
export const T0 = Math.floor((Date.now() - 90 * DAY) / MINUTE) * MINUTE;

export type Format = "opencode-sqlite" | "opencode-json";
export const FORMATS: Format[] = ["opencode-sqlite", "opencode-json"];

/** Writes a store in the given format into a fresh temp data dir. `store` is what --store should name. */
export function writeStore(built: BuiltStore, format: Format): { dataDir: string; store: string; readPath: string } {
  const dataDir = tempDir();
  if (format === "opencode-sqlite") {
    const db = writeSqliteStore(dataDir, built);
    return { dataDir, store: dataDir, readPath: db };
  }
  const storage = writeJsonStore(dataDir, built);
  // Liveness reads the records' own times; files keep an old mtime too, as a torn record's only clue is its mtime.
  ageFiles(storage, new Date(T0 + 30 * DAY));
  return { dataDir, store: dataDir, readPath: storage };
}

function ageFiles(dir: string, when: Date): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) ageFiles(p, when);
    fs.utimesSync(p, when, when);
  }
}

// ---------------------------------------------------------------------------------------------
// Sessions with planted defects
// ---------------------------------------------------------------------------------------------

/**
 * Two finished turns with three error defects between them:
 * - a whitespace-only text part            → empty-text-part
 * - a bash call left "running"             → tool-call-interrupted
 * - (second turn) a part whose JSON was cut mid-write → unreadable-record
 * The torn part has a turn of its own: rules about what is sent skip a message with an unreadable part.
 */
export function brokenTurnSession(start: number): SessionSpec {
  const w = new Transcript({ start });
  const messages = [
    w.user("Run the database migrations and tell me whether any of them fail.", { gap: 2 * SECOND }),
    w.assistant([
      w.stepStart(),
      w.reasoning("Run the migration script and report the result."),
      w.text("Running the migrations now."),
      w.text("   "),
      w.running("bash", { command: "npm run migrate", description: "Run migrations" }),
      w.stepFinish("tool-calls"),
    ]),
    w.user("Did it finish?"),
    w.assistant([
      w.stepStart(),
      w.reasoning("The previous call never returned."),
      { ...w.text("The migration output was cut off right here, mid-sentence."), corrupt: truncateAfter("cut off") },
      w.stepFinish("stop"),
    ]),
  ];
  return { title: "Run the migrations", directory: w.directory, created: start, messages };
}

export const BROKEN_RULES = ["empty-text-part", "tool-call-interrupted", "unreadable-record"];

/**
 * Two warnings, no error:
 * - a bash output of 60,000 characters   → oversized-tool-output (fixed by `recover context trim`)
 * - an assistant reply that never finished (not the live tail: it is months old) → incomplete-message
 */
export function warningsOnlySession(start: number): SessionSpec {
  const w = new Transcript({ start });
  const bigLog = Array.from({ length: 1_200 }, (_, i) => `2026-05-01T10:${String(i % 60).padStart(2, "0")}:00Z INFO worker ${i} processed batch ok`).join("\n");
  const messages = [
    w.user("Show me the worker log.", { gap: 2 * SECOND }),
    w.assistant([
      w.stepStart(),
      w.reasoning("Print the worker log file."),
      w.bash("cat logs/worker.log", "Show worker log", bigLog.padEnd(60_000, "."), { ms: 900 }),
      w.stepFinish("tool-calls"),
      w.stepStart(),
      w.text("The log shows every batch processed without errors."),
      w.stepFinish("stop"),
    ]),
    w.user("Now summarise the slowest batches."),
    w.assistant([w.stepStart(), w.reasoning("Look for the slowest batches in the log."), w.text("Looking at the batch timings")], {
      time: { completed: undefined },
      finish: undefined,
    }),
  ];
  return { title: "Inspect worker log", directory: w.directory, created: start, messages };
}

export const WARNING_RULES = ["incomplete-message", "oversized-tool-output"];

export interface DefectStore {
  built: BuiltStore;
  healthyId: string;
  brokenId: string;
  warningsId: string;
}

/** Healthy (oldest), broken turn, warnings only (newest). */
export function defectStore(): DefectStore {
  const built = buildStore({
    seed: 11,
    sessions: [healthySession({ start: T0, title: "Validate config with zod" }), brokenTurnSession(T0 + DAY), warningsOnlySession(T0 + 2 * DAY)],
  });
  const [healthy, broken, warnings] = built.sessions;
  return { built, healthyId: healthy!.id, brokenId: broken!.id, warningsId: warnings!.id };
}

export function healthyStore(count = 2): BuiltStore {
  return buildStore({
    seed: 3,
    sessions: Array.from({ length: count }, (_, i) => healthySession({ start: T0 + i * DAY, title: `Healthy session ${i + 1}`, turns: 2 + i })),
  });
}

export function warningsOnlyStore(): BuiltStore {
  return buildStore({ seed: 5, sessions: [healthySession({ start: T0 }), warningsOnlySession(T0 + DAY)] });
}

/**
 * Three sessions whose update order differs from their creation order (and so from their id order): the oldest
 * session was resumed last and is the most recently updated.
 */
export function listStore(): { built: BuiltStore; byUpdatedDesc: string[]; titles: Record<string, string> } {
  const resumed = healthySession({ start: T0, title: "Resumed much later", directory: "/home/dana/code/billing" });
  // A fourth turn, five days after the session was created.
  const w = new Transcript({ start: T0 + 5 * DAY });
  resumed.messages.push(
    w.user("Back to this: bump the zod dependency to the latest minor.", { gap: SECOND }),
    w.assistant([w.stepStart(), w.reasoning("A one-line change in package.json."), w.text("Bumped zod to ^3.25.0."), w.stepFinish("stop")]),
  );
  const built = buildStore({
    seed: 7,
    sessions: [
      resumed,
      healthySession({ start: T0 + 1 * DAY, title: "Middle session", directory: "/home/dana/code/invoice-api" }),
      healthySession({ start: T0 + 2 * DAY, title: "Newest created", directory: "/srv/ops" }),
    ],
  });
  const [a, b, c] = built.sessions;
  return {
    built,
    byUpdatedDesc: [a!.id, c!.id, b!.id],
    titles: { [a!.id]: "Resumed much later", [b!.id]: "Middle session", [c!.id]: "Newest created" },
  };
}

/** Adds OpenCode 2's tables to an existing opencode.db, as a user who also ran OpenCode 2 would have them. */
export function addOpencode2Tables(dbFile: string, options: { dropV1?: boolean } = {}): void {
  const db = new Database(dbFile);
  try {
    db.exec(`
      CREATE TABLE session_v2 (id text PRIMARY KEY, project_id text NOT NULL, title text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
      CREATE TABLE session_message (id text PRIMARY KEY, session_id text NOT NULL, seq integer NOT NULL, time_created integer NOT NULL, data text NOT NULL);
      INSERT INTO session_v2 VALUES ('ses_v2aaaaaaaaaaaaaaaaaaaaaaaaa', 'global', 'An OpenCode 2 session', ${T0}, ${T0}, '{}');
      INSERT INTO session_message VALUES ('msg_v2aaaaaaaaaaaaaaaaaaaaaaaaa', 'ses_v2aaaaaaaaaaaaaaaaaaaaaaaaa', 1, ${T0}, '{"role":"user"}');
    `);
    if (options.dropV1)
      db.exec("PRAGMA foreign_keys = OFF; DROP TABLE part; DROP TABLE message; DROP TABLE todo; DROP TABLE session_share; DROP TABLE session;");
    db.pragma("wal_checkpoint(TRUNCATE)");
  } finally {
    db.close();
  }
}

/** Shortest prefix of `id` that no other id shares. */
export function uniquePrefix(id: string, others: string[]): string {
  for (let n = 5; n <= id.length; n++) {
    const prefix = id.slice(0, n);
    if (others.every((o) => o === id || !o.startsWith(prefix))) return prefix;
  }
  return id;
}

export function dbPath(dataDir: string): string {
  return path.join(dataDir, "opencode.db");
}
