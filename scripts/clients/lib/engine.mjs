// One scenario with one real client, start to verdict: a sandbox, the loopback mock of the client's API, then the
// scenario's steps in order. A client step runs the client once (a new session, or a resume of the one the first step
// wrote), answered from the step's scripted replies; its `edit` damages the store first, its `kill` SIGKILLs the
// client (and all it started) some time after the mock answered a given request. A recover step runs
// `recover session repair` (or `context trim`, …) with the last provider error the client was refused with, then checks
// that `recover session restore --last` gives the store back as it was and that repairing again plans the same
// changes. Every request, step output and the verdict land in `out`; the driver (scripts/clients/<client>.mjs) knows
// everything that differs between clients.
//
// A scenario: { about, model?, enforce?, contextLimit?, captureStep?, loop?, smoke?, work?, steps: [step…] } with
//   client step:  { prompt, resume?, replies: [reply | (body, entry) => reply], edit?(ctx) -> note, kill?: { afterRequest,
//                   afterMs }, expect?: 200 | 400 | 413, expectRule?, clientEnv?, args?, version? (this step runs that version of
//                   the client: a session an older client wrote, continued by this one), contextLimit? (a number, or
//                   (ctx) => number: the enforced window from this step on), side? (reply | (body, entry, ctx) =>
//                   reply: the answer to this step's side requests), check?(ctx, result) -> [problem…], stdin?
//                   ([{ text, afterMs }…], or (ctx) => that: fed to the client's stdin in turn, several prompts to one
//                   process, for a driver whose args take them that way) }
//   recover step: { recover: "repair" | "trim" | "import", session?: (ctx) => id (default: the session step 1 wrote),
//                   withError?: true | false (default: the last refusal's text
//                   when there was one), args? ([…] or (ctx) => […]), expectExit? (default 0), restoreCheck?: false,
//                   check?(ctx, verdictStep) -> [problem…] }
// `expect: 200`: every main request of the step accepted (none with thinking the API had to drop for a `drop_block`
// request), the client exits 0 and prints the last reply's text.
// `expect: 400` (or 413, the byte limit): a main request of the step refused (by `expectRule` when given). Until a step damages the session
// (an edit or a kill), every request must be accepted when the run enforces the API's rules. `captureStep` (default: the last) is the
// step whose request and store the fixtures keep. `loop` makes the scenario a repair loop of the client suite
// (withRepairLoop); `smoke` picks the one CI runs.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as gemini from "../api/gemini.mjs";
import * as geminiRules from "../api/gemini-rules.mjs";
import * as messages from "../api/messages.mjs";
import * as messagesRules from "../api/messages-rules.mjs";
import * as responses from "../api/responses.mjs";
import * as responsesRules from "../api/responses-rules.mjs";
import { installClient } from "./install.mjs";
import { runProcess, startProcess } from "./proc.mjs";
import { planSummary, runRecoverStep, shellQuote } from "./recover.mjs";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const RECOVER_BIN = path.join(ROOT, "bin", "recover");

/** Each API: its mock and its rules (enforcer), and how to read a reply's error text and printed text. */
export const APIS = {
  messages: { ...messages, enforcer: messagesRules.enforcer, enforceByDefault: false },
  responses: { ...responses, enforcer: responsesRules.enforcer, enforceByDefault: true },
  gemini: { ...gemini, enforcer: geminiRules.enforcer, enforceByDefault: true },
};

const readLog = (file) =>
  fs.existsSync(file)
    ? fs
        .readFileSync(file, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];

/** One word as a POSIX shell reads it back. */
const shellWord = (w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replaceAll("'", "'\\''")}'`);

/** The first key at which two store images differ, or null. */
function firstDifference(a, b, at = "") {
  if (JSON.stringify(a) === JSON.stringify(b)) return null;
  if (a && b && typeof a === "object" && typeof b === "object") {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const d = firstDifference(a[k], b[k], `${at}/${k}`);
      if (d) return d;
    }
  }
  return at || "/";
}

/**
 * Run scenario `name` of `client` ({ driver, scenarios }) with the installed client `installed` (lib/install.mjs).
 * Options: out, work, model, timeout (s per process; else the scenario's, else the driver's `timeout`, else 120), enforce,
 * contextLimit, recoverBin, skipRecover, recoverWait (s), fixtures (dir: the driver writes the scenario's fixture files
 * there), quiet. Returns the verdict.
 */
