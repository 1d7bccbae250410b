// openclaw 2026.8 and later keep a session's transcript in SQLite: <state>/agents/<agent>/agent/openclaw-agent.sqlite,
// table transcript_events (one row per event, `event_json` TEXT or `event_zstd` BLOB, ordered by `seq`), and which
// session a key points at in session_nodes (session_key -> current_session_id). This helper reads and edits that store
// for the openclaw driver (openclaw.mjs). It runs under the client's own Node (24: node:sqlite and zlib's zstd); the
// repository's Node 20 has neither, and better-sqlite3 alone could read the rows but not decode an `event_zstd` one.
//
//   node openclaw-sqlite.mjs read <db> <session key>     -> {"sessionId": id | null, "events": [{"seq", "json"}…]}
//                                                         (a row that does not decode: "json": null, "error")
//   node openclaw-sqlite.mjs write <db> <session id>     stdin [{"seq", "json"}…]: those rows' event_json replaced
//                                                         (a zstd row becomes a plain one), nothing else touched
//   node openclaw-sqlite.mjs dump <db>                   -> {table: [row…]} for every table that holds session data,
//                                                         rows ordered by primary key, blobs as {"hex": …}
//   node openclaw-sqlite.mjs vacuum <db> <file>          the database as one file (VACUUM INTO: the WAL folded in)
// Damage, as users' stores show it (docs/research/openclaw-sqlite-damage.md), each printing one line saying what it did:
//   tear <db> <session id> <seq> [keepBytes]   event_json cut to a prefix (default: just inside a string value past
//                                              its middle), as a crash mid-write leaves it; event_utf8_bytes kept
//   zstd <db> <session id> <seq>               the row stored compressed, as the client itself stores it (its own
//                                              prepareTranscriptPayload: zstd level 1 with the content checksum, and
//                                              the navigation_json a zstd row must carry); needs $OPENCLAW_DIR
//   corrupt-zstd <db> <session id> <seq>       one byte of the compressed payload flipped: decoding fails the checksum
//   drop-window <db> <session id>              the session_windows row deleted with foreign keys off: events stay
//   dangle <db> <session key> <new id>         session_nodes.current_session_id pointed at an id with no rows (the
//                                              table's triggers then mark the row entry_valid = 0)
import fs from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { pathToFileURL } from "node:url";
import zlib from "node:zlib";

const [op, file, ...args] = process.argv.slice(2);
const decode = (r) => (r.event_json != null ? r.event_json : zlib.zstdDecompressSync(Buffer.from(r.event_zstd)).toString("utf8"));
// A row that no longer decodes (corrupt-zstd) is read as its error: the driver still finds and keeps the session.
const readEvent = (r) => {
  try {
    return { seq: Number(r.seq), json: decode(r) };
  } catch (e) {
    return { seq: Number(r.seq), json: null, error: e.message };
  }
};
const rowsOf = (db, id) => db.prepare("select seq, event_json, event_zstd from transcript_events where session_id = ? order by seq").all(id);

// The tables a restore must give back row for row (the FTS5 shadow tables follow session_transcript_fts_rows).
const SESSION_TABLES = [
  "session_nodes",
  "session_windows",
  "transcript_events",
  "transcript_event_identities",
  "session_transcript_active_events",
  "session_transcript_index_state",
  "session_transcript_fts_rows",
  "transcript_rewrite_watermarks",
  "session_canonical_validation_pending",
  // Not transcript, but keyed by session id with a foreign key to session_windows (missing-window names its rows).
  "trajectory_runtime_events",
];

/** Open `file`, run `fn(db)`, close it whatever happens. */
function withDb(file, fn, options) {
  const db = new DatabaseSync(file, options ?? {});
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

/** One event row, or a one-line error naming it. */
function eventRow(db, id, seq) {
  const r = db.prepare("select * from transcript_events where session_id = ? and seq = ?").get(id, Number(seq));
  if (!r) throw new Error(`no transcript_events row ${id}#${seq}`);
  return r;
}

function dump(db) {
  const out = {};
  for (const table of SESSION_TABLES) {
    if (!db.prepare("select 1 from sqlite_master where type = 'table' and name = ?").get(table)) continue;
    // Primary key columns in key order; a table without one (none here today) by rowid.
    const pk = db
      .prepare(`select name, pk from pragma_table_info('${table}') where pk > 0 order by pk`)
      .all()
      .map((c) => `"${c.name}"`);
    const rows = db.prepare(`select * from "${table}" order by ${pk.length ? pk.join(", ") : "rowid"}`).all();
    out[table] = rows.map((r) =>
      Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v instanceof Uint8Array ? { hex: Buffer.from(v).toString("hex") } : v])),
    );
  }
  return out;
}

