//! Which memory store an agent binds, and whether it may write: the spec's
//! table (start kind × scope), the transfer rules for successors, and the
//! two rules that make the scopes coherent (read-only restricts only an
//! inherited handle; write access belongs to the holder).

use serde::Serialize;

use super::start::StartKind;
use crate::memories::{MemoriesConfig, Scope};

/// What another agent holds, as the binding table needs to know it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Held {
    /// The id of the store it holds.
    pub store: String,
    /// Its memories capability.
    pub config: MemoriesConfig,
}

/// Where a new instance's memories come from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "source", rename_all = "kebab-case")]
pub enum StoreSource {
    /// A fresh store of its own.
    Own,
    /// The profile's one shared store.
    Profile,
    /// Another agent's store, linked.
    Linked {
        /// The linked store's id.
        store: String,
    },
    /// An independent copy of another agent's store (an isolated fork).
    CopyOf {
        /// The id of the store copied.
        store: String,
    },
}

/// The resolved binding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Resolution {
    /// Where its memories come from.
    pub source: StoreSource,
    /// Whether it may write them.
    pub writable: bool,
    /// What the agent is told about how it got here (e.g. a successor whose
    /// strategy differs gets a fresh notebook and is told why).
    pub told: Option<String>,
}

/// Why a binding could not be made: gg's own defect (the live spawner
/// settled a pairing whose strategies disagree).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StrategyDisagreement(pub String);

/// Resolves the binding of an agent with memories `config`, started as
/// `start`; `other` is what the spawner, forker or predecessor holds
/// (`None` when it keeps no memories or there is none).
pub fn resolve(
    config: &MemoriesConfig,
    start: &StartKind,
    other: Option<&Held>,
) -> Result<Resolution, StrategyDisagreement> {
    let own = |writable: bool| Resolution {
        source: StoreSource::Own,
        writable,
        told: None,
    };
    if config.scope == Scope::Shared {
        // Bound to the profile, whatever the start kind; a successor
        // re-binds its own profile's instance instead of the one handed on.
        return Ok(Resolution {
            source: StoreSource::Profile,
            writable: true,
            told: None,
        });
    }
    let linked = |held: &Held, writable: bool| -> Result<Resolution, StrategyDisagreement> {
        if held.config.strategy != config.strategy {
            return Err(StrategyDisagreement(format!(
                "a {} agent would bind a store organized as {}, but it names {}",
                start.label(),
                held.config.strategy.name(),
                config.strategy.name()
            )));
        }
        Ok(Resolution {
            source: StoreSource::Linked {
                store: held.store.clone(),
            },
            writable,
            told: None,
        })
    };
    match start {
        StartKind::Root | StartKind::Implementer | StartKind::Reviewer => Ok(own(true)),
        StartKind::Subagent { .. } => match (config.scope, other) {
            (Scope::Inherited, Some(held)) => linked(held, true),
            (Scope::ReadOnly, Some(held)) => linked(held, false),
            // isolated; or a spawner that keeps no memories: an own
            // notebook, writable (read-only restricts only an inherited handle).
            _ => Ok(own(true)),
        },
        StartKind::Fork { .. } => match (config.scope, other) {
            (Scope::Isolated, Some(held)) if held.config.strategy == config.strategy => {
                Ok(Resolution { source: StoreSource::CopyOf { store: held.store.clone() }, writable: true, told: None })
            }
            (Scope::Inherited, Some(held)) => linked(held, true),
            (Scope::ReadOnly, Some(held)) => linked(held, false),
            _ => Ok(own(true)),
        },
        StartKind::Successor { .. } => match other {
            // The transfer: the predecessor's store, unless the strategies
            // differ, in which case a fresh notebook and the reason.
            Some(held) if held.config.strategy != config.strategy => Ok(Resolution {
                source: StoreSource::Own,
                writable: true,
                told: Some(format!(
                    "Your predecessor kept its memories as {}, and you organize yours as {}, so you start with a fresh, empty set of memories; the predecessor's were not transferred.",
                    held.config.strategy.name(),
                    config.strategy.name()
                )),
            }),
            Some(held) => Ok(Resolution {
                source: StoreSource::Linked { store: held.store.clone() },
                writable: config.scope != Scope::ReadOnly,
                told: None,
            }),
            None => Ok(own(true)),
        },
    }
}

/// The id of the store a binding from `source` names, for agent
/// `agent_id` of profile `profile_id` (a copy's id is the agent's own).
/// Ids name files under the state folder, so anything but letters, digits,
/// `-`, `_` and `.` becomes `_`.
pub fn store_id(source: &StoreSource, agent_id: &str, profile_id: &str) -> String {
    match source {
        StoreSource::Own | StoreSource::CopyOf { .. } => format!("agent.{}", file_safe(agent_id)),
        StoreSource::Profile => format!("profile.{}", file_safe(profile_id)),
        StoreSource::Linked { store } => store.clone(),
    }
}

/// `id` with every character but ASCII letters, digits, `-`, `_` and `.`
/// replaced by `_`: safe as a file name.
pub fn file_safe(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect()
}
