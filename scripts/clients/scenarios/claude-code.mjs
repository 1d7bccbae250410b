// The Claude Code scenarios (driver: ../claude-code.mjs). The view scenarios build a session, edit its transcript and
// resume it: what the client sends for what it stored; those marked `loop` are also the client suite's repair loops.
// The repair-* scenarios are repair loops of their own, on the enforcing mock (api/messages-rules.mjs): a damaged
// resume refused, `recover` (`session repair`, or `context trim` for a too-long prompt) with that refusal's text, and
// a resume that must be accepted. Findings: docs/research/claude-code-request.md, claude-code-repair-loop.md,
// claude-code-prefix-thinking.md.
//
// Besides the engine's fields (lib/engine.mjs): `project` (files written into the project dir before step 1),
// `clientEnv` (for every client run), `fixture` (what --fixtures writes, only for the scenarios whose fixtures are
// committed: "view", fixtures/claude-code-2.1/<name>.jsonl + .request.json; "loop", <fixtureDir>/<case>.jsonl +
// .expected.json). An `edit` also runs before a recover step (damage made with no client run before recover).
import fs from "node:fs";
import { httpError, reply, text, thinking, toolUse } from "../api/messages.mjs";

// ---------------------------------------------------------------------------------------------------------------
// Transcript edits, applied before a step (to the session's .jsonl, record by record).

const readRecords = (file) =>
  fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l));
const writeRecords = (file, records) => fs.writeFileSync(file, `${records.map((r) => JSON.stringify(r)).join("\n")}\n`);
/** `fn(recs)` on the records of `file`, written back; returns what `fn` returns. */
function withRecords(file, fn) {
  const recs = readRecords(file);
  const result = fn(recs);
  writeRecords(file, recs);
  return result;
}
/** `fn(block, record)` on every content block `pred(block, record)` picks; returns how many. */
const editBlocks = (file, pred, fn) =>
  withRecords(file, (recs) => {
    let n = 0;
    for (const r of recs)
      for (const b of Array.isArray(r.message?.content) ? r.message.content : [])
        if (pred(b, r)) {
          fn(b, r);
          n++;
        }
    return n;
  });
// Insert records after the record with uuid `afterUuid`, relinking the chain: the inserted records form a chain
// hanging from afterUuid, and the old child of afterUuid is re-parented to the last inserted record.
const insertAfter = (file, afterUuid, makers) =>
  withRecords(file, (recs) => {
    const i = recs.findIndex((r) => r.uuid === afterUuid);
    if (i < 0) throw new Error(`insertAfter: no record ${afterUuid}`);
    const { userType, cwd, sessionId, version, gitBranch, timestamp } = recs[i];
    let parent = afterUuid;
    const made = makers.map((make, k) => {
      const uuid = `00000000-0000-4000-8000-${String(k + 1).padStart(12, "0")}`;
      const rec = make({ parentUuid: parent, isSidechain: false, userType, cwd, sessionId, version, gitBranch, uuid, timestamp });
      if (rec.uuid) parent = rec.uuid;
      return rec;
    });
    for (const r of recs.slice(i + 1)) if (r.parentUuid === afterUuid) r.parentUuid = parent;
    recs.splice(i + 1, 0, ...made);
  });
// Remove the chain records `pred` picks; each child of a removed record is re-parented to that record's parent.
function deleteRecords(file, pred) {
  const recs = readRecords(file);
  const gone = new Map(recs.filter(pred).map((r) => [r.uuid, r.parentUuid]));
  const up = (u) => {
    while (gone.has(u)) u = gone.get(u);
    return u;
  };
  const kept = recs.filter((r) => !gone.has(r.uuid));
  for (const r of kept) if (gone.has(r.parentUuid)) r.parentUuid = up(r.parentUuid);
  writeRecords(file, kept);
  return gone.size;
}
const lastOf = (file, pred) => readRecords(file).filter(pred).at(-1);
const isAssistantText = (t) => (r) => r.type === "assistant" && r.message?.content?.some((b) => b.type === "text" && b.text === t);
// The user line holding the result of tool call `id`.
const isResultOf = (id) => (r) =>
  r.type === "user" && Array.isArray(r.message?.content) && r.message.content.some((b) => b.type === "tool_result" && b.tool_use_id === id);

// ---------------------------------------------------------------------------------------------------------------
// Replies and steps.

// Claude Code takes the mock for Anthropic's own API (diagnostics.previous_message_id is sent only there).
const FIRST_PARTY = { _CLAUDE_CODE_ASSUME_FIRST_PARTY_BASE_URL: "1" };
/** A step check: the step's last main request named a previous_message_id matching `pattern`. */
const previousIdIs = (pattern) => (ctx) => {
  const requests = readRecords(`${ctx.out}/requests.jsonl`);
  const sent = requests.filter((r) => r.body?.messages).at(-1)?.body?.diagnostics?.previous_message_id;
  return typeof sent === "string" && pattern.test(sent) ? [] : [`diagnostics.previous_message_id was ${JSON.stringify(sent)}, expected ${pattern}`];
};

// The trim scenarios' window and oversized output: 120,000 characters of `seq`-like lines ("line 000001\n" …).
const TRIM_LIMIT = 36_000;
const bigOutput = (lines) => `${Array.from({ length: lines }, (_, i) => `line ${String(i + 1).padStart(6, "0")}`).join("\n")}\n`;
const SIG = (n) => `EsMock${n}SignatureAAAABBBBCCCCDDDDeeeeffff0000111122223333==`;
const bash = (id, command, description = `Run ${command}`) => toolUse(id, "Bash", { command, description });
const WAIT_60 = `node -e "setTimeout(() => {}, 60000)"`;
const echoHi = () => bash("toolu_mock_bash_01", "echo hi", "Print hi");
const says = (prompt, t, more = {}) => ({ prompt, replies: [reply([text(t)])], ...more });
const resumeSays = (prompt, t, more = {}) => says(prompt, t, { resume: true, ...more });
// A step whose request the enforcing mock refuses: the scripted reply goes only to a request that passes the rules.
const FILLER = reply([text("(mock: scripted reply; sent only to a request of this step that passes the rules)")]);
const refused = (prompt, expectRule, more = {}) => ({ prompt, resume: true, expect: 400, expectRule, replies: [FILLER], ...more });
// "Say one.", "Say two.", then "Say three." (`more`: the third step's other fields, e.g. its edit).
const threeTurns = (more) => [says("Say one.", "one"), resumeSays("Say two.", "two"), resumeSays("Say three.", "three", more)];
// A view scenario whose damage is also a repair loop of the client suite, on the enforcing mock (a rule the damage
// breaks refuses the resume; the loop then gives recover that refusal).
const VIEW_LOOP = { fixture: "view", loop: true, enforce: true };
const echoTurn = (prompt = "Run `echo hi` with Bash.") => ({
  prompt,
  replies: [reply([text("Running."), echoHi()]), reply([text("Done: hi.")])],
});

// Four parallel Bash calls, the first one slowest (it finishes last and is written last), two of them printing files.
const PARALLEL_FILES = { "a.txt": bigOutput(600), "b.txt": bigOutput(400) };
const parallelTurn = () => ({
  prompt: "Run the four commands at once.",
  replies: [
    reply([
      text("Running all four."),
      bash("toolu_mock_bash_01", "sleep 1; seq 1 300", "Count slowly"),
      bash("toolu_mock_bash_02", "cat a.txt", "Show a.txt"),
      bash("toolu_mock_bash_03", "seq 1 200", "Count"),
      bash("toolu_mock_bash_04", "cat b.txt", "Show b.txt"),
    ]),
    reply([text("All four ran.")]),
  ],
});

// ---------------------------------------------------------------------------------------------------------------
// Compaction twice in one process (issue 40 row 5).

const COMPACT_SUMMARY = (n) => reply([text(`<summary>Summary ${n}: the user asked for numbers and got them.</summary>`)]);
/** A main-loop request that asks for the conversation's summary (the compaction's own request). */
const asksSummary = (body) => JSON.stringify(body?.messages?.at(-1) ?? "").includes("summary");
/**
 * Answers every main request of a multi-prompt step: a summary for a compaction (numbered by the summaries the
 * request already holds, so that a run's first is 1 whatever ran before), else "answer <prompt>".
 */
const answerEach = (body) => {
  if (asksSummary(body)) return COMPACT_SUMMARY((JSON.stringify(body.messages).match(/Summary \d+:/g) ?? []).length + 1);
  const last = body.messages.at(-1);
  const said = (typeof last.content === "string" ? last.content : last.content.filter((b) => b.type === "text").at(-1)?.text) ?? "";
  const m = /Say ([\d.]+)\./.exec(said);
  return reply([text(m ? `answer ${m[1]}` : "ok")]);
};
const prompt = (t, afterMs) => ({ text: `${JSON.stringify({ type: "user", message: { role: "user", content: t } })}\n`, afterMs });
const compactTwice = () => ({
  version: "2.1.277",
  prompt: "(stream-json on stdin)",
  stdin: [
    prompt("Say 1.1.", 0),
    prompt("Say 1.2.", 2500),
    prompt("/compact", 2500),
    prompt("Say 2.1.", 4000),
    prompt("Say 2.2.", 2500),
    prompt("/compact", 2500),
    prompt("Say 3.1.", 4000),
    { text: "", afterMs: 3000 },
  ],
  replies: Array.from({ length: 12 }, () => answerEach),
  check(ctx) {
    const recs = readRecords(ctx.session.file);
    const seen = new Set();
    const copies = recs.filter((r) => r.uuid && (seen.has(r.uuid) || !seen.add(r.uuid))).length;
    return copies > 0 ? [] : ["2.1.277 re-appended no record: the replay this scenario is about did not happen"];
  },
});
const resumeAfterCompact = () =>
  resumeSays("Say four.", "four", {
    expect: 200,
    check(ctx) {
      const problems = [];
      const recs = readRecords(ctx.session.file);
      const seen = new Set();
      if (recs.some((r) => r.uuid && (seen.has(r.uuid) || !seen.add(r.uuid)))) problems.push("records with a repeated uuid are left after the repair");
      const sent = JSON.parse(fs.readFileSync(`${ctx.out}/requests.jsonl`, "utf8").trim().split("\n").at(-1)).body;
      const first = JSON.stringify(sent?.messages?.[0]?.content ?? "");
      if (!first.includes("Summary 2:")) problems.push(`the resumed request does not open with the second compaction's summary: ${first.slice(0, 120)}`);
      if (!JSON.stringify(sent?.messages ?? []).includes("Say 3.1.")) problems.push("the resumed request lacks the turn after the second compaction");
      return problems;
    },
  });
