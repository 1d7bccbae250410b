// The clients recover is checked against, one line each: its name, how people call it, the API it speaks (the mock it
// runs against), its npm package (and the Node it needs when not this one), and the versions the suite checks, the
// oldest still in use first and the newest last (docs/clients.md is their matrix; src/stores/checked-clients.ts must
// name the newest, a test holds them equal). Beside the line, one driver (<name>.mjs: what differs in running it) and
// one scenario table (scenarios/<name>.mjs).
export const CLIENTS = [
  { name: "opencode", title: "opencode", api: "messages", package: "opencode-ai", versions: ["1.1.65", "1.18.33"] },
  { name: "claude-code", title: "Claude Code", api: "messages", package: "@anthropic-ai/claude-code", versions: ["2.1.197", "2.1.332"] },
  { name: "codex", title: "Codex CLI", api: "responses", package: "@openai/codex", versions: ["0.169.0", "0.171.0"] },
  { name: "gemini", title: "Gemini CLI", api: "gemini", package: "@google/gemini-cli", versions: ["0.30.0", "0.61.0"] },
  { name: "openclaw", title: "openclaw", api: "messages", package: "openclaw", node: "24.21.0", versions: ["2026.7.35", "2026.9.6"] },
];
// Why these oldest versions: opencode 1.1.65 is the last release that keeps the JSON tree; Gemini CLI 0.30.0 the last
// line checked that writes one .json per session; openclaw 2026.7.x is still patched (2026.7.35 shipped after
// 2026.9.5) and keeps the JSONL transcripts, 2026.9 keeps live sessions in SQLite (issue 39).

export const CLIENT_NAMES = CLIENTS.map((c) => c.name);

/** The client's line; a one-line error naming the ones there are otherwise. */
export function clientLine(name) {
  const line = CLIENTS.find((c) => c.name === name);
  if (!line) throw new Error(`no client ${JSON.stringify(name)}; there are: ${CLIENT_NAMES.join(", ")}`);
  return line;
}

/** The client named `name`: { driver (its line and its driver file's parts), scenarios }. */
export async function loadClient(name) {
  const line = clientLine(name);
  const [{ driver }, { scenarios }] = await Promise.all([import(`./${name}.mjs`), import(`./scenarios/${name}.mjs`)]);
  return { driver: { ...line, ...driver }, scenarios };
}
