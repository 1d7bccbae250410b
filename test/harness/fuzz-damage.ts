// Damage to a store, as fast-check arbitraries: each case is a short list of plain, printable operations (what
// fast-check prints as the counterexample), applied to a fresh copy of a small store. Every place is a natural number
// taken modulo what is there (a file, a line, a byte, a row, a key), so it shrinks towards "the first one" and the
// same operation means something on any store. Operations per format:
// - bytes of any file (all formats; the SQLite database file itself too): truncation, bit flips, NUL runs, invalid
//   UTF-8, a cut-out range;
// - JSONL lines (Claude Code, openclaw): delete, duplicate, move, a structural JSON edit of one line;
// - JSON tree files (opencode ≤ 1.1.65): delete, duplicate under another name, move into another folder, a
//   structural JSON edit;
// - SQLite rows (opencode.db, through better-sqlite3): delete, a column set to another type or to another row's
//   value (id collisions, dangling references), a structural JSON edit or byte damage of `data`, and page damage.
// Structural JSON edits: drop a key, retype a value, give a record another record's id, point its parent at itself
// or at a later record (a parent cycle).
import Database from "better-sqlite3";
import fc from "fast-check";
import fs from "node:fs";
import path from "node:path";

export type HarnessFormat = "opencode-sqlite" | "opencode-json" | "claude" | "openclaw" | "codex" | "gemini";

// ---------------------------------------------------------------------------------------------
// Operations (plain data: this is what a counterexample reads like)
// ---------------------------------------------------------------------------------------------

export type ByteOp =
  | { kind: "truncate"; at: number }
  | { kind: "flip"; at: number; bit: number }
  | { kind: "nul-run"; at: number; length: number }
  | { kind: "invalid-utf8"; at: number; bytes: number[] }
  | { kind: "cut"; at: number; length: number };

export type JsonEdit =
  | { kind: "drop-key"; key: number }
  | { kind: "retype"; key: number; to: "null" | "number" | "string" | "array" | "object" | "bool" }
  | { kind: "id-collision"; other: number }
  | { kind: "parent-cycle"; other: number };

export type Damage =
  | { on: "file-bytes"; file: number; op: ByteOp }
  | { on: "line"; file: number; op: "delete" | "duplicate" | "move"; line: number; to: number }
  | { on: "line-json"; file: number; line: number; edit: JsonEdit }
  | { on: "file"; file: number; op: "delete" | "duplicate" | "move"; to: number }
  | { on: "file-json"; file: number; edit: JsonEdit }
  | { on: "row"; table: "session" | "message" | "part"; row: number; op: "delete" }
  | { on: "row-column"; table: "session" | "message" | "part"; row: number; column: string; to: "null" | "integer" | "real" | "blob" | "text" | "other-row" }
  | { on: "row-json"; table: "session" | "message" | "part"; row: number; edit: JsonEdit }
  | { on: "row-bytes"; table: "session" | "message" | "part"; row: number; op: ByteOp }
  | { on: "page"; page: number; op: "flip" | "zero" | "truncate" };

const INVALID_UTF8 = [[0xff], [0xc3, 0x28], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xf0, 0x9f, 0x98], [0x80], [0xfc]] as const;

/** Indexes into what is there (files, lines, rows, keys): small, as the stores are, so counterexamples read small. */
const index = fc.nat({ max: 63 });
/** A byte offset (taken modulo the length): up to 64 KiB covers every file of the fuzz loop's small stores. */
const offset = fc.nat({ max: 65_535 });

export const byteOp: fc.Arbitrary<ByteOp> = fc.oneof(
  fc.record({ kind: fc.constant("truncate" as const), at: offset }),
  fc.record({ kind: fc.constant("flip" as const), at: offset, bit: fc.integer({ min: 0, max: 7 }) }),
  fc.record({ kind: fc.constant("nul-run" as const), at: offset, length: fc.integer({ min: 1, max: 600 }) }),
  fc.record({ kind: fc.constant("invalid-utf8" as const), at: offset, bytes: fc.constantFrom(...INVALID_UTF8.map((b) => [...b])) }),
  fc.record({ kind: fc.constant("cut" as const), at: offset, length: fc.integer({ min: 1, max: 200 }) }),
);

export const jsonEdit: fc.Arbitrary<JsonEdit> = fc.oneof(
  fc.record({ kind: fc.constant("drop-key" as const), key: index }),
  fc.record({ kind: fc.constant("retype" as const), key: index, to: fc.constantFrom("null", "number", "string", "array", "object", "bool") }),
  fc.record({ kind: fc.constant("id-collision" as const), other: index }),
  fc.record({ kind: fc.constant("parent-cycle" as const), other: index }),
);

