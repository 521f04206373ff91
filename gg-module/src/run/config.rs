//! The run configuration: profiles, `maxParallel`, and the roster of which
//! profile spawns which as subagents.

use serde::Deserialize;

use crate::profile::Profile;

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Pairing {
    pub spawner: String,
    pub subagent: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RunConfig {
    pub profiles: Vec<Profile>,
    #[serde(default = "sixteen")]
    pub max_parallel: usize,
    #[serde(default)]
    pub roster: Vec<Pairing>,
}

fn sixteen() -> usize {
    16
}

impl RunConfig {
    pub fn from_json5(text: &str, origin: &str) -> Result<Self, String> {
        json5::from_str(text).map_err(|e| format!("{origin}: not a valid run configuration: {e}"))
    }
}
