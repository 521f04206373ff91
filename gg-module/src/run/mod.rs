//! A run: the profiles it holds, its `maxParallel`, which profiles spawn
//! which (the roster), and the memory stores its agents bind. Launch-time
//! checks refuse a configuration that could never work, naming every
//! problem; [`Run::bind`] resolves each new instance's store by the spec's
//! binding table.

mod binding;
mod config;
mod scheduler;
mod start;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use std::sync::Mutex;

pub use binding::{
    file_safe, resolve, store_id, Held, Resolution, StoreSource, StrategyDisagreement,
};
pub use config::{Pairing, RunConfig};
pub use scheduler::{Scheduler, Slot, Suspended};
pub use start::StartKind;

use crate::memories::{config as memory_config, MemoriesConfig, Scope, StoreLocation};
use crate::profile::Profile;

/// A memory store an agent instance binds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryBinding {
    /// The store's id (`agent.<id>`, `profile.<id>` or a linked store's).
    pub store_id: String,
    /// Where the store lives.
    pub location: StoreLocation,
    /// The scope the agent's capability declared.
    pub scope: Scope,
    /// Whether the agent may write the store.
    pub writable: bool,
    /// Said to the agent as its window opens (why it got a fresh store).
    pub told: Option<String>,
}

#[derive(Debug, Clone)]
struct AgentEntry {
    profile: String,
    held: Option<Held>,
}

/// Why an agent could not be started.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BindError {
    /// The caller's mistake: an unknown profile or agent, a reused agent
    /// id, or a memories capability that does not validate.
    #[error("{0}")]
    Usage(String),
    /// gg's own defect: the run ends as internal_error.
    #[error("internal_error: {0}")]
    Internal(String),
}

/// One run: its configuration, state folder, the agents started in it and
/// its scheduler.
pub struct Run {
    config: RunConfig,
    state: PathBuf,
    agents: Mutex<HashMap<String, AgentEntry>>,
    scheduler: Scheduler,
}

fn memories_of(profile: &Profile) -> Result<Option<MemoriesConfig>, Vec<String>> {
    memory_config::from_capability(
        profile
            .capabilities
            .iter()
            .find(|c| c.id == memory_config::CAPABILITY_ID),
    )
}

/// Whether the profile compacts by asking the agent to record its state
/// with its memory calls.
pub fn uses_memory_compaction(profile: &Profile) -> bool {
    profile
        .capability("compaction")
        .and_then(|c| c.implementation.as_deref())
        == Some("memory-compaction")
}

