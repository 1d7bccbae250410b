// The types of responses-rules.mjs (see rules.d.mts).
import type { Enforcer, Rule } from "./rules.mjs";

export interface ErrorReply {
  httpError: { status: number; error: { message: string; type: string; param: string | null; code: string | null } };
}
export interface Broken {
  message: string;
  param: string;
  code?: string | null;
  at?: number;
}

export const RULES: (Rule<[input: unknown[]], Broken> & { byItem?: boolean })[];
/** The first rule of RULES the body breaks, with its id. */
export function firstBroken(body: unknown): (Broken & { rule: string }) | null;
export function apiCheck(body: unknown): ErrorReply | null;
export function enforcer(): Enforcer<ErrorReply>;