/**
 * The report's shape, built: the copies moved to right before the last prompt ("Say 3.1."), which is parented to the
 * last copy (the replay at the next message the main thread records, with that message hanging from it).
 */
function misparentAfterReplay({ session }) {
  return withRecords(session.file, (recs) => {
    const seen = new Set();
    const copies = recs.filter((r) => r.uuid && (seen.has(r.uuid) || !seen.add(r.uuid)));
    const rest = recs.filter((r) => !copies.includes(r));
    const at = rest.findIndex((r) => r.type === "user" && r.message?.content === "Say 3.1.");
    const old = rest[at].parentUuid;
    rest[at].parentUuid = copies.at(-1).uuid;
    recs.splice(0, recs.length, ...rest.slice(0, at), ...copies, ...rest.slice(at));
    return `${copies.length} re-appended copies moved to right before "Say 3.1.", which now hangs from the last copy (${copies.at(-1).uuid}) instead of ${old}`;
  });
}
/** The compaction loops: their own folder (the paths are in the fixtures), fixtures in compact-replay/. */
const compactReplay = (s) => ({ enforce: true, work: "/tmp/cc-capture-compact", fixtureDir: "compact-replay", ...s });

// ---------------------------------------------------------------------------------------------------------------
// A subagent (issue 40 row 4): the main agent starts one in the foreground, the subagent runs Bash, and later the
// main agent messages it again (SendMessage), which resumes it from its transcript.

/** The subagent's transcript file, and its id as recover names it (`agent-<id>`). */
const subagentFile = (ctx) => {
  const projects = `${ctx.sandbox.configDir}/projects`;
  for (const p of fs.readdirSync(projects)) {
    const dir = `${projects}/${p}/${ctx.session.id}/subagents`;
    if (!fs.existsSync(dir)) continue;
    const f = fs.readdirSync(dir).find((n) => /^agent-.+\.jsonl$/.test(n));
    if (f) return `${dir}/${f}`;
  }
  throw new Error("no subagent transcript");
};
const subagentId = (ctx) => subagentFile(ctx).split("/").at(-1).slice(0, -6);
/** The text of a request message (its text blocks, tool results' contents), for telling the requests apart. */
const said = (m) => (typeof m?.content === "string" ? m.content : JSON.stringify(m?.content ?? ""));
/**
 * One answer for every request of the subagent steps, from what the request holds (the main agent and its
 * subagent share the mock): the subagent runs `echo sub` and says so, and says it again when messaged; the main
 * agent starts it, messages it, and reports.
 */
const subagentRouter = (body, entry, ctx) => {
  const msgs = body.messages;
  const first = said(msgs[0]);
  const last = msgs.at(-1);
  const lastText = said(last);
  if (first.includes("Run echo sub with Bash, then say done.")) {
    // The subagent.
    if (lastText.includes("say it again") || lastText.includes("say it once more")) return reply([text("sub again")]);
    if (lastText.includes("tool_result")) return reply([text("done: sub")]);
    return reply([thinking("I will run echo sub.", SIG(71)), text("Running."), bash("toolu_mock_sub_bash_01", "echo sub", "Print sub")]);
  }
  if (lastText.includes("Ask a subagent to run echo sub."))
    return reply([
      text("Starting it."),
      toolUse("toolu_mock_agent_01", "Agent", {
        description: "Run echo sub",
        prompt: "Run echo sub with Bash, then say done.",
        subagent_type: "general-purpose",
        run_in_background: false,
      }),
    ]);
  const again = /Ask the same subagent to say it (again|once more)\./.exec(lastText);
  if (again)
    return reply([
      text("Messaging it."),
      // 2.1.197 wants a `summary` beside a string message (2.1.332 takes it too).
      toolUse(`toolu_mock_send_${entry.seq}`, "SendMessage", {
        to: subagentId(ctx).slice(6),
        summary: `say it ${again[1]}`,
        message: `Please say it ${again[1]}.`,
      }),
    ]);
  return reply([text("The subagent answered.")]);
};

// ---------------------------------------------------------------------------------------------------------------
// Claude Code's own media budget (issue 40 rows 12 and 17; docs/research/claude-code-media-budget.md): before it sends,
// the client drops the oldest images and documents of a request holding more than 100 of them (down to 80), or more
// base64 than its byte cap (75 MB; from 2.1.277 on 24 MB on Anthropic's own API), down to 10 MB under it. The
// session is the client's own: a Read of a PNG, whose stored result is then given more images (a store edit).

/** A 1×1 PNG. */
const DOT_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
/** A PNG of `chars` base64 characters: the dot, then zero bytes after its end (the client checks no more than the size). */
const paddedPng = (chars) => DOT_PNG + "A".repeat(chars - DOT_PNG.length);
const readDot = () => ({
  prompt: "Look at dot.png with the Read tool.",
  replies: [
    (_body, _entry, ctx) => reply([text("Reading it."), toolUse("toolu_mock_read_01", "Read", { file_path: `${ctx.sandbox.cwd}/dot.png` })]),
    reply([text("A dot.")]),
  ],
});
/** Edit: the Read result's content becomes `n` images of `chars` base64 characters each (the first the client's own). */
const manyImages = (n, chars) => (ctx) => {
  let had = 0;
  editBlocks(
    ctx.session.file,
    (b, r) => r.type === "user" && b.type === "tool_result" && b.tool_use_id === "toolu_mock_read_01",
    (b) => {
      const own = b.content.find((c) => c.type === "image");
      had = b.content.length;
      b.content = Array.from({ length: n }, (_, i) =>
        i === 0 && chars === undefined ? own : { type: "image", source: { ...own.source, data: chars === undefined ? own.source.data : paddedPng(chars) } },
      );
    },
  );
  return `the Read result's content (${had} block(s), the image the client stored) made ${n} images${chars === undefined ? " (copies of it)" : ` of ${chars} base64 characters each`}`;
};
/** What the step's first main request sent: images and documents, and the client's placeholder texts, in its last one. */
const mediaSent = (ctx) => {
  // The step's first main request (the resume's own; a refused one may be followed by the client's compaction).
  const main = readRecords(`${ctx.out}/requests.jsonl`).filter((q) => q.main && q.body?.messages);
  const body = main.find((q) => q.tag === main.at(-1).tag)?.body;
  let media = 0;
  let bytes = 0;
  const notes = [];
  const visit = (b) => {
    if (b?.type === "image" || b?.type === "document") {
      media++;
      bytes += b.source?.data?.length ?? 0;
    } else if (b?.type === "text" && b.text.startsWith("[media removed: request limit")) notes.push(b.text);
    else if (b?.type === "tool_result" && Array.isArray(b.content)) b.content.forEach(visit);
  };
  for (const m of body?.messages ?? []) if (Array.isArray(m.content)) m.content.forEach(visit);
  return { media, bytes, notes };
};
/** A step check: the last request sent `media` images (and, when given, `notes` placeholders). */
const sentMedia = (expected) => (ctx) => {
  const sent = mediaSent(ctx);
  const version = ctx.version ?? "";
  const want = typeof expected === "function" ? expected(version) : expected;
  fs.writeFileSync(
    `${ctx.out}/media-sent.json`,
    `${JSON.stringify({ ...sent, notes: [...new Set(sent.notes)].map((n) => [n, sent.notes.filter((x) => x === n).length]) }, null, 2)}\n`,
  );
  const problems = [];
  if (sent.media !== want.media) problems.push(`sent ${sent.media} images and documents, expected ${want.media}`);
  if (want.notes !== undefined && sent.notes.length !== want.notes) problems.push(`sent ${sent.notes.length} placeholder(s), expected ${want.notes}`);
  return problems;
};
const noChanges = (what) => (_ctx, v) => (v.plan?.changes ? [`recover planned ${v.plan.changes} change(s) on a session ${what}`] : []);
const MEDIA_PROJECT = {
  get "dot.png"() {
    return Buffer.from(DOT_PNG, "base64");
  },
};

