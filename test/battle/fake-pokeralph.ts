// A stand-in for pokeralph's HTTP server (packages/server, Hono): `GET /api/battle/current` and
// `GET /api/repo/current` (and `POST /api/battle/start/<taskId>`, accepted), answering as pokeralph v0.2.0 does. Listens on 127.0.0.1 only, on a port the OS picks;
// every test stops it.
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeAnswer {
  /** pokeralph's in-memory battle (`getCurrentState()`), null when it runs none. */
  battle?: { taskId: string; iteration: number; status: string; mode: "hitl" | "yolo" } | null;
  /** What `/api/repo/current` reports as `workingDir`; undefined: the route is absent (404), as on older servers. */
  workingDir?: string;
  /** Answer every request with this status and a non-pokeralph body instead. */
  status?: number;
  /** Never answer (a wedged process). */
  hang?: boolean;
}

export interface FakePokeralph {
  url: string;
  port: number;
  requests: string[];
  set(answer: FakeAnswer): void;
  stop(): Promise<void>;
}

export async function startFakePokeralph(answer: FakeAnswer = {}): Promise<FakePokeralph> {
  let current = answer;
  const requests: string[] = [];
  const server = http.createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    if (current.hang) return; // the client's timeout ends it
    const send = (status: number, body: unknown, type = "application/json") => {
      response.writeHead(status, { "content-type": type });
      response.end(typeof body === "string" ? body : JSON.stringify(body));
    };
    if (current.status === 503) return send(503, { error: "Orchestrator not initialized. Server may still be starting.", code: "SERVICE_UNAVAILABLE" });
    if (current.status !== undefined) return send(current.status, "<html><body>Not Found</body></html>", "text/html");
    const start = request.method === "POST" ? /^\/api\/battle\/start\/([^/?]+)$/.exec(request.url ?? "") : null;
    if (start) return send(200, { success: true, message: "Battle started", taskId: decodeURIComponent(start[1]!) });
    if (request.url === "/api/battle/current") {
      const battle = current.battle ?? null;
      return send(200, {
        battle,
        isRunning: battle !== null && battle.status === "running",
        isPaused: false,
        isAwaitingApproval: battle?.status === "awaiting_approval",
      });
    }
    if (request.url === "/api/repo/current" && current.workingDir !== undefined) {
      return send(200, { workingDir: current.workingDir, initialized: true, config: null, prd: null, taskCount: 8, hasActiveBattle: current.battle != null });
    }
    send(404, { error: "Not Found", code: "NOT_FOUND" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    set: (next) => {
      current = next;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A localhost port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
