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
//! The repository's `docs/` folder has a page per concept: `embedding.md`
//! (this crate's API), `programs.md`, `memories.md`, `persistence.md`,
//! `tools.md`, `security.md`.
//!
//! # Example
//!
//! An agent with the default profile (code mode, no capabilities beyond
//! views, no state folder): one turn that opens a text view and exports a
//! value, then the window its next turn would see.
//!
//! ```
//! use gg_runtime::{Agent, AgentOptions, Response};
//!
//! let mut agent = Agent::new(AgentOptions::default())?;
//! let outcome = agent.turn(Response::program(
//!     r#"import { views } from "gg";
//!        views.openText("plan", "1. read the notes");
//!        export default 6 * 7;"#,
//! ))?;
//! let acknowledgement = outcome.acknowledgement.expect("code mode acknowledges");
//! assert_eq!(acknowledgement.value.as_deref(), Some("42"));
//! assert!(agent.render_window().contains("1. read the notes"));
//! # Ok::<(), gg_runtime::AgentError>(())
//! ```
//!
//! # An embedder's host
//!
//! An agent whose state lives in a folder (its window, program library and
//! event stream survive the process), with a profile, one host function,
//! a policy that refuses one tool, and the turn's typed events.
//! [`AgentHandle`] holds the same agent for async code. The walkthrough is
//! `docs/embedding.md`.
//!
//! ```
//! use std::sync::Arc;
//! use gg_runtime::{
//!     Agent, AgentOptions, Event, HostPolicy, HostTool, Profile, Response, ToolCallRequest,
//!     ToolDecision,
//! };
//! use serde_json::{json, Value};
//!
//! struct NoRefunds;
//! impl HostPolicy for NoRefunds {
//!     fn tool_call(&self, call: &ToolCallRequest<'_>) -> ToolDecision {
//!         match call.tool {
//!             "refund" => ToolDecision::Refuse("refunds go through a person".into()),
//!             _ => ToolDecision::Allow,
//!         }
//!     }
//! }
//!
//! let schema = json!({ "type": "object", "properties": { "id": { "type": "integer" } } });
//! let status = HostTool::new("shop", "status", "An order's status.", schema.clone(),
//!     |args: Value| async move { Ok(json!({ "id": args["id"], "status": "shipped" })) });
//! let refund = HostTool::new("shop", "refund", "Refunds an order.", schema,
//!     |_: Value| async move { Ok(json!("refunded")) });
//!
//! let state = tempfile::tempdir().unwrap();
//! let profile = Profile::from_json5(r#"{ id: "clerk", programs: { timeMs: 2000 } }"#, "clerk")?;
//! let mut agent = Agent::new(
//!     AgentOptions::new(profile)
//!         .state(state.path().to_path_buf())
//!         .agent_id("clerk-1".to_string())
//!         .host_tool(status)
//!         .host_tool(refund)
//!         .policy(Arc::new(NoRefunds)),
//! )?;
//! let outcome = agent.turn(Response::program(
//!     r#"import { status, refund } from "gg/tools/shop";
//!        let refused = "";
//!        try { await refund({ id: 7 }); } catch (e) { refused = e.code; }
//!        export default [(await status({ id: 7 })).status, refused];"#,
//! ))?;
//! let acknowledgement = outcome.acknowledgement.as_ref().unwrap();
//! assert_eq!(acknowledgement.value.as_deref(), Some(r#"["shipped","unavailable"]"#));
//! // The events are typed: one `tool_call` per call that ran, the turn's
//! // record last.
//! let calls: Vec<_> = outcome.events.iter().filter_map(|e| match e {
//!     Event::ToolCall(call) => Some(call.tool.as_str()),
//!     _ => None,
//! }).collect();
//! assert_eq!(calls, ["status"]);
//! assert!(matches!(outcome.events.last(), Some(Event::Turn(_))));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Many agents
//!
//! An agent's isolate is most of what it costs while it waits (about
//! 1.8 MB). A host of many agents parks the ones that have been idle a
//! while; a parked agent keeps its window, memories and loaded code, and
//! its next run takes a fresh isolate, as a fresh process on the same state
//! would.
//!
//! ```
//! use gg_runtime::{Agent, AgentOptions, Response};
//!
//! let mut agent = Agent::new(AgentOptions::default())?;
//! agent.turn(Response::program(r#"import { views } from "gg"; views.openText("a", "kept");"#))?;
//! assert!(agent.park());
//! assert!(!agent.holds_isolate());
//! let outcome = agent.turn(Response::program("export default 6 * 7;"))?;
//! assert_eq!(outcome.acknowledgement.unwrap().value.as_deref(), Some("42"));
//! assert!(agent.holds_isolate() && agent.render_window().contains("kept"));
//! # Ok::<(), gg_runtime::AgentError>(())
//! ```
//!
//! # Tools
//!
//! A profile's `tools` block names upstream MCP servers; an embedder adds
//! functions of its own with [`HostTool`]. Both reach programs as typed
//! modules (`gg/tools/<server>`, one async function per tool, its argument
//! checked host-side against the tool's JSON Schema) and tool-calling
//! models as native tools (`<server>__<tool>`); every call is a `tool_call`
//! event.
//!
//! ```
//! use gg_runtime::{Agent, AgentOptions, HostTool, Response, ToolError};
//! use serde_json::{json, Value};
//!
//! let lookup = HostTool::new(
//!     "shop",
//!     "lookup_order",
//!     "Looks up an order by its id.",
//!     json!({
//!         "type": "object",
//!         "properties": { "id": { "type": "integer", "description": "The order's id." } },
//!         "required": ["id"]
//!     }),
//!     |args: Value| async move {
//!         match args["id"].as_i64() {
//!             Some(404) => Err(ToolError::not_found("there is no order 404")),
//!             id => Ok(json!({ "id": id, "status": "shipped" })),
//!         }
//!     },
//! );
//! let mut agent = Agent::new(AgentOptions::default().host_tool(lookup))?;
//! // The model is shown the module's typings.
//! assert!(agent.system_prompt().contains("export function lookupOrder(args: {"));
//! let outcome = agent.turn(Response::program(
//!     r#"import { lookupOrder } from "gg/tools/shop";
//!        const order = await lookupOrder({ id: 7 });
//!        let refusal = "";
//!        try { await lookupOrder({ id: "7" }); } catch (e) { refusal = e.code; }
//!        export default [order.status, refusal];"#,
//! ))?;
//! let acknowledgement = outcome.acknowledgement.expect("code mode acknowledges");
//! assert_eq!(acknowledgement.value.as_deref(), Some(r#"["shipped","invalid-argument"]"#));
//! assert!(outcome.events.iter().any(|e| matches!(e, gg_runtime::Event::ToolCall(_))));
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
mod policy;
mod tools;
mod turn;