function mediaScenarios() {
  return {
    // 105 images: 2.1.197 drops 5 + 20 (80 sent; removed from the result's content, no placeholder while the result is
    // there); 2.1.277 and later drop 21 when the 101st comes (84 sent; each replaced in place by a placeholder text).
    "media-count": {
      ...VIEW_LOOP,
      loop: { withError: false, check: noChanges("the client sends within its own media budget") },
      project: MEDIA_PROJECT,
      about: "Read dot.png (an image result) → text; the stored result made 105 images; resume → 200 (the client drops the oldest itself)",
      steps: [
        readDot(),
        resumeSays("Say two.", "two", {
          expect: 200,
          edit: manyImages(105),
          check: sentMedia((v) => (v === "2.1.197" ? { media: 80, notes: 0 } : { media: 84, notes: 21 })),
        }),
      ],
    },
    // Eight images of 4,400,000 base64 characters (35.2 MB; each under the client's own 5 MB per image): under the
    // 75 MB cap, so the client sends them all and the API refuses the request (413). Both clients then heal it
    // themselves: the stored error (`errorDetails` "request_too_large: 413 …", for any 413, a gateway's too) makes every
    // later request leave out the media of the message it blames ("(media removed — rejected by API)"), so a plain
    // repair has nothing to do and the client goes on. Both answer a 413 by compacting unless DISABLE_COMPACT is set.
    "media-bytes-413": {
      enforce: true,
      loop: { enforce: true, withError: false, check: noChanges("the client heals after the 413 itself") },
      clientEnv: { DISABLE_COMPACT: "1" },
      project: MEDIA_PROJECT,
      about:
        "Read dot.png → text; resume → text; the stored result made 8 images of 4.4 MB base64 (35.2 MB, under the client's 75 MB media cap); resume → 413; plain repair (nothing to do); resume → 200 (the client leaves the result's images out)",
      steps: [
        readDot(),
        resumeSays("Say one.", "one"),
        resumeSays("Say two.", "two", { expect: 413, expectRule: "request_too_large", edit: manyImages(8, 4_400_000), check: sentMedia({ media: 8 }) }),
      ],
    },
    // Over the 75 MB cap: 18 images of 4,400,000 (79.2 MB). Both drop the 3 oldest (down to 10 MB under the cap) and
    // send 15 (66 MB), still over the API's 32 MB: 413, healed as in media-bytes-413.
    "media-over-cap-413": {
      enforce: true,
      loop: { enforce: true, withError: false, check: noChanges("the client heals after the 413 itself") },
      clientEnv: { DISABLE_COMPACT: "1" },
      project: MEDIA_PROJECT,
      about:
        "as media-bytes-413 with 18 images of 4.4 MB (79.2 MB, over the client's 75 MB cap: it sends 15, 66 MB); resume → 413; plain repair (nothing to do); resume → 200",
      steps: [
        readDot(),
        resumeSays("Say one.", "one"),
        resumeSays("Say two.", "two", { expect: 413, expectRule: "request_too_large", edit: manyImages(18, 4_400_000), check: sentMedia({ media: 15 }) }),
      ],
    },
    // The client's healing, kept small enough for a fixture: the mock's byte limit lowered to 125,000 (the requests
    // are ~89,000 bytes on 2.1.332, ~117,000 on 2.1.197), the stored result made 5 images of 8,000 characters;
    // resume → 413; resume again → 200,
    // the result's images left out ("(media removed — rejected by API)"). recover's view is that request.
    "media-413-healed": {
      ...VIEW_LOOP,
      loop: { withError: false, check: noChanges("the client heals after the 413 itself") },
      enforcerOptions: { maxBytes: 125_000 },
      clientEnv: { DISABLE_COMPACT: "1" },
      project: MEDIA_PROJECT,
      about:
        "Read dot.png → text; resume → text; the stored result made 5 images of 8,000 characters; resume → 413 (the mock's limit lowered to 125,000 bytes); resume → 200 without them",
      steps: [
        readDot(),
        resumeSays("Say one.", "one"),
        resumeSays("Say two.", "two", { expect: 413, expectRule: "request_too_large", edit: manyImages(5, 8_000), check: sentMedia({ media: 5 }) }),
        resumeSays("Say three.", "three", { expect: 200, check: sentMedia({ media: 0 }) }),
      ],
    },
    // The same on Anthropic's own API (the mock stands for it): 2.1.332 caps media at 24 MB there and drops the oldest
    // down to 14 MB; the request fits, and recover must not act on a session the client sends.
    "media-bytes-first-party": {
      enforce: true,
      versions: ["2.1.332"],
      clientEnv: FIRST_PARTY,
      loop: { enforce: true, withError: false, check: noChanges("the client sends within its own media budget") },
      project: MEDIA_PROJECT,
      about:
        "as media-bytes-413 on Anthropic's own API (_CLAUDE_CODE_ASSUME_FIRST_PARTY_BASE_URL=1): 2.1.332 caps media at 25,165,824 bytes and drops the 3 oldest; resume → 200",
      steps: [readDot(), resumeSays("Say two.", "two", { expect: 200, edit: manyImages(8, 4_400_000), check: sentMedia({ media: 5, notes: 3 }) })],
    },
  };
}

