// The Gemini CLI driver: `gemini --yolo -p "prompt"` / `gemini --yolo --resume <uuid> -p "prompt"` offline against the
// loopback Gemini API mock (api/gemini.mjs). Gemini CLI keeps a session as a chat file,
// ~/.gemini/tmp/<project>/chats/session-<YYYY-MM-DDTHH-MM>-<first 8 of the id>.jsonl (before 0.40: one pretty-printed
// .json document per session).
//
// Isolation: HOME=<work>/home (the client writes ~/.gemini even for --version), TMPDIR=<work>/tmp (it drops its error
// reports there), cwd <work>/project (not a git repo; its project id is the folder's name, `project`).
// ~/.gemini/settings.json: auth "gemini-api-key", the model pinned, usage statistics off. Env: GEMINI_API_KEY=dummy,
// GOOGLE_GEMINI_BASE_URL=the mock, GEMINI_CLI_NO_RELAUNCH=1 (else it re-launches itself as a child Node with other
// heap options: one client process per run, not two), GEMINI_CLI_TRUST_WORKSPACE=true (else it asks), NO_COLOR=1;
// stdin /dev/null. Every run: --yolo (tools run unasked).
// Install: `@google/gemini-cli@<v>`: 0.61 ships one esbuild bundle (bundle/gemini.js), 0.30 a tsc build
// (dist/index.js over @google/gemini-cli-core); the package's `bin` names it. npm warns that the install scripts of
// @github/keytar and node-pty did not run: neither is needed (the key comes from the env; -p runs tools without a pty).
import fs from "node:fs";
import path from "node:path";
import { cutDeep, filesImage, listFiles, parseLine, sandboxDirs } from "./lib/files.mjs";

/** Every chat file under the sandbox's ~/.gemini/tmp, as paths relative to it. */
const chatFiles = (ctx) => listFiles(ctx.sandbox.tmpDir).filter((f) => /(^|\/)chats\/session-[^/]*\.jsonl?$/.test(f));
const size = (ctx, f) => fs.statSync(path.join(ctx.sandbox.tmpDir, f)).size;
const biggest = (ctx, files) => [...files].sort((x, y) => size(ctx, y) - size(ctx, x))[0];

/**
 * "The" chat file of the session: the biggest .jsonl (else the biggest .json). Every resume first starts a fresh
 * recording in session-<now, to the minute>-<id8>.jsonl (a metadata line + `$set.messages` holding the session
 * context) and then switches to the resumed file: in another minute that leaves a ~900-byte stub next to the session,
 * in the same minute those two lines land in the resumed file itself. When 0.61 resumes a legacy .json session it
 * writes the .jsonl beside it, and that file is the session from then on.
 */
const mainChat = (ctx, files) =>
  biggest(
    ctx,
    files.filter((f) => f.endsWith(".jsonl")),
  ) ?? biggest(ctx, files);

/** The session id a chat file holds: its first line's (a legacy .json is one document). */
function sessionIdOf(file) {
  const raw = fs.readFileSync(file, "utf8");
  return (parseLine(raw.split("\n")[0]) ?? parseLine(raw))?.sessionId ?? null;
}