pub use agent::{
    write_modules_files, Agent, AgentError, AgentHandle, AgentOptions, Finish, HostedState,
    PolicySlot,
};
pub use determinism::{parse_clock, ClockError, Determinism};
pub use engine::{stop_grace, supervise_runs, EngineError, Frame, RunSupervisor, ThrownError};
pub use host::ConsoleListener;

pub use operator_log::{untrusted, Untrusted, UNTRUSTED_CHARS};
pub use policy::{
    DeadlineDecision, DeadlineReached, HostPolicy, ProfileRules, ToolCallRequest, ToolDecision,
};
pub use tools::{
    shutdown_tool_servers, start_tool_runtime, without_tools, HostTool, ToolAnswer,
    ToolDescription, ToolError, ToolRelay,
};
pub use turn::{Refusal, Response, ToolCall, ToolResult, TurnOutcome};

/// gg's engine-free domain (profiles, windows, memories, events, stores),
/// whose types this crate's API speaks: depending on gg-runtime alone
/// reaches all of it. The types an embedder meets first are also here.
pub use gg_module;
pub use gg_module::events::{Event, EventSink};
pub use gg_module::run::{MemoryBinding, Run};
pub use gg_module::{
    Acknowledgement, ConfigError, ConsoleLine, ErrorCode, GgError, Mode, Profile, RunStatus, View,
    Window,
};

/// Counters and switches of the engine's internals, read and turned by
/// gg's own tests, benchmarks and `gg mcp --inject-engine-fault`: not part
/// of the embedding API, and free to change.
#[doc(hidden)]
pub mod probes {
    pub use crate::engine::{
        enable_injected_fault, lazy_function_reads, lazy_primordials, live_module_handles,
        live_native_slots, set_lazy_function_reads, set_lazy_primordials, LazyFunctionReads,
        LazyPrimordials, INJECTED_FAULT_BUILT,
    };
}

/// Test-only engine faults (the `fault-injection` feature): a program that
/// can do what a sandbox escape would let it, and a defect in gg's turn
/// loop, for the tests of the walls around them.
#[cfg(feature = "fault-injection")]
pub mod fault {
    pub use crate::engine::fault::{enable, panic_in_next_turn};
}
