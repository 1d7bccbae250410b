// A real opencode client run offline, shared by capture-opencode-request.mjs, capture-opencode-legacy.mjs and
// check-opencode-import.mjs: its
// config points the anthropic provider at the loopback mock (mock-messages-api.mjs), and its environment keeps every
// file it writes under `dirs` (HOME and the XDG dirs) and every network feature it has off.
import fs from "node:fs";
import path from "node:path";

/**
 * Writes `<dirs.config>/opencode/opencode.json`: the model, the provider at the mock, `permission` when given
 * (the multi-run scripts allow bash and edits; a capture keeps opencode's own defaults), and `models` (per-model
 * settings under provider.anthropic.models, e.g. options a capture turns on or off) and `extra` (more top-level keys,
 * e.g. `compaction`) when given.
 */
export function writeOpencodeConfig(dirs, { model, port, permission, models, extra }) {
  fs.mkdirSync(path.join(dirs.config, "opencode"), { recursive: true });
  const config = {
    $schema: "https://opencode.ai/config.json",
    autoupdate: false,
    share: "disabled",
    model,
    ...(permission ? { permission } : {}),
    ...extra,
    provider: { anthropic: { options: { baseURL: `http://127.0.0.1:${port}/v1` }, ...(models ? { models } : {}) } },
  };
  fs.writeFileSync(path.join(dirs.config, "opencode", "opencode.json"), `${JSON.stringify(config, null, 2)}\n`);
}

/**
 * The client's environment: nothing of the user's but PATH, a fake key, no update check, share, LSP download; `extra`
 * on top.
 */
export function opencodeEnv(dirs, extra = {}) {
  return {
    PATH: process.env.PATH,
    HOME: dirs.home,
    XDG_DATA_HOME: dirs.data,
    XDG_CONFIG_HOME: dirs.config,
    XDG_STATE_HOME: dirs.state,
    XDG_CACHE_HOME: dirs.cache,
    TERM: "dumb",
    LANG: "C.UTF-8",
    TZ: "UTC",
    ANTHROPIC_API_KEY: "sk-ant-test",
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    OPENCODE_DISABLE_SHARE: "1",
    OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
    ...extra,
  };
}

/** Every file under `dir`, relative, sorted. */
export function listFiles(dir, rel = "") {
  if (!fs.existsSync(path.join(dir, rel))) return [];
  const out = [];
  for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const r = path.join(rel, e.name);
    if (e.isDirectory()) out.push(...listFiles(dir, r));
    else out.push(r);
  }
  return out.sort();
}

/** The sessions a JSON tree (opencode ≤ 1.1.65's storage/) holds: session/<projectID>/<sessionID>.json. */
export function treeSessions(storage) {
  return listFiles(storage)
    .filter((f) => f.startsWith(`session${path.sep}`) && f.endsWith(".json"))
    .map((f) => JSON.parse(fs.readFileSync(path.join(storage, f), "utf8")));
}