export const driver = {
  // Which versions, the package and the API: the client's line in index.mjs.
  launch: (dir, { node }) => {
    const pkg = path.join(dir, "node_modules", "@google", "gemini-cli");
    const { bin } = JSON.parse(fs.readFileSync(path.join(pkg, "package.json"), "utf8"));
    return { command: node, prefixArgs: [path.join(pkg, typeof bin === "string" ? bin : bin.gemini)] };
  },
  /** Where a version's fixtures live (null: none kept for it). */
  fixtures: (version) => (version === "0.61.0" ? "fixtures/gemini-0.61" : null),
  defaultModel: "gemini-2.5-pro",
  // Fixed: the paths in the chat files, the system prompt and the fixtures are the same on every run.
  defaultWork: "/tmp/gemini-capture",
  sandbox(ctx) {
    const { home, config: gemini, cwd } = sandboxDirs(ctx.work, ".gemini");
    const tmp = path.join(ctx.work, "tmp");
    fs.mkdirSync(tmp, { recursive: true });
    // A scenario's own settings (e.g. the context management thresholds) go on top of the driver's.
    const settings = {
      security: { auth: { selectedType: "gemini-api-key" } },
      privacy: { usageStatisticsEnabled: false },
      ...ctx.scenario.settings,
      model: { name: ctx.model, ...ctx.scenario.settings?.model },
    };
    fs.writeFileSync(path.join(gemini, "settings.json"), JSON.stringify(settings, null, 2));
    const env = {
      PATH: ctx.installed.PATH,
      HOME: home,
      TMPDIR: tmp,
      LANG: "C.UTF-8",
      TERM: "dumb",
      NO_COLOR: "1",
      GEMINI_API_KEY: "dummy",
      GOOGLE_GEMINI_BASE_URL: ctx.mock.url,
      GEMINI_CLI_NO_RELAUNCH: "1",
      GEMINI_CLI_TRUST_WORKSPACE: "true",
    };
    return { env, cwd, home, tmpDir: path.join(gemini, "tmp"), store: gemini, recoverEnv: { HOME: home } };
  },
  // A step with `argv` runs that command line instead (e.g. the interactive UI, on a pty: probes/gemini-ui-error.mjs).
  args: (step, ctx) =>
    typeof step.argv === "function"
      ? step.argv(ctx)
      : (step.argv ?? ["--yolo", ...(step.resume ? ["--resume", ctx.session?.id ?? "latest"] : []), ...(step.args ?? []), "-p", step.prompt]),
  /** The session the first step wrote, in the chat file the client now resumes (it moves: see mainChat). */
  locate(ctx) {
    const files = chatFiles(ctx);
    if (!files.length) return null;
    const rel = mainChat(ctx, files);
    const file = path.join(ctx.sandbox.tmpDir, rel);
    const id = ctx.session?.id ?? sessionIdOf(file);
    return id ? { id, file } : null;
  },
  snapshot: (ctx) => filesImage(ctx.sandbox.tmpDir, (f) => /(^|\/)chats\//.test(f)),
  /** Every chat file as it is now, the session's own first: chat-<label>[-<k>].json(l), and what was where. */
  keep(ctx, label) {
    const files = chatFiles(ctx);
    const main = path.relative(ctx.sandbox.tmpDir, ctx.session.file);
    const rest = files.filter((f) => f !== main).sort((x, y) => size(ctx, y) - size(ctx, x));
    const kept = [main, ...rest].map((f, k) => {
      const copy = `chat-${label}${k ? `-${k}` : ""}${path.extname(f)}`;
      fs.copyFileSync(path.join(ctx.sandbox.tmpDir, f), path.join(ctx.out, copy));
      return { file: path.relative(ctx.sandbox.home, path.join(ctx.sandbox.tmpDir, f)), bytes: size(ctx, f), copy };
    });
    ctx.kept = { ...ctx.kept, [label]: kept };
    fs.writeFileSync(path.join(ctx.out, "chat-files.json"), `${JSON.stringify(ctx.kept, null, 2)}\n`);
  },
  writeFixtures,
};

// The cut marker names the script the committed fixtures were first captured with, so a rerun changes only what the
// client changes.
const BY = "capture-gemini-chat.mjs";
/** The fixture form of a request body: `tools` reduced to function names, every string over 4000 characters cut. */
export function trimRequest(body) {
  const b = { ...body };
  if (Array.isArray(b.tools)) b.tools = b.tools.map((t) => (t.functionDeclarations ? { functionDeclarations: t.functionDeclarations.map((f) => f.name) } : t));
  return cutDeep(b, { max: 4000, keep: 1500, by: BY });
}

/**
 * The scenario's fixtures (fixtures/gemini-0.61/README.md): <name>.jsonl (<name>.json for a legacy session: the chat
 * file right before the captured resume, after the edit), <name>.resume-request.json (its first
 * :streamGenerateContent, trimmed), <name>.after.jsonl (the .jsonl after it, when it changed), <name>.resume.stderr.txt
 * (when it exited non-zero), and the scenario's entry in capture-meta.json (the real file names, exits, answers).
 */
function writeFixtures(ctx, dir, { verdict, requests }) {
  const n = verdict.captureStep;
  fs.mkdirSync(dir, { recursive: true });
  const fx = (suffix) => path.join(dir, ctx.name + suffix);
  for (const f of [".jsonl", ".json", ".resume-request.json", ".after.jsonl", ".resume.stderr.txt"]) fs.rmSync(fx(f), { force: true });
  const before = ctx.kept?.[`before-step-${n}`]?.[0];
  const after = ctx.kept?.[`after-step-${n}`]?.[0];
  const bytes = (k) => fs.readFileSync(path.join(ctx.out, k.copy));
  if (before) fs.writeFileSync(fx(path.extname(before.copy)), bytes(before));
  const resume = requests.find((r) => r.tag === n && r.kind === "streamGenerateContent");
  if (resume) fs.writeFileSync(fx(".resume-request.json"), `${JSON.stringify(trimRequest(resume.body), null, 2)}\n`);
  if (after?.copy.endsWith(".jsonl") && !(before && bytes(before).equals(bytes(after)))) fs.writeFileSync(fx(".after.jsonl"), bytes(after));
  const clientSteps = verdict.steps.filter((s) => s.kind === "client" && s.step <= n);
  const last = clientSteps.at(-1);
  if (last && (last.exit !== 0 || last.signal)) fs.copyFileSync(path.join(ctx.out, `step-${n}.stderr`), fx(".resume.stderr.txt"));

  const metaFile = path.join(dir, "capture-meta.json");
  const all = fs.existsSync(metaFile) ? JSON.parse(fs.readFileSync(metaFile, "utf8")) : {};
  const notes = ctx.notes.filter((x) => Number(/^before step (\d+):/.exec(x)?.[1]) <= n);
  all[ctx.name] = {
    about: ctx.scenario.about,
    chatFile: before?.file,
    chatFilesBeforeResume: (ctx.kept?.[`before-step-${n}`] ?? []).map((k) => k.file).sort(),
    chatFilesAfterResume: (ctx.kept?.[`after-step-${n}`] ?? []).map(({ file, bytes }) => ({ file, bytes })).sort((x, y) => x.file.localeCompare(y.file)),
    sessionId: ctx.session?.id ?? null,
    edit: notes.length ? notes.at(-1).replace(/^before step \d+: /, "") : null,
    steps: clientSteps.map((s) => ({
      n: s.step,
      prompt: ctx.scenario.steps[s.step - 1].prompt,
      resume: Boolean(ctx.scenario.steps[s.step - 1].resume),
      exit: { code: s.exit, signal: s.signal, killed: s.killed ? (s.killed.why === "scenario" ? "SIGKILL (scenario)" : s.killed.why) : null },
      requests: requests.filter((r) => r.tag === s.step).map((r) => ({ seq: r.seq, kind: r.kind ?? `${r.method} ${r.path}`, answer: r.answer })),
    })),
    resumeStdout: fs.readFileSync(path.join(ctx.out, `step-${n}.stdout`), "utf8"),
  };
  fs.writeFileSync(metaFile, `${JSON.stringify(Object.fromEntries(Object.entries(all).sort()), null, 2)}\n`);
}