export const scenarios = {
  text: {
    fixture: "view",
    about: "plain text turn, then resume",
    steps: [says("Say hello.", "Hello! How can I help?"), resumeSays("Say it again.", "Hello again.")],
  },
  "claude-md": {
    fixture: "view",
    about: "CLAUDE.md in the project; first prompt, then resume",
    project: { "CLAUDE.md": "# Project rules\n\nAlways answer in one short sentence.\n", "notes.txt": "alpha\nbeta\n" },
    steps: [says("What are the project rules?", "Answer in one short sentence."), resumeSays("Thanks. Anything else?", "No.")],
  },
  "at-file": {
    fixture: "view",
    about: "@file mention in the first prompt (and a CLAUDE.md), then resume",
    project: { "CLAUDE.md": "# Project rules\n\nBe brief.\n", "notes.txt": "alpha\nbeta\ngamma\n" },
    steps: [says("Summarise @notes.txt please.", "Three Greek letters."), resumeSays("And the first one?", "alpha")],
  },
  "at-file-later": {
    fixture: "view",
    about: "@file mention in the second prompt (not the first), then resume",
    project: { "notes.txt": "alpha\nbeta\ngamma\n" },
    steps: [says("Say one.", "one"), resumeSays("Summarise @notes.txt please.", "Three Greek letters."), resumeSays("And the first one?", "alpha")],
  },
  "attachment-edited": {
    ...VIEW_LOOP,
    about: "CLAUDE.md + @file; stored attachments edited (rendered vs attachment payload, rendered removed), then resume",
    project: { "CLAUDE.md": "# Project rules\n\nBe brief.\n", "notes.txt": "alpha\nbeta\ngamma\n" },
    steps: [
      says("Summarise @notes.txt please.", "Three Greek letters."),
      resumeSays("And the first one?", "alpha", {
        edit: (ctx) =>
          withRecords(ctx.session.file, (recs) => {
            const done = [];
            for (const r of recs) {
              const a = r.type === "attachment" ? r.attachment : null;
              if (a?.type === "instructions") {
                a.files[0].content = "ATTACHMENT-PAYLOAD-EDIT";
                r.rendered = [{ content: "<system-reminder>\nRENDERED-EDIT of the instructions attachment\n</system-reminder>" }];
                done.push("instructions: attachment.files[0].content and rendered[0].content both replaced by different markers");
              } else if (a?.type === "date") {
                a.date = "2000-01-01";
                delete r.rendered;
                done.push("date: attachment.date set to 2000-01-01 and rendered deleted");
              } else if (a?.type === "file") {
                a.content.file.content = "PAYLOAD-EDIT-1\nPAYLOAD-EDIT-2\n";
                delete r.rendered;
                delete r.renderedRole;
                done.push("file: file content set to PAYLOAD-EDIT lines, rendered and renderedRole deleted");
              } else if (a?.type === "environment") {
                delete r.renderedRole;
                done.push("environment: renderedRole deleted (rendered kept)");
              } else if (a?.type === "model") {
                r.renderedRole = "user";
                done.push('model: renderedRole changed "system" -> "user"');
              }
            }
            return done.join("; ");
          }),
      }),
    ],
  },
  thinking: {
    fixture: "view",
    about: "two turns answered with signed thinking + text, then resume (are earlier thinking blocks sent?)",
    steps: [
      { prompt: "Think, then say one.", replies: [reply([thinking("First I think about one.", SIG(1)), text("one")])] },
      { prompt: "Think, then say two.", resume: true, replies: [reply([thinking("Now I think about two.", SIG(2)), text("two")])] },
      resumeSays("Say three.", "three"),
    ],
  },
  "thinking-edited": {
    ...VIEW_LOOP,
    // Both versions retry the refused resume without thinking and are accepted: the user is shown no error to give
    // recover (with it, recover calls it stale and exits 1: docs/research/claude-code-repair-loop.md).
    loop: { withError: false },
    about: "signed thinking + text; the stored thinking text is edited (signature kept), then resume",
    steps: [
      { prompt: "Think, then say one.", replies: [reply([thinking("Original thought.", SIG(1)), text("one")])] },
      resumeSays("Say two.", "two", {
        edit(ctx) {
          const n = editBlocks(
            ctx.session.file,
            (b) => b.type === "thinking",
            (b) => {
              b.thinking = "EDITED thought (not what the model wrote).";
            },
          );
          return `thinking text of ${n} block(s) replaced by "EDITED thought (not what the model wrote)."; signature kept`;
        },
      }),
    ],
  },
  "thinking-empty": {
    ...VIEW_LOOP,
    about: "two turns with signed thinking; one stored thinking text made empty, the other whitespace; then resume",
    steps: [
      { prompt: "Think, then say one.", replies: [reply([thinking("Thought one.", SIG(1)), text("one")])] },
      { prompt: "Think, then say two.", resume: true, replies: [reply([thinking("Thought two.", SIG(2)), text("two")])] },
      resumeSays("Say three.", "three", {
        edit(ctx) {
          let k = 0;
          editBlocks(
            ctx.session.file,
            (b) => b.type === "thinking",
            (b) => {
              b.thinking = k++ === 0 ? "" : "  \n ";
            },
          );
          return `first thinking block's text set to "", second's to "  \\n " (signatures kept)`;
        },
      }),
    ],
  },
  // Issue 40, row 16: a reply whose text damage emptied is left with thinking only. Both checked clients leave such a
  // message out whole (docs/research/claude-code-request.md §E, claude-code-prefix-thinking.md finding 1), so the API
  // accepts the resume and recover must find no error there (it used to call it `trailing-thinking`).
  "thinking-text-emptied": {
    ...VIEW_LOOP,
    loop: {
      withError: false,
      check: (_ctx, v) => (v.plan?.changes ? [`recover planned ${v.plan.changes} change(s) on a session the client sends as it is`] : []),
    },
    about: 'two turns of signed thinking + text; turn one\'s stored text emptied (""), leaving its reply thinking only; resume → 200; recover plans nothing',
    steps: [
      { prompt: "Think, then say one.", replies: [reply([thinking("Thought one.", SIG(1)), text("one")])] },
      { prompt: "Think, then say two.", resume: true, replies: [reply([thinking("Thought two.", SIG(2)), text("two")])] },
      resumeSays("Say three.", "three", {
        expect: 200,
        edit(ctx) {
          const n = editBlocks(
            ctx.session.file,
            (b, r) => r.type === "assistant" && b.type === "text" && b.text === "one",
            (b) => {
              b.text = "";
            },
          );
          return `turn one's assistant text "one" (${n} block) set to "" (its thinking kept)`;
        },
      }),
    ],
  },
  // Issue 40, row 3: a lone UTF-16 surrogate inside a stored tool call's input (anthropics/claude-code#68325: `The
  // request body is not valid JSON: no low surrogate in string`). The enforcing mock refuses a body holding one
  // (messages-rules.mjs body_not_json); what the client makes of it before it sends is what this measures.
  // Measured: 2.1.197 and 2.1.332 send it as U+FFFD and are accepted; recover reports a warning and changes nothing.
  "tool-input-surrogate": {
    ...VIEW_LOOP,
    loop: {
      withError: false,
      check: (_ctx, v) => (v.plan?.changes ? [`recover planned ${v.plan.changes} change(s); the client mends the surrogate itself`] : []),
    },
    about: "text + tool_use (Bash echo hi) → result → text; the stored call's command gets a lone high surrogate; resume → 200 (sent as U+FFFD)",
    steps: [
      echoTurn(),
      resumeSays("Say two.", "two", {
        expect: 200,
        edit(ctx) {
          const n = editBlocks(
            ctx.session.file,
            (b, r) => r.type === "assistant" && b.type === "tool_use",
            (b) => {
              b.input.command = `${b.input.command} \ud83d`;
            },
          );
          return `the stored tool_use input's command of ${n} call(s) ends in a lone high surrogate (\\ud83d)`;
        },
      }),
    ],
  },
  // Issue 40, row 2: `diagnostics.previous_message_id` (anthropics/claude-code#96033, #58427). 2.1.332 sends it on
  // Anthropic's own API (its cache diagnosis); the mock stands for that API with _CLAUDE_CODE_ASSUME_FIRST_PARTY_BASE_URL.
  // The id is the last assistant entry's `message.id` that is no API error and came with a `requestId` (or, without one,
  // is a non-synthetic `msg_…`): docs/research/claude-code-previous-message-id.md. 2.1.197 gates it behind a remote
  // feature flag, off offline: these run on 2.1.332 only.
  "previous-id-api-error-tail": {
    ...VIEW_LOOP,
    versions: ["2.1.332"],
    clientEnv: FIRST_PARTY,
    loop: { withError: false, check: (_ctx, v) => (v.plan?.changes ? [`recover planned ${v.plan.changes} change(s) on a session the API accepts`] : []) },
    about:
      "the issue's shape, written by the client itself: a turn, then a resume the API refuses (the client stores its own isApiErrorMessage entry at the tail); resume → 200 (the client names the last real reply, not the error entry)",
    steps: [
      says("Say one.", "one"),
      // Every try of this step refused (the client retries a 400 once by itself): it then stores its own API error entry.
      {
        prompt: "Say two.",
        resume: true,
        expect: 400,
        replies: Array.from({ length: 6 }, () => httpError(400, "invalid_request_error", "mock: this step's requests are refused")),
      },
      resumeSays("Say three.", "three", { expect: 200, check: previousIdIs(/^msg_/) }),
    ],
  },
  "previous-id-foreign": {
    ...VIEW_LOOP,
    versions: ["2.1.332"],
    clientEnv: FIRST_PARTY,
    about:
      "two turns; the last reply's stored message.id made a gateway's (`gen-…`, requestId kept), as a session answered through a non-Anthropic proxy holds it; resume on Anthropic's API → 400 diagnostics.previous_message_id",
    steps: [
      says("Say one.", "one"),
      resumeSays("Say two.", "two"),
      refused("Say three.", "previous_message_id", {
        edit({ session: { file } }) {
          const n = withRecords(file, (recs) => {
            let k = 0;
            for (const r of recs)
              if (r.type === "assistant" && r.message?.id !== undefined && r.message.content?.some((b) => b.type === "text" && b.text === "two")) {
                r.message.id = "gen-1764230000-AbCdEfGhIjKlMnOp";
                k++;
              }
            return k;
          });
          return `the stored message.id of turn two's reply (${n} line) := "gen-1764230000-AbCdEfGhIjKlMnOp" (requestId kept)`;
        },
      }),
    ],
  },
  // Issue 40, row 1: a stored tool search result naming a tool that is gone (anthropics/claude-code#79970: the
  // transient WaitForMcpServers). The tool search turn is planted (offline there is no MCP server to search), in the
  // shape 2.1.332 writes a ToolSearch result: `content: [{type: "tool_reference", tool_name}]`. The enforcing mock
  // refuses a reference to a tool the request does not list (tool_reference_unknown).
  // Measured: 2.1.197 and 2.1.332 replace it with "[Tool references removed - tools no longer available]" and are
  // accepted; recover finds nothing to repair (docs/research/claude-code-tool-reference.md).
  "tool-reference-gone": {
    ...VIEW_LOOP,
    loop: {
      withError: false,
      check: (_ctx, v) => (v.plan?.changes ? [`recover planned ${v.plan.changes} change(s); the client mends the reference itself`] : []),
    },
    clientEnv: { ...FIRST_PARTY, ENABLE_TOOL_SEARCH: "true" },
    about:
      "a turn; then a planted ToolSearch call whose stored result references WaitForMcpServers (not a tool of the resume), and a reply; resume → 200 (the client drops the reference)",
    steps: [
      says("Say one.", "one"),
      resumeSays("Say two.", "two", {
        expect: 200,
        edit({ session: { file } }) {
          const last = lastOf(file, isAssistantText("one"));
          const id = "toolu_mock_search_01";
          insertAfter(file, last.uuid, [
            (e) => ({
              ...e,
              type: "assistant",
              requestId: last.requestId,
              message: {
                ...last.message,
                id: "msg_mock_planted_search",
                content: [{ type: "tool_use", id, name: "ToolSearch", input: { query: "select:WaitForMcpServers", max_results: 5 } }],
                stop_reason: "tool_use",
              },
            }),
            (e) => ({
              ...e,
              type: "user",
              message: {
                role: "user",
                content: [{ type: "tool_result", tool_use_id: id, content: [{ type: "tool_reference", tool_name: "WaitForMcpServers" }] }],
              },
            }),
            (e) => ({
              ...e,
              type: "assistant",
              requestId: last.requestId,
              message: { ...last.message, id: "msg_mock_planted_after", content: [{ type: "text", text: "It is loaded." }] },
            }),
          ]);
          return "after turn one's reply: a ToolSearch call, its result [tool_reference WaitForMcpServers], and a reply";
        },
      }),
    ],
  },
  // Issue 40, row 16's audit: a tool result whose call is gone (its assistant line removed, the chain relinked).
  // Measured: 2.1.197 and 2.1.332 send a user message "(no content)" in its place and are accepted; recover warns
  // and changes nothing (dropping it would change what the client sends).
  "orphan-result": {
    ...VIEW_LOOP,
    loop: {
      withError: false,
      check: (_ctx, v) => (v.plan?.changes ? [`recover planned ${v.plan.changes} change(s); the client mends the orphan itself`] : []),
    },
    about: 'text + tool_use (Bash) → result → text; the stored call\'s line removed (the result kept, relinked); resume → 200 (sent as "(no content)")',
    steps: [
      echoTurn(),
      resumeSays("Say two.", "two", {
        edit({ session: { file } }) {
          const n = deleteRecords(file, (r) => r.type === "assistant" && r.message?.content?.some((b) => b.type === "tool_use"));
          return `the assistant line(s) holding the tool_use removed (${n}); its tool_result line kept, re-parented`;
        },
      }),
    ],
  },
  // Issue 40, row 16's audit (docs/research/severity-audit.md): four shapes recover judges as errors on Claude Code,
  // planted in sessions the client wrote, to see what the client really sends for them. The enforcing mock does not
  // model these four API rules (test/provider/mock-rules-agree.test.ts: NOT_MODELLED); the captured request is judged
  // by recover's validator (src/provider/validate-anthropic.ts) in the doc.
  "duplicate-thinking": {
    fixture: "view",
    enforce: true,
    about: "two turns of signed thinking + text; each reply's thinking line stored twice (a copy with its own uuid, same message.id); resume",
    steps: [
      { prompt: "Think, then say one.", replies: [reply([thinking("Thought one.", SIG(1)), text("one")])] },
      { prompt: "Think, then say two.", resume: true, replies: [reply([thinking("Thought two.", SIG(2)), text("two")])] },
      resumeSays("Say three.", "three", {
        edit({ session: { file } }) {
          const copies = withRecords(file, (recs) => {
            let n = 0;
            for (let i = recs.length - 1; i >= 0; i--) {
              const r = recs[i];
              if (r.type !== "assistant" || r.message?.content?.[0]?.type !== "thinking") continue;
              const uuid = `00000000-0000-4000-8000-0000000000d${++n}`;
              for (const c of recs) if (c.parentUuid === r.uuid) c.parentUuid = uuid;
              recs.splice(i + 1, 0, { ...r, parentUuid: r.uuid, uuid });
            }
            return n;
          });
          return `each of the ${copies} thinking lines followed by a copy of itself (same message.id, signature and text; its own uuid), the chain relinked through it`;
        },
      }),
    ],
  },
  "thinking-block-order": {
    fixture: "view",
    enforce: true,
    about: "two turns of signed thinking + text; each reply's thinking line gets a text block before its thinking (text, thinking in one line); resume",
    steps: [
      { prompt: "Think, then say one.", replies: [reply([thinking("Thought one.", SIG(1)), text("one")])] },
      { prompt: "Think, then say two.", resume: true, replies: [reply([thinking("Thought two.", SIG(2)), text("two")])] },
      resumeSays("Say three.", "three", {
        edit({ session: { file } }) {
          const n = withRecords(file, (recs) => {
            let k = 0;
            for (const r of recs)
              if (r.type === "assistant" && r.message?.content?.[0]?.type === "thinking") {
                r.message.content = [{ type: "text", text: `PLANTED text before thinking ${++k}.` }, ...r.message.content];
              }
            return k;
          });
          return `${n} thinking line(s): a text block put before the thinking block in the same line`;
        },
      }),
    ],
  },
  // Measured: 2.1.197 and 2.1.332 leave the later call out of every request (its result's message goes as "(no
  // content)") and are accepted; recover warns and changes nothing (a fresh id would put the call back).
  "duplicate-call-id": {
    ...VIEW_LOOP,
    loop: {
      withError: false,
      check: (_ctx, v) => (v.plan?.changes ? [`recover planned ${v.plan.changes} change(s); the client leaves the repeated call out itself`] : []),
    },
    about: "two tool turns whose Bash calls the API gave the same id (toolu_mock_bash_01), each answered; resume → 200 (the later call left out)",
    steps: [
      echoTurn(),
      { prompt: "Run `echo hi` with Bash again.", resume: true, replies: [reply([text("Running again."), echoHi()]), reply([text("Done again: hi.")])] },
      resumeSays("Say three.", "three"),
    ],
  },
  // 2.1.277 and later send the reply first and are refused (`first message must use the "user" role`): a repair loop
  // there. 2.1.197 leads with its own context message and is accepted (captured with --version 2.1.197 as
  // leading-assistant-197; not a loop of the suite).
  "leading-assistant": {
    ...VIEW_LOOP,
    versions: ["2.1.332"],
    about: "three turns; every line before the first reply removed (the first prompt and its attachments: the chain begins with the reply); resume",
    steps: threeTurns({
      edit({ session: { file } }) {
        const recs = readRecords(file);
        const before = new Set(
          recs
            .slice(
              0,
              recs.findIndex((r) => r.type === "assistant"),
            )
            .flatMap((r) => (r.uuid ? [r.uuid] : [])),
        );
        const n = deleteRecords(file, (r) => before.has(r.uuid));
        return `the ${n} chain lines before the first reply removed (the prompt "Say one." and its attachments); the reply re-parented to null`;
      },
    }),
  },
  "thinking-tool": {
    fixture: "view",
    about: "signed thinking + tool_use (Bash), tool result, then thinking + text; then resume",
    steps: [
      {
        prompt: "Think, run `echo hi` with Bash, then tell me the output.",
        replies: [
          reply([thinking("I should run echo.", SIG(1)), text("Running it."), echoHi()]),
          reply([thinking("The output was hi.", SIG(2)), text("It printed hi.")]),
        ],
      },
      resumeSays("Thanks.", "You're welcome."),
    ],
  },
  "tool-bash": {
    fixture: "view",
    about: "text + tool_use (Bash echo hi) in one response, the result, a final text; then resume",
    steps: [
      {
        prompt: "Run `echo hi` with Bash and tell me the output.",
        replies: [reply([text("I'll run it."), echoHi()]), reply([text("The output is hi.")])],
      },
      resumeSays("Thanks.", "You're welcome."),
    ],
  },
  "tool-parallel": {
    fixture: "view",
    about: "two tool_use blocks in one response (Read + Bash), both results, final text; then resume",
    project: { "notes.txt": "alpha\nbeta\n" },
    steps: [
      {
        prompt: "Read notes.txt and run `echo hi`, both at once.",
        replies: [
          reply([
            text("Doing both."),
            toolUse("toolu_mock_read_01", "Read", { file_path: "/tmp/cc-capture/project/notes.txt" }),
            bash("toolu_mock_bash_02", "echo hi", "Print hi"),
          ]),
          reply([text("notes.txt has alpha and beta; echo printed hi.")]),
        ],
      },
      resumeSays("Thanks.", "You're welcome."),
    ],
  },
  // Issue 40 row 15: parallel calls that finish out of order. The first call (a slow command) finishes last, so the
  // chain from the leaf runs through its result and its call line only: the response's later call lines and every
  // other result sit on a branch beside the chain. The client puts them back (docs/research/claude-code-request.md
  // §C); recover's view must too. Its own folder: another helper may run the default one.
  "tool-parallel-order": {
    fixture: "view",
    work: "/tmp/cc-capture-par",
    about: "four Bash calls in one response, the first one slowest: results written out of order, three call lines and their results beside the chain; resume",
    project: PARALLEL_FILES,
    steps: [parallelTurn(), resumeSays("Thanks.", "You're welcome.")],
  },
  "empty-text": {
    ...VIEW_LOOP,
    about: 'assistant text blocks edited to "" and whitespace in the stored transcript, then resume',
    steps: [
      echoTurn(),
      resumeSays("Say two.", "two", {
        edit(ctx) {
          let k = 0;
          editBlocks(
            ctx.session.file,
            (b, r) => r.type === "assistant" && b.type === "text",
            (b) => {
              b.text = k++ === 0 ? "" : " \n\t ";
            },
          );
          return `first stored assistant text block ("Running.") set to "", second ("Done: hi.") to " \\n\\t "`;
        },
      }),
    ],
  },
  "empty-text-2": {
    ...VIEW_LOOP,
    about: 'two tool turns; stored texts edited: whitespace before a tool_use, "" as a turn\'s only text; two resumes (captured: the first)',
    captureStep: 3,
    steps: [
      echoTurn(),
      {
        prompt: "Again, with `echo ho`.",
        resume: true,
        replies: [reply([text("Running again."), bash("toolu_mock_bash_02", "echo ho", "Print ho")]), reply([text("Done: ho.")])],
      },
      resumeSays("Say two.", "two", {
        edit(ctx) {
          const map = { "Running.": " \n\t ", "Done: hi.": "", "Running again.": "kept", "Done: ho.": "  " };
          editBlocks(
            ctx.session.file,
            (b, r) => r.type === "assistant" && b.type === "text" && b.text in map,
            (b) => {
              b.text = map[b.text];
            },
          );
          return 'stored assistant texts: "Running." -> " \\n\\t " (before a tool_use), "Done: hi." -> "" (a response\'s only block, mid-conversation), "Running again." -> "kept", "Done: ho." -> "  " (the last assistant message)';
        },
      }),
      resumeSays("Say three.", "three"),
    ],
  },
  "merge-rules": {
    ...VIEW_LOOP,
    about: "planted: user text right after a tool_result line, an assistant line with another message.id after an assistant line; then resume",
    steps: [
      echoTurn(),
      resumeSays("Say two.", "two", {
        edit({ session: { file } }) {
          const tr = lastOf(file, (r) => r.type === "user" && Array.isArray(r.message?.content) && r.message.content[0]?.type === "tool_result");
          insertAfter(file, tr.uuid, [
            (e) => ({ ...e, type: "user", message: { role: "user", content: "PLANTED user text right after the tool_result line." } }),
          ]);
          const done = lastOf(file, isAssistantText("Done: hi."));
          const planted = (uuid, message) => (e) => ({ ...e, uuid, type: "assistant", message: { ...done.message, ...message } });
          insertAfter(file, done.uuid, [
            planted("00000000-0000-4000-8000-0000000000a2", {
              id: "msg_PLANTED_other_id",
              content: [{ type: "text", text: "PLANTED assistant line with another message.id." }],
            }),
            planted("00000000-0000-4000-8000-0000000000a3", { content: [{ type: "text", text: "PLANTED assistant line with the first message.id again." }] }),
          ]);
          return "a plain user text line inserted right after the tool_result line (before its attachments); after the last assistant line two assistant lines: one with message.id msg_PLANTED_other_id, then one with the original message.id again";
        },
      }),
    ],
  },
  "meta-records": {
    ...VIEW_LOOP,
    about: "non-message records planted on the chain (system local_command / api_error / informational, isMeta user, summary, progress); then resume",
    steps: threeTurns({
      edit({ session: { file } }) {
        const first = lastOf(file, isAssistantText("one"));
        const system = (subtype, content) => (e) => ({ ...e, type: "system", subtype, content, level: "info", isMeta: false });
        const user = (content, isMeta) => (e) => ({ ...e, type: "user", ...(isMeta ? { isMeta } : {}), message: { role: "user", content } });
        insertAfter(file, first.uuid, [
          system("local_command", "<command-name>/cost</command-name>\n<command-message>cost</command-message>\n<command-args></command-args>"),
          system("local_command", "<local-command-stdout>Total cost: $0.0001</local-command-stdout>"),
          user("<system-reminder>\nPLANTED isMeta user string content.\n</system-reminder>", true),
          user([{ type: "text", text: "PLANTED isMeta user array content." }], true),
          (e) => ({
            ...e,
            type: "system",
            subtype: "api_error",
            level: "error",
            error: { status: 529, message: "Overloaded" },
            retryInMs: 1000,
            retryAttempt: 1,
            maxRetries: 10,
            cause: {},
          }),
          system("informational", "PLANTED informational system record."),
          (e) => ({
            ...e,
            type: "progress",
            data: { type: "hook_progress", hookEvent: "PostToolUse", hookName: "PostToolUse:Bash", command: "true" },
            toolUseID: "toolu_none",
            parentToolUseID: "toolu_none",
          }),
          user("PLANTED ordinary user text between assistant turns."),
        ]);
        // A summary line, off the chain (no uuid links), at the top of the file.
        withRecords(file, (recs) => recs.unshift({ type: "summary", summary: "PLANTED summary line", leafUuid: first.uuid }));
        return "after the first assistant line, a chain of planted records was inserted (system local_command x2, isMeta user string, isMeta user array, system api_error, system informational, progress, plain user text), the next line re-parented to the last of them; a summary line prepended";
      },
    }),
  },
  "tool-bash-big": {
    about: "Bash prints 588,895 characters (`seq 1 100000`): what the client stores and sends for a big output; then resume",
    steps: [
      {
        prompt: "Run `seq 1 100000` with Bash.",
        replies: [reply([text("Running."), bash("toolu_mock_bash_01", "seq 1 100000", "Print numbers")]), reply([text("Done.")])],
      },
      resumeSays("Thanks.", "You're welcome."),
    ],
  },
  compact: {
    ...VIEW_LOOP,
    about: "a compact_boundary system record + isCompactSummary user record planted after turn two; then resume",
    steps: threeTurns({
      edit({ session: { file } }) {
        const a2 = lastOf(file, isAssistantText("two"));
        const { userType, cwd, sessionId, version, gitBranch, timestamp } = a2;
        const envelope = { isSidechain: false, userType, cwd, sessionId, version, gitBranch };
        withRecords(file, (recs) =>
          recs.push(
            {
              parentUuid: null,
              logicalParentUuid: a2.uuid,
              ...envelope,
              type: "system",
              subtype: "compact_boundary",
              content: "Conversation compacted",
              isMeta: false,
              timestamp,
              uuid: "00000000-0000-4000-8000-00000000c001",
              level: "info",
              compactMetadata: { trigger: "manual", preTokens: 1234 },
            },
            {
              parentUuid: "00000000-0000-4000-8000-00000000c001",
              ...envelope,
              type: "user",
              message: {
                role: "user",
                content:
                  "This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\nPLANTED SUMMARY: the user asked for one and two.",
              },
              isVisibleInTranscriptOnly: true,
              isCompactSummary: true,
              uuid: "00000000-0000-4000-8000-00000000c002",
              timestamp,
            },
          ),
        );
        return "appended a system compact_boundary (parentUuid null, logicalParentUuid = last assistant) and a user isCompactSummary record after it";
      },
    }),
  },
  // The client's own damage: killed (with everything it started) while its Bash call runs. 2.1.332 refuses a Bash
  // `sleep 60` before running it ("Blocked: standalone sleep 60", also `sleep 60 && …`), so the call waits otherwise.
  "killed-mid-tool": {
    loop: true,
    smoke: true,
    enforce: true,
    about: "text + a Bash call that waits 60 s; the client (and its children) SIGKILLed 3 s after the mock answered the call; then resume",
    steps: [
      {
        prompt: "Wait a minute with Bash.",
        replies: [reply([text("Sleeping."), bash("toolu_mock_sleep_01", WAIT_60, "Wait a minute")]), reply([text("Slept.")])],
        kill: { afterRequest: 1, afterMs: 3000 },
      },
      resumeSays("What happened?", "The command was interrupted."),
    ],
  },
  ...mediaScenarios(),
  ...repairScenarios(),
};

