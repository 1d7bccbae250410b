// openclaw 2026.8 and later keep a session's transcript in SQLite: <state>/agents/<agent>/agent/openclaw-agent.sqlite,
// table transcript_events (one row per event, `event_json` TEXT or `event_zstd` BLOB, ordered by `seq`), and which
// session a key points at in session_nodes (session_key -> current_session_id). This helper reads and edits that store
// for the openclaw driver (openclaw.mjs). It runs under the client's own Node (24: node:sqlite and zlib's zstd); the
// repository's Node 20 has neither, and better-sqlite3 alone could read the rows but not decode an `event_zstd` one.
//
//   node openclaw-sqlite.mjs read <db> <session key>     -> {"sessionId": id | null, "events": [{"seq", "json"}…]}
//   node openclaw-sqlite.mjs write <db> <session id>     stdin [{"seq", "json"}…]: those rows' event_json replaced
//                                                         (a zstd row becomes a plain one), nothing else touched
import fs from "node:fs";
import { DatabaseSync } from "node:sqlite";
import zlib from "node:zlib";

const [op, file, arg] = process.argv.slice(2);
const decode = (r) => (r.event_json != null ? r.event_json : zlib.zstdDecompressSync(Buffer.from(r.event_zstd)).toString("utf8"));
const rowsOf = (db, id) => db.prepare("select seq, event_json, event_zstd from transcript_events where session_id = ? order by seq").all(id);

if (op === "read") {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const sessionId = db.prepare("select current_session_id from session_nodes where session_key = ?").get(arg)?.current_session_id ?? null;
    const events = sessionId ? rowsOf(db, sessionId).map((r) => ({ seq: Number(r.seq), json: decode(r) })) : [];
    process.stdout.write(JSON.stringify({ sessionId, events }));
  } finally {
    db.close();
  }
} else if (op === "write") {
  const rows = JSON.parse(fs.readFileSync(0, "utf8"));
  const db = new DatabaseSync(file);
  try {
    const upd = db.prepare("update transcript_events set event_json = ?, event_zstd = NULL, event_utf8_bytes = ? where session_id = ? and seq = ?");
    for (const r of rows) upd.run(r.json, Buffer.byteLength(r.json), arg, r.seq);
  } finally {
    db.close();
  }
} else {
  process.stderr.write("usage: node openclaw-sqlite.mjs (read <db> <session key> | write <db> <session id> < rows.json)\n");
  process.exit(2);
}
