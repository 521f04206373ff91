// The JSON API as the page reads it: the shapes its routes answer with
// (see the README's Console section) and one fetch helper.

import type { PageInfo } from "./render.js";

export interface Counts { count: number; chars: number; lines: number }
export interface Holder { agent: string; scope: string; writable: boolean }
export interface StoreSummary {
  id: string; file: string; totals: Counts; peaks: Counts; holders: Holder[];
  revisions: number; everHeld: number; deleted: number;
}
export interface AgentSummary {
  id: string; profile: string | null; turn: number | null; store: string | null;
  strategy: string | null; scope: string | null; writable: boolean | null; others: string[];
  totals: Counts | null; peaks: Counts | null; revisions: number; events: number;
}
export interface Overview { state: string; fingerprint: string; stores: StoreSummary[]; agents: AgentSummary[] }
export interface MemoryEver {
  slug: string; description: string; chars: number; lines: number; deleted: boolean;
  revisions: number; lastRevision: number; lastMutation: string; lastAgent: string;
}
export interface Revision {
  seq: number; revision: number; mutation: string; description: string; text: string;
  chars: number; agent: string; atMs: number; diff: string;
}
export interface Instance { agent: string; store: string; scope: string; writable: boolean; expected: string; divergence: string | null }
export interface ProfileRow {
  profile: string; scopes: string[]; instances: Instance[]; stores: string[];
  sharing: string; divergences: string[]; withoutMemories: string[];
}

export interface FoundMemory extends MemoryEver { store: string }
export interface Paged<T> extends PageInfo { items: T[] }
/** A turn's `turn` record: how it ended, what gg refused, how long it took. */
export interface TurnRecord {
  turn: number; program?: string; status?: string; toolCalls: number;
  refusals: { call: string; code: string; message: string }[]; events: number; durationMs: number;
}
/** One call to an upstream tool server (a `tool_call` event); `errorCode` only when not ok. */
export interface ToolCall {
  server: string; tool: string; durationMs: number; ok: boolean; errorCode?: string;
  argumentChars: number; resultChars: number;
}
/** `toolCallsPartial`: the turn's oldest calls are older than the stream lines read. */
export interface TurnView {
  turn: number; items: any[]; record?: TurnRecord; events?: any[];
  toolCalls?: ToolCall[]; toolCallsPartial?: boolean;
}
export interface MadeRevision { store: string; seq: number; slug: string; revision: number; mutation: string; atMs: number }
export interface Transcript {
  id: string; profile: string; turn: number; turns: TurnView[]; events: any[]; eventsTotal: number;
  revisions: MadeRevision[];
}

/** GETs `path` as JSON; a failed request throws with the API's error. */
export async function api<T>(path: string): Promise<T> {
  const res = await fetch(path, { cache: "no-store" });
  if (!res.ok) {
    const body = await res.json().catch(() => ({ error: res.statusText }));
    throw new Error(`${path}: ${body.error ?? res.status}`);
  }
  return (await res.json()) as T;
}
