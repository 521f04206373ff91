//! The agent's event stream: typed [`Event`]s, written as JSON lines to a
//! file under the state folder and handed to a callback for library users.
//!
//! On disk a stream is segmented: the current segment `<id>.jsonl`, the
//! older ones `<id>.jsonl.1` (newest) … `<id>.jsonl.N`, rotated by size
//! ([`EventLogLimits`]), and beside them a small index `<id>.jsonl.idx`
//! ([`StreamIndex`]), so a reader learns how many events the stream holds
//! without reading every byte of it (a long-lived agent's stream reaches
//! gigabytes: each `memory_state` carries the whole memory set).

mod log;
mod stream;
#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

pub use log::{file_sink, EventCallback, EventLog, EventSink};
pub use stream::{segment_path, EventLogLimits, StreamIndex};

use crate::durable::memory_store::{Mutation, Peaks};
use crate::memories::Limits;

/// One event of an agent's stream. Each is written as one JSON object whose
/// `type` is the variant's name in snake case (`memory_state`,
/// `desk_restored`, …) beside the variant's fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// The memory set as it stands, after a turn that changed it (or when
    /// the agent starts).
    MemoryState(MemoryState),
    /// One entry of the store's append-only record of mutations.
    MemoryRevision(MemoryRevision),
    /// Other holders' revisions this agent's notice handed over.
    MemoryPull {
        /// The agent that pulled.
        agent: String,
        /// The store pulled from.
        store: String,
        /// The revisions handed over, by their sequence number.
        seqs: Vec<i64>,
    },
    /// The desk re-opened at the top of a persistent agent's turn loop.
    DeskRestored {
        /// The agent whose desk it is.
        agent: String,
        /// File views re-opened.
        files: usize,
        /// Text views re-opened.
        texts: usize,
        /// Documentation views re-opened.
        documentation: usize,
        /// Views that could not be re-opened.
        skipped: usize,
        /// How the file views were re-opened (`opening programs`, `read_file
        /// call/result pairs`).
        mechanism: String,
    },
    /// A desk view that could not be re-opened.
    DeskSkipped {
        /// The agent whose desk it is.
        agent: String,
        /// The file's workspace path.
        path: String,
        /// Why it could not be opened.
        reason: String,
    },
    /// A memory's onUse hook failed (threw, or hit a limit).
    OnUseFailed {
        /// The agent whose turn used the memory.
        agent: String,
        /// The memory's slug.
        memory: String,
        /// What failed, as the hook's error says it.
        detail: String,
    },
    /// One call of a tool (an upstream MCP server's or a host function),
    /// from a program or a native tool call.
    ToolCall(ToolCallRecord),
    /// One turn has ended: what it ran, how it ended, what gg refused and
    /// how long it took. The events before it in the stream, back to the
    /// previous `turn`, are that turn's.
    Turn(TurnRecord),
    /// gg's own defect, blamed on gg (never on the program).
    InternalError {
        /// Always `gg`: whose fault it was.
        blame: Blame,
        /// The agent it ended, when it ended one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        agent: Option<String>,
        /// The `gg` call it happened in, when it happened in one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        call: Option<String>,
        /// What went wrong.
        detail: String,
    },
}

impl Event {
    /// The JSON object of the event's line in the stream: `type` and the
    /// variant's fields.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("events serialize")
    }

    /// The event's line in the stream, without its line break: the keys of
    /// every object in alphabetical order, as streams have always been
    /// written (so a line is the same bytes whichever version wrote it).
    pub fn to_line(&self) -> String {
        self.to_json().to_string()
    }
}

/// The `turn` event's fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnRecord {
    /// The agent whose turn it was.
    pub agent: String,
    /// The turn's number in the agent's life, from 1.
    pub turn: u32,
    /// Code mode: the program's id (`None` for an agent with no program
    /// library, or in tool-calling mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program: Option<String>,
    /// Code mode: how the program ended (`ok`, `threw`, `ceiling`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<crate::window::RunStatus>,
    /// Tool-calling mode: the calls the turn made.
    pub tool_calls: usize,
    /// Calls gg refused during the turn, caught by the program or not: the
    /// first [`RECORDED_REFUSALS`].
    pub refusals: Vec<Refusal>,
    /// Refusals past those, counted but not recorded one by one.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unrecorded_refusals: u64,
    /// Events the turn emitted before this one.
    pub events: usize,
    /// Wall-clock time from the turn's start (before its desk is restored)
    /// to its end, views arrived and the agent's state stored, in
    /// milliseconds.
    pub duration_ms: f64,
}

