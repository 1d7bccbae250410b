// Types shared by the declarations of the mocks' rule modules (messages-rules.d.mts, responses-rules.d.mts,
// gemini-rules.d.mts), for the TypeScript tests that import them (test/provider/mock-rules-agree.test.ts).

/** One rule of an API, as its module's RULES table lists it. */
export interface Rule<Args extends unknown[], Broken> {
  id: string;
  /** The API's error text, or the template that builds it. */
  error: string | ((...values: never[]) => string);
  /** Where the text (and the rule) comes from: a URL, or a reference document and its section. */
  source: string;
  /** Null when the request keeps the rule, else what breaks it. */
  check(...args: Args): Broken | null;
}

/** The rules as one run applies them (scripts/clients/lib/engine.mjs). */
export interface Enforcer<Reply> {
  /** `entry`: the request's log entry (its path names the Gemini model). */
  check(
    body: unknown,
    headers?: Record<string, string>,
    entry?: { path?: string },
  ): { refused?: Reply; rule?: string; why?: string; passed?: Record<string, unknown> } | null;
  served(body: unknown, reply: unknown, passed?: Record<string, unknown>): void;
}
