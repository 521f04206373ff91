// The console's page: fetches /api/..., renders the three tabs, and
// refetches whenever /api/events says the state folder changed.

import { squarify } from "./treemap.js";
import { el, clear, num, table, numCell, diffBlock } from "./render.js";
import { api } from "./api.js";
import { find, wireSearch, memoryPage, agentPage, profileOptions } from "./find.js";
import { renderTranscript } from "./transcript.js";
import type { Overview, StoreSummary, AgentSummary, MemoryEver, Revision, ProfileRow, Counts } from "./api.js";

/** Up to this many stores, the picker is a row of buttons. */
const STORE_BUTTONS = 12;
/** Beyond this many instances, a profile's list is folded. */
const FOLDED_INSTANCES = 8;

const ui = {
  tab: "memories",
  store: null as string | null,
  open: null as string | null,
  agent: null as string | null,
  overview: null as Overview | null,
  refreshes: 0,
};

function $(id: string): HTMLElement {
  const node = document.getElementById(id);
  if (!node) throw new Error(`the page has no #${id}`);
  return node;
}

function showError(e: unknown): void {
  const node = $("error");
  node.hidden = false;
  node.textContent = String(e instanceof Error ? e.message : e);
}

// ---- Memories panel ------------------------------------------------------

function storePicker(o: Overview): void {
  const picker = $("store-picker");
  if (o.stores.length === 0) {
    clear(picker, el("p", { class: "empty" }, "No memory stores in this state folder yet."));
    return;
  }
  const pick = (id: string) => {
    ui.store = id;
    ui.open = null;
    void refresh();
  };
  if (o.stores.length > STORE_BUTTONS) {
    // Hundreds of stores: one drop-down, not a wall of buttons.
    const select = el(
      "select",
      { id: "store-select", "aria-label": "Memory store" },
      ...o.stores.map((s) => el("option", { value: s.id, "data-store": s.id }, `${s.id} · ${num(s.totals.count)} memories`)),
    ) as HTMLSelectElement;
    select.value = ui.store ?? "";
    select.addEventListener("change", () => pick(select.value));
    clear(picker, el("label", {}, `${num(o.stores.length)} stores `, select));
    return;
  }
  clear(
    picker,
    ...o.stores.map((s) => {
      const b = el("button", { "data-store": s.id, role: "tab", "aria-selected": String(s.id === ui.store) }, s.id);
      b.addEventListener("click", () => pick(s.id));
      return b;
    }),
  );
}

function storeTotals(s: StoreSummary | undefined): void {
  const box = $("store-totals");
  if (!s) {
    clear(box);
    return;
  }
  const row = (label: string, key: keyof Counts) => [
    label,
    numCell(s.totals[key], `store-current-${key}`),
    numCell(s.peaks[key], `store-peak-${key}`),
  ];
  clear(
    box,
    el("h2", {}, `Store ${s.id}`, " ", el("small", {}, `${s.revisions} revisions · ${s.everHeld} memories ever held · ${s.deleted} deleted`)),
    table(["", "current", "peak"], [row("memories", "count"), row("characters", "chars"), row("lines", "lines")], { id: "totals-table" }),
  );
}

function agentTotals(o: Overview): void {
  // Only the store's own holders: a folder may have hundreds of agents.
  const rows = o.agents.filter((a) => a.store === ui.store).map((a) => [
    el("td", { "data-testid": `agent-${a.id}` }, a.id),
    a.profile ?? "–",
    a.store ?? "no memories",
    a.scope ? `${a.scope}${a.writable === false ? " (read-only)" : ""}` : "–",
    numCell(a.totals?.count, `agent-${a.id}-current-count`),
    numCell(a.peaks?.count, `agent-${a.id}-peak-count`),
    numCell(a.totals?.chars, `agent-${a.id}-current-chars`),
    numCell(a.peaks?.chars, `agent-${a.id}-peak-chars`),
    numCell(a.totals?.lines),
    numCell(a.peaks?.lines),
    numCell(a.revisions),
  ]);
  clear(
    $("agent-totals"),
    rows.length === 0
      ? el("p", { class: "empty" }, "No agent holds this store.")
      : table(
          ["agent", "profile", "store", "scope", "memories", "peak", "characters", "peak", "lines", "peak", "revisions made"],
          rows,
        ),
  );
}

