// Stores for the "context trim always brings the session back" tests: sessions whose weight sits in the running
// (last) turn, as agents really overflow — one or two prompts, then a long tool loop with big outputs. opencode
// sessions (both store forms), Claude Code and openclaw transcripts, and prompts with pasted 3000×3000 screenshots
// (real PNG signature + IHDR, so the size is read from the data as a provider would). Everything seeded.
import fs from "node:fs";
import path from "node:path";
import type { BuiltStore, Json, MessageSpec, PartSpec, SessionSpec } from "../support/opencode-fixtures.js";
import { mulberry32, readOutput, SECOND } from "../support/opencode-fixtures.js";
import { ClaudeTranscript, OpenclawTranscript } from "../support/transcript-fixtures.js";
import { T0 } from "../cli/stores.js";
import { answer, call, Content, session, storeWith, ZERO_TOKENS } from "./sessions.js";

export { T0 };

const HOUR = 60 * 60 * SECOND;

// ---------------------------------------------------------------------------------------------
// PNG screenshots of a given size
// ---------------------------------------------------------------------------------------------

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/**
 * A PNG file of `width`×`height` as far as any reader of its header can tell: the signature, a valid IHDR (8-bit RGB),
 * one IDAT of `fillerBytes` seeded bytes (not a decodable image: nobody here inflates it) and IEND, CRCs correct.
 */
export function pngBytes(width: number, height: number, seed: number, fillerBytes = 6_000): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type: truecolour
  ihdr[10] = 0; // compression
  ihdr[11] = 0; // filter
  ihdr[12] = 0; // interlace
  const rand = mulberry32(seed);
  const filler = Buffer.alloc(fillerBytes);
  for (let i = 0; i < fillerBytes; i++) filler[i] = Math.floor(rand() * 256);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", filler),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/** Width and height from a PNG's IHDR (undefined when the bytes are not a PNG). */
