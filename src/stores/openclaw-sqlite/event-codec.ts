/**
 * One `transcript_events` row as the event's JSON text. openclaw stores an event either as plain `event_json` or as
 * one zstd frame in `event_zstd` (the client's own zlib, content checksum on: a flipped byte makes it crash with
 * "Restored data doesn't match checksum"). Node 20 has no zstd in zlib, so the frame is decoded with fzstd (pure
 * JavaScript, decoding only, which is all recover needs: it writes plain `event_json`), and its checksum, which fzstd
 * does not check, with @node-rs/xxhash: recover must refuse exactly the rows the client refuses. Both stay outside
 * the bundle and load on first use.
 */
import { createRequire } from "node:module";

// Both are loaded on the first zstd row: most runs read none, and start-up pays for what it loads.
const requireHere = createRequire(import.meta.url);
let xxh64: ((input: Uint8Array, seed?: bigint) => bigint) | undefined;
let decompress: ((data: Uint8Array) => Uint8Array) | undefined;

/** The content checksum of a zstd frame: the low 32 bits of XXH64 (seed 0), little-endian (RFC 8878 §3.1.1). */
function checksumOf(content: Uint8Array): number {
  xxh64 ??= (requireHere("@node-rs/xxhash") as { xxh64: (input: Uint8Array, seed?: bigint) => bigint }).xxh64;
  return Number(xxh64(content, 0n) & 0xffffffffn);
}

/** What a row holds as text, or why it holds none. */
export type DecodedEvent = { text: Buffer } | { problem: string };

/**
 * The event of a row read with `event_json` (text, exact bytes) and `event_zstd` (blob): plain text as stored; a
 * frame decoded and checked as the client checks it (checksum, and the length `event_utf8_bytes` records). A row with neither holds nothing to read.
 */
export function decodeEvent(json: Buffer | null, zstd: Buffer | null, utf8Bytes: number | undefined): DecodedEvent {
  if (json !== null) return { text: json };
  if (zstd === null) return { problem: "the row holds neither event_json nor event_zstd" };
  let content: Uint8Array;
  try {
    decompress ??= (requireHere("fzstd") as { decompress: (data: Uint8Array) => Uint8Array }).decompress;
    content = decompress(zstd);
  } catch (error) {
    return { problem: `event_zstd does not decode (${(error as Error).message})` };
  }
  const expected = frameChecksum(zstd);
  if (expected !== undefined && checksumOf(content) !== expected) return { problem: "event_zstd does not decode (its content checksum does not match)" };
  // The client decodes at most event_utf8_bytes and refuses any other length.
  if (content.length !== utf8Bytes) return { problem: `event_zstd decodes to ${content.length} bytes, but event_utf8_bytes says ${utf8Bytes ?? "nothing"}` };
  return { text: Buffer.from(content.buffer, content.byteOffset, content.byteLength) };
}

/** The checksum a single zstd frame carries at its end, when its header says it has one. */
function frameChecksum(frame: Buffer): number | undefined {
  // Frame header descriptor, after the 4-byte magic: bit 2 is Content_Checksum_flag.
  if (frame.length < 9 || (frame[4]! & 0b100) === 0) return undefined;
  return frame.readUInt32LE(frame.length - 4);
}