const fileBytes = fc.record({ on: fc.constant("file-bytes" as const), file: index, op: byteOp });
const lineOp = fc.record({
  on: fc.constant("line" as const),
  file: index,
  op: fc.constantFrom("delete", "duplicate", "move"),
  line: index,
  to: index,
});
const lineJson = fc.record({ on: fc.constant("line-json" as const), file: index, line: index, edit: jsonEdit });
const fileOp = fc.record({ on: fc.constant("file" as const), file: index, op: fc.constantFrom("delete", "duplicate", "move"), to: index });
const fileJson = fc.record({ on: fc.constant("file-json" as const), file: index, edit: jsonEdit });
const table = fc.constantFrom("session" as const, "message" as const, "part" as const);
const rowOp = fc.record({ on: fc.constant("row" as const), table, row: index, op: fc.constant("delete" as const) });
const rowColumn = fc.record({
  on: fc.constant("row-column" as const),
  table,
  row: index,
  column: fc.constantFrom("data", "id", "message_id", "session_id", "time_created", "time_updated", "title", "parent_id"),
  to: fc.constantFrom("null", "integer", "real", "blob", "text", "other-row"),
});
const rowJson = fc.record({ on: fc.constant("row-json" as const), table, row: index, edit: jsonEdit });
const rowBytes = fc.record({ on: fc.constant("row-bytes" as const), table, row: index, op: byteOp });
const page = fc.record({ on: fc.constant("page" as const), page: index, op: fc.constantFrom("flip", "zero", "truncate") });

/** One to three damage operations for a store of this format (record-level damage weighted above raw bytes). */
export function damageArbitrary(format: HarnessFormat): fc.Arbitrary<Damage[]> {
  const one: fc.Arbitrary<Damage> =
    format === "opencode-sqlite"
      ? fc.oneof(
          { arbitrary: rowOp, weight: 2 },
          { arbitrary: rowColumn, weight: 3 },
          { arbitrary: rowJson, weight: 3 },
          { arbitrary: rowBytes, weight: 3 },
          { arbitrary: page, weight: 1 },
        )
      : format === "opencode-json"
        ? fc.oneof({ arbitrary: fileBytes, weight: 3 }, { arbitrary: fileOp, weight: 2 }, { arbitrary: fileJson, weight: 3 })
        : fc.oneof({ arbitrary: fileBytes, weight: 3 }, { arbitrary: lineOp, weight: 3 }, { arbitrary: lineJson, weight: 3 });
  return fc.array(one, { minLength: 1, maxLength: 3 });
}

// ---------------------------------------------------------------------------------------------
// Applying them
// ---------------------------------------------------------------------------------------------

export function applyBytes(bytes: Buffer, op: ByteOp): Buffer {
  const at = bytes.length === 0 ? 0 : op.at % bytes.length;
  switch (op.kind) {
    case "truncate":
      return bytes.subarray(0, at);
    case "flip": {
      if (bytes.length === 0) return bytes;
      const out = Buffer.from(bytes);
      out[at] = out[at]! ^ (1 << op.bit);
      return out;
    }
    case "nul-run":
      return Buffer.concat([bytes.subarray(0, at), Buffer.alloc(op.length), bytes.subarray(at)]);
    case "invalid-utf8":
      return Buffer.concat([bytes.subarray(0, at), Buffer.from(op.bytes), bytes.subarray(at)]);
    case "cut":
      return Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + op.length)]);
  }
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** Every [holder, key] in a JSON value, depth first (the places a drop or a retype can hit). */
function places(value: unknown, out: [Json | unknown[], string | number][] = []): [Json | unknown[], string | number][] {
  if (Array.isArray(value))
    value.forEach((v, i) => {
      out.push([value, i]);
      places(v, out);
    });
  else if (isObject(value))
    for (const [k, v] of Object.entries(value)) {
      out.push([value, k]);
      places(v, out);
    }
  return out;
}

const ID_KEYS = ["uuid", "id"] as const;
const PARENT_KEYS = ["parentUuid", "parentId", "parentID", "parent_id"] as const;

/** The record's id as the store names it (Claude Code uuid, openclaw/opencode id). */
export function recordId(value: unknown): string | undefined {
  if (!isObject(value)) return undefined;
  for (const k of ID_KEYS) if (typeof value[k] === "string") return value[k] as string;
  return undefined;
}

/**
 * A structural edit of one record; `others` are the other records' ids of the same store, in order (for a
 * collision, or for a parent cycle: the record's own id or a later record's). Returns the value unchanged when the
 * edit has nothing to hit.
 */
