/**
 * The newest version of each agent's client that recover was checked against: the client suite (scripts/clients/,
 * `npm run test:clients`) runs every scenario on each client's `versions` (its line in scripts/clients/index.mjs), and
 * the newest (`versions.at(-1)`) is the one named here. test/stores/checked-clients.test.ts reads those lines and
 * fails when the two disagree, so a client's new version lands here in the same change.
 *
 * A store that says which client wrote its newest session (`SessionStore.clientVersion`) is compared with it:
 * a newer client is one recover has not been checked with yet (its writes and its resume may differ), and
 * `recover store list` says so.
 */

/** One agent's client, as sentences name it, and the newest version recover was checked with. */
export interface CheckedClient {
  client: string;
  version: string;
}

/** By the agent name the registry's adapters carry (`recover store list`'s AGENT column, `--agent`). */
const CHECKED = new Map<string, CheckedClient>([
  ["opencode", { client: "opencode", version: "1.18.33" }],
  ["claude", { client: "Claude Code", version: "2.1.332" }],
  ["openclaw", { client: "openclaw", version: "2026.9.6" }],
  ["codex", { client: "Codex CLI", version: "0.171.0" }],
  ["gemini", { client: "Gemini CLI", version: "0.61.0" }],
]);

/** Every agent's checked client, by agent name. */
export function checkedClients(): ReadonlyMap<string, CheckedClient> {
  return CHECKED;
}

/** The client recover was checked with for `agent`, or undefined for an agent no client suite covers. */
export function checkedClient(agent: string): CheckedClient | undefined {
  return CHECKED.get(agent);
}

/**
 * - `checked`: the version recover was checked with;
 * - `older`: older than it (the suite's older versions among them);
 * - `not yet checked`: newer than any recover was checked with;
 * - `unknown`: the session names no version, one that is no dotted number, or an agent with no checked client.
 */
export type ClientStatus = "checked" | "not yet checked" | "older" | "unknown";

export interface ClientCheck {
  /** The version of the client that wrote the store's newest session, as that session records it. */
  version: string | null;
  /** The newest version recover was checked with. */
  checked: string | null;
  status: ClientStatus;
}

/** Each number of a dotted version (`2.1.332`); undefined for anything else (`1.2.0-beta.1`, `v2`, ``), never a guess. */
export function parseVersion(version: string): number[] | undefined {
  if (!/^\d+(?:\.\d+)*$/.test(version)) return undefined;
  const numbers = version.split(".").map(Number);
  return numbers.every(Number.isSafeInteger) ? numbers : undefined;
}

/**
 * -1, 0 or 1 as `a` is older than, the same as or newer than `b`, number by number (`1.18` is `1.18.0`); undefined
 * when either does not parse: a version recover cannot read is unknown, never newer.
 */
/** Whether a client at `version` is `first` or later; `unplaced`: the answer for a version recover cannot place. */
export function isAtLeast(version: string | undefined, first: string, unplaced: boolean): boolean {
  const order = version === undefined ? undefined : compareVersions(version, first);
  return order === undefined ? unplaced : order >= 0;
}

/** Whether a client at `version` is `last` or earlier; `unplaced`: the answer for a version recover cannot place. */
export function isAtMost(version: string | undefined, last: string, unplaced: boolean): boolean {
  const order = version === undefined ? undefined : compareVersions(version, last);
  return order === undefined ? unplaced : order <= 0;
}

export function compareVersions(a: string, b: string): -1 | 0 | 1 | undefined {
  const x = parseVersion(a);
  const y = parseVersion(b);
  if (x === undefined || y === undefined) return undefined;
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return 0;
}

/** How the client version a store of `agent` records compares with the one recover was checked with. */
export function checkClient(agent: string, version: string | null | undefined): ClientCheck {
  const checked = checkedClient(agent)?.version ?? null;
  const found = version ?? null;
  if (found === null || checked === null) return { version: found, checked, status: "unknown" };
  const order = compareVersions(found, checked);
  const status: ClientStatus = order === undefined ? "unknown" : order > 0 ? "not yet checked" : order < 0 ? "older" : "checked";
  return { version: found, checked, status };
}
