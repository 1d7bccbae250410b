// Damage to a pokeralph project's `.pokeralph/` folder, as fast-check arbitraries (the battle fuzz loop,
// fuzz-battle.test.ts): each case is a short list of plain, printable operations, applied to a fresh copy of the base
// repository. Only `.pokeralph/` is damaged (config.json, prd.json, each battle's history.json, progress.json,
// logs/iteration-<n>.txt and recover's checkpoints.json sidecar): the project's files and .git stay as the battles
// left them. As in fuzz-damage.ts, every place is a natural number taken modulo what is there (a file, a folder, a
// JSON place, a byte), so it shrinks towards "the first one" and means something on any damaged state.
// - bytes of any file: truncation, bit flips, NUL runs, invalid UTF-8, a cut-out range (fuzz-damage.ts's byteOp);
// - files: deleted, duplicated (copied over the file of the same name in another folder: one battle's history.json
//   in another battle's folder), moved there, replaced by an empty folder;
// - folders: a battle folder or its logs/ deleted;
// - structural JSON edits: a key dropped, a value retyped, a value set to one pokeralph or recover gives meaning to
//   (a status, a timestamp with an offset, another battle's task id, a ref, a number out of range), a commit hash
//   swapped for another one the state names, an array item (an iteration, a checkpoint, an archived rollback)
//   duplicated, moved or replaced by a value of another type; a JSON edit hits the JSON files only;
// - leftovers of an interrupted write: `<file>.lock`, `<file>.tmp.<ms>.<rand>`, `.patch-temp-<ms>`;
// - a file's mode changed (0600, 0640, 0444, 0755), or the file replaced by a relative symlink to another file of the
//   state or to a project file (never to anything outside the repository).
import fc from "fast-check";
import fs from "node:fs";
import path from "node:path";
import { applyBytes, byteOp, filesUnder, type ByteOp } from "./fuzz-damage.js";

/**
 * `key` picks a place depth first among every place of the value, or (`shallow`) among the top-level keys and the
 * places just under them: an iteration, a checkpoint, a rollback, a task as a whole, not only their leaves.
 */
export type BattleJsonEdit =
  | { kind: "drop-key"; key: number; shallow: boolean }
  | { kind: "retype"; key: number; shallow: boolean; to: "null" | "number" | "string" | "array" | "object" | "bool" }
  | { kind: "set"; key: number; shallow: boolean; value: number }
  | { kind: "other-hash"; key: number; other: number }
  | { kind: "duplicate-item"; key: number }
  | { kind: "move-item"; key: number; to: number }
  | { kind: "replace-item"; key: number; to: "null" | "number" | "string" | "array" | "object" | "bool" };

export type BattleDamage =
  | { on: "file-bytes"; file: number; op: ByteOp }
  | { on: "file"; file: number; op: "delete" | "duplicate" | "move" | "to-folder"; to: number }
  | { on: "folder"; folder: number; op: "delete" }
  | { on: "file-json"; file: number; edit: BattleJsonEdit }
  | { on: "leftover"; file: number; kind: "lock" | "tmp" | "patch-temp" }
  | { on: "mode"; file: number; mode: 0o600 | 0o640 | 0o444 | 0o755 }
  | { on: "symlink"; file: number; to: number };

/**
 * Values with a meaning somewhere in the state: statuses of a battle, an iteration, progress; timestamps pokeralph
 * rejects (an offset, no zone, not a date); task ids (another battle's, one with a `..`); refs; numbers 0, negative,
 * fractional, huge; a string holding NUL or a newline; an empty array of iterations.
 */
export const SET_VALUES: readonly unknown[] = [
  "running",
  "paused",
  "completed",
  "failed",
  "cancelled",
  "awaiting_approval",
  "pending",
  "success",
  "failure",
  "in_progress",
  "bogus",
  "",
  "2026-02-04T14:00:03+02:00",
  "2026-02-04 14:00:03",
  "not a date",
  "9999-12-31T23:59:59.999Z",
  "001-project-setup",
  "002-auth-system",
  "003-invoice-pdf",
  "../../../etc",
  "002-auth-system/../003-invoice-pdf",
  "refs/pokeralph/checkpoints/002-auth-system/3",
  "refs/heads/main",
  "HEAD",
  "0000000000000000000000000000000000000000",
  "deadbeef",
  "a\u0000b",
  "line\nbreak",
  0,
  -1,
  2.5,
  3,
  99,
  1e21,
  Number.MAX_SAFE_INTEGER,
  [],
  [{}],
  {},
  { schemaVersion: 2 },
];

const index = fc.nat({ max: 63 });

export const battleJsonEdit: fc.Arbitrary<BattleJsonEdit> = fc.oneof(
  fc.record({ kind: fc.constant("drop-key" as const), key: index, shallow: fc.boolean() }),
  fc.record({
    kind: fc.constant("retype" as const),
    key: index,
    shallow: fc.boolean(),
    to: fc.constantFrom("null", "number", "string", "array", "object", "bool"),
  }),
  { arbitrary: fc.record({ kind: fc.constant("set" as const), key: index, shallow: fc.boolean(), value: fc.nat({ max: SET_VALUES.length - 1 }) }), weight: 2 },
  fc.record({ kind: fc.constant("other-hash" as const), key: index, other: index }),
  fc.record({ kind: fc.constant("duplicate-item" as const), key: index }),
  fc.record({ kind: fc.constant("move-item" as const), key: index, to: index }),
  fc.record({ kind: fc.constant("replace-item" as const), key: index, to: fc.constantFrom("null", "number", "string", "array", "object", "bool") }),
);

