// The Claude Code driver: `claude -p` / `claude -p --resume <id>` (print mode, JSON output) offline against the
// loopback Messages API mock (api/messages.mjs). Claude Code keeps a session as one transcript,
// $CLAUDE_CONFIG_DIR/projects/<cwd with every non-alphanumeric as "-">/<session>.jsonl: one record a line, linked by
// uuid/parentUuid; big tool outputs go to <session>/tool-results/ beside it.
//
// Isolation: HOME=<work>/home, CLAUDE_CONFIG_DIR=<work>/home/.claude, cwd <work>/project, TZ=UTC, ANTHROPIC_BASE_URL
// the mock, telemetry / auto-update / error reporting / non-essential traffic off. The work dir stays /tmp/cc-capture
// by default: the client writes it into the transcript and the system prompt, and the fixtures hold those paths.
// `--dangerously-skip-permissions` is refused under root, so the tools the scenarios use are allowed by name
// (`--allowedTools Bash,Read`, after the prompt: the option is variadic and would swallow it). recover runs with the
// same HOME and CLAUDE_CONFIG_DIR, its backups under <work>/state.
// Install: `@anthropic-ai/claude-code@<v>`: its postinstall (install.cjs) copies the native binary of
// @anthropic-ai/claude-code-linux-x64 over the placeholder bin/claude.exe, which node_modules/.bin/claude links to
// (npm 11 warns that the script is "not yet covered by allowScripts" but runs it; the engines field asks for
// Node >= 22, which the native binary does not use).
import fs from "node:fs";
import path from "node:path";
import { shellQuote } from "./lib/recover.mjs";
import { filesImage, listFiles, parseLine, sandboxDirs, trimMessagesRequest } from "./lib/files.mjs";

export const driver = {
  // Which versions, the package and the API: the client's line in index.mjs.
  launch(dir) {
    // The link npm makes, as a user runs it; when the postinstall did not run (npm --ignore-scripts) it is still
    // the placeholder, and the platform package's binary is the same program.
    const bin = path.join(dir, "node_modules", ".bin", "claude");
    const native = path.join(dir, "node_modules", "@anthropic-ai", "claude-code-linux-x64", "claude");
    const isBinary = (f) => {
      if (!fs.existsSync(f)) return false;
      const head = Buffer.alloc(4);
      const fd = fs.openSync(f, "r");
      fs.readSync(fd, head, 0, 4, 0);
      fs.closeSync(fd);
      return head.toString("latin1") === "\x7fELF";
    };
    return { command: isBinary(bin) || !fs.existsSync(native) ? bin : native, prefixArgs: [] };
  },
  /** Where a version's fixtures live (null: none kept for it): the committed ones were captured with 2.1.331. */
  fixtures: (version) => (version === "2.1.331" ? "fixtures/claude-code-2.1" : null),
  defaultModel: "claude-sonnet-4-5",
  defaultWork: "/tmp/cc-capture",
  sandbox(ctx) {
    const { home, config: configDir, cwd } = sandboxDirs(ctx.work, ".claude");
    for (const [name, content] of Object.entries(ctx.scenario.project ?? {})) fs.writeFileSync(path.join(cwd, name), content);
    const common = { HOME: home, CLAUDE_CONFIG_DIR: configDir, TERM: "dumb", LANG: "C.UTF-8", TZ: "UTC" };
    const env = {
      PATH: ctx.installed.PATH,
      ...common,
      ANTHROPIC_BASE_URL: ctx.mock.url,
      ANTHROPIC_API_KEY: "sk-ant-test",
      DISABLE_TELEMETRY: "1",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_AUTOUPDATER: "1",
      DISABLE_ERROR_REPORTING: "1",
      DISABLE_BUG_COMMAND: "1",
      // For every run of the scenario (e.g. DISABLE_COMPACT=1: a too-long prompt is not compacted away).
      ...ctx.scenario.clientEnv,
    };
    return { env, cwd, home, configDir, store: configDir, recoverEnv: { ...common, XDG_STATE_HOME: path.join(ctx.work, "state") } };
  },
  // A step with `stdin` gives its prompts (and slash commands such as /compact) to one process, as stream-json lines.
  args: (step, ctx) => [
    ...(step.stdin ? [] : [step.prompt]),
    "-p",
    ...(step.stdin ? ["--input-format", "stream-json", "--output-format", "stream-json", "--verbose"] : []),
    ...(step.stdin ? [] : ["--output-format", "json"]),
    "--model",
    ctx.model,
    "--allowedTools",
    "Bash,Read",
    ...(step.resume ? ["--resume", ctx.session.id] : []),
    ...(step.args ?? []),
  ],
  /** The session the first step wrote: the one transcript directly under projects/<project>/, named by its id. */
  locate(ctx) {
    if (ctx.session) return ctx.session;
    const projects = path.join(ctx.sandbox.configDir, "projects");
    const file = listFiles(projects).find((f) => /^[^/]+\/[0-9a-f-]{36}\.jsonl$/.test(f));
    return file ? { id: path.basename(file, ".jsonl"), file: path.join(projects, file) } : null;
  },
  snapshot: (ctx) => filesImage(path.join(ctx.sandbox.configDir, "projects")),
  keep: (ctx, label) => fs.copyFileSync(ctx.session.file, path.join(ctx.out, `transcript-${label}.jsonl`)),
  writeFixtures,
};

