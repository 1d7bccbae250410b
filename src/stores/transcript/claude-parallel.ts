/**
 * The records Claude Code puts back into the chain before it sends it: the lines of a response, and the tool results
 * answering them, that sit on branches beside the chain (docs/research/claude-code-request.md §C, "Parallel calls").
 *
 * Claude Code writes one line per content block of a response, each the child of the one before, and the result of
 * each call as the child of its call's line, in the order the calls finish. The next prompt or response hangs from the
 * result written last. When the first call finishes last (a slow command beside fast reads), the chain from the leaf
 * runs through that result and that call's line only: the later call lines of the response and all their results are
 * a branch beside it. The client puts them back when it loads the session (2.1.332's chain builder, telemetry event
 * `tengu_chain_parallel_tr_recovered`), so the request holds every call and every result, and recover's view must
 * too, or its size estimate and its positions miss them (`context trim` estimated a third of a refused request).
 *
 * What the client does, read from its 2.1.332 binary and checked against what it sent
 * (fixtures/claude-code-2.1/tool-parallel-order): for each response on the chain, in chain order,
 * - every line of the file with the response's `message.id` (same side: main chain or sidechain) joins the chain;
 * - every tool-result line that is the child of one of those lines joins it;
 * - a tool-result line hanging elsewhere joins it when it names one of those lines (`sourceToolAssistantUUID`) or
 *   answers one of their calls, and answers a call nothing on the chain answers yet;
 * - off-chain runs of attachments, system records and `isMeta` user lines hanging from the response's lines or its
 *   results join it (only for a response with a call; a run that forks is left out);
 * and they take their place among the chain lines that follow the response's first line on the chain, up to the
 * first line that is neither the response's, a result, a meta user line, an attachment nor a system record, in file
 * order.
 */
import type { TranscriptLine } from "../../model/transcript.js";
import { obj, str } from "./dialect.js";

const contentOf = (line: TranscriptLine): unknown[] | undefined => {
  const content = obj(line.value?.message)?.content;
  return Array.isArray(content) ? content : undefined;
};
const idsOf = (line: TranscriptLine, type: string, field: string): string[] => {
  const found: string[] = [];
  for (const item of contentOf(line) ?? []) {
    const block = obj(item);
    const id = block?.type === type ? str(block[field]) : undefined;
    if (id !== undefined) found.push(id);
  }
  return found;
};
/** The ids of the calls an assistant line makes. */
const callsOf = (line: TranscriptLine) => (line.value?.type === "assistant" ? idsOf(line, "tool_use", "id") : []);
/** The ids of the calls a user line answers. */
const answersOf = (line: TranscriptLine) => (line.value?.type === "user" ? idsOf(line, "tool_result", "tool_use_id") : []);
const responseOf = (line: TranscriptLine) => (line.value?.type === "assistant" ? str(obj(line.value.message)?.id) : undefined);
const sameSide = (a: TranscriptLine, b: TranscriptLine) => (a.sidechain ?? false) === (b.sidechain ?? false) && a.value?.agentId === b.value?.agentId;

/** A line that travels with a response without being one (the client's `XN`): attachment, system, `isMeta` user text. */
function isCompanion(line: TranscriptLine): boolean {
  const value = line.value;
  if (value?.type === "attachment") return true;
  if (value?.type === "system") return value.subtype !== "compact_boundary";
  return value?.type === "user" && value.isMeta === true && answersOf(line).length === 0;
}

/** Whether a chain line still belongs to the window of response `id` (the client's `WMe`). */
function inWindow(line: TranscriptLine, id: string): boolean {
  const value = line.value;
  switch (value?.type) {
    case "assistant":
      return responseOf(line) === id;
    case "user":
      return value.isMeta === true || answersOf(line).length > 0;
    case "attachment":
      return true;
    case "system":
      return value.subtype !== "compact_boundary";
    default:
      return false;
  }
}

/** The record types a line put back into the chain can have (responses, results, companions). */
const MAY_JOIN = new Set(["assistant", "user", "attachment", "system"]);

interface Window {
  start: number;
  end: number;
  recovered: TranscriptLine[];
  /** Off-chain companions hanging from a chain line of the window: they go right after it. */
  anchored: Map<TranscriptLine, TranscriptLine[]>;
}

