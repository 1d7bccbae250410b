// pokeralph's schemas: accept what pokeralph v0.2.0 accepts (the reference §1.8 example files verbatim), reject
// what its zod schemas reject, and always hand back the original object (unknown keys kept).
import fs from "node:fs";
import { exitCodeOf } from "../../../src/cli/exit-codes.js";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readFile, requireFile } from "../../../src/stores/pokeralph/read-file.js";
import { Battle, Config, IsoDatetime, Prd, Progress } from "../../../src/stores/pokeralph/schemas.js";
import { RecoverError } from "../../../src/errors.js";

const CONFIG = `{
  "maxIterationsPerTask": 8,
  "mode": "yolo",
  "feedbackLoops": ["test", "lint", "typecheck"],
  "timeoutMinutes": 20,
  "pollingIntervalMs": 2000,
  "autoCommit": true
}`;

const PRD = `{
  "name": "Invoice Service",
  "description": "HTTP service that issues and tracks invoices.",
  "createdAt": "2026-02-03T09:12:44.120Z",
  "updatedAt": "2026-02-04T14:51:02.310Z",
  "metadata": { "version": "1.0.0", "generatedBy": "claude-code" },
  "tasks": [
    {
      "id": "001-project-setup",
      "title": "Project setup with Bun workspaces",
      "description": "Create the workspace layout, tsconfig and test runner.",
      "status": "completed",
      "priority": 1,
      "acceptanceCriteria": ["bun test passes", "bun run typecheck passes"],
      "iterations": [],
      "createdAt": "2026-02-03T09:12:44.120Z",
      "updatedAt": "2026-02-03T10:02:17.905Z"
    },
    {
      "id": "002-auth-system",
      "title": "JWT authentication middleware",
      "description": "Protect /invoices routes with JWT bearer auth.",
      "status": "in_progress",
      "priority": 2,
      "acceptanceCriteria": ["401 without token", "200 with valid token", "tests cover expiry"],
      "iterations": [],
      "createdAt": "2026-02-03T09:12:44.120Z",
      "updatedAt": "2026-02-04T14:00:03.511Z"
    }
  ]
}`;

const HISTORY = `{
  "taskId": "002-auth-system",
  "status": "running",
  "startedAt": "2026-02-04T14:00:03.402Z",
  "iterations": [
    {
      "number": 1,
      "startedAt": "2026-02-04T14:00:03.530Z",
      "endedAt": "2026-02-04T14:11:48.077Z",
      "output": "Exploring src/ ... Added src/auth/jwt.ts ... committed.",
      "result": "success",
      "filesChanged": [".pokeralph/battles/002-auth-system/progress.json"],
      "feedbackResults": {
        "test": { "passed": true, "output": "12 pass, 0 fail", "duration": 2140 },
        "lint": { "passed": true, "output": "Checked 41 files", "duration": 388 },
        "typecheck": { "passed": true, "output": "", "duration": 1710 }
      }
    },
    {
      "number": 2,
      "startedAt": "2026-02-04T14:11:48.201Z",
      "endedAt": "2026-02-04T14:24:30.664Z",
      "output": "Set up JWT middleware on /invoices ...",
      "result": "success",
      "filesChanged": ["src/routes/invoices.ts", "src/auth/middleware.ts", "tests/auth.test.ts"],
      "commitHash": "9f2c41d7a0b6e3c58d1f04a2b7e9c6d3a1f08e52",
      "feedbackResults": {
        "test": { "passed": true, "output": "15 pass, 0 fail", "duration": 2380 },
        "lint": { "passed": true, "output": "Checked 43 files", "duration": 402 },
        "typecheck": { "passed": true, "output": "", "duration": 1695 }
      }
    },
    {
      "number": 3,
      "startedAt": "2026-02-04T14:24:30.790Z",
      "endedAt": "2026-02-04T14:38:12.015Z",
      "output": "Added token expiry handling ...",
      "result": "failure",
      "filesChanged": ["src/auth/middleware.ts", "src/auth/expiry.ts"],
      "feedbackResults": {
        "test": { "passed": true, "output": "17 pass, 0 fail", "duration": 2455 },
        "lint": { "passed": true, "output": "Checked 44 files", "duration": 410 },
        "typecheck": {
          "passed": false,
          "output": "src/auth/middleware.ts(23,5): error TS2322: Type 'string | undefined' is not assignable to type 'string'.",
          "duration": 1802
        }
      }
    }
  ]
}`;

const PROGRESS = `{
  "taskId": "002-auth-system",
  "currentIteration": 4,
  "status": "in_progress",
  "lastUpdate": "2026-02-04T14:41:57.300Z",
  "logs": ["Reading typecheck error", "Narrowing header type in middleware"],
  "lastOutput": "Editing src/auth/middleware.ts",
  "completionDetected": false,
  "error": null,
  "feedbackResults": {}
}`;

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

function file(content: string | Buffer): { root: string; path: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "recover-schema-"));
  dirs.push(root);
  const p = path.join(root, "f.json");
  fs.writeFileSync(p, content);
  return { root, path: p };
}

const json = (text: string) => JSON.parse(text) as Record<string, unknown>;

describe("the reference's example files", () => {
  it.each([
    ["config.json", Config, CONFIG],
    ["prd.json", Prd, PRD],
    ["history.json", Battle, HISTORY],
    ["progress.json", Progress, PROGRESS],
  ] as const)("%s is accepted", (_name, schema, text) => {
    const result = schema.safeParse(json(text));
    expect(result.error?.issues ?? []).toEqual([]);
  });
});

