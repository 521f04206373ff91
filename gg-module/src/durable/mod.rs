//! Everything gg keeps: each memory store (an embedded SQLite database, or
//! tables in PostgreSQL shared by hosts), each agent's durable record
//! (window, turn counter, program library, desks) and the state folder that
//! holds them, and the read-only view of that folder the console reads. The
//! SQL schemas live in [`schema`], the one definition the writers create
//! and the inspector reads.

pub mod agents;
pub mod inspect;
pub mod memory_store;
pub mod pg;
pub mod schema;
mod state_dir;

pub use agents::{
    AgentBackend, AgentRecord, AgentRows, AgentSave, AgentStore, AgentWrite, ItemRows,
    StoredProgram, TurnInFlight,
};
pub use state_dir::{apply_schema, open_database, open_database_with_schema, StateDir};
