// Search and paging: the memory list under the treemap (this store or
// every store, searched by slug, description or text) and the agent list
// on the Agents tab (filtered by id or profile), a page at a time from
// /api/find/*, so a folder with thousands of memories stays fast.

import { el, clear, numCell, pager, debounced, rowsTable } from "./render.js";
import { api } from "./api.js";
import type { AgentSummary, FoundMemory, Paged } from "./api.js";

const PAGE = 50;

/** What the lists show now: the search texts, places and offsets. */
export const find = {
  memoryText: "",
  allStores: false,
  memoryOffset: 0,
  agentText: "",
  profile: "",
  agentOffset: 0,
};

function input(id: string): HTMLInputElement {
  return document.getElementById(id) as HTMLInputElement;
}

function box(id: string): HTMLElement {
  return document.getElementById(id) as HTMLElement;
}

function query(params: Record<string, string | number>): string {
  return Object.entries(params)
    .filter(([, v]) => v !== "")
    .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`)
    .join("&");
}

/** Wires the search fields once; `changed` re-renders after an edit. */
export function wireSearch(changed: () => void): void {
  const memories = debounced(() => {
    find.memoryText = input("memory-search").value.trim();
    find.memoryOffset = 0;
    changed();
  });
  input("memory-search").addEventListener("input", memories);
  input("memory-all-stores").addEventListener("change", () => {
    find.allStores = input("memory-all-stores").checked;
    find.memoryOffset = 0;
    changed();
  });
  const agents = debounced(() => {
    find.agentText = input("agent-filter").value.trim();
    find.agentOffset = 0;
    changed();
  });
  input("agent-filter").addEventListener("input", agents);
  box("agent-profile").addEventListener("change", () => {
    find.profile = (box("agent-profile") as HTMLSelectElement).value;
    find.agentOffset = 0;
    changed();
  });
}

/** The memory list: one page of the search's matches. */
export async function memoryPage(store: string | null, open: (store: string, slug: string) => void, changed: () => void): Promise<void> {
  const where = find.allStores || !store ? "" : store;
  const page = await api<Paged<FoundMemory>>(
    `/api/find/memories?${query({ q: find.memoryText, store: where, offset: find.memoryOffset, limit: PAGE })}`,
  );
  const rows = page.items.map((m) => {
    const tr = el(
      "tr",
      { class: m.deleted ? "deleted" : "", "data-slug": m.slug, "data-store": m.store },
      el("td", { class: "slug" }, m.slug),
      el("td", { class: "hint" }, m.store),
      el("td", {}, m.description),
      numCell(m.chars),
      numCell(m.revisions),
      el("td", {}, m.deleted ? el("span", { class: "badge deleted" }, "deleted") : el("span", { class: "badge" }, m.lastMutation)),
    );
    tr.addEventListener("click", () => open(m.store, m.slug));
    return tr;
  });
  clear(
    box("memory-list"),
    page.total === 0
      ? el("p", { class: "empty" }, find.memoryText ? `No memory matches “${find.memoryText}”.` : "No memories.")
      : rowsTable(["memory", "store", "description", "characters", "revisions", "last"], rows, { id: "memory-results" }),
  );
  pager(box("memory-pager"), page, page.items.length, (offset) => {
    find.memoryOffset = offset;
    changed();
  });
}

/** The profile picker's options, keeping the one chosen. */
export function profileOptions(profiles: string[]): void {
  const select = box("agent-profile") as HTMLSelectElement;
  const want = ["", ...profiles];
  const have = [...select.options].map((o) => o.value);
  if (want.join("\n") === have.join("\n")) return;
  clear(select, ...want.map((p) => el("option", { value: p }, p === "" ? "every profile" : p)));
  select.value = want.includes(find.profile) ? find.profile : "";
}

/** The agent list: one page of the filter's matches. */
export async function agentPage(open: (id: string) => void, changed: () => void): Promise<void> {
  const page = await api<Paged<AgentSummary>>(
    `/api/find/agents?${query({ q: find.agentText, profile: find.profile, offset: find.agentOffset, limit: PAGE })}`,
  );
  const rows = page.items.map((a) => {
    const link = el("a", { href: `#agent/${encodeURIComponent(a.id)}`, "data-agent-link": a.id }, a.id);
    link.addEventListener("click", (e) => {
      e.preventDefault();
      open(a.id);
    });
    return el(
      "tr",
      { "data-agent": a.id },
      el("td", {}, link),
      el("td", {}, a.profile ?? "–"),
      numCell(a.turn),
      el("td", {}, a.store ?? "no memories"),
      numCell(a.totals?.count),
      numCell(a.revisions),
      numCell(a.events),
    );
  });
  clear(
    box("agent-list"),
    page.total === 0
      ? el("p", { class: "empty" }, "No agent matches.")
      : rowsTable(["agent", "profile", "turn", "store", "memories", "revisions made", "events"], rows, { id: "agent-results" }),
  );
  pager(box("agent-pager"), page, page.items.length, (offset) => {
    find.agentOffset = offset;
    changed();
  });
}