/** The chain as Claude Code sends it: `chain` with the lines of its responses that sit beside it put back. */
export function withResponseBranches(chain: readonly TranscriptLine[], all: readonly TranscriptLine[]): TranscriptLine[] {
  if (!chain.some((line) => line.value?.type === "assistant")) return [...chain];
  // What can be put back is an off-chain response line, result or companion: a session with none (most of them, a
  // linear history) is sent as its chain, without building the maps below (measured: a third of a scan's view).
  const onChainAtStart = new Set(chain);
  if (!all.some((line) => !onChainAtStart.has(line) && MAY_JOIN.has(String(line.value?.type)))) return [...chain];
  const order = new Map<TranscriptLine, number>();
  const byUuid = new Map<string, TranscriptLine>();
  const byResponse = new Map<string, TranscriptLine[]>();
  const results: TranscriptLine[] = [];
  all.forEach((line, i) => {
    order.set(line, i);
    if (line.uuid !== undefined && !byUuid.has(line.uuid)) byUuid.set(line.uuid, line);
    const response = responseOf(line);
    if (response !== undefined) {
      const group = byResponse.get(response);
      if (group) group.push(line);
      else byResponse.set(response, [line]);
    } else if (answersOf(line).length > 0) results.push(line);
  });
  // Result lines by the line they answer: their parent, and for a result whose parent does not hold its calls, the
  // line it names and the line making its calls.
  const resultsUnder = new Map<string, TranscriptLine[]>();
  const link = (uuid: string, result: TranscriptLine) => {
    const under = resultsUnder.get(uuid);
    if (!under) resultsUnder.set(uuid, [result]);
    else if (!under.includes(result)) under.push(result);
  };
  const stray: TranscriptLine[] = [];
  for (const result of results) {
    if (typeof result.parent === "string") link(result.parent, result);
    const parent = typeof result.parent === "string" ? byUuid.get(result.parent) : undefined;
    const parentCalls = new Set(parent ? callsOf(parent) : []);
    if (!answersOf(result).every((id) => parentCalls.has(id))) stray.push(result);
  }
  if (stray.length > 0) {
    // The line making each call, when one response makes it (a call two responses make is nobody's).
    const caller = new Map<string, TranscriptLine | null>();
    for (const group of byResponse.values())
      for (const line of group)
        for (const id of callsOf(line)) {
          const known = caller.get(id);
          caller.set(id, known === undefined || (known !== null && responseOf(known) === responseOf(line)) ? line : null);
        }
    for (const result of stray) {
      const named = str(result.value?.sourceToolAssistantUUID);
      const source = named !== undefined && named !== result.parent ? byUuid.get(named) : undefined;
      if (source?.uuid !== undefined && sameSide(result, source)) link(source.uuid, result);
      for (const id of answersOf(result)) {
        const line = caller.get(id);
        if (line?.uuid !== undefined && line.uuid !== result.parent && sameSide(result, line)) link(line.uuid, result);
      }
    }
  }
  let children: Map<string, TranscriptLine[]> | undefined;
  const childrenOf = (uuid: string) => {
    if (!children) {
      children = new Map();
      for (const line of all) {
        if (typeof line.parent !== "string") continue;
        const under = children.get(line.parent);
        if (under) under.push(line);
        else children.set(line.parent, [line]);
      }
    }
    return children.get(uuid) ?? [];
  };

  const onChain = new Set(chain);
  const position = new Map<TranscriptLine, number>();
  for (const [i, line] of chain.entries()) position.set(line, i);
  const answeredOnChain = new Set(chain.flatMap(answersOf));
  /** A line's place in file order; a result linked from elsewhere goes after its response's lines. */
  const placed = new Map<TranscriptLine, number>();
  const rank = (line: TranscriptLine) => placed.get(line) ?? order.get(line) ?? Number.MAX_SAFE_INTEGER;
  const byRank = (a: TranscriptLine, b: TranscriptLine) => rank(a) - rank(b) || (order.get(a) ?? 0) - (order.get(b) ?? 0);
  /** An off-chain run of companions from `first` down, or nothing when it forks or holds anything else. */
  const tail = (first: TranscriptLine, from: TranscriptLine): TranscriptLine[] => {
    const run: TranscriptLine[] = [];
    for (let line: TranscriptLine | undefined = first; line !== undefined; ) {
      if (onChain.has(line) || (line.sidechain ?? false) !== (from.sidechain ?? false) || !isCompanion(line)) return [];
      run.push(line);
      const next: TranscriptLine[] = line.uuid !== undefined ? childrenOf(line.uuid).filter((c) => !onChain.has(c)) : [];
      if (next.length > 1) return [];
      line = next[0];
    }
    return run;
  };

  const windows: Window[] = [];
  const seen = new Set<string>();
  for (const line of chain) {
    const id = responseOf(line);
    if (id === undefined || seen.has(id)) continue;
    seen.add(id);
    const group = byResponse.get(id) ?? [line];
    const ofGroup = (uuid: string | null | undefined) => typeof uuid === "string" && group.some((g) => g.uuid === uuid);
    const recovered: TranscriptLine[] = group.filter((g) => !onChain.has(g));
    const direct: TranscriptLine[] = [];
    const linked: TranscriptLine[] = [];
    const met = new Set<TranscriptLine>();
    for (const g of group)
      for (const result of g.uuid !== undefined ? (resultsUnder.get(g.uuid) ?? []) : []) {
        if (onChain.has(result) || met.has(result)) continue;
        met.add(result);
        (ofGroup(result.parent) ? direct : linked).push(result);
      }
    recovered.push(...direct);
    if (linked.length > 0) {
      const answered = new Set([...answeredOnChain, ...direct.flatMap(answersOf)]);
      const groupCalls = new Set(group.flatMap(callsOf));
      const last = Math.max(...group.map((g) => order.get(g) ?? 0));
      linked.sort(byRank);
      for (const result of linked) {
        const ids = answersOf(result);
        if (!ids.some((callId) => !answered.has(callId) && groupCalls.has(callId))) continue;
        for (const callId of ids) answered.add(callId);
        placed.set(result, Math.max(order.get(result) ?? 0, last + 0.5));
        recovered.push(result);
      }
    }
    for (const r of recovered) onChain.add(r);
    for (const callId of recovered.flatMap(answersOf)) answeredOnChain.add(callId);
    const start = position.get(line)!;
    let end = start + 1;
    for (const g of group) {
      const at = position.get(g);
      if (at !== undefined && at >= end) end = at + 1;
    }
    while (end < chain.length && inWindow(chain[end]!, id)) end++;
    const anchored = new Map<TranscriptLine, TranscriptLine[]>();
    if (group.some((g) => callsOf(g).length > 0)) {
      const from = [...group];
      for (const g of group)
        for (const result of g.uuid !== undefined ? (resultsUnder.get(g.uuid) ?? []) : []) if (onChain.has(result) && !from.includes(result)) from.push(result);
      const tailsOf = (parent: TranscriptLine, into: TranscriptLine[]) => {
        const own = placed.get(parent);
        for (const child of parent.uuid !== undefined ? childrenOf(parent.uuid) : []) {
          const run = tail(child, parent);
          for (const r of run) {
            onChain.add(r);
            into.push(r);
            if (own !== undefined) placed.set(r, Math.max(order.get(r) ?? 0, own));
          }
        }
      };
      for (const parent of from) tailsOf(parent, recovered);
      for (const inside of chain.slice(start + 1, end)) {
        if (!isCompanion(inside)) continue;
        const run: TranscriptLine[] = [];
        tailsOf(inside, run);
        if (run.length > 0) anchored.set(inside, run);
      }
    }
    if (recovered.length === 0 && anchored.size === 0) continue;
    recovered.sort(byRank);
    windows.push({ start, end, recovered, anchored });
  }
  if (windows.length === 0) return [...chain];

  // Overlapping windows (a response whose lines the chain visits again later) go as one.
  windows.sort((a, b) => a.start - b.start);
  const merged: Window[] = [];
  for (const w of windows) {
    const prev = merged.at(-1);
    if (prev && w.start < prev.end) {
      prev.end = Math.max(prev.end, w.end);
      prev.recovered = [...prev.recovered, ...w.recovered].sort(byRank);
      for (const [at, run] of w.anchored) prev.anchored.set(at, [...(prev.anchored.get(at) ?? []), ...run]);
    } else merged.push(w);
  }
  const out: TranscriptLine[] = [];
  let from = 0;
  for (const { start, end, recovered, anchored } of merged) {
    out.push(...chain.slice(from, start + 1));
    let k = 0;
    for (let i = start + 1; i < end; i++) {
      const line = chain[i]!;
      const at = rank(line);
      while (k < recovered.length && rank(recovered[k]!) < at) out.push(recovered[k++]!);
      out.push(line, ...(anchored.get(line) ?? []));
    }
    while (k < recovered.length) out.push(recovered[k++]!);
    from = end;
  }
  out.push(...chain.slice(from));
  return out;
}