/// The `tool_call` event's fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallRecord {
    /// The agent that made the call.
    pub agent: String,
    /// The turn it was made in.
    pub turn: u32,
    /// The tool server (the module `gg/tools/<server>`).
    pub server: String,
    /// The tool's own name (`read_text_file`).
    pub tool: String,
    /// From the call's start (its checks passed) to its answer, in
    /// milliseconds.
    pub duration_ms: f64,
    /// Whether it answered a result (false: refused, failed or timed out).
    pub ok: bool,
    /// The refusal's code when it was not ok (`io-error`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_code: Option<String>,
    /// Characters of the argument, as JSON.
    pub argument_chars: usize,
    /// Characters of the result (its text, or its structured content as
    /// JSON); 0 when it was not ok.
    pub result_chars: usize,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Refusals one turn records one by one (in its `turn` record and its
/// outcome); past these it counts them. A program refusing calls in a loop
/// would otherwise make the host keep, and write, millions in one turn.
pub const RECORDED_REFUSALS: usize = 100;

/// Characters of a refusal's message a turn records; a longer one (it may
/// quote a long argument) is cut there, with its full length noted.
pub const RECORDED_MESSAGE_CHARS: usize = 2_000;

/// The calls gg refused during one turn: the first [`RECORDED_REFUSALS`]
/// kept, the rest counted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TurnRefusals {
    recorded: Vec<Refusal>,
    unrecorded: u64,
}

impl TurnRefusals {
    /// Records the refusal `make` gives, or only counts it when the turn
    /// has recorded its share (then `make` is not called).
    pub fn push_with(&mut self, make: impl FnOnce() -> Refusal) {
        if self.recorded.len() < RECORDED_REFUSALS {
            let mut refusal = make();
            if let Some((cut, _)) = refusal.message.char_indices().nth(RECORDED_MESSAGE_CHARS) {
                let chars = refusal.message.chars().count();
                refusal.message.truncate(cut);
                refusal
                    .message
                    .push_str(&format!("… (cut: {chars} characters in all)"));
            }
            self.recorded.push(refusal);
        } else {
            self.unrecorded += 1;
        }
    }

    /// The refusals recorded one by one, in order.
    pub fn recorded(&self) -> &[Refusal] {
        &self.recorded
    }

    /// The refusals past [`RECORDED_REFUSALS`], counted.
    pub fn unrecorded(&self) -> u64 {
        self.unrecorded
    }

    /// Takes what was recorded and counted, leaving none.
    pub fn take(&mut self) -> TurnRefusals {
        std::mem::take(self)
    }

    /// The recorded refusals and the count of the rest.
    pub fn into_parts(self) -> (Vec<Refusal>, u64) {
        (self.recorded, self.unrecorded)
    }
}

/// A call gg refused during a turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refusal {
    /// `views.openFile`, `memories.createMemory`, `create_memory`, …
    pub call: String,
    /// The refusal's error code (`NOT_FOUND`, `INVALID_ARGUMENT`, …).
    pub code: String,
    /// What was wrong, as the program's error says it.
    pub message: String,
}

/// Whose fault an [`Event::InternalError`] was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Blame {
    /// gg's own code (or the engine under it).
    Gg,
}

/// The `memory_state` event's fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemoryState {
    /// The agent that holds the store.
    pub agent: String,
    /// The store's id (`agent.alice`, `profile.team`, …).
    pub store: String,
    /// The memories strategy (`markdown`, `scratchpad`, `keyword-search`).
    pub strategy: String,
    /// The scope the store was bound by.
    pub scope: String,
    /// Whether this agent may write (a read-only holder may not).
    pub writable: bool,
    /// Every memory in the set, in the store's order.
    pub memories: Vec<MemoryEntry>,
    /// The set's totals.
    pub totals: SetTotals,
    /// The capability's limits.
    pub limits: Limits,
    /// The most the store ever held at once.
    pub peaks: Peaks,
}

/// One memory in a [`MemoryState`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryEntry {
    /// The memory's slug.
    pub name: String,
    /// Its one-line description.
    pub description: String,
    /// Body characters.
    pub chars: u64,
    /// Body lines.
    pub lines: u64,
}

/// The totals a [`MemoryState`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetTotals {
    /// Memories held.
    pub count: u64,
    /// Body characters across them.
    pub chars: u64,
    /// Body lines across them.
    pub lines: u64,
}

/// The `memory_revision` event's fields.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryRevision {
    /// The agent that made the mutation.
    pub agent: String,
    /// The program that made it (`p3`), when a program did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program: Option<String>,
    /// The store's id.
    pub store: String,
    /// The revision's place in the store's record, from 1.
    pub seq: i64,
    /// The memory's slug.
    pub name: String,
    /// The memory's revision number, from 1.
    pub revision: i64,
    /// What the mutation was (`create`, `edit`, `delete`, …).
    pub mutation: Mutation,
    /// The description as of this revision (the last one, for a delete).
    pub description: String,
    /// The body as of this revision (empty for a delete).
    pub body: String,
}
