/**
 * The refusals an agent's hook recorded (Claude Code's StopFailure: its stdin names the session, its transcript and
 * the client's text of the provider's answer), newest last, in the state dir. `session resume --last` takes the
 * newest, so the session the provider refused last is the one continued. Kept short: the newest 50.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { mkdirDurable, writeFileDurable } from "../fs/durable.js";
import { RecoverError } from "../errors.js";
import { isObject } from "../model/edit.js";

export interface RecordedFailure {
  agent: "claude";
  sessionId: string;
  transcriptPath: string;
  text?: string;
  at: number;
}

const KEEP = 50;
const fileIn = (stateDir: string) => join(stateDir, "hooks", "failures.jsonl");

export function readFailures(stateDir: string): RecordedFailure[] {
  const file = fileIn(stateDir);
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .flatMap((line) => {
      try {
        const value = JSON.parse(line) as RecordedFailure;
        return typeof value.sessionId === "string" && typeof value.transcriptPath === "string" ? [value] : [];
      } catch {
        return [];
      }
    });
}

/** Record what Claude Code's StopFailure hook was given on stdin. */
export function recordFailure(stateDir: string, stdin: string, now: number): RecordedFailure {
  let input: unknown;
  try {
    input = JSON.parse(stdin);
  } catch {
    throw new RecoverError("usage", "the hook's input is not JSON; nothing recorded");
  }
  if (!isObject(input) || typeof input.session_id !== "string" || typeof input.transcript_path !== "string") {
    throw new RecoverError("usage", "the hook's input names no session_id and transcript_path; nothing recorded");
  }
  const text = typeof input.last_assistant_message === "string" ? input.last_assistant_message : undefined;
  const failure: RecordedFailure = { agent: "claude", sessionId: input.session_id, transcriptPath: input.transcript_path, ...(text ? { text } : {}), at: now };
  const kept = [...readFailures(stateDir), failure].slice(-KEEP);
  const file = fileIn(stateDir);
  mkdirDurable(dirname(file), 0o700);
  writeFileDurable(file, Buffer.from(kept.map((f) => `${JSON.stringify(f)}\n`).join("")), 0o600);
  return failure;
}

/** The store a Claude Code transcript lies in: the folder above `projects/`. */
export function claudeStoreOf(transcriptPath: string): string {
  return dirname(dirname(dirname(transcriptPath)));
}