export function applyJsonEdit(value: unknown, edit: JsonEdit, others: string[]): unknown {
  const out = structuredClone(value);
  if (!isObject(out)) return out;
  switch (edit.kind) {
    case "drop-key":
    case "retype": {
      const all = places(out);
      if (all.length === 0) return out;
      const [holder, key] = all[edit.key % all.length]!;
      if (edit.kind === "drop-key") {
        if (Array.isArray(holder)) holder.splice(key as number, 1);
        else delete holder[key as string];
        return out;
      }
      const replacement = { null: null, number: 42, string: "x", array: [], object: {}, bool: true }[edit.to];
      (holder as Json)[key as string] = replacement;
      return out;
    }
    case "id-collision": {
      const key = ID_KEYS.find((k) => typeof out[k] === "string");
      if (key === undefined || others.length === 0) return out;
      out[key] = others[edit.other % others.length];
      return out;
    }
    case "parent-cycle": {
      const own = recordId(out);
      const key = PARENT_KEYS.find((k) => k in out) ?? "parentID";
      // Its own id (a one-record cycle), or a record after it (a longer cycle through the chain).
      const later = own === undefined ? others : others.slice(Math.max(0, others.indexOf(own)));
      out[key] = later.length === 0 ? own : later[edit.other % later.length];
      return out;
    }
  }
}

/** Every file under dir, sorted (relative paths), skipping nothing: the damage may hit any of them. */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(path.relative(dir, p));
    }
  };
  walk(dir);
  return out;
}

function splitLines(bytes: Buffer): { lines: Buffer[]; endsWithNewline: boolean } {
  const lines: Buffer[] = [];
  let start = 0;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === 0x0a) {
      lines.push(bytes.subarray(start, i));
      start = i + 1;
    }
  }
  const endsWithNewline = start === bytes.length;
  if (!endsWithNewline) lines.push(bytes.subarray(start));
  return { lines, endsWithNewline };
}

function joinLines(lines: Buffer[], endsWithNewline: boolean): Buffer {
  const parts: Buffer[] = [];
  lines.forEach((l, i) => {
    parts.push(l);
    if (i < lines.length - 1 || endsWithNewline) parts.push(Buffer.from("\n"));
  });
  return Buffer.concat(parts);
}

function parseJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString("utf8"));
  } catch {
    return undefined;
  }
}

/**
 * Applies the damage to a store folder (`root`: the data dir, the Claude config dir or the openclaw state dir) whose
 * record files are `recordFiles` (the .jsonl transcripts, the JSON tree's files, or the database). The database is
 * written through better-sqlite3 and closed before this returns.
 */
export function applyDamage(root: string, format: HarnessFormat, damage: Damage[]): void {
  for (const d of damage) {
    if (d.on === "row" || d.on === "row-column" || d.on === "row-json" || d.on === "row-bytes" || d.on === "page") {
      damageDatabase(path.join(root, "opencode.db"), d);
      continue;
    }
    const files = recordFiles(root, format);
    if (files.length === 0) return;
    const rel = files[d.file % files.length]!;
    const file = path.join(root, rel);
    switch (d.on) {
      case "file-bytes":
        fs.writeFileSync(file, applyBytes(fs.readFileSync(file), d.op));
        break;
      case "line": {
        const { lines, endsWithNewline } = splitLines(fs.readFileSync(file));
        if (lines.length === 0) break;
        const i = d.line % lines.length;
        const line = lines[i]!;
        if (d.op === "delete") lines.splice(i, 1);
        else if (d.op === "duplicate") lines.splice(d.to % (lines.length + 1), 0, line);
        else {
          lines.splice(i, 1);
          lines.splice(d.to % (lines.length + 1), 0, line);
        }
        fs.writeFileSync(file, joinLines(lines, endsWithNewline));
        break;
      }
      case "line-json": {
        const { lines, endsWithNewline } = splitLines(fs.readFileSync(file));
        if (lines.length === 0) break;
        const i = d.line % lines.length;
        const value = parseJson(lines[i]!);
        if (value === undefined) break;
        const ids = lines
          .map(parseJson)
          .map(recordId)
          .filter((x): x is string => x !== undefined);
        lines[i] = Buffer.from(JSON.stringify(applyJsonEdit(value, d.edit, ids)));
        fs.writeFileSync(file, joinLines(lines, endsWithNewline));
        break;
      }
      case "file": {
        const other = path.join(root, files[d.to % files.length]!);
        if (d.op === "delete") fs.rmSync(file);
        else if (d.op === "duplicate") fs.copyFileSync(file, path.join(path.dirname(other), `copy-${path.basename(file)}`));
        else {
          const target = path.join(path.dirname(other), path.basename(file));
          if (target !== file) fs.renameSync(file, target);
        }
        break;
      }
      case "file-json": {
        const value = parseJson(fs.readFileSync(file));
        if (value === undefined) break;
        const ids = files.map((f) => recordId(parseJson(fs.readFileSync(path.join(root, f))))).filter((x): x is string => x !== undefined);
        fs.writeFileSync(file, JSON.stringify(applyJsonEdit(value, d.edit, ids), null, 2));
        break;
      }
    }
  }
}

