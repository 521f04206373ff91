// Small DOM helpers: every text goes in through textContent, never HTML.

export type Child = Node | string | number | null | undefined | false;

export function el(tag: string, attrs: Record<string, string> = {}, ...children: Child[]): HTMLElement {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else node.setAttribute(k, v);
  }
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : String(c));
  }
  return node;
}

export function clear(node: HTMLElement, ...children: Child[]): void {
  node.replaceChildren();
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : String(c));
  }
}

export function num(n: number | null | undefined): string {
  return n === null || n === undefined ? "–" : n.toLocaleString("en-US");
}

/** A table from a header row and body rows already built (`tr`s). */
export function rowsTable(head: string[], rows: HTMLElement[], attrs: Record<string, string> = {}): HTMLElement {
  return el("table", attrs, el("thead", {}, el("tr", {}, ...head.map((h) => el("th", {}, h)))), el("tbody", {}, ...rows));
}

/** A table from a header row and body rows of cells. */
export function table(head: string[], rows: Child[][], attrs: Record<string, string> = {}): HTMLElement {
  const trs = rows.map((r) => el("tr", {}, ...r.map((c) => (c instanceof HTMLElement && c.tagName === "TD" ? c : el("td", {}, c)))));
  return rowsTable(head, trs, attrs);
}

/** A right-aligned number cell, with a test id when given. */
export function numCell(n: number | null | undefined, testid?: string): HTMLElement {
  const attrs: Record<string, string> = { class: "num" };
  if (testid) attrs["data-testid"] = testid;
  return el("td", attrs, num(n));
}

/** A unified diff, its added and removed lines coloured. */
export function diffBlock(diff: string): HTMLElement {
  const pre = el("pre", { class: "diff" });
  for (const line of diff.split("\n")) {
    if (line === "") continue;
    let cls = "";
    if (line.startsWith("@@")) cls = "hunk";
    else if (line.startsWith("+") && !line.startsWith("+++")) cls = "add";
    else if (line.startsWith("-") && !line.startsWith("---")) cls = "del";
    pre.append(el("span", cls ? { class: cls } : {}, line + "\n"));
  }
  return pre;
}

/** What a paged API route answers with, items aside. */
export interface PageInfo { total: number; offset: number; limit: number }

/**
 * Page controls for a list: previous, "first–last of total", next; `go`
 * is called with the offset of the page asked for.
 */
export function pager(node: HTMLElement, page: PageInfo, shown: number, go: (offset: number) => void): void {
  const first = page.total === 0 ? 0 : page.offset + 1;
  const last = page.offset + shown;
  const prev = el("button", { class: "prev", "data-testid": "page-prev" }, "‹ previous");
  const next = el("button", { class: "next", "data-testid": "page-next" }, "next ›");
  if (page.offset === 0) prev.setAttribute("disabled", "");
  if (last >= page.total) next.setAttribute("disabled", "");
  prev.addEventListener("click", () => go(Math.max(0, page.offset - page.limit)));
  next.addEventListener("click", () => go(page.offset + page.limit));
  clear(node, prev, el("span", { class: "range", "data-testid": "page-range" }, `${num(first)}–${num(last)} of ${num(page.total)}`), next);
}

/** Calls `f` once typing has paused for a moment. */
export function debounced(f: () => void, ms = 200): () => void {
  let timer: ReturnType<typeof setTimeout> | null = null;
  return () => {
    if (timer !== null) clearTimeout(timer);
    timer = setTimeout(f, ms);
  };
}
