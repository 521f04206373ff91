//! gg's host: runs each turn's TypeScript program in a deno_core isolate
//! whose `gg` module is the agent's only way to touch the world.
//!
//! The data flow, one folder a step: `turn` (what a turn takes and gives)
//! → `gg_transpiler` → `engine` (the isolate, its loader and limits) →
//! `bridge` (the `gg` calls: memories, code memories, native tools) → `host`
//! (views, the window) → `agent` (the turn loop, persistence). Durable
//! state lives in `gg_module`.
//!
//! The library never prints: what the operator should know goes through
//! `tracing`, and text a program chose is escaped on its way there
//! ([`untrusted`]).
//!
//! # Example
//!
//! An agent with the default profile (code mode, memories on, no state
//! folder): one turn, then the window its next turn would see.
//!
//! ```
//! use gg_runtime::{Agent, AgentOptions, Response};
//!
//! let mut agent = Agent::new(AgentOptions::default())?;
//! let outcome = agent.turn(Response::program(
//!     r#"import { memories } from "gg";
//!        await memories.createMemory({ name: "greeting", description: "how to greet", body: "Say hi." });
//!        export default "saved";"#,
//! ))?;
//! let acknowledgement = outcome.acknowledgement.expect("code mode acknowledges");
//! assert_eq!(acknowledgement.value.as_deref(), Some("\"saved\""));
//! assert!(agent.window().render().contains("greeting"));
//! # Ok::<(), gg_runtime::AgentError>(())
//! ```
#![deny(clippy::print_stdout, clippy::print_stderr)]
#![warn(missing_docs)]

mod agent;
mod bridge;
mod defect;
mod determinism;
mod engine;
mod host;
mod operator_log;
mod turn;

pub use agent::{Agent, AgentError, AgentOptions, Finish};
pub use determinism::{parse_clock, Determinism};
pub use engine::{
    enable_injected_fault, live_native_slots, preload_sources, Frame, ThrownError,
    INJECTED_FAULT_BUILT,
};
pub use operator_log::untrusted;
pub use turn::{Refusal, Response, ToolCall, ToolResult, TurnOutcome};

/// Test-only engine faults (the `fault-injection` feature): a program that
/// can do what a sandbox escape would let it, and a defect in gg's turn
/// loop, for the tests of the walls around them.
#[cfg(feature = "fault-injection")]
pub mod fault {
    pub use crate::engine::fault::{enable, panic_in_next_turn};
}