// The fixtures' cut markers name the script that first wrote them, so that a regenerated fixture is byte-identical.
const BY = "capture-claude-request.mjs";

/** The fixture form of a request body: `tools` reduced to names, a `system` text over 4,000 characters cut in the middle. */
export const trimRequest = (body) => trimMessagesRequest(body, BY);

// The fixture form of a transcript: the lines as the client wrote them, except three kinds of bookkeeping record that
// repeat the whole system prompt and tool schemas (~100 KB per turn) and never become message content: `attachment`
// records of type `prompt_snapshot` (systemPrompt joined and cut, tools reduced to names), `api-request-shape` records
// (shape.system texts cut, shape.tools reduced to names) and `api-request-blob` records (the client's own copy of a
// sent user message: long text blocks cut). Every other line is byte for byte the original.
const CUT = (s) => (typeof s === "string" && s.length > 600 ? `${s.slice(0, 300)}[... ${s.length - 300} characters cut by ${BY} ...]` : s);
const toolNames = (tools) => tools.map((t) => ({ name: t.name, "[cut]": `schema cut by ${BY}` }));
export function trimTranscript(text) {
  return text
    .split("\n")
    .map((line) => {
      const r = line.trim() ? parseLine(line) : null;
      if (r?.type === "attachment" && r.attachment?.type === "prompt_snapshot" && Array.isArray(r.attachment.systemPrompt)) {
        const all = r.attachment.systemPrompt.join("");
        if (all.length > 600) r.attachment.systemPrompt = [CUT(all)];
        if (Array.isArray(r.attachment.tools)) r.attachment.tools = toolNames(r.attachment.tools);
      } else if (r?.type === "api-request-blob" && Array.isArray(r.message?.content)) {
        r.message.content = r.message.content.map((b) => (b.type === "text" ? { ...b, text: CUT(b.text) } : b));
      } else if (r?.type === "api-request-shape" && r.shape) {
        if (Array.isArray(r.shape.system)) r.shape.system = r.shape.system.map((b) => ({ ...b, text: CUT(b.text) }));
        if (Array.isArray(r.shape.tools)) r.shape.tools = toolNames(r.shape.tools);
      } else return line;
      return JSON.stringify(r);
    })
    .join("\n");
}

const isThinking = (b) => b.type === "thinking" || b.type === "redacted_thinking";
const thinkingIds = (content) => (Array.isArray(content) ? content.filter(isThinking).map((b) => b.signature ?? b.data) : []);