/** Where a cut of `json` lands inside a string value, at or after byte `from` (JSON.parse then says "Unterminated string"). */
function cutInsideString(json, from) {
  let inString = false;
  let bytes = 0;
  for (let i = 0; i < json.length; i++) {
    const c = json[i];
    if (inString && bytes >= from && c !== "\\" && json[i - 1] !== "\\" && c !== '"') return bytes;
    if (c === '"' && json[i - 1] !== "\\") inString = !inString;
    bytes += Buffer.byteLength(c);
  }
  return from;
}

function tear(db, id, seq, keepBytes) {
  const r = eventRow(db, id, seq);
  const json = decode(r);
  const bytes = Buffer.from(json, "utf8");
  let keep = keepBytes !== undefined ? Number(keepBytes) : cutInsideString(json, Math.floor(bytes.length / 2));
  // Never inside a UTF-8 sequence: the column is TEXT.
  while (keep > 0 && (bytes[keep] & 0xc0) === 0x80) keep--;
  const torn = bytes.subarray(0, keep).toString("utf8");
  // As a crash leaves it: the new text in event_json, the size the complete write recorded left as it was.
  db.prepare("update transcript_events set event_json = ?, event_zstd = NULL, navigation_json = NULL where session_id = ? and seq = ?").run(
    torn,
    id,
    Number(seq),
  );
  return `transcript_events ${id}#${seq}: event_json cut to its first ${keep} of ${bytes.length} bytes (event_utf8_bytes ${r.event_utf8_bytes} kept)`;
}

/** The client's own prepareTranscriptPayload (dist/transcript-payload-*.mjs), found by name in its bundle. */
async function clientPayloadPreparer() {
  const dir = process.env.OPENCLAW_DIR;
  if (!dir) throw new Error("zstd needs OPENCLAW_DIR (the client's install folder) to store a row as the client does");
  const dist = path.join(dir, "node_modules", "openclaw", "dist");
  for (const f of fs.readdirSync(dist).filter((n) => n.startsWith("transcript-payload-") && n.endsWith(".mjs"))) {
    const alias = /\bprepareTranscriptPayload as (\w+)\b/.exec(fs.readFileSync(path.join(dist, f), "utf8"))?.[1];
    if (alias) return (await import(pathToFileURL(path.join(dist, f)).href))[alias];
  }
  throw new Error(`no prepareTranscriptPayload in ${dist}`);
}

async function zstd(db, id, seq) {
  const r = eventRow(db, id, seq);
  if (r.event_zstd != null) return `transcript_events ${id}#${seq}: already stored as event_zstd (${r.event_zstd.length} bytes) by the client`;
  const prepare = await clientPayloadPreparer();
  const p = prepare(db, r.event_json);
  // The client keeps a row plain when it is under 1 KiB or compressing it saves too little: it never stores such a
  // row compressed, so neither does this.
  if (p.event_zstd == null)
    throw new Error(`the client would keep ${id}#${seq} plain (${r.event_utf8_bytes} bytes: under 1 KiB, or not 10% smaller compressed)`);
  db.prepare("update transcript_events set event_json = NULL, event_zstd = ?, event_utf8_bytes = ?, navigation_json = ? where session_id = ? and seq = ?").run(
    p.event_zstd,
    p.event_utf8_bytes,
    p.navigation_json,
    id,
    Number(seq),
  );
  return `transcript_events ${id}#${seq}: stored as event_zstd (${r.event_utf8_bytes} -> ${p.event_zstd.length} bytes, navigation_json ${p.navigation_json.length} bytes)`;
}