function treemap(memories: MemoryEver[]): void {
  const box = $("treemap");
  if (memories.length === 0) {
    clear(box, el("p", { class: "empty" }, "This store has never held a memory."));
    return;
  }
  const width = box.clientWidth || 600;
  const height = box.clientHeight || 340;
  const tiles = squarify(memories, (m) => Math.max(m.chars, 1), { x: 0, y: 0, w: width, h: height });
  clear(
    box,
    ...tiles.map((t) => {
      const m = t.item;
      const tile = el(
        "div",
        {
          class: `tile${m.deleted ? " deleted" : ""}${m.slug === ui.open ? " open" : ""}`,
          "data-slug": m.slug,
          "data-deleted": String(m.deleted),
          title: `${m.slug} — ${m.description}\n${m.chars} characters${m.deleted ? " (deleted)" : ""}`,
        },
        el("span", { class: "name" }, m.slug),
        el("span", { class: "chars" }, `${num(m.chars)} chars${m.deleted ? " · deleted" : ""}`),
      );
      // Placed through the style object: the page's Content-Security-Policy
      // refuses style attributes.
      Object.assign(tile.style, { left: `${t.x}px`, top: `${t.y}px`, width: `${t.w}px`, height: `${t.h}px` });
      tile.addEventListener("click", () => void openMemory(m.slug));
      return tile;
    }),
  );
}

async function openMemory(slug: string): Promise<void> {
  ui.open = slug;
  for (const t of document.querySelectorAll("#treemap .tile")) {
    t.classList.toggle("open", (t as HTMLElement).dataset.slug === slug);
  }
  await renderHistory();
}

async function renderHistory(): Promise<void> {
  const box = $("history");
  if (!ui.store || !ui.open) {
    clear(box, el("p", { class: "hint" }, "Click a memory to see its revisions."));
    return;
  }
  const slug = ui.open;
  const revisions = await api<Revision[]>(
    `/api/stores/${encodeURIComponent(ui.store)}/memories/${encodeURIComponent(slug)}/revisions`,
  );
  if (ui.open !== slug) return;
  clear(
    box,
    el("h3", { "data-testid": "history-title" }, `${slug} — ${revisions.length} revision${revisions.length === 1 ? "" : "s"}`),
    ...revisions.map((r) =>
      el(
        "div",
        { class: "revision", "data-revision": String(r.revision), "data-mutation": r.mutation },
        el(
          "h4",
          {},
          `revision ${r.revision} · ${r.mutation} · by ${r.agent}`,
          " ",
          el("small", { class: "hint" }, new Date(r.atMs).toLocaleString()),
        ),
        r.mutation === "delete"
          ? el("p", { class: "empty" }, "Deleted: no text.")
          : el("div", {}, el("div", { class: "hint" }, r.description), el("pre", { class: "text" }, r.text)),
        el("details", { open: "" }, el("summary", {}, `diff to ${r.revision > 1 ? `revision ${r.revision - 1}` : "nothing"}`), diffBlock(r.diff)),
      ),
    ),
  );
}

/** Opens a memory the search found, in whichever store holds it. */
function openFound(store: string, slug: string): void {
  if (store === ui.store) {
    void openMemory(slug);
    return;
  }
  ui.store = store;
  ui.open = slug;
  void refresh();
}

async function renderMemories(o: Overview): Promise<void> {
  storePicker(o);
  const store = o.stores.find((s) => s.id === ui.store);
  storeTotals(store);
  agentTotals(o);
  if (!store) {
    clear($("treemap"));
    clear($("memory-list"));
    clear($("history"));
    return;
  }
  const memories = await api<MemoryEver[]>(`/api/stores/${encodeURIComponent(store.id)}/memories`);
  treemap(memories);
  await memoryPage(ui.store, openFound, () => void refresh());
  if (ui.open && !memories.some((m) => m.slug === ui.open)) ui.open = null;
  await renderHistory();
}

// ---- Modules and Agents tabs --------------------------------------------

function renderModules(o: Overview): void {
  const box = $("tab-modules");
  const strategyOf = (id: string) => o.agents.find((a) => a.store === id)?.strategy ?? "–";
  clear(
    box,
    el("h2", {}, "Memory stores, each once, with every instance holding it"),
    o.stores.length === 0
      ? el("p", { class: "empty" }, "No memory stores yet.")
      : table(
          ["store", "strategy", "held by", "memories", "characters", "peak memories", "peak characters", "revisions"],
          o.stores.map((s) => [
            el("td", { "data-testid": `module-${s.id}` }, s.id),
            strategyOf(s.id),
            el(
              "ul",
              { class: "plain" },
              ...s.holders.map((h) => el("li", { "data-holder": h.agent }, `${h.agent} — ${h.scope}, ${h.writable ? "read/write" : "read-only"}`)),
            ),
            numCell(s.totals.count),
            numCell(s.totals.chars),
            numCell(s.peaks.count),
            numCell(s.peaks.chars),
            numCell(s.revisions),
          ]),
          { id: "modules-table" },
        ),
  );
}

