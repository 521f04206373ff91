//! The memories capability (memories.md): three strategies, six limits,
//! search/replace edits, a durable store with a revision log, telemetry.

pub mod args;
pub mod calls;
pub mod config;
pub mod limits;
pub mod notice;
mod occurrences;
pub mod render;
pub mod schemas;
pub mod search;
pub mod service;
pub mod telemetry;

pub use crate::durable::memory_store::{
    MemoryBackend, MemoryRecord, MemoryStore, Mutation, RevisionRecord, StoreLocation,
};
pub use calls::Call;
pub use config::{Limits, MemoriesConfig, Scope, Strategy};
pub use search::SearchHit;
pub use service::{check_decided, Memories, Memory, MemoryInput, Origin};
