// The Codex CLI driver: `codex exec` / `codex exec resume <uuid>` offline against the loopback Responses API mock
// (api/responses.mjs). Codex keeps a session as one rollout, $CODEX_HOME/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl.
//
// Isolation: HOME=<work>/home, CODEX_HOME=<work>/home/.codex (Codex writes there even for --version), cwd
// <work>/project (not a git repo: --skip-git-repo-check). config.toml: model_provider "mock" -> base_url the mock,
// wire_api "responses", env_key MOCK_API_KEY, no retries; analytics, plugins, apps, update checks and the daemon off
// (else it reaches for remote hosts on start). Every run: --dangerously-bypass-approvals-and-sandbox, stdin
// /dev/null. Codex warns on stderr that it will not create its PATH helper aliases under a temporary dir; harmless.
// Install: `@openai/codex@<v>`: bin/codex.js is a small Node launcher; the native binary comes with the optional
// dependency @openai/codex-linux-x64, which npm installs on linux-x64.
import fs from "node:fs";
import path from "node:path";
import { cutDeep, filesImage, listFiles, parseLine, sandboxDirs } from "./lib/files.mjs";

export function configToml(url, model) {
  return `model = "${model}"
model_provider = "mock"
check_for_update_on_startup = false

[model_providers.mock]
name = "mock"
base_url = "${url}/v1"
wire_api = "responses"
env_key = "MOCK_API_KEY"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[features]
plugins = false
remote_plugin = false
plugin_sharing = false
apps = false
tool_suggest = false
in_app_updates = false
daemon_auto_start = false
`;
}

const COMMON = ["--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox"];

export const driver = {
  // Which versions, the package and the API: the client's line in index.mjs.
  launch: (dir) => ({ command: path.join(dir, "node_modules", ".bin", "codex"), prefixArgs: [] }),
  /** Where a version's fixtures live (null: none kept for it). */
  fixtures: (version) => (version === "0.169.0" ? "fixtures/codex-0.169" : null),
  defaultModel: "gpt-5.5",
  defaultWork: "/tmp/codex-capture",
  sandbox(ctx) {
    const { home, config: codexHome, cwd } = sandboxDirs(ctx.work, ".codex");
    fs.writeFileSync(path.join(codexHome, "config.toml"), configToml(ctx.mock.url, ctx.model));
    const env = {
      PATH: ctx.installed.PATH,
      HOME: home,
      CODEX_HOME: codexHome,
      MOCK_API_KEY: "sk-mock-not-a-key",
      LANG: "C.UTF-8",
      TERM: "dumb",
      NO_COLOR: "1",
    };
    return { env, cwd, home, codexHome, store: codexHome, recoverEnv: { HOME: home, CODEX_HOME: codexHome } };
  },
  args: (step, ctx) =>
    step.resume ? ["exec", "resume", ...COMMON, ...(step.args ?? []), ctx.session.id, step.prompt] : ["exec", ...COMMON, ...(step.args ?? []), step.prompt],
  /** The session the first step wrote: the first rollout, its id from its session_meta line. */
  locate(ctx) {
    if (ctx.session) return ctx.session;
    const sessions = path.join(ctx.sandbox.codexHome, "sessions");
    const file = listFiles(sessions).find((f) => /(^|\/)rollout-.*\.jsonl$/.test(f));
    if (!file) return null;
    const abs = path.join(sessions, file);
    const id = parseLine(fs.readFileSync(abs, "utf8").split("\n")[0])?.payload?.id;
    return id ? { id, file: abs } : null;
  },
  snapshot: (ctx) => filesImage(path.join(ctx.sandbox.codexHome, "sessions")),
  keep: (ctx, label) => fs.copyFileSync(ctx.session.file, path.join(ctx.out, `rollout-${label}.jsonl`)),
  writeFixtures,
};

// The cut marker names the script the committed fixtures were first captured with, so a rerun changes only what the
// client changes.
const BY = "capture-codex-rollout.mjs";
// The fixture form of a request body: `tools` reduced to names, every text over 4000 characters cut in the middle.
export function trimRequest(body) {
  const out = {};
  for (const [k, v] of Object.entries(body)) out[k] = k === "tools" ? v.map((t) => t.name ?? t.type) : cutDeep(v, { max: 4000, keep: 1500, by: BY });
  return out;
}
// Fixture form of a rollout with huge strings: lines that parse are re-serialized with strings over 30000 characters
// cut (keeping 3000 at each end and any client truncation marker; the ~21 k base_instructions of session_meta stay
// whole); lines that do not parse are kept byte for byte.
function cutRollout(raw) {
  return raw
    .split("\n")
    .map((l) => {
      if (l.length <= 30000) return l;
      const o = parseLine(l);
      return o ? JSON.stringify(cutDeep(o, { max: 30000, keep: 3000, by: BY })) : l;
    })
    .join("\n");
}

/**
 * The scenario's fixtures (fixtures/codex-0.169/README.md): <name>.jsonl (the rollout right before the captured resume,
 * after the edit), <name>.after.jsonl (after it, unless `keepAfter: false` or unchanged), <name>.resume-request.json
 * (its first POST /responses, trimmed), <name>.resume.stdout.txt, and .resume.stderr.txt when it exited non-zero.
 */
function writeFixtures(ctx, dir, { verdict, requests }) {
  const n = verdict.captureStep;
  const sc = ctx.scenario;
  fs.mkdirSync(dir, { recursive: true });
  const fx = (suffix) => path.join(dir, ctx.name + suffix);
  const before = fs.readFileSync(path.join(ctx.out, `rollout-before-step-${n}.jsonl`), "utf8");
  const after = fs.readFileSync(path.join(ctx.out, `rollout-after-step-${n}.jsonl`), "utf8");
  fs.writeFileSync(fx(".jsonl"), sc.cutFixture ? cutRollout(before) : before);
  if (after !== before && sc.keepAfter !== false) fs.writeFileSync(fx(".after.jsonl"), sc.cutFixture ? cutRollout(after) : after);
  else fs.rmSync(fx(".after.jsonl"), { force: true });
  const resume = requests.find((r) => r.tag === n && r.method === "POST" && /\/responses$/.test(r.path.split("?")[0]));
  if (resume) fs.writeFileSync(fx(".resume-request.json"), `${JSON.stringify(trimRequest(resume.body), null, 2)}\n`);
  fs.writeFileSync(fx(".resume.stdout.txt"), fs.readFileSync(path.join(ctx.out, `step-${n}.stdout`)));
  const exit = verdict.steps.find((st) => st.step === n)?.exit;
  if (exit !== 0) fs.writeFileSync(fx(".resume.stderr.txt"), fs.readFileSync(path.join(ctx.out, `step-${n}.stderr`)));
  else fs.rmSync(fx(".resume.stderr.txt"), { force: true });
}