/** A profile's instances; a long list folds away behind its count. */
function instanceList(p: ProfileRow): HTMLElement {
  const list = el(
    "ul",
    { class: "plain" },
    ...p.instances.map((i) => el("li", {}, `${i.agent} → ${i.store}${i.writable ? "" : " (read-only)"}`)),
    ...p.withoutMemories.map((a) => el("li", { class: "hint" }, `${a} (no memories)`)),
  );
  const count = p.instances.length + p.withoutMemories.length;
  return count > FOLDED_INSTANCES ? el("details", {}, el("summary", {}, `${num(count)} instances`), list) : list;
}

async function renderAgents(): Promise<void> {
  const { profiles } = await api<{ agents: AgentSummary[]; profiles: ProfileRow[] }>("/api/agents");
  profileOptions(profiles.map((p) => p.profile));
  await agentPage(openAgent, () => void refresh());
  clear(
    $("profiles"),
    el("h2", {}, "Profiles: one store shared, or one each — read off the store ids"),
    profiles.length === 0
      ? el("p", { class: "empty" }, "No agents yet.")
      : table(
          ["profile", "declared scope", "instances", "resolved", "divergence"],
          profiles.map((p) => [
            el("td", { "data-testid": `profile-${p.profile}` }, p.profile),
            p.scopes.join(", ") || "–",
            instanceList(p),
            el("td", { "data-testid": `sharing-${p.profile}` }, p.sharing),
            p.divergences.length === 0
              ? el("span", { class: "hint" }, "as declared")
              : el("ul", { class: "plain" }, ...p.divergences.map((d) => el("li", {}, el("span", { class: "badge diverges" }, "diverges"), " ", d))),
          ]),
          { id: "agents-table" },
        ),
  );
}

/** Shows agent `id`'s transcript page (and says so in the address). */
function openAgent(id: string): void {
  ui.agent = id;
  if (location.hash !== `#agent/${encodeURIComponent(id)}`) location.hash = `agent/${encodeURIComponent(id)}`;
  selectTab("agent");
}

// ---- Tabs, refresh, live ---------------------------------------------------

function selectTab(tab: string): void {
  ui.tab = tab;
  // An agent's page belongs to the Agents tab.
  const shown = tab === "agent" ? "agents" : tab;
  for (const b of document.querySelectorAll<HTMLElement>("nav .tab")) {
    b.setAttribute("aria-selected", String(b.dataset.tab === shown));
  }
  if (tab !== "agent" && location.hash.startsWith("#agent/")) history.replaceState(null, "", location.pathname);
  for (const name of ["memories", "modules", "agents", "agent"]) {
    $(`tab-${name}`).hidden = name !== tab;
  }
  void refresh();
}

let running: Promise<void> | null = null;
let again = false;

/** Refetches and re-renders; a refresh asked for during one runs after it. */
async function refresh(): Promise<void> {
  if (running) {
    again = true;
    return running;
  }
  running = (async () => {
    do {
      again = false;
      try {
        const o = await api<Overview>("/api/overview");
        ui.overview = o;
        $("state-path").textContent = o.state;
        if (!ui.store || !o.stores.some((s) => s.id === ui.store)) {
          // Open on the busiest store.
          ui.store = [...o.stores].sort((a, b) => b.revisions - a.revisions)[0]?.id ?? null;
        }
        if (ui.tab === "memories") await renderMemories(o);
        if (ui.tab === "modules") renderModules(o);
        if (ui.tab === "agents") await renderAgents();
        if (ui.tab === "agent" && ui.agent) await renderTranscript($("tab-agent"), ui.agent, () => selectTab("agents"));
        $("error").hidden = true;
        ui.refreshes += 1;
        document.body.dataset.refreshes = String(ui.refreshes);
      } catch (e) {
        showError(e);
      }
    } while (again);
  })();
  try {
    await running;
  } finally {
    running = null;
  }
}

function live(): void {
  const badge = $("live");
  const source = new EventSource("/api/events");
  source.addEventListener("open", () => {
    badge.dataset.state = "live";
    badge.textContent = "live";
  });
  source.addEventListener("error", () => {
    badge.dataset.state = "offline";
    badge.textContent = "reconnecting…";
  });
  source.addEventListener("changed", () => {
    badge.dataset.state = "live";
    badge.textContent = "live";
    void refresh();
  });
}

for (const b of document.querySelectorAll<HTMLElement>("nav .tab")) {
  b.addEventListener("click", () => selectTab(b.dataset.tab ?? "memories"));
}
window.addEventListener("resize", () => void refresh());
wireSearch(() => void refresh());
// An agent's page has its own address, `#agent/<id>`.
const linked = location.hash.match(/^#agent\/(.+)$/);
if (linked) openAgent(decodeURIComponent(linked[1]));
else void refresh();
live();
