//! What a worker asks of its host's state, and what comes back: every
//! read and write of the agent's durable state, as JSON lines on the
//! worker's channel. Each call names the agent, holder, profile or store it
//! is for, so the host can refuse one that is not the worker's own.

use gg_module::desk::Desk;
use gg_module::durable::memory_store::{Change, MemoryRecord, Totals};
use gg_module::durable::{AgentRows, StoredProgram};
use serde::{Deserialize, Serialize};

/// One call on the agent's state, from its worker.
#[derive(Debug, Serialize, Deserialize)]
pub enum StateCall {
    /// The agent's rows.
    LoadAgent { id: String },
    /// Saves the agent's rows and the programs of its latest turn.
    SaveAgent {
        rows: Box<AgentRows>,
        programs: Vec<StoredProgram>,
    },
    /// The desk its profile's last instance left.
    LoadDesk { profile: String },
    /// Replaces its profile's desk.
    SaveDesk { profile: String, desk: Desk },
    /// The programs recorded for the agent.
    Programs { id: String },
    /// The bound memory store's newest revision.
    Head,
    /// One memory of the bound store.
    Get { slug: String },
    /// The bound store's current set.
    List,
    /// Its running totals.
    Totals,
    /// Its peaks.
    Peaks,
    /// Its revision log after `seq`.
    RevisionsSince { seq: i64 },
    /// Registers the agent as a holder.
    Join {
        holder: String,
        scope: String,
        writable: bool,
    },
    /// Marks the agent detached.
    Leave { holder: String },
    /// Every holder.
    Holders,
    /// The attached holders.
    AttachedHolders,
    /// The revisions past the agent's watermark.
    Pull { holder: String },
    /// One mutation, decided by the worker inside the host's transaction:
    /// the host answers with [`FromHost::Decide`], then the mutation's
    /// result.
    Mutate {
        agent: String,
        program: Option<String>,
        slug: String,
    },
    /// A read inside the transaction of a mutation being decided.
    TxGet { slug: String },
    /// The `n` largest memories, inside the transaction.
    TxLargest { n: usize },
    /// The `n` longest index lines, inside the transaction.
    TxLongestIndexLines { n: usize },
    /// The `seq` of every `memory_revision` the agent's event stream holds
    /// after its last `turn`.
    RevisionsAfterLastTurn,
}

impl StateCall {
    /// The call's name, for the log.
    pub fn name(&self) -> &'static str {
        match self {
            StateCall::LoadAgent { .. } => "load_agent",
            StateCall::SaveAgent { .. } => "save_agent",
            StateCall::LoadDesk { .. } => "load_desk",
            StateCall::SaveDesk { .. } => "save_desk",
            StateCall::Programs { .. } => "programs",
            StateCall::Head => "head",
            StateCall::Get { .. } => "get",
            StateCall::List => "list",
            StateCall::Totals => "totals",
            StateCall::Peaks => "peaks",
            StateCall::RevisionsSince { .. } => "revisions_since",
            StateCall::Join { .. } => "join",
            StateCall::Leave { .. } => "leave",
            StateCall::Holders => "holders",
            StateCall::AttachedHolders => "attached_holders",
            StateCall::Pull { .. } => "pull",
            StateCall::Mutate { .. } => "mutate",
            StateCall::TxGet { .. } => "tx_get",
            StateCall::TxLargest { .. } => "tx_largest",
            StateCall::TxLongestIndexLines { .. } => "tx_longest_index_lines",
            StateCall::RevisionsAfterLastTurn => "revisions_after_last_turn",
        }
    }
}

/// What a worker sends its host about its agent's state.
#[derive(Debug, Serialize, Deserialize)]
pub enum ToHost {
    /// A call, answered by [`FromHost`] lines with the same `id`.
    Call { id: u64, call: StateCall },
    /// The decision for mutation `id`, asked by [`FromHost::Decide`].
    Decided {
        id: u64,
        change: Result<Change, gg_module::GgError>,
    },
    /// One line of the agent's event stream (an event's JSON and its line
    /// break); not answered.
    Event { line: String },
    /// A turn ended: the event stream's index is recorded; not answered.
    EventsCheckpoint,
}

/// What the host sends back for one [`StateCall`].
#[derive(Debug, Serialize, Deserialize)]
pub enum FromHost {
    /// The call's answer (as JSON of the call's result type) or refusal.
    Answer(Result<serde_json::Value, gg_module::GgError>),
    /// A mutation's transaction is open: decide on it, with these totals.
    Decide { totals: Totals },
}

/// A memory record as it travels: every field, the code halves and key
/// included (the record's own serialized form leaves those out).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WireRecord {
    pub slug: String,
    pub description: String,
    pub body: String,
    pub code: Option<String>,
    pub on_use: Option<String>,
    pub chars: u64,
    pub lines: u64,
    pub key: Option<String>,
}

impl From<MemoryRecord> for WireRecord {
    fn from(m: MemoryRecord) -> Self {
        WireRecord {
            slug: m.slug,
            description: m.description,
            body: m.body,
            code: m.code,
            on_use: m.on_use,
            chars: m.chars,
            lines: m.lines,
            key: m.key,
        }
    }
}

impl From<WireRecord> for MemoryRecord {
    fn from(m: WireRecord) -> Self {
        MemoryRecord {
            slug: m.slug,
            description: m.description,
            body: m.body,
            code: m.code,
            on_use: m.on_use,
            chars: m.chars,
            lines: m.lines,
            key: m.key,
        }
    }
}

/// The memory store a host bound the worker's agent to, as the worker
/// learns it (the store itself stays with the host).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WireBinding {
    pub store_id: String,
    pub scope: gg_module::memories::Scope,
    pub writable: bool,
    pub told: Option<String>,
}
