// What the loopback API mocks (mock-responses-api.mjs, mock-gemini-api.mjs) share: reading a request's JSON body and
// keeping credentials out of the request log.

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