export function pngSize(bytes: Buffer): { width: number; height: number } | undefined {
  if (bytes.length < 24 || bytes.readUInt32BE(0) !== 0x89504e47 || bytes.toString("ascii", 12, 16) !== "IHDR") return undefined;
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

export const BIG_SIDE = 3000;
/** Base64 of a 3000×3000 screenshot (about 8 KB of base64). */
export const screenshotBase64 = (seed: number) => pngBytes(BIG_SIDE, BIG_SIDE, seed).toString("base64");

// ---------------------------------------------------------------------------------------------
// opencode: a running turn of 16 tool steps
// ---------------------------------------------------------------------------------------------

export const TASK = "The nightly ETL job fails with ECONNRESET since Monday. Find the cause and fix it; do not touch the ledger schema.";
export const FOLLOW_UP = "Keep going: read the exporter and the worker logs until you know why the cursor resets.";

/** Output sizes of the 16 steps of the running turn: 40–110 KB, varied, deterministic (about 1.2 MB in all). */
export const STEP_SIZES = [62_000, 41_000, 108_000, 77_000, 53_000, 95_000, 44_000, 110_000, 69_000, 58_000, 101_000, 47_000, 86_000, 73_000, 90_000, 66_000];

/**
 * The common overflow: a first turn (the task, a short answer), then a second user turn in which the agent ran
 * `steps.length` steps, one assistant message each (opencode writes one per step), each a bash or read call with an
 * output of the given size. Stored usage is zero: the estimate is characters / 4 as is. Tags S1…S16.
 */
export function runningTurnSession(opts: { steps?: number[]; title?: string; seed?: number } = {}): SessionSpec {
  const sizes = opts.steps ?? STEP_SIZES;
  const text = new Content(opts.seed ?? 401);
  return session(opts.title ?? "Nightly ETL: cursor resets after partial batch", (w) => {
    const out: MessageSpec[] = [w.user(TASK, { gap: 2 * SECOND }), answer(w, [w.text("I will start with the exporter and the nightly logs.")])];
    out.push(w.user(FOLLOW_UP));
    sizes.forEach((size, i) => {
      const tag = `S${String(i + 1).padStart(2, "0")}`;
      const part: PartSpec =
        i % 3 === 1
          ? call(
              w,
              "read",
              { filePath: `/srv/etl/src/etl/${["exporter", "retry", "cursor", "ledger", "queue"][i % 5]}.ts` },
              readOutput(text.source(Math.round(size * 0.9))),
              tag,
            )
          : call(
              w,
              "bash",
              { command: `journalctl -u etl-worker --since "02:00" -n ${4000 + i}`, description: `Worker journal ${i + 1}` },
              text.log(size),
              tag,
            );
      out.push(w.assistant([w.stepStart(), w.text(`Step ${i + 1}: checking the next piece of evidence.`), part, w.stepFinish("tool-calls", ZERO_TOKENS)]));
    });
    return out;
  });
}

/** The running-turn store and the ids of what must stay byte-identical. */
export interface RunningTurnStore {
  built: BuiltStore;
  sessionId: string;
  firstUserId: string;
  lastUserId: string;
  /** The last two assistant messages (the last two steps), oldest first. */
  lastStepIds: string[];
  /** Message id → ids of its parts. */
  partsOf: Record<string, string[]>;
}

export function runningTurnStore(spec: SessionSpec = runningTurnSession()): RunningTurnStore {
  const built = storeWith(spec);
  const s = built.sessions[0]!;
  const users = s.messages.filter((m) => m.role === "user");
  const assistants = s.messages.filter((m) => m.role === "assistant");
  return {
    built,
    sessionId: s.id,
    firstUserId: users[0]!.id,
    lastUserId: users.at(-1)!.id,
    lastStepIds: assistants.slice(-2).map((m) => m.id),
    partsOf: Object.fromEntries(s.messages.map((m) => [m.id, m.parts.map((p) => p.id)])),
  };
}

/** The always-intact part alone over the limit: the last two steps each hold a 1,000,000-character log. */
export function heavyTailSession(): SessionSpec {
  return runningTurnSession({ steps: [60_000, 45_000, 1_000_000, 1_000_000], title: "Two enormous logs at the end", seed: 402 });
}

/** 25 screenshots of 3000×3000 px: five prompts of five images each, each answered in one short step. */
export function imageSession(): SessionSpec {
  let n = 0;
  return session("Dashboard renders blank panels", (w) => {
    const out: MessageSpec[] = [];
    for (let t = 0; t < 5; t++) {
      const created = w.tick(45 * SECOND);
      const parts: PartSpec[] = [{ time: w.tick(2), data: { type: "text", text: `Screens of panel group ${t + 1}: every panel is blank after the deploy.` } }];
      for (let i = 0; i < 5; i++) {
        n++;
        parts.push({
          time: w.tick(2),
          data: { type: "file", mime: "image/png", filename: `panel-${t + 1}-${i + 1}.png`, url: `data:image/png;base64,${screenshotBase64(500 + n)}` },
        });
      }
      out.push({ role: "user", created, parts });
      out.push(answer(w, [w.text(`Group ${t + 1}: the panels call /api/metrics, which returns 502 since the deploy.`)]));
    }
    return out;
  });
}

// ---------------------------------------------------------------------------------------------
// Transcripts
// ---------------------------------------------------------------------------------------------

/** A transcript file last written an hour ago (a file written just now is refused as possibly live). */
export function ageFile(file: string, ms = HOUR): void {
  const then = new Date(Date.now() - ms);
  fs.utimesSync(file, then, then);
}

/** The keys (uuid / entry id) of the lines that must stay byte-identical, and the written file. */
export interface TranscriptStore {
  /** What --store names (Claude Code config dir, openclaw state dir). */
  store: string;
  file: string;
  sessionId: string;
  /** The first prompt, the last prompt, the last two responses and the tool results that answer them. */
  intact: string[];
  /** The line holding the huge tool output. */
  hugeLine: string;
}

const HUGE = 3_000_000;

/**
 * Claude Code: the task and its answer, then the running turn: a Bash call whose result is a 3,000,000-character log,
 * three small Read steps after it, and a final answer. Each response is one line per content block sharing a
 * message.id; the last two responses are the last Read step and the answer.
 */
export function claudeRunningTurn(dir: string): TranscriptStore {
  const text = new Content(403);
  const t = new ClaudeTranscript({ start: T0, seed: 71, cwd: "/srv/etl" });
  const first = t.user(TASK);
  t.assistant([{ type: "text", text: "I will start with the nightly logs." }]);
  const last = t.user(FOLLOW_UP);
  const bash = t.toolUseId();
  t.assistant([
    { type: "text", text: "Dumping the whole worker journal." },
    { type: "tool_use", id: bash, name: "Bash", input: { command: "journalctl -u etl-worker --no-pager", description: "Worker journal" } },
  ]);
  const huge = t.toolResult(bash, text.log(HUGE));
  const intact: string[] = [first, last];
  for (let i = 0; i < 3; i++) {
    const id = t.toolUseId();
    const file = `/srv/etl/src/etl/${["exporter", "retry", "cursor"][i]}.ts`;
    const lines = t.assistant([
      { type: "text", text: `Reading ${path.basename(file)}.` },
      { type: "tool_use", id, name: "Read", input: { file_path: file } },
    ]);
    const result = t.toolResult(id, readOutput(text.source(6_000 + i * 1_000)));
    if (i === 2) intact.push(...lines, result);
  }
  intact.push(...t.assistant([{ type: "text", text: "The cursor is reset after a partial batch; the fix goes in cursor.ts." }]));
  const file = t.writeTo(dir);
  ageFile(file);
  return { store: dir, file, sessionId: t.sessionId, intact, hugeLine: huge };
}

/** openclaw: the same shape (one 3,000,000-character toolResult, three small steps after it, a final answer). */
export function openclawRunningTurn(dir: string): TranscriptStore {
  const text = new Content(404);
  const t = new OpenclawTranscript({ start: T0, seed: 72, cwd: "/srv/etl" });
  const first = t.user(TASK);
  t.assistant([{ type: "text", text: "I will start with the nightly logs." }], { stopReason: "stop" });
  const last = t.user(FOLLOW_UP);
  const exec = t.toolCallId();
  t.assistant([{ type: "toolCall", id: exec, name: "exec", arguments: { command: "journalctl -u etl-worker --no-pager" } }], { stopReason: "toolUse" });
  const huge = t.toolResult(exec, "exec", text.log(HUGE));
  const intact: string[] = [first, last];
  for (let i = 0; i < 3; i++) {
    const id = t.toolCallId();
    const step = t.assistant([{ type: "toolCall", id, name: "read", arguments: { path: `/srv/etl/src/etl/${["exporter", "retry", "cursor"][i]}.ts` } }], {
      stopReason: "toolUse",
    });
    const result = t.toolResult(id, "read", text.source(6_000 + i * 1_000));
    if (i === 2) intact.push(step, result);
  }
  intact.push(t.assistant([{ type: "text", text: "The cursor is reset after a partial batch; the fix goes in cursor.ts." }], { stopReason: "stop" }));
  const file = t.writeTo(dir);
  ageFile(file);
  ageFile(path.join(path.dirname(file), "sessions.json"));
  return { store: dir, file, sessionId: t.sessionId, intact, hugeLine: huge };
}

/** Claude Code: 25 screenshots of 3000×3000 px in five prompts (five each), each answered by one short response. */
export function claudeImages(dir: string): { store: string; file: string; sessionId: string; lastUser: string } {
  const t = new ClaudeTranscript({ start: T0, seed: 73, cwd: "/srv/dash" });
  let n = 0;
  let lastUser = "";
  for (let p = 0; p < 5; p++) {
    const content: Json[] = [{ type: "text", text: `Screens of panel group ${p + 1}: every panel is blank after the deploy.` }];
    for (let i = 0; i < 5; i++) content.push({ type: "image", source: { type: "base64", media_type: "image/png", data: screenshotBase64(600 + ++n) } });
    lastUser = t.user(content);
    t.assistant([{ type: "text", text: `Group ${p + 1}: the panels call /api/metrics, which returns 502 since the deploy.` }]);
  }
  const file = t.writeTo(dir);
  ageFile(file);
  return { store: dir, file, sessionId: t.sessionId, lastUser };
}

// ---------------------------------------------------------------------------------------------
// Reading transcripts back
// ---------------------------------------------------------------------------------------------

/** Line text (without "\n") by the line's uuid (Claude Code) or entry id (openclaw); lines without one are skipped. */
export function linesByKey(file: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    if (line === "") continue;
    try {
      const record = JSON.parse(line) as Json;
      const key = typeof record.uuid === "string" ? record.uuid : typeof record.id === "string" && record.type === "message" ? record.id : undefined;
      if (key !== undefined) out.set(key, line);
    } catch {
      // not a record: no key
    }
  }
  return out;
}

