// File helpers the drivers and scenario tables share: walking a folder, a store image for the restore check, editing
// a JSON-lines file line by line, and cutting long strings for fixtures.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/** Every file under `dir`, as paths relative to it, sorted; [] when it does not exist. */
export function listFiles(dir, rel = "") {
  if (!fs.existsSync(path.join(dir, rel))) return [];
  const out = [];
  for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const r = path.join(rel, e.name);
    if (e.isDirectory()) out.push(...listFiles(dir, r));
    else out.push(r);
  }
  return out.sort();
}

/** The image of the files under `dir` (those `keep` picks): relative path -> sha256 of the bytes. */
export function filesImage(dir, keep = () => true) {
  const image = {};
  for (const f of listFiles(dir))
    if (keep(f))
      image[f] = createHash("sha256")
        .update(fs.readFileSync(path.join(dir, f)))
        .digest("hex");
  return image;
}

/** JSON.parse, or null. */
export const parseLine = (l) => {
  try {
    return JSON.parse(l);
  } catch {
    return null;
  }
};

/**
 * Edit a JSON-lines file as an array of lines without their "\n": `fn(lines)` returns { lines, note, noFinalNewline }.
 * Returns the note.
 */
export function editLines(file, fn) {
  const raw = fs.readFileSync(file, "utf8");
  const endsNl = raw.endsWith("\n");
  const lines = (endsNl ? raw.slice(0, -1) : raw).split("\n");
  const { lines: out, note, noFinalNewline } = fn(lines);
  fs.writeFileSync(file, out.join("\n") + (noFinalNewline ? "" : "\n"));
  return note;
}

// Cutting long strings in the middle, for fixtures: `[... N characters cut by <who> ...]`. A truncation marker the
// client itself wrote (e.g. "…40001 tokens truncated…") is kept with `around` characters either side.
const CLIENT_MARK = /…\d+ [a-z]+ truncated…/g;
export function cutMiddle(s, { max = 4000, keep = 1500, around = 200, by }) {
  if (typeof s !== "string" || s.length <= max) return s;
  const cut = (n) => `[... ${n} characters cut by ${by} ...]`;
  const ranges = [[0, keep]];
  for (const m of s.matchAll(CLIENT_MARK)) ranges.push([Math.max(0, m.index - around), Math.min(s.length, m.index + m[0].length + around)]);
  ranges.push([s.length - keep, s.length]);
  ranges.sort((x, y) => x[0] - y[0]);
  const merged = [];
  for (const r of ranges) {
    const prev = merged[merged.length - 1];
    if (prev && r[0] <= prev[1]) prev[1] = Math.max(prev[1], r[1]);
    else merged.push([...r]);
  }
  let out = "";
  let pos = 0;
  for (const [a, b] of merged) {
    if (a > pos) out += cut(a - pos);
    out += s.slice(a, b);
    pos = b;
  }
  return out;
}

/** Every string in `v` longer than `max` cut in the middle. */
export function cutDeep(v, options) {
  if (typeof v === "string") return cutMiddle(v, options);
  if (Array.isArray(v)) return v.map((x) => cutDeep(x, options));
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, cutDeep(x, options)]));
  return v;
}

/**
 * The fixture form of a Messages API request body (Claude Code, openclaw): `tools` reduced to names, each `system`
 * text over 4000 characters cut to its first and last 1500 with a `[... N characters cut by <by> ...]` marker; every
 * other key as sent.
 */
export function trimMessagesRequest(body, by) {
  const cut = (t) => `${t.slice(0, 1500)}\n[... ${t.length - 3000} characters cut by ${by} ...]\n${t.slice(-1500)}`;
  const out = {};
  for (const [k, v] of Object.entries(body)) {
    if (k === "tools") out.tools = v.map((t) => t.name);
    else if (k === "system" && Array.isArray(v)) out.system = v.map((b) => (b.type === "text" && b.text.length > 4000 ? { ...b, text: cut(b.text) } : b));
    else out[k] = v;
  }
  return out;
}

/**
 * The folders of a client's sandbox under the run's work dir, made: HOME (<work>/home), the client's config folder in
 * it (`configRel`, e.g. ".claude") and the project the client runs in (<work>/<project>). Returns { home, config, cwd }.
 */
export function sandboxDirs(work, configRel, project = "project") {
  const home = path.join(work, "home");
  const config = path.join(home, configRel);
  const cwd = path.join(work, project);
  for (const d of [config, cwd]) fs.mkdirSync(d, { recursive: true });
  return { home, config, cwd };
}
