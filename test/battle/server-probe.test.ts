// The liveness probe against a real (fake) pokeralph HTTP server on 127.0.0.1: what it concludes from each
// answer, and that a dead or wedged port costs at most the timeout.
import { afterEach, describe, expect, it } from "vitest";
import { httpProbe, pokeralphBaseUrl } from "../../src/battle/server-probe.js";
import { closedPort, startFakePokeralph, type FakePokeralph } from "./fake-pokeralph.js";

let fake: FakePokeralph | undefined;
afterEach(async () => {
  await fake?.stop();
  fake = undefined;
});

const REPO = "/home/dana/code/invoice-service";
const battle = { taskId: "002-auth-system", iteration: 4, status: "running", mode: "yolo" as const };

describe("pokeralphBaseUrl", () => {
  it("follows pokeralph: localhost, PORT, default 3456; RECOVER_POKERALPH_URL overrides", () => {
    expect(pokeralphBaseUrl({})).toBe("http://localhost:3456");
    expect(pokeralphBaseUrl({ PORT: "4000" })).toBe("http://localhost:4000");
    expect(pokeralphBaseUrl({ PORT: "4000", RECOVER_POKERALPH_URL: "http://127.0.0.1:5000/" })).toBe("http://127.0.0.1:5000");
  });
});

describe("httpProbe", () => {
  it("a server for this repository running the battle: live, with the battle it runs", async () => {
    fake = await startFakePokeralph({ battle, workingDir: REPO });
    const answer = await httpProbe({ env: { RECOVER_POKERALPH_URL: fake.url } })(REPO);
    expect(answer).toEqual({ kind: "live", url: `${fake.url}/api/battle/current`, current: { taskId: "002-auth-system", status: "running", iteration: 4 } });
    expect(fake.requests).toEqual(["GET /api/battle/current", "GET /api/repo/current"]);
  });

  it("reached through PORT on localhost, as pokeralph's own clients do", async () => {
    fake = await startFakePokeralph({ battle: null, workingDir: REPO });
    const answer = await httpProbe({ env: { PORT: String(fake.port) }, timeoutMs: 2000 })(REPO);
    expect(answer).toMatchObject({ kind: "live", current: null });
  });

  it("an older server without /api/repo/current is taken as this repository's", async () => {
    fake = await startFakePokeralph({ battle });
    expect(await httpProbe({ env: { RECOVER_POKERALPH_URL: fake.url } })(REPO)).toMatchObject({ kind: "live" });
  });

  it("a server working on another repository", async () => {
    fake = await startFakePokeralph({ battle, workingDir: "/home/dana/code/other" });
    expect(await httpProbe({ env: { RECOVER_POKERALPH_URL: fake.url } })(REPO)).toMatchObject({ kind: "other-repo", workingDir: "/home/dana/code/other" });
  });

  it("503 while pokeralph starts: unknown, not absent", async () => {
    fake = await startFakePokeralph({ status: 503 });
    expect(await httpProbe({ env: { RECOVER_POKERALPH_URL: fake.url } })(REPO)).toMatchObject({ kind: "unknown" });
  });

  it("something else on the port (an HTML 404) is not pokeralph", async () => {
    fake = await startFakePokeralph({ status: 404 });
    expect(await httpProbe({ env: { RECOVER_POKERALPH_URL: fake.url } })(REPO)).toMatchObject({
      kind: "absent",
      detail: expect.stringMatching(/not pokeralph \(HTTP 404\)/),
    });
  });

  it("nothing listening: absent, connection refused", async () => {
    const port = await closedPort();
    expect(await httpProbe({ env: { RECOVER_POKERALPH_URL: `http://127.0.0.1:${port}` } })(REPO)).toMatchObject({
      kind: "absent",
      detail: "connection refused",
    });
  });

  it("a wedged server: absent after the timeout, not later", async () => {
    fake = await startFakePokeralph({ hang: true });
    const started = Date.now();
    const answer = await httpProbe({ env: { RECOVER_POKERALPH_URL: fake.url }, timeoutMs: 300 })(REPO);
    expect(answer).toMatchObject({ kind: "absent", detail: "no answer within 300 ms" });
    expect(Date.now() - started).toBeLessThan(1500);
  });
});