impl Run {
    /// Validates the configuration and opens the run's state folder.
    pub fn launch(config: RunConfig, state: &Path) -> Result<Run, Vec<String>> {
        let mut problems = Vec::new();
        let mut memories: HashMap<&str, Option<MemoriesConfig>> = HashMap::new();
        let mut seen = std::collections::HashSet::new();
        for profile in &config.profiles {
            if !seen.insert(profile.id.as_str()) {
                problems.push(format!(
                    "profile {:?} is defined twice; profile ids must be unique.",
                    profile.id
                ));
            }
            match memories_of(profile) {
                Ok(m) => {
                    if let Some(m) = &m {
                        if m.scope == Scope::ReadOnly && uses_memory_compaction(profile) {
                            problems.push(format!(
                                "profile {:?} compacts with memory-compaction but declares its memories read-only: it would have no call to record its state with. Give it another scope or another compaction.",
                                profile.id
                            ));
                        }
                    }
                    memories.insert(profile.id.as_str(), m);
                }
                Err(ps) => problems.extend(
                    ps.into_iter()
                        .map(|p| format!("profile {:?}: {p}", profile.id)),
                ),
            }
            if let Err(ps) = crate::tools::ToolsConfig::from_capability(
                profile.capability(crate::tools::CAPABILITY_ID),
            ) {
                problems.extend(
                    ps.into_iter()
                        .map(|p| format!("profile {:?}: {p}", profile.id)),
                );
            }
        }
        if let Some(store) = config.store.as_deref() {
            if store != "sqlite" && !crate::durable::pg::is_postgres_url(store) {
                problems.push(format!(
                    "store {store:?} is neither \"sqlite\" nor a postgres:// URL."
                ));
            }
        }
        if config.max_parallel == 0 {
            problems.push("maxParallel is 0; a run needs at least one running slot.".into());
        }
        for pairing in &config.roster {
            for id in [&pairing.spawner, &pairing.subagent] {
                if !memories.contains_key(id.as_str())
                    && !problems.iter().any(|p| p.contains(&format!("{id:?}")))
                {
                    problems.push(format!(
                        "the roster names profile {id:?}, which the run does not define."
                    ));
                }
            }
            let (Some(Some(parent)), Some(Some(child))) = (
                memories.get(pairing.spawner.as_str()),
                memories.get(pairing.subagent.as_str()),
            ) else {
                continue;
            };
            if matches!(child.scope, Scope::Inherited | Scope::ReadOnly)
                && parent.strategy != child.strategy
            {
                problems.push(format!(
                    "profile {:?} inherits its memories from {:?}, but names {} while {:?} names {}; the two ends of an inheritance must name the same strategy.",
                    pairing.subagent,
                    pairing.spawner,
                    child.strategy.name(),
                    pairing.spawner,
                    parent.strategy.name()
                ));
            }
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        std::fs::create_dir_all(state).map_err(|e| {
            vec![format!(
                "the state folder {} cannot be created: {e}",
                state.display()
            )]
        })?;
        let scheduler = match config.postgres_url() {
            Some(url) => {
                // Reaching the database now turns a bad URL, an unreachable
                // server or a newer schema into a launch refusal.
                crate::durable::pg::pool(url).map_err(|e| vec![e.message])?;
                Scheduler::with_postgres(config.max_parallel, url, config.max_parallel_across_hosts)
            }
            None => Scheduler::new(config.max_parallel),
        };
        Ok(Run {
            config,
            state: state.to_path_buf(),
            agents: Mutex::new(HashMap::new()),
            scheduler,
        })
    }

    /// The configuration the run was launched with.
    pub fn config(&self) -> &RunConfig {
        &self.config
    }

    /// The run's state folder.
    pub fn state(&self) -> &Path {
        &self.state
    }

    /// The run-wide pool of running slots and persistent-profile keys.
    pub fn scheduler(&self) -> &Scheduler {
        &self.scheduler
    }

    /// The scheduler key an instance of `profile_id` runs under: the
    /// profile's id when it is persistent, none otherwise.
    pub fn key_for(&self, profile_id: &str) -> Option<&str> {
        self.profile(profile_id)
            .filter(|p| p.capability("agent-persistence").is_some())
            .map(|p| p.id.as_str())
    }

    /// The run's profile with id `id`.
    pub fn profile(&self, id: &str) -> Option<&Profile> {
        self.config.profiles.iter().find(|p| p.id == id)
    }

    /// The PostgreSQL URL the run stores into, if any.
    pub fn postgres_url(&self) -> Option<&str> {
        self.config.postgres_url()
    }

    fn store_path(&self, store: &str) -> PathBuf {
        self.state.join("memories").join(format!("{store}.sqlite"))
    }

    /// Where store `store` of this run lives.
    pub fn store_location(&self, store: &str) -> StoreLocation {
        match self.postgres_url() {
            Some(url) => StoreLocation::Postgres {
                url: url.to_string(),
            },
            None => StoreLocation::Sqlite(self.store_path(store)),
        }
    }

    /// Resolves the memory binding of agent `agent_id`, an instance of
    /// `profile_id` started as `start`, and records it for agents started
    /// from it later.
    pub fn bind(
        &self,
        agent_id: &str,
        profile_id: &str,
        start: &StartKind,
    ) -> Result<Option<MemoryBinding>, BindError> {
        let profile = self
            .profile(profile_id)
            .ok_or_else(|| BindError::Usage(format!("the run has no profile {profile_id:?}.")))?;
        let config = memories_of(profile).map_err(|ps| BindError::Usage(ps.join(" ")))?;
        let mut agents = self.agents.lock().unwrap_or_else(|p| p.into_inner());
        if agents.contains_key(agent_id) {
            return Err(BindError::Usage(format!(
                "an agent named {agent_id:?} was already started in this run."
            )));
        }
        let other_id = match start {
            StartKind::Subagent { spawner } => Some(spawner),
            StartKind::Fork { of } => Some(of),
            StartKind::Successor { from } => Some(from),
            _ => None,
        };
        let other = match other_id {
            Some(id) => Some(agents.get(id.as_str()).ok_or_else(|| {
                BindError::Usage(format!(
                    "no agent named {id:?} has been started in this run."
                ))
            })?),
            None => None,
        };
        let Some(config) = config else {
            agents.insert(
                agent_id.to_string(),
                AgentEntry {
                    profile: profile_id.to_string(),
                    held: None,
                },
            );
            return Ok(None);
        };
        let held = other.and_then(|o| o.held.clone());
        let resolution =
            resolve(&config, start, held.as_ref()).map_err(|d| BindError::Internal(d.0))?;
        if !resolution.writable && uses_memory_compaction(profile) {
            return Err(BindError::Internal(format!(
                "agent {agent_id:?} resolved a read-only store under memory-compaction, which it could never satisfy"
            )));
        }
        let store_id = store_id(&resolution.source, agent_id, profile_id);
        if let StoreSource::CopyOf { store } = &resolution.source {
            {
                let copy = store_id.clone();
                let copied = match self.postgres_url() {
                    Some(url) => crate::durable::memory_store::PgStore::copy(url, store, &copy)
                        .map_err(|e| e.message),
                    None => copy_store(&self.store_path(store), &self.store_path(&copy))
                        .map_err(|e| e.to_string()),
                };
                copied.map_err(|e| {
                    BindError::Internal(format!("copying store {store} for a fork failed: {e}"))
                })?;
            }
        }
        agents.insert(
            agent_id.to_string(),
            AgentEntry {
                profile: profile_id.to_string(),
                held: Some(Held {
                    store: store_id.clone(),
                    config,
                }),
            },
        );
        Ok(Some(MemoryBinding {
            location: self.store_location(&store_id),
            store_id,
            scope: config.scope,
            writable: resolution.writable,
            told: resolution.told,
        }))
    }

    /// The profile an agent of this run runs.
    pub fn profile_of(&self, agent_id: &str) -> Option<String> {
        self.agents
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(agent_id)
            .map(|a| a.profile.clone())
    }
}

/// An independent copy of a store, revision log and peaks included.
fn copy_store(from: &Path, to: &Path) -> rusqlite::Result<()> {
    if let Some(parent) = to.parent() {
        let _ = std::fs::create_dir_all(parent);
    }
    if !from.exists() {
        return Ok(());
    }
    let _ = std::fs::remove_file(to);
    let conn = rusqlite::Connection::open(from)?;
    conn.execute("VACUUM INTO ?1", [to.to_string_lossy()])?;
    Ok(())
}
