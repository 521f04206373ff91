//! The `gg` binary end to end, one module per command or concern, in one
//! test binary: each test starts `gg` (and real clients, servers and
//! browsers nobody here wrote) as separate processes.
//!
//! `cargo test --workspace --test gg -- mcp::` runs one module (the
//! workspace build gives `gg` the fault-injection feature some tests use).

mod cli;
mod code_memories_fresh;
mod compat;
mod console;
mod crash_mid_turn;
mod heap_bound;
mod mcp;
mod serve;
mod state_isolation;
mod tools;

#[path = "serve/crowd.rs"]
mod crowd;