// ---------------------------------------------------------------------------------------------------------------
// Repair loops: `expect: 400` on the damaged resume (refused by `expectRule`), a recover step with that refusal's
// text (`withError: true`; `withError: false`: the plain repair, before the client ever sent the damage), a resume
// that must be accepted and printed.

function repairScenarios() {
  const loop = (s) => ({ enforce: true, ...s });
  // Set the thinking text of the stored thinking block with signature `sig` (all lines carrying it), keep the signature.
  const setThinking = (file, sig, to) =>
    editBlocks(
      file,
      (b, r) => r.type === "assistant" && b.type === "thinking" && b.signature === sig,
      (b) => {
        b.thinking = to;
      },
    );
  // `resume`: the recover step is `recover session resume <id>`, which reads the refusal the client stored itself.
  const emptyLoop = (atFile, resume = false) =>
    loop({
      about: atFile
        ? "as repair-thinking-empty, but the first prompt has an @file mention (one extra user message before it, so N is shifted by one)"
        : resume
          ? "as repair-thinking-empty, but recover is `session resume <id>`: the refusal is the one Claude Code stored (its API error entry), no --error given; then resume → 200"
          : "3 turns with signed thinking; turn two's stored thinking emptied; resume → 400; recover --error; resume → 200",
      project: atFile ? { "notes.txt": "alpha\nbeta\ngamma\n" } : undefined,
      steps: [
        {
          prompt: atFile ? "Think, then summarise @notes.txt in one word." : "Think, then say one.",
          replies: [reply([thinking("Thought one.", SIG(1)), text("one")])],
        },
        { prompt: "Think, then say two.", resume: true, replies: [reply([thinking("Thought two.", SIG(2)), text("two")])] },
        { prompt: "Think, then say three.", resume: true, replies: [reply([thinking("Thought three.", SIG(3)), text("three")])] },
        refused("Say four.", "thinking_empty", {
          edit: (ctx) =>
            `thinking text of turn two (signature ${SIG(2).slice(0, 12)}…, ${setThinking(ctx.session.file, SIG(2), "")} line(s)) set to ""; signature kept`,
        }),
        resume ? { recover: "resume" } : { recover: "repair", withError: true },
        resumeSays("Say five.", "five", { expect: 200 }),
      ],
    });
  return {
    "repair-thinking-modified": loop({
      about: "thinking + tool_use (Bash), result, thinking + text; latest turn's stored thinking edited; resume → 400; recover --error; resume → 200",
      steps: [
        {
          prompt: "Think, run `echo hi` with Bash, then tell me the output.",
          replies: [reply([thinking("I should run echo.", SIG(1)), echoHi()]), reply([thinking("The output was hi.", SIG(2)), text("It printed hi.")])],
        },
        refused("Thanks. Anything else?", "thinking_modified", {
          edit: (ctx) =>
            `thinking text of the latest assistant turn (signature ${SIG(2).slice(0, 12)}…, ${setThinking(ctx.session.file, SIG(2), "EDITED thought (not what the model wrote).")} line(s)) set to "EDITED thought (not what the model wrote)."; signature kept`,
        }),
        // The client retried without thinking and was accepted, so the error names a message that is no longer the
        // latest: recover calls it stale, changes nothing and exits 1 (docs/research/claude-code-repair-loop.md).
        { recover: "repair", withError: true, expectExit: 1 },
        resumeSays("Are you back?", "Yes, back.", { expect: 200 }),
      ],
    }),
    "repair-thinking-empty": emptyLoop(false),
    "repair-thinking-empty-at-file": emptyLoop(true),
    "resume-thinking-empty": emptyLoop(false, true),
    // Issue 40 row 13: a session too long for its window whose last turn alone is too long as well: the client answers
    // the 400 by compacting, the compaction's own request is refused too and cannot be cut below the window (the
    // overflow is in the turn it keeps), so it fails (`Compaction failed · conversation could not be reduced below the
    // context limit`, stored as a local command's stderr), and every resume does the same: the session is frozen
    // until it is trimmed. docs/research/claude-code-compaction.md.
    // Frozen with 2.1.197: its compaction succeeds but keeps the last turn verbatim (preservedSegment), so what it
    // sends after the summary is still too long, and every resume compacts and is refused again. 2.1.332 recovers by
    // itself (it leaves the huge output out of what it keeps), so the loop runs on 2.1.197. Its window is that of
    // repair-prefix-trim-sonnet45 (2.1.197 sends ~27,000 tokens of system prompt and tools on this model).
    "repair-compact-failed": {
      enforce: true,
      work: "/tmp/cc-capture-compact-failed",
      fixture: "loop",
      fixtureDir: "compact-failed",
      contextLimit: 46_000,
      versions: ["2.1.197"],
      about:
        "2.1.197: three turns, the last running `echo ho`; its output made 200,000 characters; resume → 400, the client compacts keeping that turn, 400 again (Prompt is too long); the same after a restart; recover context trim --error --keep-steps 0; resume → 200",
      steps: [
        echoTurn(),
        resumeSays("Say two.", "two"),
        {
          prompt: "Run `echo ho` with Bash.",
          resume: true,
          replies: [reply([text("Running it."), bash("toolu_mock_bash_02", "echo ho", "Print ho")]), reply([text("It printed ho.")])],
        },
        refused("Say four.", "prompt_too_long", {
          edit({ session }) {
            const output = bigOutput(Math.ceil(200_000 / 12));
            let n = 0;
            withRecords(session.file, (recs) => {
              for (const b of recs.filter(isResultOf("toolu_mock_bash_02")).flatMap((r) => r.message.content))
                if (b.tool_use_id === "toolu_mock_bash_02") {
                  b.content = output;
                  n++;
                }
            });
            return `the tool_result of toolu_mock_bash_02, in the last turn (${n} line), set to ${output.length} characters (seq-like lines)`;
          },
          check: (_ctx, r) =>
            /Prompt is too long|Compaction failed|Conversation too long/.test(r.stdout + r.stderr)
              ? []
              : [`the client did not give up: ${(r.stdout + r.stderr).slice(0, 300)}`],
        }),
        // A restart changes nothing: the same refusal, the same failed compaction.
        refused("Say four, again.", "prompt_too_long", {
          check: (_ctx, r) =>
            /Prompt is too long|Compaction failed|Conversation too long/.test(r.stdout + r.stderr) ? [] : ["the second resume was not refused as the first"],
        }),
        { recover: "trim", withError: true, args: ["--keep-steps", "0"] },
        resumeSays("Say five.", "five", { expect: 200 }),
      ],
    },
    // Issue 40 row 4: a subagent's transcript (<session>/subagents/agent-<id>.jsonl) is a session of its own: the
    // client sends it again when the main agent messages the subagent (SendMessage resumes it). Its Bash result is
    // lost (as a crash mid-tool leaves it); the resume of the subagent is refused; recover repairs the subagent's
    // transcript by its id (agent-<id>, as `session list` shows it under its session); messaged again, it answers. The
    // damage is an emptied thinking text (as thinking-empty), which the client sends: a lost tool result it would not
    // (it leaves the call out).
    "repair-subagent": {
      enforce: true,
      work: "/tmp/cc-capture-agent",
      fixture: "loop",
      fixtureDir: "subagent",
      about:
        "a foreground subagent thinks and runs Bash; its thinking text emptied in subagents/agent-<id>.jsonl; SendMessage resumes it → 400; recover session repair agent-<id> --error; SendMessage again → 200",
      steps: [
        { prompt: "Ask a subagent to run echo sub.", replies: Array.from({ length: 8 }, () => subagentRouter) },
        {
          prompt: "Ask the same subagent to say it again.",
          resume: true,
          expect: 400,
          expectRule: "thinking_empty",
          edit: (ctx) =>
            `the subagent's thinking text (${editBlocks(
              subagentFile(ctx),
              (b) => b.type === "thinking",
              (b) => {
                b.thinking = "";
              },
            )} block) set to ""; signature kept`,
          replies: Array.from({ length: 8 }, () => subagentRouter),
          // The subagent's transcript as recover finds it (the loop's fixture keeps the main session's only).
          check(ctx) {
            fs.copyFileSync(subagentFile(ctx), `${ctx.out}/${subagentId(ctx)}.before-recover.jsonl`);
            return [];
          },
        },
        { recover: "repair", withError: true, session: (ctx) => subagentId(ctx) },
        { prompt: "Ask the same subagent to say it once more.", resume: true, expect: 200, replies: Array.from({ length: 8 }, () => subagentRouter) },
      ],
    },
    // Issue 40 row 5: a second /compact in one process re-appends the history the first one summarized away, the
    // copies with their uuids (anthropics/claude-code#92089). 2.1.277 does it, 2.1.332 no longer does; the session is
    // written by 2.1.277 (several prompts to one process, as stream-json on stdin) and resumed by the suite's client.
    // docs/research/claude-code-compaction.md.
    "repair-compact-replay": compactReplay({
      fixture: "loop",
      about:
        "2.1.277: two turns, /compact, two turns, /compact, a turn, in one process (the second /compact re-appends the first turns with their uuids); recover session repair; resume → 200 with the latest compaction's summary first",
      steps: [compactTwice(), { recover: "repair", withError: false }, resumeAfterCompact()],
    }),
    // The report's second effect, built from its description (not reproduced offline: print mode writes the new
    // boundary, a root, right after the copies): the replay happens at the next prompt instead, which hangs from the
    // last copy, so the resumed history runs into the one from before the first compaction.
    "repair-compact-replay-misparent": compactReplay({
      fixture: "loop",
      about:
        "as repair-compact-replay, with the copies moved before the last prompt and that prompt parented to the last copy (the report's shape, built); recover session repair; resume → 200 with the latest compaction's summary first",
      steps: [compactTwice(), { recover: "repair", withError: false, edit: misparentAfterReplay }, resumeAfterCompact()],
    }),
    // Issue 40 row 15: the output that overflows is one of the results on the branch beside the chain (scenario
    // tool-parallel-order). Claude Code sends it; a view that misses it estimates a fraction of the refused request
    // and has nothing to trim. Fixtures in parallel/ (captured in /tmp/cc-capture-par2, the paths are in them).
    "repair-trim-parallel": loop({
      fixture: "loop",
      fixtureDir: "parallel",
      work: "/tmp/cc-capture-par2",
      about:
        "four parallel Bash calls, the first slowest (three results beside the chain); an off-chain result made 160,000 characters; resume → 400 prompt is too long; recover context trim --error; resume → 200",
      project: PARALLEL_FILES,
      // As repair-prefix-trim-sonnet45's: 2.1.197 sends ~27,000 tokens of system prompt and tools on this model.
      contextLimit: 46_000,
      clientEnv: { DISABLE_COMPACT: "1" },
      steps: [
        parallelTurn(),
        resumeSays("Say two.", "two"),
        resumeSays("Say three.", "three"),
        refused("Say four.", "prompt_too_long", {
          edit({ session }) {
            const output = bigOutput(Math.ceil(160_000 / 12));
            let parent = "";
            withRecords(session.file, (recs) => {
              for (const r of recs.filter(isResultOf("toolu_mock_bash_03")))
                for (const b of r.message.content)
                  if (b.tool_use_id === "toolu_mock_bash_03") {
                    b.content = output;
                    parent = r.parentUuid;
                  }
            });
            return `the tool_result of toolu_mock_bash_03 (a line beside the chain, child of call line ${parent}) set to ${output.length} characters (seq-like lines); toolUseResult left as the client wrote it`;
          },
        }),
        { recover: "trim", withError: true },
        resumeSays("Say five.", "five", { expect: 200 }),
      ],
    }),
    ...prefixScenarios(),
  };
}

