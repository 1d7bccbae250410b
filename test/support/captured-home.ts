// An agent's home made of the sessions a real client wrote (fixtures/<client>-<version>/), each placed where the
// client keeps it, last written when the client wrote it (a fresh copy would look like a running agent's).
import fs from "node:fs";
import path from "node:path";
import { tempDir } from "../cli/run.js";

export interface Capture {
  scenario: string;
  id: string;
  file: string;
}

export interface CaptureLayout {
  fixtures: string;
  /** The session id a capture's first line holds, and where its file goes in the home. */
  place(firstLine: string): { id: string; rel: string };
  /** When the client wrote the captures. */
  written: Date;
}

/** Every `<scenario>.jsonl` capture (`after`: every `<scenario>.after.jsonl`, as the resume left it) in a fresh home. */
export function homeOfCaptures(layout: CaptureLayout, which: "before" | "after" = "before"): { home: string; captures: Map<string, Capture> } {
  const home = tempDir();
  const captures = new Map<string, Capture>();
  const suffix = which === "after" ? ".after.jsonl" : ".jsonl";
  for (const name of fs.readdirSync(layout.fixtures).filter((f) => f.endsWith(suffix) && (which === "after" || !f.endsWith(".after.jsonl")))) {
    const bytes = fs.readFileSync(path.join(layout.fixtures, name));
    const { id, rel } = layout.place(bytes.toString("utf8", 0, bytes.indexOf(0x0a)));
    const file = path.join(home, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, bytes);
    age(file, layout.written);
    captures.set(name.slice(0, -suffix.length), { scenario: name.slice(0, -suffix.length), id, file });
  }
  return { home, captures };
}

export function age(file: string, when: Date): void {
  fs.utimesSync(file, when, when);
}

const ISO_TIME = /\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z\b/g;

/**
 * A capture as if its client wrote it `ago` ms before now: every time in it moves by the same amount (their order and
 * gaps kept) and so does the file's mtime. A session's liveness is read from the times its records carry.
 */
export function writtenAgo(file: string, ago: number): void {
  const text = fs.readFileSync(file, "utf8");
  const latest = Math.max(...[...text.matchAll(ISO_TIME)].map((m) => Date.parse(m[0])));
  const shift = Date.now() - ago - latest;
  fs.writeFileSync(
    file,
    text.replace(ISO_TIME, (t) => new Date(Date.parse(t) + shift).toISOString()),
  );
  age(file, new Date(Date.now() - ago));
}
