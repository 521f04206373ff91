// An agent's page: its transcript, turn by turn, as gg keeps it: each
// turn's record (how it ended, its duration, the calls gg refused), its
// calls to upstream tool servers (server, tool, duration, ok or the error
// code, argument and result sizes), its program, its acknowledgement
// (status, value, console lines, error, notes), the views it opened, tool
// calls and their results (a refused one marked), notices and compaction
// summaries, and the events it emitted; then the whole event stream and
// the memory revisions it made, with their times.
// Re-read on every `changed`, so it follows the agent as it works.

import { el, clear, num, table, rowsTable, numCell } from "./render.js";
import { api } from "./api.js";
import type { Transcript, TurnView } from "./api.js";

function pre(cls: string, text: string): HTMLElement {
  return el("pre", { class: cls }, text);
}

function viewTitle(v: any): string {
  if (v.kind === "file") return `file ${v.path} · lines ${v.offset}–${v.offset + v.limit - 1} of ${v.totalLines}`;
  if (v.kind === "text") return `text “${v.label}”`;
  if (v.kind === "documentation") return `documentation ${v.key}.${v.function}`;
  return `view ${v.kind}`;
}

function viewBody(v: any): string {
  return v.content ?? v.body ?? [v.signature, v.doc].filter(Boolean).join("\n");
}

/** One window entry. */
function entry(item: any): HTMLElement {
  switch (item.type) {
    case "program":
      return el(
        "div",
        { class: "entry program", "data-program": item.id ?? "" },
        el("h4", {}, `program ${item.id ?? ""}`, item.compacted ? el("span", { class: "badge" }, "compacted from the window") : null),
        pre("source", item.source),
      );
    case "acknowledgement": {
      const headline = `${item.programId ?? "program"}: ${item.status}`;
      return el(
        "div",
        { class: `entry ack status-${item.status}`, "data-ack": item.programId ?? "", "data-status": item.status },
        el("h4", {}, "acknowledgement ", el("span", { class: `badge ${item.status === "ok" ? "" : "deleted"}` }, headline)),
        item.value != null ? el("div", {}, el("span", { class: "hint" }, "value "), pre("value", item.value)) : null,
        item.console.length > 0
          ? el("div", {}, el("span", { class: "hint" }, "console"), pre("console", item.console.map((l: any) => `[${l.level}] ${l.text}`).join("\n")))
          : null,
        item.error ? el("div", {}, el("span", { class: "hint" }, "error"), pre("error", item.error)) : null,
        ...(item.notes ?? []).map((n: string) => el("p", { class: "hint" }, `note: ${n}`)),
      );
    }
    case "toolCall":
      return el("div", { class: "entry tool-call" }, el("h4", {}, `tool call ${item.name}`), pre("source", JSON.stringify(item.arguments, null, 2)));
    case "toolResult":
      return el(
        "div",
        { class: `entry tool-result${item.isError ? " refused" : ""}` },
        el("h4", {}, "tool result ", item.isError ? el("span", { class: "badge deleted" }, "refused") : null),
        pre("value", item.content),
      );
    case "view":
      return el(
        "div",
        { class: "entry view" },
        el("details", {}, el("summary", {}, `${viewTitle(item.view)}${item.open ? "" : " (closed)"}${item.locked ? " (pinned)" : ""}`), pre("value", viewBody(item.view))),
      );
    default:
      return el("div", { class: `entry ${item.type}` }, el("h4", {}, item.type), pre("value", item.text ?? JSON.stringify(item)));
  }
}

/** A turn's record line, refusals and events, when the stream kept them. */
function turnRecord(turn: TurnView): HTMLElement[] {
  const r = turn.record;
  const out: HTMLElement[] = [];
  if (r) {
    const ended = r.status ?? `${r.toolCalls} tool calls`;
    out.push(
      el(
        "p",
        { class: "hint turn-record", "data-duration-ms": String(r.durationMs) },
        `${ended} · ${r.durationMs.toFixed(1)} ms · ${r.refusals.length} refused · ${r.events} events`,
      ),
    );
    if (r.refusals.length > 0) {
      out.push(
        el("ul", { class: "plain refusals" }, ...r.refusals.map((f) => el("li", { class: "refused" }, el("span", { class: "badge deleted" }, f.code), ` ${f.call}: ${f.message}`))),
      );
    }
  }
  if ((turn.events ?? []).length > 0) {
    out.push(
      el(
        "details",
        { class: "turn-events" },
        el("summary", {}, `${turn.events!.length} events`),
        el("ol", { class: "plain" }, ...turn.events!.map((e) => el("li", { "data-event": e.type }, el("span", { class: "badge" }, e.type)))),
      ),
    );
  }
  return out;
}

