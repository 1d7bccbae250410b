/**
 * The names `--format` accepts, known without loading any store's code. The CLI builds its options (and `--help`)
 * from them before it knows which command runs; loading every adapter to learn six names cost every run, `--help`
 * and `--version` included, most of its start-up. registry.ts is the one list of stores: it checks, when it loads,
 * that its adapters are exactly these in this order, and keeps this list in step when a format is registered.
 */
export const BUILT_IN_FORMATS = ["opencode-sqlite", "opencode-json", "claude", "openclaw-sqlite", "openclaw", "codex", "gemini"] as const;

let formats: readonly string[] = BUILT_IN_FORMATS;

/** The names `--format` accepts: the built-in formats, then those registered in this thread. */
export function storeFormats(): string[] {
  return [...formats];
}

/** For registry.ts: the formats of its adapters, whenever they change. */
export function formatsChanged(names: readonly string[]): void {
  formats = names;
}
