/**
 * Which models bind each thinking block to its prefix (the system prompt, the tools and every earlier message as they
 * were when the block was made, and the run of thinking before it): change anything before such a block and it, and
 * every later one, fails with ``Invalid `signature` in `thinking` block. The block is bound to a different
 * conversation.`` (or is silently dropped). Source: ../shared/reference/preserved-thinking.md §1 (Anthropic's
 * preserved-thinking and prefix-checks pages, the Fable 5.2, Sonnet 5.5 and Haiku 5.5 notes, read 2026-11).
 *
 * One table, so a model that ships is one line. Enforcement depends on the account (by default for accounts created
 * on or after 2026-08-31; on every account for Fable 5.2 and Mythos 5.2), which recover cannot see: a repair treats
 * every listed model as enforcing, and `--keep-thinking` is there for an account that does not.
 */

/** The models that run the prefix check, as their ids name them (`claude-<family>-<major>-<minor>`, without `claude-`). */
export const PREFIX_BOUND_MODELS: ReadonlySet<string> = new Set([
  "fable-5-2", // enforced on every account
  "mythos-5-2", // enforced on every account
  "fable-5-1",
  "mythos-5-1",
  "opus-5-5",
  "sonnet-5-5",
  "haiku-5-5",
]);

/**
 * `claude-opus-5-5`, with whatever a client or a cloud puts around it: a provider prefix (`anthropic/`,
 * `us.anthropic.`), a date or version suffix (`-20261001`, `-v1:0`, `@20261001`), dots for dashes (`claude-opus-5.5`).
 */
const MODEL_ID = /claude-([a-z]+)-(\d+)[-.](\d+)(?![\d])/i;

/** The model that produced a thinking block binds it to its prefix (see the table). */
export function isPrefixBound(model: string | undefined): boolean {
  if (model === undefined) return false;
  const match = MODEL_ID.exec(model);
  if (!match) return false;
  return PREFIX_BOUND_MODELS.has(`${match[1]!.toLowerCase()}-${match[2]}-${match[3]}`);
}