export async function runScenario({ driver, scenarios }, name, installed, opts) {
  const scenario = scenarios[name];
  if (!scenario) throw new Error(`${driver.name} has no scenario ${name}`);
  const api = APIS[driver.api];
  // A driver whose versions keep different paths (a fixture's paths are where it was captured) names one per version.
  // A scenario whose fixtures were captured in another folder names it (the paths are in the fixtures).
  const work = opts.work ?? scenario.work ?? (typeof driver.defaultWork === "function" ? driver.defaultWork(installed.version) : driver.defaultWork);
  const out = opts.out;
  fs.rmSync(work, { recursive: true, force: true });
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(work, { recursive: true });
  fs.mkdirSync(out, { recursive: true });
  const say = opts.quiet ? () => {} : (line) => console.error(`[${driver.name} ${installed.version} ${name}] ${line}`);
  const enforce = opts.enforce ?? scenario.enforce ?? api.enforceByDefault;
  const rules = api.enforcer({ contextLimit: opts.contextLimit ?? scenario.contextLimit, ...driver.enforcerOptions, ...scenario.enforcerOptions });
  const timeoutMs = (opts.timeout ?? scenario.timeout ?? driver.timeout ?? 120) * 1000;

  const log = path.join(out, "requests.jsonl");
  const step = { replies: [], answers: [], served: 0, onServe: null };
  const ctx = {
    name,
    scenario,
    driver,
    installed,
    version: installed.version,
    model: opts.model ?? scenario.model ?? driver.defaultModel,
    work,
    out,
    session: null,
    errors: [],
    notes: [],
  };
  const state = {
    log,
    tag: null,
    isMain: driver.isMain,
    // A step's own answer to side requests (a title per run), else the driver's; left unset when neither has one, so
    // each mock answers them its own default way.
    side:
      driver.side || scenario.steps.some((s) => s.side)
        ? (body, entry) => {
            const f = scenario.steps[state.tag - 1]?.side ?? driver.side;
            return typeof f === "function" ? f(body, entry, ctx) : f;
          }
        : undefined,
    usage: scenario.usage ?? driver.usage,
    next(body, entry) {
      step.served++;
      const judged = enforce ? rules.check(body, entry.headers, entry) : null;
      let r = judged?.refused;
      if (!r) {
        r = step.replies.shift();
        if (typeof r === "function") r = r(body, entry, ctx);
      }
      const error = r ? api.errorText(r) : null;
      if (r && !error) rules.served(body, r, judged?.passed);
      const answer = {
        seq: entry.seq,
        step: state.tag,
        // The HTTP status is the first number: the Gemini API's `status` is a word (INVALID_ARGUMENT), its `code` the number.
        status: error ? ([r.status, r.httpError?.status, r.httpError?.code].find((x) => typeof x === "number") ?? 400) : 200,
        ...(judged?.rule ? { rule: judged.rule } : {}),
        ...(judged?.why ? { why: judged.why } : {}),
        ...(error ? { message: error, scripted: !judged?.refused } : {}),
        ...(judged?.passed ?? {}),
      };
      entry.answer = answer;
      step.answers.push({ ...answer, reply: r });
      if (error) ctx.errors.push(answer);
      const n = step.served;
      setImmediate(() => step.onServe?.(n));
      return r;
    },
  };
  const mock = await api.startMock(state);
  ctx.mock = mock;
  const verdict = { client: driver.name, version: installed.version, scenario: name, about: scenario.about, model: ctx.model, enforce, steps: [] };
  const problems = [];
  let damaged = false;
  try {
    ctx.sandbox = driver.sandbox(ctx);
    for (const [i, s] of scenario.steps.entries()) {
      const n = i + 1;
      state.tag = n;
      // Once a step damaged the session (an edit, a kill), a refusal is what the scenario is about, not a failure.
      damaged ||= Boolean(s.edit);
      if (s.edit) {
        if (!ctx.session) throw new Error(`step ${n}: an edit before any session exists`);
        const note = await s.edit(ctx);
        ctx.notes.push(`before step ${n}: ${note}`);
        say(`step ${n} edit: ${note}`);
      }
      // The store around every step, recover steps too (a driver keeps what its fixtures need).
      if (ctx.session) await driver.keep?.(ctx, `before-step-${n}`);
      if (s.recover) {
        const v = await recoverStep(ctx, s, n, opts);
        await driver.keep?.(ctx, `after-step-${n}`);
        verdict.steps.push(v);
        problems.push(...v.problems.map((p) => `step ${n}: ${p}`));
        say(
          `step ${n} recover ${s.recover}: exit ${v.exit}${v.plan ? `, ${v.plan.changes} change(s)` : ""}${v.problems.length ? `; ${v.problems.join("; ")}` : ""}`,
        );
        continue;
      }
      if (s.contextLimit !== undefined) {
        // The window from this step on, e.g. just above every request so far: the session's next turn outgrows it.
        const limit = typeof s.contextLimit === "function" ? s.contextLimit(ctx) : s.contextLimit;
        if (!rules.setContextLimit) throw new Error(`step ${n}: the ${driver.api} mock has no context window to set`);
        rules.setContextLimit(limit);
        ctx.notes.push(`before step ${n}: window set to ${limit} tokens`);
        say(`step ${n}: window set to ${limit} tokens`);
      }
      step.replies = [...(s.replies ?? [])];
      step.answers = [];
      step.served = 0;
      step.onServe = null;
      const argv = driver.args(s, ctx);
      const t0 = Date.now();
      const client = s.version && s.version !== installed.version ? installClient(driver, s.version) : installed;
      // A step with `pty` runs the client on a terminal of its own (util-linux `script`): an interactive UI that needs
      // one; its `stdin` list is then typed at it.
      const [command, args] = s.pty
        ? ["script", ["-qfec", [client.command, ...client.prefixArgs, ...argv].map(shellWord).join(" "), "/dev/null"]]
        : [client.command, [...client.prefixArgs, ...argv]];
      const proc = startProcess(command, args, {
        cwd: ctx.sandbox.cwd,
        // A driver whose versions need different switches gives the environment per version.
        env: { ...(typeof ctx.sandbox.env === "function" ? ctx.sandbox.env(client.version) : ctx.sandbox.env), ...s.clientEnv },
        timeoutMs,
        stdoutFile: path.join(out, `step-${n}.stdout`),
        stderrFile: path.join(out, `step-${n}.stderr`),
        ...(s.stdin ? { input: typeof s.stdin === "function" ? s.stdin(ctx) : s.stdin } : {}),
      });
      if (s.kill)
        step.onServe = (k) => {
          if (k === s.kill.afterRequest) setTimeout(() => proc.kill("scenario"), s.kill.afterMs ?? 0);
        };
      const r = await proc.done;
      step.onServe = null;
      damaged ||= Boolean(r.killed);
      ctx.session = (await driver.locate(ctx)) ?? ctx.session;
      if (ctx.session) await driver.keep?.(ctx, `after-step-${n}`);
      const v = {
        step: n,
        kind: "client",
        ...(client !== installed ? { version: client.version } : {}),
        argv,
        ms: Date.now() - t0,
        exit: r.code,
        signal: r.signal,
        ...(r.killed ? { killed: r.killed } : {}),
        answers: step.answers.map(({ reply, ...a }) => a),
        unusedReplies: step.replies.length,
      };
      problems.push(...clientStepProblems(s, r, step.answers, api, { building: enforce && !damaged }).map((p) => `step ${n}: ${p}`));
      if (!ctx.session) problems.push(`step ${n}: no session in the store after the client ran`);
      if (s.check) problems.push(...((await s.check(ctx, r)) ?? []).map((p) => `step ${n}: ${p}`));
      verdict.steps.push(v);
      say(
        `step ${n}: exit ${r.code ?? r.signal}${r.killed ? ` (killed: ${r.killed.why})` : ""} in ${v.ms} ms, ${v.answers.map((a) => a.status).join(",") || "no"} answer(s)`,
      );
      if (!ctx.session) break;
    }
  } catch (e) {
    problems.push(`${e.message}`);
    say(`error: ${e.stack ?? e.message}`);
  } finally {
    await mock.close();
  }
  verdict.session = ctx.session?.id ?? null;
  verdict.captureStep = scenario.captureStep ?? scenario.steps.length;
  verdict.notes = ctx.notes;
  verdict.pass = problems.length === 0;
  verdict.problems = problems;
  const requests = readLog(log);
  verdict.requests = requests.length;
  fs.writeFileSync(path.join(out, "verdict.json"), `${JSON.stringify(verdict, null, 2)}\n`);
  if (opts.fixtures && driver.writeFixtures) await driver.writeFixtures(ctx, opts.fixtures, { verdict, requests });
  return verdict;
}

