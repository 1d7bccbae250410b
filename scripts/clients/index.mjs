// The clients recover is checked against. A client is one driver file (<name>.mjs, exporting `driver`) and one
// scenario table (scenarios/<name>.mjs, exporting `scenarios`); adding one is adding its name here.
export const CLIENT_NAMES = ["opencode", "claude-code", "codex", "gemini", "openclaw"];

/** The client named `name`: { driver, scenarios }; a one-line error naming the ones there are otherwise. */
export async function loadClient(name) {
  if (!CLIENT_NAMES.includes(name)) throw new Error(`no client ${JSON.stringify(name)}; there are: ${CLIENT_NAMES.join(", ")}`);
  const [{ driver }, { scenarios }] = await Promise.all([import(`./${name}.mjs`), import(`./scenarios/${name}.mjs`)]);
  return { driver, scenarios };
}