const fileBytes = fc.record({ on: fc.constant("file-bytes" as const), file: index, op: byteOp });
const fileOp = fc.record({ on: fc.constant("file" as const), file: index, op: fc.constantFrom("delete", "duplicate", "move", "to-folder"), to: index });
const folderOp = fc.record({ on: fc.constant("folder" as const), folder: index, op: fc.constant("delete" as const) });
const fileJson = fc.record({ on: fc.constant("file-json" as const), file: index, edit: battleJsonEdit });
const leftover = fc.record({ on: fc.constant("leftover" as const), file: index, kind: fc.constantFrom("lock", "tmp", "patch-temp") });
const modeOp = fc.record({
  on: fc.constant("mode" as const),
  file: index,
  mode: fc.constantFrom(0o600 as const, 0o640 as const, 0o444 as const, 0o755 as const),
});
const symlinkOp = fc.record({ on: fc.constant("symlink" as const), file: index, to: index });

/** One to three operations, JSON edits weighted above raw bytes (they reach further into what the commands read). */
export function battleDamageArbitrary(): fc.Arbitrary<BattleDamage[]> {
  const one: fc.Arbitrary<BattleDamage> = fc.oneof(
    { arbitrary: fileJson, weight: 5 },
    { arbitrary: fileBytes, weight: 3 },
    { arbitrary: fileOp, weight: 2 },
    { arbitrary: folderOp, weight: 1 },
    { arbitrary: leftover, weight: 1 },
    { arbitrary: modeOp, weight: 1 },
    { arbitrary: symlinkOp, weight: 1 },
  );
  return fc.array(one, { minLength: 1, maxLength: 3 });
}

// ---------------------------------------------------------------------------------------------
// Applying them
// ---------------------------------------------------------------------------------------------

type Json = Record<string, unknown>;
type Place = [Json | unknown[], string | number, number];
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** Every [holder, key, depth] in a JSON value, depth first, the value itself excluded (its keys are at depth 0). */
function places(value: unknown, depth = 0, out: Place[] = []): Place[] {
  if (Array.isArray(value))
    value.forEach((v, i) => {
      out.push([value, i, depth]);
      places(v, depth + 1, out);
    });
  else if (isObject(value))
    for (const [k, v] of Object.entries(value)) {
      out.push([value, k, depth]);
      places(v, depth + 1, out);
    }
  return out;
}

const HASH = /\b[0-9a-f]{40}\b/g;
const IS_HASH = /\b[0-9a-f]{40}\b/;

const retyped = (to: "null" | "number" | "string" | "array" | "object" | "bool"): unknown =>
  ({ null: null, number: 42, string: "x", array: [], object: {}, bool: true })[to];

/** A structural edit of one JSON value (a clone: the input is left as it is); `hashes` are the commits the state names. */
export function applyBattleJsonEdit(value: unknown, edit: BattleJsonEdit, hashes: string[]): unknown {
  const out = structuredClone(value);
  if (!isObject(out) && !Array.isArray(out)) return out;
  const all = places(out);
  if (edit.kind === "duplicate-item" || edit.kind === "move-item" || edit.kind === "replace-item") {
    // The arrays: the iterations, the checkpoints, the tasks, the feedback loops, the files changed.
    const arrays = [...(Array.isArray(out) ? [out] : []), ...all.map(([h, k]) => (h as Json)[k as string]).filter((v): v is unknown[] => Array.isArray(v))];
    const nonEmpty = arrays.filter((a) => a.length > 0);
    if (nonEmpty.length === 0) return out;
    const list = nonEmpty[edit.key % nonEmpty.length]!;
    if (edit.kind === "duplicate-item") {
      const i = edit.key % list.length;
      list.splice(i + 1, 0, structuredClone(list[i]));
    } else if (edit.kind === "replace-item") {
      list[edit.key % list.length] = retyped(edit.to);
    } else {
      const [item] = list.splice(edit.key % list.length, 1);
      list.splice(edit.to % (list.length + 1), 0, item);
    }
    return out;
  }
  if (all.length === 0) return out;
  if (edit.kind === "other-hash") {
    const withHash = all.filter(([h, k]) => typeof (h as Json)[k as string] === "string" && IS_HASH.test((h as Json)[k as string] as string));
    if (withHash.length === 0 || hashes.length === 0) return out;
    const [holder, key] = withHash[edit.key % withHash.length]!;
    (holder as Json)[key as string] = hashes[edit.other % hashes.length];
    return out;
  }
  const candidates = edit.shallow ? all.filter(([, , depth]) => depth <= 1) : all;
  const [holder, key] = candidates[edit.key % candidates.length]!;
  if (edit.kind === "drop-key") {
    if (Array.isArray(holder)) holder.splice(key as number, 1);
    else delete holder[key as string];
    return out;
  }
  const replacement = edit.kind === "retype" ? retyped(edit.to) : structuredClone(SET_VALUES[edit.value]);
  (holder as Json)[key as string] = replacement;
  return out;
}

