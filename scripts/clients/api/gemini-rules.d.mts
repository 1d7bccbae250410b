// The types of gemini-rules.mjs (see rules.d.mts).
import type { Enforcer, Rule } from "./rules.mjs";

export interface ErrorReply {
  httpError: { code: number; message: string; status: string };
}
export interface Broken {
  message: string;
  at?: number;
}

export const RULES: (Rule<[contents: unknown[], ctx?: { model?: string }], Broken> & { byTurn?: boolean })[];
/** The first rule of RULES the body breaks, with its id. */
export function firstBroken(body: unknown, opts?: { model?: string }): (Broken & { rule: string }) | null;
export function checkContents(body: unknown, opts?: { model?: string }): ErrorReply | null;
export function enforcer(): Enforcer<ErrorReply>;
export const ERR_EMPTY_PARTS: (n: number) => string;
export const ERR_RESPONSE_AFTER_CALL: string;
export const ERR_CALL_AFTER_USER: string;
export const ERR_COUNT_MISMATCH: string;
export const ERR_SIGNATURE_CORRUPTED: string;
export const ERR_SIGNATURE_MISSING: (name: string, position: number) => string;
export const DUMMY_SIGNATURES: string[];
export const modelSignature: (model: string, seed: string) => string;
export const ERR_OVERFLOW: (n: number, m: number) => string;