// Prefix-bound thinking (issue 36): sessions on a model of recover's table whose replies carry several thinking blocks
// over several turns; the enforcing mock binds each to its prefix. One history, damaged in different places.

function prefixScenarios() {
  // The committed fixtures of these loops were captured in /tmp/cc-prefix-w1 (the paths are in them).
  const loop = (s) => ({ enforce: true, model: "claude-opus-5-5", fixtureDir: "prefix-thinking", work: "/tmp/cc-prefix-w1", ...s });
  // The loops whose fixtures are committed (prefix-thinking/<case>.jsonl + .expected.json).
  const kept = (s) => ({ ...s, fixture: "loop" });
  const thinkTwice = (what, n) =>
    reply([thinking(`First thought about ${what}.`, SIG(n + 1)), thinking(`Second thought about ${what}.`, SIG(n + 2)), text(what)]);
  // Steps 1-3: 2 + 3 + 2 = 7 thinking blocks in 4 replies; step 2 runs `echo hi` with Bash.
  const build = [
    { prompt: "Think twice, then say one.", replies: [thinkTwice("one", 10)] },
    {
      prompt: "Think, run `echo hi` with Bash, then tell me the output.",
      resume: true,
      replies: [
        reply([thinking("I should run echo.", SIG(21)), text("Running it."), bash("toolu_mock_bash_01", "echo hi")]),
        reply([thinking("The output was hi.", SIG(22)), thinking("That is all it printed.", SIG(23)), text("It printed hi.")]),
      ],
    },
    { prompt: "Think twice, then say three.", resume: true, replies: [thinkTwice("three", 30)] },
  ];
  // Step 4 for the tail scenarios: a tool turn, interrupted before its result (2 more thinking blocks, 9 in all).
  const tailTurn = {
    prompt: "Think, run `echo ho` with Bash, then tell me the output.",
    resume: true,
    replies: [
      reply([thinking("I should run echo ho.", SIG(41)), bash("toolu_mock_bash_02", "echo ho")]),
      reply([thinking("The output was ho.", SIG(42)), text("It printed ho.")]),
    ],
  };
  const blankOne = ({ session }) => {
    const n = editBlocks(
      session.file,
      (b, r) => r.type === "assistant" && b.type === "text" && b.text === "one",
      (b) => {
        b.text = " \n ";
      },
    );
    return `turn one's assistant text "one" (${n} line) set to " \\n " (its two thinking blocks kept)`;
  };
  const blankPrompt = ({ session }) => {
    const isPrompt = (t) => typeof t === "string" && t.startsWith("Think, run `echo hi`");
    const n = editBlocks(
      session.file,
      (b, r) => r.type === "user" && b.type === "text" && isPrompt(b.text),
      (b) => {
        b.text = "  ";
      },
    );
    const m = withRecords(session.file, (recs) =>
      recs.filter((r) => r.type === "user" && isPrompt(r.message?.content)).map((r) => Object.assign(r.message, { content: "  " })),
    ).length;
    return `turn two's user prompt ("Think, run \`echo hi\`…"; ${n + m} line) set to "  "`;
  };
  // The result of a Bash call: its user line, gone (and, for a crash mid-tool, the reply after it).
  const dropResult =
    (id) =>
    ({ session }) =>
      `the tool_result line of ${id} removed (${deleteRecords(session.file, isResultOf(id))} line), its child re-parented`;
  const crashMidTool =
    (id, replyText) =>
    ({ session }) => {
      const recs = readRecords(session.file);
      const result = recs.find(isResultOf(id));
      const replyId = recs.find(isAssistantText(replyText))?.message.id;
      const n = deleteRecords(
        session.file,
        (r) => (result && (r.uuid === result.uuid || r.parentUuid === result.uuid)) || (replyId && r.type === "assistant" && r.message?.id === replyId),
      );
      // what is left after the tool_use: nothing on the chain (the session ends on the unanswered call)
      return `crash while ${id} ran: its tool_result line and the reply after it (${n} lines) removed; the session ends on the unanswered call`;
    };
  // An old tool output made oversized (a store edit: the client itself stores at most a preview, see below).
  const oversize =
    (id, output = bigOutput(10_000)) =>
    ({ session }) => {
      let n = 0;
      withRecords(session.file, (recs) => {
        for (const b of recs.filter(isResultOf(id)).flatMap((r) => r.message.content))
          if (b.type === "tool_result" && b.tool_use_id === id) {
            b.content = output;
            n++;
          }
      });
      return `the tool_result of ${id} (${n} line) set to ${output.length} characters (seq-like lines); toolUseResult left as the client wrote it`;
    };
  const five = resumeSays("Say five.", "five", { expect: 200 });
  const trimLoop = (about, { model = "claude-opus-5-5", compact = false, limit = TRIM_LIMIT, output } = {}) =>
    loop({
      about,
      model,
      contextLimit: limit,
      // Without DISABLE_COMPACT the client answers `prompt is too long` by compacting the session itself (scenario
      // repair-prefix-trim-autocompact); with it the session is dead until trimmed.
      ...(compact ? {} : { clientEnv: { DISABLE_COMPACT: "1" } }),
      steps: [...build, refused("Say four.", "prompt_too_long", { edit: oversize("toolu_mock_bash_01", output) }), { recover: "trim", withError: true }, five],
    });
  const trimTail = (about, recoverSteps) =>
    loop({
      about,
      contextLimit: TRIM_LIMIT,
      clientEnv: { DISABLE_COMPACT: "1" },
      steps: [
        ...build,
        {
          prompt: "Think, run `echo ho` with Bash, then tell me the output.",
          resume: true,
          replies: [
            reply([thinking("I should run echo ho.", SIG(41)), text("Running it."), bash("toolu_mock_bash_02", "echo ho")]),
            reply([text("It printed ho.")]),
          ],
        },
        refused("Say five.", "prompt_too_long", { edit: oversize("toolu_mock_bash_02") }),
        ...recoverSteps,
        resumeSays("Say six.", "six", { expect: 200 }),
      ],
    });
  const withError = (about, edit, { model, rule = "thinking_bound", more = [] } = {}) =>
    loop({
      about,
      ...(model ? { model } : {}),
      steps: [...build, ...more, refused("Say four.", rule, { edit }), { recover: "repair", withError: true }, five],
    });
  const plain = (about, edit, { model, more = [], args } = {}) =>
    loop({
      about,
      ...(model ? { model } : {}),
      steps: [...build, ...more, { recover: "repair", withError: false, edit, ...(args ? { args } : {}) }, five],
    });
  const interrupted = withError(
    "opus-5-5; turn two's Bash call loses its tool_result (later turns kept); resume → 400; recover --error; resume → 200",
    dropResult("toolu_mock_bash_01"),
  );
  // The transcript after that damage and the request the client sends for it (fixtures/claude-code-2.1/opus55-*):
  // the view of a current model, with the attachments rendered in the system role.
  const interruptedView = (about, work) => ({ ...interrupted, about, work, fixture: "view", captureStep: 4, steps: interrupted.steps.slice(0, 4) });
  return {
    "repair-prefix-blank-text": kept(
      withError("opus-5-5, 7 thinking blocks over 3 turns; turn one's text made whitespace; resume → 400; recover --error; resume → 200", blankOne),
    ),
    "repair-prefix-blank-text-plain": {
      ...plain("as repair-prefix-blank-text, but recover runs without --error before the client sends the damaged history", blankOne),
      // A control, not a repair that must pass: the damage is byte for byte a model's own thinking + blank text reply
      // (repair-prefix-blank-reply), so a plain repair rightly leaves it (docs/research/claude-code-prefix-thinking.md
      // finding 7); the client's own strip-all retry answers it, and --error repairs it (repair-prefix-blank-text).
      notInSuite:
        "a control: the damage reads as a model's own blank reply, which a plain repair must leave (finding 7 of docs/research/claude-code-prefix-thinking.md); the --error loop repair-prefix-blank-text repairs it",
    },
    "repair-prefix-blank-prompt": kept(
      withError("opus-5-5; turn two's user prompt made whitespace; resume → 400 (whitespace text); recover --error; resume → 200", blankPrompt, {
        rule: "text_blank",
      }),
    ),
    "repair-prefix-blank-prompt-plain": plain("as repair-prefix-blank-prompt, recover without --error before the client sends it", blankPrompt),
    "repair-prefix-interrupted": kept(interrupted),
    "repair-prefix-interrupted-plain": plain(
      "as repair-prefix-interrupted, recover without --error before the client sends the damaged history",
      dropResult("toolu_mock_bash_01"),
    ),
    "repair-prefix-interrupted-tail": plain(
      "opus-5-5; a 4th turn's Bash call interrupted (crash mid-tool: no result, no reply); recover without --error; resume → 200 with all 8 earlier thinking blocks",
      crashMidTool("toolu_mock_bash_02", "It printed ho."),
      { more: [tailTurn] },
    ),
    // recover leaves a last turn written in the last 10 minutes alone unless told (--include-live).
    "repair-prefix-interrupted-tail-live": kept(
      plain(
        "as repair-prefix-interrupted-tail, recover with --include-live (so that it judges the interrupted last turn)",
        crashMidTool("toolu_mock_bash_02", "It printed ho."),
        { more: [tailTurn], args: ["--include-live"] },
      ),
    ),
    "repair-prefix-interrupted-continued": loop({
      about:
        "opus-5-5; the 4th turn's Bash call interrupted (crash mid-tool), the client resumes on it (turn 5, 2 thinking blocks), then recover without --error; resume → 200",
      steps: [
        ...build,
        tailTurn,
        { prompt: "Think twice, then say five.", resume: true, edit: crashMidTool("toolu_mock_bash_02", "It printed ho."), replies: [thinkTwice("five", 50)] },
        { recover: "repair", withError: false },
        resumeSays("Say six.", "six", { expect: 200 }),
      ],
    }),
    // No 400 to give --error here: the client drops the blank text itself, and nothing binds the thinking.
    "repair-prefix-blank-text-sonnet45": plain("as repair-prefix-blank-text-plain on claude-sonnet-4-5 (no prefix binding): thinking is kept", blankOne, {
      model: "claude-sonnet-4-5",
    }),
    "repair-prefix-blank-prompt-sonnet45-plain": kept(
      plain("as repair-prefix-blank-prompt-plain on claude-sonnet-4-5 (no prefix binding): thinking is kept", blankPrompt, {
        model: "claude-sonnet-4-5",
      }),
    ),
    // Not damage: the model itself answered turn one with thinking and a whitespace-only text (it happens: "\n\n").
    // The client never sends that message (thinking-only once the blank text is gone), so every later block was
    // made without it; a repair has nothing to change in the request and no thinking to drop.
    "repair-prefix-blank-reply": kept(
      loop({
        about:
          "opus-5-5; turn one's reply is thinking x2 + a whitespace-only text (as the model sent it), then 2 more turns; recover without --error; resume → 200",
        steps: [
          {
            prompt: "Think twice, then say nothing.",
            replies: [reply([thinking("First thought about nothing.", SIG(11)), thinking("Second thought about nothing.", SIG(12)), text(" \n ")])],
          },
          ...build.slice(1),
          { recover: "repair", withError: false },
          five,
        ],
      }),
    ),
    // 2.1.331 and later drop a blank prompt themselves on claude-sonnet-4-5: nothing is refused there, so the loop with
    // the error runs on 2.1.197 (repair-prefix-blank-prompt-sonnet45-plain covers both).
    "repair-prefix-blank-prompt-sonnet45": {
      ...withError("as repair-prefix-blank-prompt on claude-sonnet-4-5 (no prefix binding): thinking is kept", blankPrompt, {
        model: "claude-sonnet-4-5",
        rule: "text_blank",
      }),
      versions: ["2.1.197"],
    },
    "opus55-interrupted": interruptedView(
      "repair-prefix-interrupted up to the refused resume: the transcript after the damage and the request the client sent",
      "/tmp/cc-capture-h3",
    ),
    "opus55-interrupted-197": {
      ...interruptedView("as opus55-interrupted, with 2.1.197 (its fixture's name says so)", "/tmp/cc-capture-h3b"),
      versions: ["2.1.197"],
    },
    // Context trim (issue 36): an old tool output over the window. Claude Code never stores a big Bash output itself
    // (over ~30,000 characters it saves the output to tool-results/<id>.txt and stores a 2 KB `<persisted-output>`
    // preview: scenario tool-bash-big), so the oversized output is a store edit: turn two's `hi` becomes 120,000
    // characters (the tool_result line's message content; its toolUseResult bookkeeping is left alone). The mock's
    // window (36,000 tokens of system + tools + messages) lets every building step through (~12,600 tokens with
    // 2.1.331, ~20,000 with 2.1.197) and refuses the resume (~43,000 / ~51,000).
    "repair-prefix-trim": kept(
      trimLoop("opus-5-5; turn two's Bash output made 120,000 characters; resume → 400 prompt is too long; recover context trim --error; resume → 200"),
    ),
    "repair-prefix-trim-autocompact": {
      ...trimLoop("as repair-prefix-trim without DISABLE_COMPACT: the client compacts the session itself on the 400 (run it with --skip-recover)", {
        compact: true,
      }),
      notInSuite: "a control run with --skip-recover: what the client does by itself (it compacts)",
    },
    // On claude-sonnet-4-5, 2.1.197 sends ~27,000 tokens of system + tools (2.1.331: ~9,700), which recover cannot see
    // (the mock stores no real usage to calibrate against): a larger window and output, so that the trim recover
    // plans from the messages alone also fits the mock's count.
    "repair-prefix-trim-sonnet45": trimLoop(
      "as repair-prefix-trim on claude-sonnet-4-5 (no prefix binding), window 46,000, output 240,000 characters: thinking is kept",
      { model: "claude-sonnet-4-5", limit: 46_000, output: bigOutput(20_000) },
    ),
    // The oversized output in the last turn, after every thinking block: turn four runs `echo ho` after its only
    // thinking block (D1) and answers with text alone. Its tool call and result are in the last 2 steps, which trim
    // keeps byte-identical by default: the first trim has nothing it may take and says what would fit (exit 1); the
    // second gives up the intact steps (--keep-steps 0) as that advice says.
    "repair-prefix-trim-tail": trimTail(
      "opus-5-5; a 4th turn [D1, Bash echo ho] → result → text; its output made 120,000 characters; resume → 400; context trim (exit 1: intact), then --keep-steps 0; resume → 200",
      [
        { recover: "trim", withError: true, expectExit: 1 },
        { recover: "trim", withError: true, args: ["--keep-steps", "0"] },
      ],
    ),
    // The advice of the first trim above, run directly.
    "repair-prefix-trim-tail-keep0": kept(
      trimTail("as repair-prefix-trim-tail, but only the trim with --keep-steps 0", [{ recover: "trim", withError: true, args: ["--keep-steps", "0"] }]),
    ),
  };
}
