/**
 * Which events of an openclaw session are its active branch, as the 2026.9 client projects a session (its
 * `scanSessionTranscriptTree` and `visitProjectionSource`, docs/research/openclaw-sqlite.md §2): events are read in
 * `seq` order and linked by `parentId`; the leaf is the last canonical event that is no side append, or the target of
 * a `leaf` control; a parent that has not been seen yet (a higher seq) is taken to be the running leaf; after a
 * `reset`, events that do not descend from it continue from the leaf. The branch is the chain from the leaf back
 * (controls left out). With no leaf at all, every event is on it, in order (none, once a leaf control was seen).
 */

import { isObject, type Json } from "../../model/edit.js";

const CANONICAL = new Set([
  "message",
  "thinking_level_change",
  "model_change",
  "compaction",
  "reset",
  "branch_summary",
  "custom",
  "custom_message",
  "label",
  "session_info",
]);

const nonBlank = (v: unknown): string | undefined => (typeof v === "string" && v.trim() !== "" ? v.trim() : undefined);
const isCanonical = (e: Json | undefined): e is Json => e !== undefined && typeof e.type === "string" && CANONICAL.has(e.type);

interface Node {
  id: string;
  parentId: string | null;
  /** The leaf this event makes current (undefined: it leaves the leaf where it was). */
  leafId?: string | null;
  appendParentId: string | null;
  side: boolean;
  leafControl: boolean;
  index: number;
}

/** A parent-linked event as the tree reads it; undefined for the header and events it cannot place. */
function treeEntry(event: Json, index: number): Node | undefined {
  if (event.type === "session" || !Object.hasOwn(event, "parentId")) return undefined;
  const id = nonBlank(event.id);
  const parentId = event.parentId === null ? null : nonBlank(event.parentId);
  if (id === undefined || parentId === undefined) return undefined;
  if (event.type === "leaf") {
    const target = event.targetId === null ? null : nonBlank(event.targetId);
    const append = event.appendParentId === undefined ? target : event.appendParentId === null ? null : nonBlank(event.appendParentId);
    const badMode = event.appendMode !== undefined && event.appendMode !== "side";
    if (target === undefined || append === undefined || badMode) return undefined;
    return { id, parentId: target, leafId: target, appendParentId: append, side: event.appendMode === "side", leafControl: true, index };
  }
  const side = event.appendMode === "side";
  return { id, parentId, ...(isCanonical(event) && !side ? { leafId: id } : {}), appendParentId: id, side, leafControl: false, index };
}

/** The active branch of a session, and the id the client's next event would take as its parent. */
export interface ActiveBranch {
  /** Indexes into the events (in seq order), in order. */
  indexes: number[];
  appendParentId: string | null;
}

/** `events` in seq order (undefined: unreadable). */
export function activeBranch(events: readonly (Json | undefined)[]): ActiveBranch {
  const byId = new Map<string, Node>();
  const invalidControls = new Set<string>();
  const resetDescendants = new Set<string>();
  let leafId: string | null = null;
  let appendParentId: string | null = null;
  let leafControl = false;
  let latestReset: string | undefined;
  /** Through leaf controls to the event they stand for. */
  const throughControls = (parentId: string | null): string | null => {
    const seen = new Set<string>();
    let at = parentId;
    while (at !== null) {
      const parent = byId.get(at);
      if (seen.has(at) || !parent?.leafControl) return at;
      seen.add(at);
      at = parent.parentId;
    }
    return null;
  };
  events.forEach((event, index) => {
    if (!isObject(event)) return;
    let node = treeEntry(event, index);
    const isControl = node?.leafControl === true;
    if (node && isControl && latestReset && leafId !== null && node.leafId !== undefined && (node.leafId === null || !resetDescendants.has(node.leafId))) {
      node = { ...node, parentId: leafId, leafId, appendParentId: leafId };
    }
    const known = (id: string | null | undefined) => id === null || (id !== undefined && byId.has(id) && !invalidControls.has(id));
    if (node && isControl && (!known(node.leafId) || !known(node.appendParentId))) {
      invalidControls.add(node.id);
      const invalid: Node = { ...node, parentId: typeof event.parentId === "string" ? event.parentId : null, appendParentId };
      delete invalid.leafId;
      byId.set(invalid.id, invalid);
      return;
    }
    const explicit = node !== undefined;
    if (!node && isCanonical(event) && !Object.hasOwn(event, "parentId")) {
      const id = nonBlank(event.id);
      const side = event.appendMode === "side";
      if (id !== undefined) node = { id, parentId: leafId, ...(side ? {} : { leafId: id }), appendParentId: id, side, leafControl: false, index };
    }
    if (!node) return;
    if (isCanonical(event)) {
      const stale = explicit && node.parentId !== null && !byId.has(node.parentId) && leafId !== null;
      const fromReset = latestReset !== undefined && !node.side && (node.parentId === null || !resetDescendants.has(node.parentId));
      const offAppend = explicit && !node.side && node.parentId === appendParentId && leafId !== appendParentId;
      const parent = fromReset || (!node.side && stale) || offAppend ? leafId : node.parentId;
      node = { ...node, parentId: throughControls(parent) };
    }
    byId.set(node.id, node);
    if (event.type === "reset") {
      latestReset = node.id;
      resetDescendants.clear();
      resetDescendants.add(node.id);
    } else if (latestReset !== undefined && node.parentId !== null && resetDescendants.has(node.parentId)) resetDescendants.add(node.id);
    appendParentId = node.appendParentId;
    if (node.leafId !== undefined) leafId = node.leafId;
    if (node.leafControl) leafControl = true;
  });
  const path = pathTo(byId, leafId);
  if (path.length > 0) return { indexes: path.map((node) => node.index), appendParentId };
  return { indexes: leafControl ? [] : events.flatMap((event, index) => (isObject(event) ? [index] : [])), appendParentId };
}

/** What the client projects of an event on the branch (`shouldProjectActiveEvent`): no header, and only what it can place. */
export function projected(event: Json | undefined): boolean {
  if (!isObject(event) || event.type === "session") return false;
  const hasMessage = Object.hasOwn(event, "message") && event.message !== undefined;
  return hasMessage || isCanonical(event) || treeEntry(event, 0) !== undefined;
}

function pathTo(byId: ReadonlyMap<string, Node>, leafId: string | null): Node[] {
  const path: Node[] = [];
  const seen = new Set<string>();
  for (let at = leafId; at; ) {
    if (seen.has(at)) return [];
    seen.add(at);
    const node = byId.get(at);
    if (!node) break;
    if (!node.leafControl) path.push(node);
    at = node.parentId;
  }
  return path.reverse();
}