function corruptZstd(db, id, seq) {
  const r = eventRow(db, id, seq);
  if (r.event_zstd == null) throw new Error(`${id}#${seq} is not stored as event_zstd`);
  // A flipped bit in the compressed data, not in the frame's header or its closing 4-byte content checksum: the last
  // byte (from the end) whose flip still decodes, to content the checksum then refuses (zstd's "Restored data doesn't
  // match checksum"), as bit rot gives it. A flip elsewhere may fail earlier with another message ("Corrupted block
  // detected"), which is not the damage users report.
  const z0 = Buffer.from(r.event_zstd);
  let at = -1;
  let verdict = "";
  for (let i = z0.length - 5; i >= 6 && at < 0; i--) {
    const z = Buffer.from(z0);
    z[i] ^= 0x20;
    try {
      zlib.zstdDecompressSync(z);
    } catch (e) {
      if (/checksum/i.test(e.message)) [at, verdict] = [i, e.message];
    }
  }
  if (at < 0) throw new Error(`no byte of ${id}#${seq}'s event_zstd whose flip fails only the checksum`);
  const z = Buffer.from(z0);
  z[at] ^= 0x20;
  db.prepare("update transcript_events set event_zstd = ? where session_id = ? and seq = ?").run(z, id, Number(seq));
  return `transcript_events ${id}#${seq}: event_zstd byte ${at} of ${z.length} flipped (xor 0x20); decoding now fails: ${verdict}`;
}

function dropWindow(db, id) {
  db.exec("PRAGMA foreign_keys = OFF");
  const n = db.prepare("delete from session_windows where session_id = ?").run(id).changes;
  if (n !== 1) throw new Error(`no session_windows row ${id}`);
  const events = db.prepare("select count(*) n from transcript_events where session_id = ?").get(id).n;
  return `session_windows row ${id} deleted with foreign keys off; its ${events} transcript_events rows stay`;
}

function dangle(db, key, newId) {
  const before = db.prepare("select current_session_id, entry_valid from session_nodes where session_key = ?").get(key);
  if (!before) throw new Error(`no session_nodes row ${key}`);
  db.prepare("update session_nodes set current_session_id = ? where session_key = ?").run(newId, key);
  const after = db.prepare("select entry_valid from session_nodes where session_key = ?").get(key);
  return `session_nodes ${key}: current_session_id ${before.current_session_id} -> ${newId} (no rows for it), entry_valid ${before.entry_valid} -> ${after.entry_valid} (the table's trigger)`;
}

const say = (line) => process.stdout.write(`${line}\n`);
try {
  if (op === "read")
    withDb(
      file,
      (db) => {
        const pointed = db.prepare("select current_session_id from session_nodes where session_key = ?").get(args[0])?.current_session_id ?? null;
        // A key pointing at a session with no rows (the dangling-node damage): its session is the newest one whose
        // window names the key, the one the client's history is in (and recover resolves the key to).
        const newest = () =>
          db.prepare("select session_id from session_windows where session_key = ? order by updated_at desc, session_id desc limit 1").get(args[0])
            ?.session_id ?? null;
        const sessionId = pointed && rowsOf(db, pointed).length > 0 ? pointed : (newest() ?? pointed);
        const events = sessionId ? rowsOf(db, sessionId).map(readEvent) : [];
        process.stdout.write(JSON.stringify({ sessionId, events }));
      },
      { readOnly: true },
    );
  else if (op === "write") {
    const rows = JSON.parse(fs.readFileSync(0, "utf8"));
    withDb(file, (db) => {
      const upd = db.prepare("update transcript_events set event_json = ?, event_zstd = NULL, event_utf8_bytes = ? where session_id = ? and seq = ?");
      for (const r of rows) upd.run(r.json, Buffer.byteLength(r.json), args[0], r.seq);
    });
  } else if (op === "dump") process.stdout.write(JSON.stringify(withDb(file, dump, { readOnly: true })));
  else if (op === "vacuum")
    withDb(
      file,
      (db) => {
        fs.rmSync(args[0], { force: true });
        db.prepare("VACUUM INTO ?").run(args[0]);
      },
      { readOnly: true },
    );
  else if (op === "tear") say(withDb(file, (db) => tear(db, ...args)));
  else if (op === "zstd") {
    const db = new DatabaseSync(file);
    try {
      say(await zstd(db, ...args));
    } finally {
      db.close();
    }
  } else if (op === "corrupt-zstd") say(withDb(file, (db) => corruptZstd(db, ...args)));
  else if (op === "drop-window") say(withDb(file, (db) => dropWindow(db, ...args)));
  else if (op === "dangle") say(withDb(file, (db) => dangle(db, ...args)));
  else {
    process.stderr.write(
      "usage: node openclaw-sqlite.mjs (read <db> <session key> | write <db> <session id> < rows.json | dump <db> | vacuum <db> <file> | tear <db> <session id> <seq> [keepBytes] | zstd <db> <session id> <seq> | corrupt-zstd <db> <session id> <seq> | drop-window <db> <session id> | dangle <db> <session key> <new id>)\n",
    );
    process.exit(2);
  }
} catch (e) {
  process.stderr.write(`${e.message}\n`);
  process.exit(1);
}