/**
 * What is wrong with a client step's outcome (the header's `expect` rules): `r` the process, `answers` the mock's
 * answers with their replies, `building` while the API's rules apply and no step has damaged the session yet.
 */
function clientStepProblems(s, r, answers, api, { building }) {
  const problems = [];
  const bad = answers.filter((a) => a.status >= 400);
  if (s.expect === 200) {
    if (bad.length) problems.push(`refused ${bad[0].status} ${bad[0].message}`);
    if (r.code !== 0) problems.push(`the client exited ${r.code ?? r.signal}`);
    const printed = api.replyText(answers.at(-1)?.reply);
    if (printed && !r.stdout.includes(printed)) problems.push(`the client did not print the reply ${JSON.stringify(printed)}`);
    if (!answers.length) problems.push("the client sent no request");
    // Accepted only because the request let the API drop a thinking block bound to another prefix: the reasoning is
    // silently lost, which is what a repair must not cause.
    const dropped = answers.find((a) => a.droppedThinkingFrom);
    if (dropped) problems.push(`accepted only with thinking dropped from ${dropped.droppedThinkingFrom} (drop_block, ${dropped.why})`);
  } else if (s.expect >= 400) {
    if (!bad.some((a) => !s.expectRule || a.rule === s.expectRule))
      problems.push(
        `expected a refusal${s.expectRule ? ` (${s.expectRule})` : ""}, got ${bad.length ? bad.map((a) => a.rule ?? a.status).join(", ") : "none"}`,
      );
  } else if (building && !s.kill && bad.some((a) => !a.scripted)) {
    problems.push(`refused while building the session: ${bad.find((a) => !a.scripted).message}`);
  }
  return problems;
}

