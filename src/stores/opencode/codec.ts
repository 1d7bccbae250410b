/**
 * How opencode serialises a record in each store (reference opencode.md §1.1, §3.2): the SQLite `data` column is
 * compact JSON without the ids (they live in columns); a JSON-tree file is `JSON.stringify(x, null, 2)` with the
 * ids first. Untouched records are never re-encoded; only what a fix changes goes through here.
 */
import { join } from "node:path";
import type { OpencodeCodec } from "../store.js";
import { jsonTreeSession } from "./recreate-session.js";

export const sqliteCodec: OpencodeCodec = {
  encode: (stored) => Buffer.from(JSON.stringify(stored)),
  stored: (_ids, data) => withoutIds(data),
  partPath: () => undefined,
  session: (session) => ({ value: session }),
};

export function jsonTreeCodec(storageDir: string): OpencodeCodec {
  return {
    session: (session) => ({
      value: jsonTreeSession(session),
      path: join(storageDir, "session", String(session.projectID), `${String(session.id)}.json`),
    }),
    encode: (stored) => Buffer.from(JSON.stringify(stored, null, 2)),
    stored: (ids, data) => ({
      id: ids.id,
      sessionID: ids.sessionId,
      ...(ids.messageId !== undefined ? { messageID: ids.messageId } : {}),
      ...withoutIds(data),
    }),
    partPath: (messageId, partId) => join(storageDir, "part", messageId, `${partId}.json`),
  };
}

function withoutIds(data: Record<string, unknown>): Record<string, unknown> {
  const { id: _id, sessionID: _sessionID, messageID: _messageID, ...rest } = data;
  return rest;
}
