/**
 * What a hook is for each agent that takes one (docs/research/hooks-opencode.md, hooks-claude-code.md), as data: the
 * config file recover writes, and what it holds with the hook and without it. Installing and removing go through the
 * transaction layer as whole-file changes (hooks/install.ts), so `hooks uninstall` puts the file back byte for byte.
 *
 * - opencode 1.18 loads every `.js` in `plugin/` of its global config dir and hands it every bus event, in its own
 *   process; after a refused prompt it builds the next one from opencode.db again. The plugin repairs the session on
 *   `session.error` (through `recover session repair --error`), so the user's next prompt is sent repaired.
 * - Claude Code 2.1 reads a transcript before its `SessionStart` hook runs, so no hook can repair on resume; its
 *   `StopFailure` hook gets the refusal but its output is ignored. The hook records the refusal; `session resume
 *   --last` then takes that session, and the user continues with it.
 */
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import { RecoverError } from "../errors.js";
import { isObject, type Json } from "../model/edit.js";
import { opencodePlugin } from "./opencode-plugin.js";
import { HOOK_MARKER, type RecoverCommand } from "./recover-command.js";

export type { RecoverCommand } from "./recover-command.js";

export type HookAgent = "opencode" | "claude";
export const HOOK_AGENTS: readonly HookAgent[] = ["opencode", "claude"];

export interface AgentHook {
  agent: HookAgent;
  /** The agent's config folder (the store the transaction writes) and the file in it. */
  dir: string;
  file: string;
  /** What the file holds with the hook, given what it holds now (undefined: no file). */
  withHook(now: string | undefined, recover: RecoverCommand): string;
  /** What the file holds without recover's hook, given what it holds now (undefined: no file). */
  withoutHook(now: string | undefined): string | undefined;
  /** Whether the file as it is now holds recover's hook. */
  holdsHook(now: string | undefined): boolean;
}

const home = (env: NodeJS.ProcessEnv) => env.HOME || homedir();
const absolute = (path: string | undefined) => (path && isAbsolute(path) ? path : undefined);

export function agentHook(agent: string, env: NodeJS.ProcessEnv): AgentHook {
  if (agent === "opencode") {
    const dir = join(absolute(env.XDG_CONFIG_HOME) ?? join(home(env), ".config"), "opencode");
    return {
      agent,
      dir,
      file: join(dir, "plugin", "recover.js"),
      withHook: (_now, recover) => opencodePlugin(recover),
      // The plugin is recover's own file: without it, there is none.
      withoutHook: () => undefined,
      holdsHook: (now) => now?.includes(HOOK_MARKER) === true,
    };
  }
  if (agent === "claude") {
    const dir = absolute(env.CLAUDE_CONFIG_DIR) ?? join(home(env), ".claude");
    return {
      agent,
      dir,
      file: join(dir, "settings.json"),
      withHook: withStopFailureHook,
      withoutHook: withoutStopFailureHook,
      holdsHook: (now) => stopFailureHooks(now).length > 0,
    };
  }
  throw new RecoverError("usage", `hooks are for ${HOOK_AGENTS.join(" and ")}, not ${JSON.stringify(agent)}`);
}

/**
 * The hook command Claude Code runs on a refused turn: recover records the refusal (its stdin), quickly, always exit 0.
 * Each path always in POSIX single quotes, not model/shell-quote's printing form: the hook runs under /bin/sh, and
 * that form writes a control character as bash's $'…', which sh does not read.
 */
function stopFailureCommand(recover: RecoverCommand): string {
  const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;
  return `${quote(recover.node)} ${quote(recover.bin)} hooks record-failure --agent claude # ${HOOK_MARKER}`;
}

function settingsOf(text: string | undefined, file: string): Json {
  if (text === undefined || text.trim() === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new RecoverError("usage", `${file} is not JSON (${(error as Error).message}); fix it first, recover writes only what it can read`);
  }
  if (!isObject(parsed)) throw new RecoverError("usage", `${file} is not a JSON object; recover writes only what it can read`);
  return parsed;
}

/** recover's entries among the StopFailure hooks of a settings text. */
function stopFailureHooks(text: string | undefined): Json[] {
  let settings: Json;
  try {
    settings = settingsOf(text, "settings.json");
  } catch {
    return [];
  }
  const groups = isObject(settings.hooks) && Array.isArray(settings.hooks.StopFailure) ? settings.hooks.StopFailure : [];
  return groups.filter(
    (g): g is Json => isObject(g) && Array.isArray(g.hooks) && g.hooks.some((h) => isObject(h) && String(h.command ?? "").includes(HOOK_MARKER)),
  );
}

/**
 * settings.json with recover's StopFailure hook added (every other key and hook kept, the file's indentation kept);
 * `timeout` 5 s: the client starts it without waiting on it, and recording takes a fraction of that.
 */
function withStopFailureHook(now: string | undefined, recover: RecoverCommand): string {
  const settings = settingsOf(now, "settings.json");
  const hooks = isObject(settings.hooks) ? settings.hooks : {};
  if (settings.hooks !== undefined && !isObject(settings.hooks))
    throw new RecoverError("usage", "settings.json's `hooks` is not an object; recover leaves it alone");
  const groups = Array.isArray(hooks.StopFailure) ? hooks.StopFailure : [];
  const entry = { hooks: [{ type: "command", command: stopFailureCommand(recover), timeout: 5 }] };
  return settingsText({ ...settings, hooks: { ...hooks, StopFailure: [...groups, entry] } }, now);
}

/** Settings written back with the indentation the file had (two spaces for a new one). */
function settingsText(settings: Json, now: string | undefined): string {
  const indent = /^[ \t]+(?=")/m.exec(now ?? "")?.[0] ?? "  ";
  return `${JSON.stringify(settings, null, indent)}\n`;
}

/** settings.json without recover's StopFailure entries; a StopFailure list (and `hooks`) left empty goes too. */
function withoutStopFailureHook(now: string | undefined): string | undefined {
  const settings = settingsOf(now, "settings.json");
  if (!isObject(settings.hooks) || !Array.isArray(settings.hooks.StopFailure)) return now;
  const ours = new Set(stopFailureHooks(now).map((g) => JSON.stringify(g)));
  const kept = settings.hooks.StopFailure.filter((g) => !ours.has(JSON.stringify(g)));
  const { StopFailure: _, ...otherHooks } = settings.hooks;
  const hooks = kept.length > 0 ? { ...otherHooks, StopFailure: kept } : otherHooks;
  const { hooks: __, ...rest } = settings;
  return settingsText(Object.keys(hooks).length > 0 ? { ...rest, hooks } : rest, now);
}
