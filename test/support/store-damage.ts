// A small seeded damager for regression tests of "a repair that says done is done": it breaks a store the way the
// issue's fuzz harness did (a line or record deleted, duplicated, given another's id, cut short, two swapped), so a
// test can run repair then scan on it and check what is left. Deterministic: the same seed breaks the same bytes.
// (The property-based harness lives in test/harness/; this is only what the regression tests need.)
import Database from "better-sqlite3";
import fs from "node:fs";
import path from "node:path";
import { mulberry32 } from "./opencode-fixtures.js";

export const DAMAGES = ["delete", "duplicate", "duplicate-id", "truncate", "swap"] as const;
export type Damage = (typeof DAMAGES)[number];

/** What was done, to say which case failed. */
export interface Damaged {
  damage: Damage;
  where: string;
}

export class Dice {
  private readonly rand: () => number;
  constructor(seed: number) {
    this.rand = mulberry32(seed);
  }
  /** Integer in [0, n). */
  below(n: number): number {
    return Math.floor(this.rand() * n);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.below(items.length)]!;
  }
}

// ---------------------------------------------------------------------------------------------
// JSONL transcripts (Claude Code, openclaw): damage is to lines
// ---------------------------------------------------------------------------------------------

/** The record id a line carries: Claude Code's `uuid`, openclaw's `id` (its session header's id is the session's). */
function idKey(record: Record<string, unknown>): "uuid" | "id" | undefined {
  if (typeof record.uuid === "string") return "uuid";
  if (typeof record.id === "string" && record.type !== "session") return "id";
  return undefined;
}

function parse(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** One damage to a transcript's lines (the file keeps its trailing newline). */
export function damageLines(lines: string[], damage: Damage, dice: Dice): { lines: string[]; where: string } {
  const out = [...lines];
  const i = dice.below(out.length);
  switch (damage) {
    case "delete":
      out.splice(i, 1);
      return { lines: out, where: `line ${i + 1} deleted` };
    case "duplicate":
      out.splice(i + 1, 0, out[i]!);
      return { lines: out, where: `line ${i + 1} duplicated` };
    case "truncate": {
      const keep = Math.max(1, dice.below(out[i]!.length));
      out[i] = out[i]!.slice(0, keep);
      return { lines: out, where: `line ${i + 1} cut to ${keep} characters` };
    }
    case "swap": {
      const j = dice.below(out.length);
      [out[i], out[j]] = [out[j]!, out[i]!];
      return { lines: out, where: `lines ${i + 1} and ${j + 1} swapped` };
    }
    case "duplicate-id": {
      const withIds = out.map((line, n) => ({ n, record: parse(line) })).filter((x) => x.record && idKey(x.record));
      if (withIds.length < 2) return damageLines(lines, "duplicate", dice);
      const from = dice.pick(withIds);
      const to = dice.pick(withIds.filter((x) => x !== from));
      const key = idKey(to.record!)!;
      const copy = { ...to.record!, [key]: from.record![idKey(from.record!)!] };
      out[to.n] = JSON.stringify(copy);
      return { lines: out, where: `line ${to.n + 1} given the id of line ${from.n + 1}` };
    }
  }
}

/** Damages one of the .jsonl files under `dir` (in place, keeping its mtime) and says how. */
export function damageTranscriptStore(dir: string, seed: number): Damaged {
  const dice = new Dice(seed);
  const files = jsonlFiles(dir);
  const file = dice.pick(files);
  const damage = dice.pick(DAMAGES);
  const stat = fs.statSync(file);
  const text = fs.readFileSync(file, "utf8");
  const ends = text.endsWith("\n");
  const { lines, where } = damageLines((ends ? text.slice(0, -1) : text).split("\n"), damage, dice);
  fs.writeFileSync(file, lines.join("\n") + (ends ? "\n" : ""));
  fs.utimesSync(file, stat.atime, stat.mtime);
  return { damage, where: `${path.basename(file)}: ${where}` };
}

function jsonlFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".jsonl")) out.push(p);
    }
  };
  walk(dir);
  return out;
}

// ---------------------------------------------------------------------------------------------
// opencode: damage is to message and part records (SQLite rows, or the JSON tree's files)
// ---------------------------------------------------------------------------------------------

/** A new id of the same shape: the last character changed (ids only need to be unique). */
function otherId(id: string, taken: (id: string) => boolean): string {
  for (const c of "zyxwvutsrq") {
    const candidate = id.slice(0, -1) + c;
    if (candidate !== id && !taken(candidate)) return candidate;
  }
  throw new Error(`no free id near ${id}`);
}

/** The tool parts' call ids, for "duplicate-id": two calls that claim one id. */
function callIdOf(data: string): string | undefined {
  const value = parse(data);
  return value?.type === "tool" && typeof value.callID === "string" ? value.callID : undefined;
}

function withCallId(data: string, callID: string): string {
  return JSON.stringify({ ...parse(data)!, callID });
}

