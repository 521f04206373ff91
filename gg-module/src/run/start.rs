//! How an agent instance was started: the places gg starts one.

use serde::{Deserialize, Serialize};

/// The place gg started an agent instance, which decides what its scope binds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum StartKind {
    /// The run's root.
    Root,
    /// An issue's implementer (top-level, not a subagent).
    Implementer,
    /// A subagent, spawned by the agent `spawner`.
    Subagent {
        /// The spawning agent instance's id.
        spawner: String,
    },
    /// A reviewer or merge agent (dispatched directly, not by a spawner).
    Reviewer,
    /// A fork of the agent `of`.
    Fork {
        /// The forked agent instance's id.
        of: String,
    },
    /// A successor (exec or FSM transition) of the agent `from`.
    Successor {
        /// The predecessor agent instance's id.
        from: String,
    },
}

impl StartKind {
    /// The kind's name in kebab case (`subagent`), for messages.
    pub fn label(&self) -> &'static str {
        match self {
            StartKind::Root => "root",
            StartKind::Implementer => "implementer",
            StartKind::Subagent { .. } => "subagent",
            StartKind::Reviewer => "reviewer",
            StartKind::Fork { .. } => "fork",
            StartKind::Successor { .. } => "successor",
        }
    }
}