/** The signatures of the thinking blocks on a transcript's chain (from its last user/assistant line up), in order. */
export function chainThinking(text) {
  const recs = text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map(JSON.parse);
  const byUuid = new Map(recs.filter((r) => r.uuid).map((r) => [r.uuid, r]));
  const chain = [];
  const seen = new Set();
  for (
    let r = recs.filter((x) => x.uuid && !x.isSidechain && (x.type === "user" || x.type === "assistant")).at(-1);
    r && !seen.has(r.uuid);
    r = byUuid.get(r.parentUuid)
  ) {
    seen.add(r.uuid);
    chain.unshift(r);
  }
  return chain.flatMap((r) => (r.type === "assistant" ? thinkingIds(r.message?.content) : []));
}

/**
 * The scenario's fixtures (fixtures/claude-code-2.1/README.md), for a scenario that keeps them (`fixture`). "view":
 * <name>.jsonl (the transcript the captured step found, after its edit, trimmed) and <name>.request.json (that step's
 * first main-loop request, trimmed). "loop": in <dir>/<fixtureDir>/, <name without "repair-">.jsonl (the transcript
 * right before the first recover step, trimmed) and .expected.json (the recover commands, the error, the thinking on
 * the chain before and after, what the final resume sent and how the mock answered it); nothing for a control run.
 */
function writeFixtures(ctx, dir, { verdict, requests }) {
  const n = verdict.captureStep;
  const read = (label) => fs.readFileSync(path.join(ctx.out, `transcript-${label}.jsonl`), "utf8");
  const captured = requests.find((q) => q.tag === n && q.main);
  if (!ctx.scenario.fixture) return;
  if (ctx.scenario.fixture === "view") {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `${ctx.name}.jsonl`), trimTranscript(read(`before-step-${n}`)));
    if (captured) fs.writeFileSync(path.join(dir, `${ctx.name}.request.json`), `${JSON.stringify(trimRequest(captured.body), null, 2)}\n`);
    return;
  }
  const recs = verdict.steps.filter((s) => s.kind === "recover");
  if (!recs.length || recs.some((r) => r.skipped)) return;
  const before = read(`before-step-${recs[0].step}`);
  const thinkingBefore = chainThinking(before);
  const keptThinking = chainThinking(read(`after-step-${recs.at(-1).step}`));
  // What ran, as the fixture test runs it again: the words after `recover`, without --store and --force.
  const argsOf = (argv) => argv.filter((a, i) => a !== "--force" && a !== "--store" && argv[i - 1] !== "--store");
  const expected = {
    scenario: ctx.name,
    about: ctx.scenario.about,
    client: /"version":"([^"]+)"/.exec(before)?.[1],
    sessionId: verdict.session,
    model: ctx.model,
    recover: recs.map((r) => ({
      command: `recover ${argsOf(r.argv).map(shellQuote).join(" ")} --store <CLAUDE_CONFIG_DIR>`,
      args: argsOf(r.argv),
      exit: r.exit,
      droppedThinking: r.plan?.droppedThinking ?? null,
      rules: r.plan?.rules ?? null,
    })),
    error: recs[0].error ?? null,
    thinkingBefore,
    keptThinking,
    dropped: thinkingBefore.filter((s) => !keptThinking.includes(s)).length,
    sentAfter: (captured?.body.messages ?? []).flatMap((m) => thinkingIds(m.content)),
    finalAnswers: (verdict.steps.find((s) => s.step === n)?.answers ?? []).map((a) => a.status),
  };
  const loopDir = path.join(dir, ctx.scenario.fixtureDir ?? "");
  const name = ctx.name.replace(/^repair-/, "");
  fs.mkdirSync(loopDir, { recursive: true });
  fs.writeFileSync(path.join(loopDir, `${name}.jsonl`), trimTranscript(before));
  fs.writeFileSync(path.join(loopDir, `${name}.expected.json`), `${JSON.stringify(expected, null, 2)}\n`);
}
