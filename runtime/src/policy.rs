//! [`HostPolicy`]: what the embedder decides at the host boundary, one
//! method per decision, each with a default. gg asks only about what the
//! profile already allows (the profile's rules are checked first: a tool
//! it does not offer, an argument its schema refuses, never reach the
//! policy), so the default of every method is to let the profile's rules
//! stand.
//!
//! ```
//! use std::sync::Arc;
//! use gg_runtime::{DeadlineDecision, DeadlineReached, HostPolicy, ToolCallRequest, ToolDecision};
//!
//! /// Refuses one tool, and gives a program that reaches its time limit
//! /// half as much again, once.
//! struct Careful;
//!
//! impl HostPolicy for Careful {
//!     fn tool_call(&self, call: &ToolCallRequest<'_>) -> ToolDecision {
//!         if call.tool == "delete_everything" {
//!             return ToolDecision::Refuse("deleting is not allowed here".into());
//!         }
//!         ToolDecision::Allow
//!     }
//!
//!     fn deadline(&self, run: &DeadlineReached) -> DeadlineDecision {
//!         if run.extended.is_zero() {
//!             DeadlineDecision::Extend(run.limit / 2)
//!         } else {
//!             DeadlineDecision::Stop
//!         }
//!     }
//! }
//!
//! let options = gg_runtime::AgentOptions::default().policy(Arc::new(Careful));
//! # let _ = options;
//! ```

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use serde_json::Value;

/// The embedder's decisions at the host boundary. Called on gg's threads
/// (a tool call's on the agent's thread, a deadline's on its watchdog's);
/// each must answer quickly, and a decision that takes a person's time is
/// [`ToolDecision::Ask`]: its future is awaited while the program waits,
/// and the time the program is idle on it is not counted against its time
/// limit.
pub trait HostPolicy: Send + Sync + 'static {
    /// A call of a tool the profile offers, its argument already checked
    /// against the tool's schema: go ahead, refuse it (the program gets a
    /// `GgError` with code `unavailable` and the reason), or decide later.
    /// The default lets every such call go ahead.
    fn tool_call(&self, call: &ToolCallRequest<'_>) -> ToolDecision {
        let _ = call;
        ToolDecision::Allow
    }

    /// A program (or an onUse hook) reached its time limit: stop it (the
    /// default, a time ceiling) or give it more time to run. Asked again
    /// each time a granted extension runs out.
    fn deadline(&self, run: &DeadlineReached) -> DeadlineDecision {
        let _ = run;
        DeadlineDecision::Stop
    }
}

/// The policy of an embedder that set none: the profile's rules alone.
#[derive(Debug, Clone, Copy, Default)]
pub struct ProfileRules;

impl HostPolicy for ProfileRules {}

/// A tool call the policy is asked about.
#[derive(Debug)]
#[non_exhaustive]
pub struct ToolCallRequest<'a> {
    /// The agent making it.
    pub agent: &'a str,
    /// The tool's server (the module `gg/tools/<server>`).
    pub server: &'a str,
    /// The tool's name on its server.
    pub tool: &'a str,
    /// The argument, as the program passed it (checked against the
    /// tool's schema).
    pub argument: &'a Value,
}

/// What the policy decided about a tool call.
pub enum ToolDecision {
    /// The call goes ahead.
    Allow,
    /// The call is refused with this reason, addressed to the model.
    Refuse(String),
    /// The answer comes later (a person approves, a service decides): the
    /// call waits for this future, on gg's tool runtime (at most 10
    /// minutes), and then goes ahead or is refused as it answers. While the
    /// program is idle on it, its time limit does not run.
    Ask(Pin<Box<dyn Future<Output = ToolDecision> + Send>>),
}

impl std::fmt::Debug for ToolDecision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ToolDecision::Allow => f.write_str("Allow"),
            ToolDecision::Refuse(why) => f.debug_tuple("Refuse").field(why).finish(),
            ToolDecision::Ask(_) => f.write_str("Ask(..)"),
        }
    }
}

/// A run that reached its time limit.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct DeadlineReached {
    /// The run's own limit (the profile's `timeMs`, or `onUseTimeMs`).
    pub limit: Duration,
    /// What the policy has granted this run beyond its limit so far.
    pub extended: Duration,
}

/// What the policy decided about a run at its time limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeadlineDecision {
    /// Stop it: the run ends at its time ceiling.
    Stop,
    /// Let it run this much longer, then ask again.
    Extend(Duration),
}