/** The files a damage operation may hit: the transcripts (and openclaw's sessions.json), or the JSON tree's files. */
export function recordFiles(root: string, format: HarnessFormat): string[] {
  if (format === "opencode-json") return filesUnder(path.join(root, "storage")).map((f) => path.join("storage", f));
  return filesUnder(root);
}

function damageDatabase(dbFile: string, d: Extract<Damage, { on: "row" | "row-column" | "row-json" | "row-bytes" | "page" }>): void {
  if (d.on === "page") {
    const bytes = fs.readFileSync(dbFile);
    const pageSize = bytes.length >= 18 ? bytes.readUInt16BE(16) || 65_536 : 4096;
    const pages = Math.floor(bytes.length / pageSize);
    // Never page 1 (the header and the schema): damage there is "not a database", the dullest case.
    if (pages < 2) return;
    const n = 1 + (d.page % (pages - 1));
    if (d.op === "truncate") fs.writeFileSync(dbFile, bytes.subarray(0, n * pageSize));
    else {
      const out = Buffer.from(bytes);
      if (d.op === "zero") out.fill(0, n * pageSize, (n + 1) * pageSize);
      else {
        const at = n * pageSize + (d.page % pageSize);
        out[at] = out[at]! ^ 0x10;
      }
      fs.writeFileSync(dbFile, out);
    }
    return;
  }
  let db: Database.Database;
  try {
    db = new Database(dbFile);
    db.prepare(`SELECT count(*) FROM "${d.table}"`).get();
  } catch {
    // Earlier page damage left nothing SQLite will read: a row operation has nothing to hit.
    return;
  }
  try {
    const ids = db.prepare(`SELECT id FROM "${d.table}" ORDER BY id`).pluck().all() as unknown[];
    if (ids.length === 0) return;
    const id = ids[d.row % ids.length];
    if (d.on === "row") {
      // Foreign keys off: a store damaged outside opencode does not cascade.
      db.pragma("foreign_keys = OFF");
      db.prepare(`DELETE FROM "${d.table}" WHERE id = ?`).run(id);
      return;
    }
    const columns = (db.prepare(`PRAGMA table_info("${d.table}")`).all() as { name: string }[]).map((c) => c.name);
    if (d.on === "row-column") {
      if (!columns.includes(d.column)) return;
      db.pragma("foreign_keys = OFF");
      const other = ids[(d.row + 1) % ids.length];
      const value =
        d.to === "other-row"
          ? db.prepare(`SELECT "${d.column}" FROM "${d.table}" WHERE id = ?`).pluck().get(other)
          : { null: null, integer: 7, real: 1.5, blob: Buffer.from([0xde, 0xad, 0xbe, 0xef]), text: "garbage" }[d.to];
      try {
        db.prepare(`UPDATE "${d.table}" SET "${d.column}" = ? WHERE id = ?`).run(value, id);
      } catch {
        // A NOT NULL or UNIQUE constraint said no: SQLite keeps that much integrity whatever happens to the file.
      }
      return;
    }
    if (!columns.includes("data")) return;
    const data = db.prepare(`SELECT CAST(data AS BLOB) FROM "${d.table}" WHERE id = ?`).pluck().get(id) as Buffer | null;
    if (data === null) return;
    if (d.on === "row-json") {
      const value = parseJson(data);
      if (value === undefined) return;
      const others = db.prepare(`SELECT id FROM "${d.table}" ORDER BY id`).pluck().all() as string[];
      // opencode keeps the id in its column, not in `data`: it is lent to the edit (a collision or a cycle needs it)
      // and taken back unless the edit changed it.
      const edited = applyJsonEdit(isObject(value) ? { id, ...value } : value, d.edit, others);
      if (isObject(edited) && isObject(value) && !("id" in value) && edited.id === id) delete edited.id;
      db.prepare(`UPDATE "${d.table}" SET data = ? WHERE id = ?`).run(JSON.stringify(edited), id);
      return;
    }
    // Bytes stored as TEXT whatever they are, the way a torn or bit-rotted page hands them to a reader.
    db.prepare(`UPDATE "${d.table}" SET data = CAST(? AS TEXT) WHERE id = ?`).run(applyBytes(data, d.op), id);
  } catch (error) {
    // The table reads but a page further on does not: same as above.
    if ((error as { code?: string }).code?.startsWith("SQLITE_CORRUPT") || /malformed|not a database/.test(String(error))) return;
    throw error;
  } finally {
    db.close();
  }
}