/**
 * A recover step: the plan, the command as a user types it (with the last refusal's text as --error), then the
 * restore check. The suite passes --force: it waited for the client's whole process group to exit, which is what
 * --force asserts (recover otherwise refuses a session written in the last minute; `recoverWait` waits instead).
 */
async function recoverStep(ctx, s, n, opts) {
  const recoverBin = opts.recoverBin ?? RECOVER_BIN;
  const store = ctx.sandbox.store;
  const problems = [];
  const err = s.withError === false ? null : s.recover === "trim" ? ctx.errors.filter((e) => /too long|exceeds/i.test(e.message)).at(-1) : ctx.errors.at(-1);
  if (s.withError === true && !err) problems.push("a recover step with the provider's error, but the client was refused nothing so far");
  // import names no session of the store (it copies sessions in from elsewhere: its args say which, and from where).
  // resume reads the refusal the client recorded itself (no --error), and prints the client's command (--print): the
  // continuation step then runs the client as every loop does.
  const verb = { repair: ["session", "repair"], trim: ["context", "trim"], import: ["session", "import"], resume: ["session", "resume"] }[s.recover];
  const wait = opts.recoverWait ?? 0;
  const cmd = [
    recoverBin,
    ...verb,
    // A step may name another session than the one the first step wrote (a subagent's, found after the run).
    ...(s.recover === "import" ? [] : [typeof s.session === "function" ? s.session(ctx) : ctx.session.id]),
    ...(err && s.recover !== "import" && s.recover !== "resume" ? ["--error", err.message] : []),
    ...(s.recover === "resume" ? ["--print"] : []),
    ...((typeof s.args === "function" ? s.args(ctx) : s.args) ?? []),
    "--yes",
    "--store",
    store,
    ...(wait ? [] : ["--force"]),
  ];
  const shown = ["recover", ...cmd.slice(1)].map(shellQuote).join(" ");
  fs.writeFileSync(path.join(ctx.out, `step-${n}.command`), `${shown}\n`);
  const env = { ...process.env, ...ctx.sandbox.recoverEnv, NO_COLOR: "1", CI: "true" };
  const cwd = ctx.sandbox.cwd;
  if (opts.skipRecover) return { step: n, kind: "recover", skipped: true, command: shown, problems: [] };
  if (wait) await new Promise((r) => setTimeout(r, wait * 1000));
  const before = await ctx.driver.snapshot(ctx);
  // The clock recover ran at: its live window and write guard are judged against it.
  const ranAt = Date.now();
  const { plan, r } = await runRecoverStep(cmd, { n, out: ctx.out, cwd, env, timeoutSeconds: 120 });
  const expectExit = s.expectExit ?? 0;
  if (r.code !== expectExit) problems.push(`recover exited ${r.code ?? r.signal}, expected ${expectExit}: ${r.stderr.trim().split("\n").at(-1)}`);
  if (s.expectStderr && !new RegExp(s.expectStderr).test(r.stderr)) problems.push(`recover did not say /${s.expectStderr}/: ${r.stderr.trim()}`);
  const v = { step: n, kind: "recover", command: shown, argv: cmd.slice(1), ranAt, error: err?.message, exit: r.code, plan, problems };
  if (r.code === 0 && plan?.changes > 0 && s.restoreCheck !== false) {
    const after = await ctx.driver.snapshot(ctx);
    const restore = await runProcess(process.execPath, [recoverBin, "session", "restore", "--last", "--yes", "--store", store], {
      cwd,
      env,
      timeoutMs: 120_000,
      stdoutFile: path.join(ctx.out, `step-${n}.restore.stdout`),
      stderrFile: path.join(ctx.out, `step-${n}.restore.stderr`),
    });
    const differs = firstDifference(before, await ctx.driver.snapshot(ctx));
    v.restore = { exit: restore.code, identical: restore.code === 0 && !differs, ...(differs ? { firstDifference: differs } : {}) };
    if (restore.code !== 0) problems.push(`restore exited ${restore.code}: ${restore.stderr.trim().split("\n").at(-1)}`);
    else if (differs) problems.push(`restore did not give the store back as it was (first difference at ${differs})`);
    // Again, on the restored store: the same changes, and the same store after them.
    const again = await runRecoverStep(cmd, { n: `${n}-again`, out: ctx.out, cwd, env, timeoutSeconds: 120 });
    // Ids recover makes for what it inserts are new each time: the same plan is the same ops on the same records.
    const shape = (p) => JSON.stringify((p?.list ?? []).map((c) => c.replace(/^(\S+ \S+) \S+/, "$1")).sort());
    const same = shape(again.plan) === shape(plan);
    const afterAgain = firstDifference(after, await ctx.driver.snapshot(ctx));
    v.again = { exit: again.r.code, samePlan: same, sameStore: !afterAgain, ...(afterAgain ? { firstDifference: afterAgain } : {}) };
    if (again.r.code !== 0 || !same) problems.push(`repairing the restored store again planned other changes (exit ${again.r.code})`);
  }
  if (s.check) problems.push(...((await s.check(ctx, v)) ?? []));
  return v;
}

