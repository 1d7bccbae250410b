// The types of messages-rules.mjs (see rules.d.mts).
import type { Enforcer, Rule } from "./rules.mjs";

export interface Binding {
  hash: string;
  prev: string | null;
}
export interface RuleContext {
  /** Signature → the thinking text the mock streamed with it. */
  issued: Map<string, string>;
  /** Signature → binding, on the prefix-bound models; absent: the binding rules are off. */
  bound?: Map<string, Binding>;
  headers?: Record<string, string>;
  scope?: "messages";
  contextLimit?: number;
  /** The byte limit (default MAX_REQUEST_BYTES) and the PDF page limit (default MAX_PDF_PAGES) of this run. */
  maxBytes?: number;
  maxPdfPages?: number;
}
export interface Unbound {
  at: string;
  why: "prefix" | "predecessor";
}
export interface Broken {
  rule?: string;
  message?: string;
  /** The message a `byMessage` rule names. */
  at?: number;
  why?: Unbound["why"];
  dropped?: Unbound;
  /** A rule answered with another status than 400 (request_too_large: 413, its own type). */
  status?: number;
  type?: string;
}
export interface ErrorReply {
  status: number;
  error: { type: string; message: string };
  headers?: Record<string, string>;
}

export const RULES: (Rule<[body: unknown, ctx: RuleContext], Broken> & { byMessage?: boolean; status?: number; type?: string })[];
export function checkRequest(body: unknown, issued: Map<string, string>, options?: Omit<RuleContext, "issued">): Broken | null;
export function enforcer(options?: {
  contextLimit?: number;
  bindScope?: "messages";
  mismatchHeader?: boolean;
  maxBytes?: number;
  maxPdfPages?: number;
}): Enforcer<ErrorReply>;
export const MAX_REQUEST_BYTES: number;
export const MAX_PDF_PAGES: number;
export function requestBytes(body: unknown): number;
export function pdfPages(base64: unknown): number;
export function bindReply(body: unknown, blocks: unknown[], bound: Map<string, Binding>, scope?: "messages"): void;
export function firstUnbound(body: unknown, bound: Map<string, Binding>, scope?: "messages"): Unbound | null;
export function withoutThinkingFrom<T>(body: T, at: string): T;
export function requestTokens(body: unknown): number;
export function checkWindow(body: unknown, contextLimit: number | undefined): { rule: "prompt_too_long"; message: string } | null;
export function isPrefixBound(model: unknown): boolean;
export function isThinking(block: unknown): boolean;