/** The sizes of every base64 PNG image a transcript's user lines still carry. */
export function transcriptImages(file: string): { width: number; height: number }[] {
  const out: { width: number; height: number }[] = [];
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    if (line === "") continue;
    const record = JSON.parse(line) as Json;
    const content = (record.message as Json | undefined)?.content;
    if (!Array.isArray(content)) continue;
    for (const block of content as Json[]) {
      const source = block.source as Json | undefined;
      if (block.type === "image" && typeof source?.data === "string") out.push(pngSize(Buffer.from(source.data, "base64")) ?? { width: 0, height: 0 });
    }
  }
  return out;
}

/** Sizes of the images in opencode file parts (data: URLs). */
export function dataUrlImages(parts: Json[]): { width: number; height: number }[] {
  const out: { width: number; height: number }[] = [];
  for (const part of parts) {
    if (part?.type !== "file" || typeof part.url !== "string" || !String(part.mime).startsWith("image/")) continue;
    const m = /^data:[^;,]+;base64,(.*)$/s.exec(part.url);
    if (m) out.push(pngSize(Buffer.from(m[1]!, "base64")) ?? { width: 0, height: 0 });
  }
  return out;
}

/** The Anthropic rule: more than 20 images in a request is refused when any of them has a side over 2000 px. */
export function imagesFit(images: { width: number; height: number }[]): boolean {
  return images.length <= 20 || images.every((i) => i.width <= 2000 && i.height <= 2000);
}
