//! The run configuration: profiles, `maxParallel`, and the roster of which
//! profile spawns which as subagents.

use serde::Deserialize;

use crate::profile::Profile;

/// One roster entry: a profile that spawns another as its subagent.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Pairing {
    /// The spawning profile's id.
    pub spawner: String,
    /// The id of the profile it spawns.
    pub subagent: String,
}

/// A run's configuration, as its JSON5 file writes it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RunConfig {
    /// Every profile the run may instantiate.
    pub profiles: Vec<Profile>,
    /// `maxParallel`: agents running at once; default 16.
    #[serde(default = "sixteen")]
    pub max_parallel: usize,
    /// Which profile spawns which as subagents; default empty.
    #[serde(default)]
    pub roster: Vec<Pairing>,
    /// Where the run's stores, agent state and persistent-profile keys
    /// live: absent (or `"sqlite"`) for the embedded SQLite files under
    /// the state folder, or a `postgres://` URL shared by every host of
    /// the run. `gg`'s `--store` overrides it.
    #[serde(default)]
    pub store: Option<String>,
    /// With a PostgreSQL store: whether `maxParallel` bounds the run's
    /// running agents across all its hosts (each running agent holds one
    /// of `maxParallel` slot locks in the database) rather than per host.
    #[serde(default)]
    pub max_parallel_across_hosts: bool,
}

fn sixteen() -> usize {
    16
}

impl RunConfig {
    /// The PostgreSQL URL the run stores into, if any.
    pub fn postgres_url(&self) -> Option<&str> {
        self.store
            .as_deref()
            .filter(|s| crate::durable::pg::is_postgres_url(s))
    }

    /// Parses a run configuration from JSON5 text; `origin` names the file
    /// in errors.
    pub fn from_json5(text: &str, origin: &str) -> Result<Self, crate::ConfigError> {
        json5::from_str(text).map_err(|source| crate::ConfigError::Syntax {
            origin: origin.to_string(),
            what: "run configuration",
            source,
        })
    }
}
