// What the loopback API mocks (messages.mjs, responses.mjs, gemini.mjs) share: reading a request's JSON body, keeping
// credentials out of the request log, and listening on a free loopback port.

/** The request's body parsed as JSON: null when empty, `{ unparsed }` (its first 2000 characters) when not JSON. */
export function readJsonBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("error", reject);
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      if (!raw) return resolve(null);
      try {
        resolve(JSON.parse(raw));
      } catch {
        resolve({ unparsed: raw.slice(0, 2000) });
      }
    });
  });
}

/** The headers with every one named in `secret` replaced by `<redacted>`. */
export function redactHeaders(headers, secret) {
  const h = { ...headers };
  for (const k of secret) if (k in h) h[k] = "<redacted>";
  return h;
}

/**
 * `server` listening on 127.0.0.1 (`port`, or a free one): resolves to { server, port, url (with `base`, e.g. "/v1"),
 * close() } where close ends the open connections too (a killed client may leave one open).
 */
export function listenLoopback(server, port = 0, base = "") {
  return new Promise((resolve) =>
    server.listen(port, "127.0.0.1", () => {
      const bound = server.address().port;
      resolve({
        server,
        port: bound,
        url: `http://127.0.0.1:${bound}${base}`,
        close: () =>
          new Promise((r) => {
            server.closeAllConnections?.();
            server.close(r);
          }),
      });
    }),
  );
}