describe("what pokeralph accepts", () => {
  it("any number of fractional digits, none at all, and leap days", () => {
    for (const ts of ["2026-02-04T14:00:03Z", "2026-02-04T14:00:03.4020001Z", "2028-02-29T00:00:00.000Z"])
      expect(IsoDatetime.safeParse(ts).success, ts).toBe(true);
  });
  it("an empty feedbackLoops list and empty acceptance criteria (the spec wants them non-empty, the code does not)", () => {
    expect(Config.safeParse({ ...json(CONFIG), feedbackLoops: [] }).success).toBe(true);
    const prd = json(PRD) as { tasks: Record<string, unknown>[] };
    prd.tasks[0]!.acceptanceCriteria = [];
    expect(Prd.safeParse(prd).success).toBe(true);
  });
  it("the retry fields of the recovery code: result pending, retryCount", () => {
    const battle = json(HISTORY) as { iterations: Record<string, unknown>[] };
    battle.iterations.push({ number: 4, startedAt: "2026-02-04T15:00:00.000Z", output: "", result: "pending", filesChanged: [], retryCount: 1 });
    expect(Battle.safeParse(battle).success).toBe(true);
  });
  it("unknown keys (pokeralph's objects are not strict), and the loaded value is the original object with them", () => {
    const battle = { ...json(HISTORY), checkpoints: [], rolledBack: [{ number: 9 }] };
    const f = file(JSON.stringify(battle, null, 2));
    const loaded = readFile(f.root, f.path, Battle);
    expect(loaded.state).toBe("ok");
    expect(loaded.value).toEqual(battle);
    expect((loaded.value as unknown as Record<string, unknown>).rolledBack).toEqual([{ number: 9 }]);
  });
});

describe("what pokeralph rejects, reported with the field", () => {
  it.each([
    ["a timestamp with an offset", Battle, { ...json(HISTORY), startedAt: "2026-02-04T16:00:03+02:00" }, "startedAt"],
    ["a timestamp without seconds", Progress, { ...json(PROGRESS), lastUpdate: "2026-02-04T14:41Z" }, "lastUpdate"],
    ["a date that does not exist", Progress, { ...json(PROGRESS), lastUpdate: "2026-02-30T14:41:57.300Z" }, "lastUpdate"],
    ["an unknown battle status", Battle, { ...json(HISTORY), status: "crashed" }, "status"],
    ["maxIterationsPerTask above 100", Config, { ...json(CONFIG), maxIterationsPerTask: 101 }, "maxIterationsPerTask"],
    ["pollingIntervalMs below 500", Config, { ...json(CONFIG), pollingIntervalMs: 100 }, "pollingIntervalMs"],
    ["a negative currentIteration", Progress, { ...json(PROGRESS), currentIteration: -1 }, "currentIteration"],
    ["error missing from progress (null is required, not absent)", Progress, (({ error: _e, ...rest }) => rest)(json(PROGRESS)), "error"],
  ] as const)("%s", (_what, schema, value, field) => {
    const f = file(JSON.stringify(value));
    const loaded = readFile(f.root, f.path, schema);
    expect(loaded.state).toBe("invalid");
    expect(loaded.problem).toMatch(/^pokeralph would reject it: /);
    expect(loaded.problem).toContain(field);
    expect(loaded.raw).toEqual(value);
  });

  it("a task id that is not {NNN}-{slug}, naming the task's index", () => {
    const prd = json(PRD) as { tasks: Record<string, unknown>[] };
    prd.tasks[1]!.id = "auth-system";
    const f = file(JSON.stringify(prd));
    const loaded = readFile(f.root, f.path, Prd);
    expect(loaded.problem).toContain("tasks[1].id");
    expect(loaded.problem).toContain("{NNN}-{slug}");
  });

  it("an iteration result the loop never writes", () => {
    const battle = json(HISTORY) as { iterations: Record<string, unknown>[] };
    battle.iterations[2]!.result = "running";
    expect(Battle.safeParse(battle).success).toBe(false);
  });
});

describe("bytes that are not a JSON object", () => {
  it.each([
    ["empty", "", /empty/],
    ["torn mid-write", HISTORY.slice(0, 300), /ends early|torn/],
    ["not JSON", "taskId: 002", /does not parse/],
    ["an array", "[]", /an array/],
    ["zero-filled", Buffer.alloc(64), /all zero/],
  ] as const)("%s → unreadable", (_what, content, pattern) => {
    const f = file(content);
    const loaded = readFile(f.root, f.path, Battle);
    expect(loaded.state).toBe("unreadable");
    expect(loaded.problem).toMatch(pattern);
  });

  it("invalid UTF-8 that still parses is accepted (pokeralph decodes lossily) but flagged", () => {
    const [before, after] = PROGRESS.split("Editing");
    const text = Buffer.concat([Buffer.from(before!), Buffer.from([0xc3, 0x28]), Buffer.from(`Editing${after}`)]);
    const f = file(text);
    const loaded = readFile(f.root, f.path, Progress);
    expect(loaded.state).toBe("ok");
    expect(loaded.invalidUtf8?.offset).toBeGreaterThan(0);
  });

  it("a missing file is missing, not an error", () => {
    expect(readFile(os.tmpdir(), path.join(os.tmpdir(), "no-such-file-recover.json"), Battle).state).toBe("missing");
  });

  it("requireFile (for commands about to write) turns any problem into a one-line input error", () => {
    const f = file(HISTORY.slice(0, 100));
    let error: unknown;
    try {
      requireFile(f.root, f.path, Battle);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RecoverError);
    expect(exitCodeOf(error as RecoverError)).toBe(2);
    expect((error as RecoverError).message).toMatch(/^f\.json: /);
    expect((error as RecoverError).message).not.toContain("\n");
    const ok = file(HISTORY);
    expect(requireFile(ok.root, ok.path, Battle).taskId).toBe("002-auth-system");
  });
});