export { planSummary };

/**
 * The known gap a scenario declares for `version` (`knownGap: { versions, issue, why, expectExit, expectStderr }`),
 * or null.
 */
export function knownGapOf(scenario, version) {
  const gap = scenario.knownGap;
  return gap && (!gap.versions || gap.versions.includes(version)) ? gap : null;
}

/**
 * The scenario as a repair loop: its steps, then recover (with the last refusal's text, if any) and one more resume
 * that must be accepted and printed. `loop: { reply, prompt, resumeArgs }` overrides the continuation's reply, prompt and
 * arguments (`resumeArgs(ctx)`: what the driver adds to the client's command line); `loop.command` and `loop.recoverArgs`
 * make the recover step another command (`import`) with its arguments, `loop.check` its recover step's check; `loop.edit`
 * damages the session right before recover (a repair before the client ever sent the damaged history); `loop.withError`
 * is the recover step's (lib/engine.mjs header); `loop.enforce` runs the loop with the API's rules applied although the
 * scenario alone (a capture of what the client sends) does not apply them. `loop.session(ctx)` names the session
 * recover repairs when it is not the one the client resumes; `loop.between` are client steps run after recover and
 * before the continuation (a start of the client that would have destroyed the session without the repair).
 */
export function withRepairLoop(scenario, api, version) {
  const loop = typeof scenario.loop === "object" ? scenario.loop : {};
  // A known gap on this version: recover must fail exactly as documented (its exit code and message), and the client
  // must still continue; when recover starts passing here, the suite says the mark is stale.
  const gap = knownGapOf(scenario, version);
  return {
    ...scenario,
    ...(loop.enforce !== undefined ? { enforce: loop.enforce } : {}),
    captureStep: scenario.captureStep ?? scenario.steps.length,
    steps: [
      ...scenario.steps,
      {
        recover: loop.command ?? "repair",
        ...(loop.recoverArgs ? { args: loop.recoverArgs } : {}),
        ...(loop.edit ? { edit: loop.edit } : {}),
        // false: the plain repair, as a user runs it when the client never showed the refusal (it healed it itself).
        ...(loop.withError !== undefined ? { withError: loop.withError } : {}),
        ...(loop.session ? { session: loop.session } : {}),
        ...(gap ? { expectExit: gap.expectExit, expectStderr: gap.expectStderr } : {}),
        // What the recover step must have done besides exiting as expected (e.g. planned nothing).
        ...(loop.check ? { check: loop.check } : {}),
      },
      ...(loop.between ?? []),
      {
        prompt: loop.prompt ?? "Continue.",
        resume: true,
        replies: [loop.reply ?? APIS[api].plainReply("Continuing.")],
        expect: 200,
        // The client's own arguments for going on (openclaw: the imported session, by its id).
        ...(loop.resumeArgs ? { args: loop.resumeArgs } : {}),
      },
    ],
  };
}
