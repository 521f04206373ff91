//! gg's host: runs each turn's TypeScript program in a deno_core isolate
//! whose `gg` module is the agent's only way to touch the world.
//!
//! The data flow, one folder or file per step: [`turn`] (a response) →
//! `gg_transpiler` → [`engine`] (isolate, loader, limits) → [`ops`] (the
//! `gg` calls) → [`host`] (views, window) → [`agent`] (turn loop, state).
//!
//! The library never prints: what the operator should know goes through
//! `tracing` ([`operator_log`]).
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod agent;
pub mod code_memories;
pub mod console;
mod defect;
pub mod determinism;
pub mod engine;
pub mod host;
pub mod intl;
pub mod mcp;
pub mod memory_calls;
pub mod operator_log;
pub mod ops;
pub mod session;
pub mod tools;
pub mod turn;

pub use agent::{Agent, AgentError, AgentOptions, Finish};
pub use determinism::Determinism;
pub use engine::live_native_slots;
pub use turn::{Refusal, Response, ToolCall, ToolResult, TurnOutcome};
