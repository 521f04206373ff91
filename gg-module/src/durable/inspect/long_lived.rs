//! A state folder of one long-lived agent, written fast straight through
//! gg's own types (running thousands of turns through an engine would take
//! minutes): its memory store, its record in `state.sqlite`, its modules
//! file and its event stream of real [`Event`]s. What the console (and
//! `gg bench`) must read quickly however old the agent is. For
//! tests and benchmarks.

use std::path::Path;

use crate::durable::memory_store::{Change, MemoryStore, Mutation};
use crate::durable::{AgentRecord, AgentStore, StoredProgram};
use crate::error::{GgError, GgResult};
use crate::events::{Event, EventLog, EventLogLimits, TurnRecord};
use crate::memories::telemetry;
use crate::memories::{Limits, MemoriesConfig, Scope, Strategy};
use crate::window::{Acknowledgement, ItemBody, RunStatus, Window};

/// The agent's id (and its profile's).
pub const AGENT: &str = "veteran";

/// How much the agent did.
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    /// Turns it ran.
    pub turns: u32,
    /// Memories it created each turn, each one `memory_revision` event.
    pub per_turn: u32,
    /// A `memory_state` event (the whole set, as the runtime emits after a
    /// turn that changed it) every this many turns, and after the last:
    /// emitting it every turn, as the runtime does, would make the stream
    /// of 2 000 turns of 20 memories 3 GB and take minutes to write.
    pub state_every: u32,
    /// How its event stream is rotated.
    pub limits: EventLogLimits,
}

/// What was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Written {
    /// Memories in the store.
    pub memories: u64,
    /// Events in the stream, in all its segments (dropped ones included).
    pub events: u64,
}

/// The store the agent holds.
pub fn store_id() -> String {
    format!("agent.{AGENT}")
}

fn io(what: &str, e: impl std::fmt::Display) -> GgError {
    GgError::io(format!("writing the long-lived agent's {what} failed: {e}"))
}

/// Writes the folder into `root`.
pub fn write(root: &Path, shape: &Shape) -> GgResult<Written> {
    let store_path = root.join("memories").join(format!("{}.sqlite", store_id()));
    let mut store = MemoryStore::open(&store_path, &store_id())?;
    store.join(AGENT, "isolated", true)?;
    let stream = root.join("events").join(format!("{AGENT}.jsonl"));
    let mut log =
        EventLog::to_file_with_limits(&stream, shape.limits).map_err(|e| io("event stream", e))?;
    let config = MemoriesConfig {
        strategy: Strategy::Markdown,
        scope: Scope::Isolated,
        limits: Limits::default(),
        revise: true,
    };
    let mut events = 0;
    for turn in 1..=shape.turns {
        let mut emitted = 0;
        for k in 0..shape.per_turn {
            let slug = format!("note-{turn:05}-{k:02}");
            let revision = store.mutate(AGENT, &slug, |_| {
                Ok(Change::Put {
                    mutation: Mutation::Create,
                    description: format!("finding {k} of turn {turn}"),
                    body: format!("What turn {turn} found, item {k}.\nWhere it came from."),
                    code: None,
                    on_use: None,
                })
            })?;
            log.emit(telemetry::memory_revision(AGENT, &store, &revision));
            emitted += 1;
        }
        if turn % shape.state_every.max(1) == 0 || turn == shape.turns {
            log.emit(telemetry::memory_state(AGENT, &config, &store, true)?);
            emitted += 1;
        }
        log.emit(Event::Turn(TurnRecord {
            agent: AGENT.to_string(),
            turn,
            program: Some(format!("p{turn}")),
            status: Some(RunStatus::Ok),
            tool_calls: 0,
            refusals: Vec::new(),
            unrecorded_refusals: 0,
            events: emitted,
            duration_ms: 1.0,
        }));
        events += log.drain().len() as u64;
    }
    save_agent(root, shape.turns)?;
    write_modules_file(root, &store)?;
    Ok(Written {
        memories: store.totals()?.count,
        events,
    })
}

/// The program the agent ran on `turn`.
pub fn program(turn: u32) -> String {
    format!("await memories.createMemory({{ name: \"note-{turn:05}-00\" }});\n")
}

/// The agent's record after its last turn: that turn's program and
/// acknowledgement in the window (older turns were compacted away).
fn save_agent(root: &Path, turns: u32) -> GgResult<()> {
    let id = format!("p{turns}");
    let mut window = Window::default();
    window.push(
        turns,
        ItemBody::Program {
            id: Some(id.clone()),
            source: program(turns),
        },
    );
    window.push(
        turns,
        ItemBody::Acknowledgement(Acknowledgement {
            program_id: Some(id.clone()),
            status: RunStatus::Ok,
            value: None,
            console: Vec::new(),
            error: None,
            notes: Vec::new(),
        }),
    );
    let record = AgentRecord {
        id: AGENT.to_string(),
        profile_id: AGENT.to_string(),
        turn: turns,
        next_program: u64::from(turns) + 1,
        window,
        loaded: Vec::new(),
        in_flight: None,
    };
    let programs = [StoredProgram {
        id,
        turn: turns,
        source: program(turns),
        opening: false,
    }];
    AgentStore::open(&root.join("state.sqlite"))?.save(&record.as_save(), &programs)
}

/// The console's `agents/<id>/modules/memories` file, as the runtime
/// writes it for the store's holder.
fn write_modules_file(root: &Path, store: &MemoryStore) -> GgResult<()> {
    let modules = root.join("agents").join(AGENT).join("modules");
    std::fs::create_dir_all(&modules).map_err(|e| io("modules folder", e))?;
    let json = serde_json::json!({
        "store": store.id(),
        "strategy": Strategy::Markdown.name(),
        "scope": Scope::Isolated.name(),
        "writable": true,
        "holders": store.attached_holders()?,
        "others": [],
    });
    std::fs::write(modules.join("memories"), json.to_string()).map_err(|e| io("modules file", e))
}
