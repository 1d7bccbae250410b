/**
 * Is a pokeralph server running this repository's battle? pokeralph keeps no PID file or on-disk "active
 * battle" marker (reference §1.2, §1.5): the only live evidence is its HTTP server, `GET /api/battle/current`
 * on `localhost:${PORT:-3456}` (`{battle: {taskId, iteration, status, mode} | null, isRunning, …}`), and
 * `GET /api/repo/current` (`{workingDir, …}`) to tell whether it serves this repository. Each request is bounded
 * by a short timeout so a status report never hangs on a dead port. `RECOVER_POKERALPH_URL` overrides the
 * address (tests, a server behind another host name).
 */
import http from "node:http";
import https from "node:https";
import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import { isObject } from "../model/edit.js";

export type ServerAnswer =
  /** Nothing answers, or what answers is not pokeralph. */
  | { kind: "absent"; url: string; detail: string }
  /** A pokeralph server answers but works on another repository. */
  | { kind: "other-repo"; url: string; workingDir: string }
  /** A pokeralph server for this repository; `current` is the battle it is running (null: none). */
  | { kind: "live"; url: string; current: { taskId: string; status?: string; iteration?: number } | null }
  /** pokeralph answers but could not say (still starting: 503), so nothing can be concluded either way. */
  | { kind: "unknown"; url: string; detail: string };

export type ServerProbe = (repoRoot: string) => Promise<ServerAnswer>;

export const DEFAULT_PROBE_TIMEOUT_MS = 300;

/** pokeralph's own address rule: `PORT` (default 3456) on localhost. */
export function pokeralphBaseUrl(env: NodeJS.ProcessEnv): string {
  const override = env.RECOVER_POKERALPH_URL?.trim();
  if (override) return override.replace(/\/+$/, "");
  return `http://localhost:${env.PORT?.trim() || "3456"}`;
}

export function httpProbe(options: { env: NodeJS.ProcessEnv; timeoutMs?: number }): ServerProbe {
  const base = pokeralphBaseUrl(options.env);
  const timeoutMs = options.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
  return async (repoRoot) => {
    const url = `${base}/api/battle/current`;
    const answer = await getJson(url, timeoutMs);
    if (answer.kind === "error") return { kind: "absent", url, detail: answer.detail };
    if (answer.status === 503) return { kind: "unknown", url, detail: "pokeralph answered 503 (still starting)" };
    const body = answer.body;
    if (answer.status !== 200 || !isObject(body) || !("battle" in body)) {
      return { kind: "absent", url, detail: `something answers there but it is not pokeralph (HTTP ${answer.status})` };
    }
    const repo = await getJson(`${base}/api/repo/current`, timeoutMs);
    if (repo.kind === "ok" && repo.status === 200 && isObject(repo.body) && typeof repo.body.workingDir === "string") {
      if (!samePath(repo.body.workingDir, repoRoot)) return { kind: "other-repo", url, workingDir: repo.body.workingDir };
    }
    // An older server without /api/repo/current: it answered for battles, so take it as ours.
    const battle = body.battle;
    const current =
      isObject(battle) && typeof battle.taskId === "string"
        ? {
            taskId: battle.taskId,
            ...(typeof battle.status === "string" ? { status: battle.status } : {}),
            ...(typeof battle.iteration === "number" ? { iteration: battle.iteration } : {}),
          }
        : null;
    return { kind: "live", url, current };
  };
}

type Fetched = { kind: "ok"; status: number; body: unknown } | { kind: "error"; detail: string };

const MAX_BODY = 8 * 1024 * 1024;

function getJson(url: string, timeoutMs: number): Promise<Fetched> {
  return new Promise((done) => {
    let settled = false;
    const finish = (result: Fetched) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      done(result);
    };
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      done({ kind: "error", detail: `not a URL: ${url}` });
      return;
    }
    const client = parsed.protocol === "https:" ? https : http;
    const request = client.get(parsed, { agent: false, headers: { accept: "application/json" } }, (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_BODY) finish({ kind: "error", detail: "answer too large" });
        else chunks.push(chunk);
      });
      response.on("end", () => {
        let body: unknown;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        } catch {
          body = undefined;
        }
        finish({ kind: "ok", status: response.statusCode ?? 0, body });
      });
      response.on("error", (error) => finish({ kind: "error", detail: error.message }));
    });
    request.on("error", (error: NodeJS.ErrnoException) =>
      finish({ kind: "error", detail: error.code === "ECONNREFUSED" ? "connection refused" : error.message }),
    );
    // One deadline for connect + answer: a half-open port must not hold the report.
    const timer = setTimeout(() => finish({ kind: "error", detail: `no answer within ${timeoutMs} ms` }), timeoutMs);
  });
}

function samePath(a: string, b: string): boolean {
  const real = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return resolve(p);
    }
  };
  return real(a) === real(b);
}