/** The turn's calls to upstream tool servers, one row each, in call order. */
function toolCalls(turn: TurnView): HTMLElement | null {
  const calls = turn.toolCalls ?? [];
  if (calls.length === 0) return null;
  const rows = calls.map((c) =>
    el(
      "tr",
      { class: c.ok ? "" : "refused", "data-ok": String(c.ok) },
      el("td", { class: "server" }, c.server),
      el("td", { class: "tool" }, c.tool),
      el("td", { class: "num duration" }, typeof c.durationMs === "number" ? c.durationMs.toFixed(1) : "–"),
      el("td", { class: "outcome" }, c.ok ? el("span", { class: "badge" }, "ok") : el("span", { class: "badge deleted" }, c.errorCode ?? "failed")),
      numCell(c.argumentChars),
      numCell(c.resultChars),
    ),
  );
  return el(
    "div",
    { class: "entry tool-calls", "data-tool-calls": String(calls.length) },
    el("h4", {}, `${calls.length} tool server call${calls.length === 1 ? "" : "s"}`),
    turn.toolCallsPartial ? el("p", { class: "hint partial" }, "Its older calls are past the newest event lines read.") : null,
    rowsTable(["server", "tool", "ms", "result", "argument chars", "result chars"], rows, { class: "tool-calls" }),
  );
}

/** Renders agent `id`'s page into `node`; `back` returns to the list. */
export async function renderTranscript(node: HTMLElement, id: string, back: () => void): Promise<void> {
  const t = await api<Transcript>(`/api/agents/${encodeURIComponent(id)}/transcript`);
  const backButton = el("button", { class: "back", "data-testid": "back-to-agents" }, "‹ all agents");
  backButton.addEventListener("click", back);
  clear(
    node,
    backButton,
    el("h2", { "data-testid": "agent-title" }, `Agent ${t.id}`, " ", el("small", {}, `profile ${t.profile} · turn ${t.turn} · ${num(t.eventsTotal)} events`)),
    t.turns.length === 0
      ? el("p", { class: "empty" }, "No turns recorded yet.")
      : el(
          "div",
          { id: "transcript" },
          ...t.turns.map((turn) =>
            el(
              "section",
              { class: "turn", "data-turn": String(turn.turn) },
              el(
                "h3",
                {},
                turn.turn === 0 ? "Opening (turn 0)" : `Turn ${turn.turn}`,
                turn.turn > t.turn && !turn.record ? el("small", { class: "hint running" }, " still running") : null,
              ),
              ...turnRecord(turn),
              toolCalls(turn),
              ...turn.items.map(entry),
            ),
          ),
        ),
    el("h3", {}, "Memory revisions it made", " ", el("small", { class: "hint" }, `${t.revisions.length}`)),
    t.revisions.length === 0
      ? el("p", { class: "empty" }, "None.")
      : table(
          ["when", "store", "memory", "revision", "mutation"],
          t.revisions.map((r) => [new Date(r.atMs).toLocaleString(), r.store, r.slug, String(r.revision), r.mutation]),
          { id: "made-revisions" },
        ),
    el("h3", {}, `Event stream`, " ", el("small", { class: "hint" }, t.events.length < t.eventsTotal ? `the newest ${t.events.length} of ${t.eventsTotal}` : `${t.eventsTotal} events`)),
    t.events.length === 0
      ? el("p", { class: "empty" }, "No events.")
      : el(
          "ol",
          { id: "events", class: "plain" },
          ...t.events.map((e) => {
            const { type, ...rest } = e;
            return el("li", { "data-event": type }, el("span", { class: "badge" }, type), " ", el("code", {}, JSON.stringify(rest)));
          }),
        ),
  );
}