/** Folders under `.pokeralph/` (relative to the project), sorted: the battle folders and their logs/. */
function foldersUnder(root: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (!e.isDirectory()) continue;
      const child = path.join(rel, e.name);
      out.push(child);
      walk(child);
    }
  };
  walk(".pokeralph");
  return out;
}

/** The files a damage operation may hit: every file under `.pokeralph/`, relative to the project, sorted. */
export function pokeralphFiles(root: string): string[] {
  const dir = path.join(root, ".pokeralph");
  if (!fs.existsSync(dir)) return [];
  return filesUnder(dir).map((f) => path.join(".pokeralph", f));
}

function parseJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString("utf8"));
  } catch {
    return undefined;
  }
}

/** Every commit hash the state's files name (commitHash, a checkpoint's commit and parent, a rollback's target). */
function hashesIn(root: string, files: string[]): string[] {
  const found = new Set<string>();
  for (const f of files) {
    if (!f.endsWith(".json") || !fs.lstatSync(path.join(root, f)).isFile()) continue;
    for (const m of fs.readFileSync(path.join(root, f), "latin1").matchAll(HASH)) found.add(m[0]);
  }
  return [...found].sort();
}

/**
 * Applies the damage to the project at `root` (only ever under its `.pokeralph/`); returns what each operation hit
 * (a file or folder, relative to the project), in order.
 */
export function applyBattleDamage(root: string, damage: BattleDamage[]): string[] {
  const hit: string[] = [];
  for (const d of damage) {
    if (d.on === "folder") {
      const folders = foldersUnder(root);
      if (folders.length === 0) continue;
      hit.push(folders[d.folder % folders.length]!);
      fs.rmSync(path.join(root, folders[d.folder % folders.length]!), { recursive: true, force: true });
      continue;
    }
    const all = pokeralphFiles(root);
    // A JSON edit hits the JSON files (config, prd, history, progress, checkpoints); the rest, any file.
    const json = all.filter((f) => f.endsWith(".json"));
    const files = d.on === "file-json" && json.length > 0 ? json : all;
    if (files.length === 0) continue;
    const rel = files[d.file % files.length]!;
    hit.push(rel);
    const file = path.join(root, rel);
    // What a symlink points at is not the state's: only deleted, copied or moved as a link.
    if (fs.lstatSync(file).isSymbolicLink() && d.on !== "file") continue;
    switch (d.on) {
      case "file-bytes":
        fs.writeFileSync(file, applyBytes(fs.readFileSync(file), d.op));
        break;
      case "file": {
        if (d.op === "delete") fs.rmSync(file);
        else if (d.op === "to-folder") {
          fs.rmSync(file);
          fs.mkdirSync(file);
        } else {
          const folders = [".pokeralph", ...foldersUnder(root)];
          const target = path.join(root, folders[d.to % folders.length]!, path.basename(file));
          const there = fs.lstatSync(target, { throwIfNoEntry: false });
          if (target === file || there?.isDirectory()) break;
          if (there?.isSymbolicLink()) fs.rmSync(target);
          if (d.op === "duplicate") {
            if (!fs.lstatSync(file).isSymbolicLink()) fs.copyFileSync(file, target);
          } else fs.renameSync(file, target);
        }
        break;
      }
      case "file-json": {
        const value = parseJson(fs.readFileSync(file));
        if (value === undefined) break;
        // pokeralph's style, and recover's: two-space JSON (a trailing newline or not, as the file had it).
        const had = fs.readFileSync(file, "utf8").endsWith("\n") ? "\n" : "";
        fs.writeFileSync(file, `${JSON.stringify(applyBattleJsonEdit(value, d.edit, hashesIn(root, files)), null, 2)}${had}`);
        break;
      }
      case "leftover": {
        const dir = path.dirname(file);
        if (d.kind === "lock") fs.writeFileSync(`${file}.lock`, "48213-1770213603402-k3x9a2b");
        else if (d.kind === "tmp") fs.writeFileSync(`${file}.tmp.1770213603402.k3x9a2b`, applyBytes(fs.readFileSync(file), { kind: "truncate", at: 40 }));
        else fs.writeFileSync(path.join(dir, ".patch-temp-1770213603402"), "diff --git a/src/index.ts b/src/index.ts\n");
        break;
      }
      case "mode":
        if (fs.lstatSync(file).isFile()) fs.chmodSync(file, d.mode);
        break;
      case "symlink": {
        // A relative link to another file of the state or to a project file (never out of the repository).
        const targets = [...all.filter((f) => f !== rel), "README.md", "src/index.ts"];
        const target = targets[d.to % targets.length]!;
        fs.rmSync(file, { recursive: true });
        fs.symlinkSync(path.relative(path.dirname(file), path.join(root, target)), file);
        break;
      }
    }
  }
  return hit;
}