/** Damages one message or part row of opencode.db. */
export function damageSqliteStore(dbFile: string, seed: number): Damaged {
  const dice = new Dice(seed);
  const damage = dice.pick(DAMAGES);
  const db = new Database(dbFile);
  // A deleted message leaves its parts behind, as a lost row does: no cascade.
  db.pragma("foreign_keys = OFF");
  try {
    const table = damage === "delete" || damage === "truncate" ? dice.pick(["message", "part", "part"]) : "part";
    const rows = db.prepare(`SELECT * FROM ${table} ORDER BY id`).all() as Record<string, unknown>[];
    const row = dice.pick(rows);
    const id = row.id as string;
    const data = row.data as string;
    switch (damage) {
      case "delete":
        db.prepare(`DELETE FROM ${table} WHERE id = ?`).run(id);
        return { damage, where: `${table} ${id} deleted` };
      case "truncate": {
        const keep = Math.max(1, dice.below(data.length));
        db.prepare(`UPDATE ${table} SET data = ? WHERE id = ?`).run(data.slice(0, keep), id);
        return { damage, where: `${table} ${id} cut to ${keep} characters` };
      }
      case "duplicate": {
        const ids = new Set(rows.map((r) => r.id as string));
        const copy = { ...row, id: otherId(id, (c) => ids.has(c)) };
        const columns = Object.keys(copy);
        db.prepare(`INSERT INTO part (${columns.join(", ")}) VALUES (${columns.map((c) => `@${c}`).join(", ")})`).run(copy);
        return { damage, where: `part ${id} duplicated as ${copy.id}` };
      }
      case "swap": {
        const other = dice.pick(rows.filter((r) => r.session_id === row.session_id));
        const update = db.prepare("UPDATE part SET data = ? WHERE id = ?");
        update.run(other.data, id);
        update.run(data, other.id);
        return { damage, where: `parts ${id} and ${String(other.id)} swapped` };
      }
      case "duplicate-id": {
        const tools = rows.filter((r) => callIdOf(r.data as string) !== undefined);
        if (tools.length < 2) return { damage, where: "no two tool parts: left whole" };
        const from = dice.pick(tools);
        const to = dice.pick(tools.filter((r) => r !== from));
        db.prepare("UPDATE part SET data = ? WHERE id = ?").run(withCallId(to.data as string, callIdOf(from.data as string)!), to.id);
        return { damage, where: `part ${String(to.id)} given the call id of ${String(from.id)}` };
      }
    }
  } finally {
    db.close();
  }
}

/** Damages one message or part file of an opencode JSON tree (`storage/`), keeping its mtime. */
export function damageJsonStore(storage: string, seed: number): Damaged {
  const dice = new Dice(seed);
  const damage = dice.pick(DAMAGES);
  const files = (kind: string) => {
    const root = path.join(storage, kind);
    return fs
      .readdirSync(root)
      .sort()
      .flatMap((dir) =>
        fs
          .readdirSync(path.join(root, dir))
          .sort()
          .map((name) => path.join(root, dir, name)),
      );
  };
  const parts = files("part");
  const kind = damage === "delete" || damage === "truncate" ? dice.pick(["message", "part", "part"]) : "part";
  const file = dice.pick(kind === "part" ? parts : files("message"));
  const stat = fs.statSync(file);
  const text = fs.readFileSync(file, "utf8");
  const keepTime = (f: string) => fs.utimesSync(f, stat.atime, stat.mtime);
  const name = path.relative(storage, file);
  switch (damage) {
    case "delete":
      fs.rmSync(file);
      return { damage, where: `${name} deleted` };
    case "truncate": {
      const keep = Math.max(1, dice.below(text.length));
      fs.writeFileSync(file, text.slice(0, keep));
      keepTime(file);
      return { damage, where: `${name} cut to ${keep} characters` };
    }
    case "duplicate": {
      const value = parse(text);
      const id = otherId(path.basename(file, ".json"), (c) => fs.existsSync(path.join(path.dirname(file), `${c}.json`)));
      const copy = path.join(path.dirname(file), `${id}.json`);
      fs.writeFileSync(copy, value ? JSON.stringify({ ...value, id }, null, 2) : text);
      fs.utimesSync(copy, stat.atime, stat.mtime);
      return { damage, where: `${name} duplicated as ${id}` };
    }
    case "swap": {
      const other = dice.pick(parts);
      const otherText = fs.readFileSync(other, "utf8");
      const a = parse(text);
      const b = parse(otherText);
      // The contents trade places; each file keeps the ids its path names (a torn file trades its bytes as they are).
      fs.writeFileSync(file, a && b ? JSON.stringify({ ...b, id: a.id, messageID: a.messageID, sessionID: a.sessionID }, null, 2) : otherText);
      fs.writeFileSync(other, a && b ? JSON.stringify({ ...a, id: b.id, messageID: b.messageID, sessionID: b.sessionID }, null, 2) : text);
      keepTime(file);
      keepTime(other);
      return { damage, where: `${name} and ${path.relative(storage, other)} swapped` };
    }
    case "duplicate-id": {
      const tools = parts.filter((p) => callIdOf(fs.readFileSync(p, "utf8")) !== undefined);
      if (tools.length < 2) return { damage, where: "no two tool parts: left whole" };
      const from = dice.pick(tools);
      const to = dice.pick(tools.filter((p) => p !== from));
      const toStat = fs.statSync(to);
      fs.writeFileSync(to, JSON.stringify(parse(withCallId(fs.readFileSync(to, "utf8"), callIdOf(fs.readFileSync(from, "utf8"))!)), null, 2));
      fs.utimesSync(to, toStat.atime, toStat.mtime);
      return { damage, where: `${path.relative(storage, to)} given the call id of ${path.relative(storage, from)}` };
    }
  }
}
