//! Agents and profiles as the console shows them, read off the store ids
//! each instance bound (its `agents/<id>/modules/memories` file), never off
//! the scope the profile declared: which store each instance holds, whether
//! a profile's instances share one or take one each, and where that is not
//! what the declared scope asked for.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::Value;

use super::StateView;
use crate::durable::memory_store::{Peaks, Totals};

/// One agent instance.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentSummary {
    /// The agent instance's id.
    pub id: String,
    /// The profile it runs (from `state.sqlite`), if recorded.
    pub profile: Option<String>,
    /// The last turn that ran.
    pub turn: Option<u32>,
    /// The store it bound, how it holds it, and who else does.
    pub store: Option<String>,
    /// The memory strategy it organizes the store by.
    pub strategy: Option<String>,
    /// The scope its capability declared.
    pub scope: Option<String>,
    /// Whether it may write the store.
    pub writable: Option<bool>,
    /// The other agent instances holding the same store.
    pub others: Vec<String>,
    /// Its store's totals and peaks now.
    pub totals: Option<Totals>,
    /// Its store's peaks: the most it ever held at once.
    pub peaks: Option<Peaks>,
    /// Revisions this agent made (a revision is its writer's alone).
    pub revisions: u64,
    /// Lines in its event stream, in all its segments (rotated-out ones
    /// included): from the stream's index, not by reading the stream.
    pub events: u64,
}

/// One instance on a profile's row.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Instance {
    /// The agent instance's id.
    pub agent: String,
    /// The id of the store it bound.
    pub store: String,
    /// The scope its capability declared.
    pub scope: String,
    /// Whether it may write the store.
    pub writable: bool,
    /// What the declared scope asked for, in words.
    pub expected: String,
    /// How the store it holds differs from that, if it does.
    pub divergence: Option<String>,
}

/// A profile's row on the Agents tab.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProfileRow {
    /// The profile's id (`(unrecorded)` for agents with none recorded).
    pub profile: String,
    /// The scopes its instances declared (one, normally).
    pub scopes: Vec<String>,
    /// Its instances that hold memories, in id order.
    pub instances: Vec<Instance>,
    /// The distinct stores its instances hold.
    pub stores: Vec<String>,
    /// `one instance`, `share one store`, `one store each` or `N stores among M instances`.
    pub sharing: String,
    /// Where instances hold something other than their scope asked for,
    /// one sentence each.
    pub divergences: Vec<String>,
    /// Instances of the profile without memories.
    pub without_memories: Vec<String>,
}

/// The store id an agent's own notebook gets (`agent.<id>`).
fn own_store(agent: &str) -> String {
    let safe: String = agent
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("agent.{safe}")
}

impl StateView {
    /// Agents recorded in `state.sqlite` and, for a run with a shared
    /// PostgreSQL store, in the database: (id, profile, turn).
    fn recorded_agents(&self) -> Vec<(String, String, u32)> {
        let mut recorded = self.recorded_agents_sqlite();
        if let Some(pg) = &self.postgres {
            // An agent unreadable there leaves the list as the folder has it.
            for agent in pg.recorded_agents().unwrap_or_default() {
                if !recorded.iter().any(|(id, _, _)| *id == agent.0) {
                    recorded.push(agent);
                }
            }
            recorded.sort();
        }
        recorded
    }

    fn recorded_agents_sqlite(&self) -> Vec<(String, String, u32)> {
        let path = self.root.join("state.sqlite");
        if !path.is_file() {
            return Vec::new();
        }
        let Ok(conn) = super::open_read_only(&path) else {
            return Vec::new();
        };
        let Ok(mut stmt) = conn.prepare("SELECT id, profile_id, turn FROM agents ORDER BY id")
        else {
            return Vec::new();
        };
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .map(|rows| rows.flatten().collect())
            .unwrap_or_default()
    }

    /// Each agent's modules/memories file, by agent id.
    pub(super) fn modules_files(&self) -> BTreeMap<String, Value> {
        let mut out = BTreeMap::new();
        let Ok(entries) = std::fs::read_dir(self.root.join("agents")) else {
            return out;
        };
        for entry in entries.flatten() {
            let path = entry.path().join("modules").join("memories");
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            let Ok(json) = serde_json::from_str::<Value>(&text) else {
                continue;
            };
            // The file names the holders and the others; the agent itself
            // is the holder that is not another (the folder name is only
            // file-safe).
            let others: BTreeSet<&str> = json["others"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|v| v.as_str())
                .collect();
            let own = json["holders"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|h| h["agent"].as_str())
                .find(|a| !others.contains(a))
                .map(str::to_string)
                .unwrap_or_else(|| entry.file_name().to_string_lossy().into_owned());
            out.insert(own, json);
        }
        out
    }

    /// Every agent: recorded in `state.sqlite`, holding a store or with an
    /// event stream, in id order.
    pub fn agents(&self) -> Vec<AgentSummary> {
        let recorded = self.recorded_agents();
        let modules = self.modules_files();
        let mut ids: BTreeSet<String> = recorded.iter().map(|(id, _, _)| id.clone()).collect();
        ids.extend(modules.keys().cloned());
        for path in super::files_with_ext(&self.root.join("events"), "jsonl") {
            if let Some(stem) = path.file_stem() {
                ids.insert(stem.to_string_lossy().into_owned());
            }
        }
        // A store that cannot be read leaves its agents' totals out; the
        // stores' own routes report the failure.
        let stores: BTreeMap<String, super::StoreReader> = self
            .stores()
            .unwrap_or_default()
            .into_iter()
            .map(|s| (s.id().to_string(), s))
            .collect();
        ids.into_iter()
            .map(|id| {
                let record = recorded.iter().find(|(a, _, _)| *a == id);
                let module = modules.get(&id);
                let store_id = module.and_then(|m| m["store"].as_str()).map(str::to_string);
                let store = store_id.as_ref().and_then(|s| stores.get(s));
                let events = super::event_stream::total(
                    &self.root.join("events").join(format!("{id}.jsonl")),
                );
                AgentSummary {
                    profile: record.map(|(_, p, _)| p.clone()),
                    turn: record.map(|(_, _, t)| *t),
                    strategy: module
                        .and_then(|m| m["strategy"].as_str())
                        .map(str::to_string),
                    scope: module.and_then(|m| m["scope"].as_str()).map(str::to_string),
                    writable: module.and_then(|m| m["writable"].as_bool()),
                    others: module
                        .and_then(|m| m["others"].as_array())
                        .into_iter()
                        .flatten()
                        .filter_map(|v| v.as_str().map(str::to_string))
                        .collect(),
                    totals: store.and_then(|s| s.totals().ok()),
                    peaks: store.and_then(|s| s.peaks().ok()),
                    revisions: store.and_then(|s| s.revisions_by(&id).ok()).unwrap_or(0),
                    events,
                    store: store_id,
                    id,
                }
            })
            .collect()
    }

    /// One row per profile: how its instances resolved their scope.
    pub fn profiles(&self) -> Vec<ProfileRow> {
        let mut by_profile: BTreeMap<String, Vec<AgentSummary>> = BTreeMap::new();
        for agent in self.agents() {
            let profile = agent
                .profile
                .clone()
                .unwrap_or_else(|| "(unrecorded)".to_string());
            by_profile.entry(profile).or_default().push(agent);
        }
        by_profile
            .into_iter()
            .map(|(profile, agents)| profile_row(profile, agents))
            .collect()
    }
}

fn profile_row(profile: String, agents: Vec<AgentSummary>) -> ProfileRow {
    let mut instances = Vec::new();
    let mut without_memories = Vec::new();
    for a in &agents {
        match (&a.store, &a.scope) {
            (Some(store), Some(scope)) => {
                let writable = a.writable.unwrap_or(true);
                let (expected, divergence) = resolve(&profile, &a.id, store, scope, writable);
                instances.push(Instance {
                    agent: a.id.clone(),
                    store: store.clone(),
                    scope: scope.clone(),
                    writable,
                    expected,
                    divergence,
                });
            }
            _ => without_memories.push(a.id.clone()),
        }
    }
    let scopes: BTreeSet<String> = instances.iter().map(|i| i.scope.clone()).collect();
    let stores: BTreeSet<String> = instances.iter().map(|i| i.store.clone()).collect();
    let sharing = match (instances.len(), stores.len()) {
        (0, _) => "no memories".to_string(),
        (1, _) => "one instance".to_string(),
        (_, 1) => "share one store".to_string(),
        (n, s) if n == s => "one store each".to_string(),
        (n, s) => format!("{s} stores among {n} instances"),
    };
    let mut divergences: Vec<String> = instances
        .iter()
        .filter_map(|i| i.divergence.as_ref().map(|d| format!("{}: {d}", i.agent)))
        .collect();
    if scopes.len() == 1 && scopes.contains("shared") && stores.len() > 1 {
        divergences.push(format!(
            "declared shared, but its instances hold {} stores",
            stores.len()
        ));
    }
    if scopes.len() == 1
        && scopes.contains("isolated")
        && instances.len() > 1
        && stores.len() < instances.len()
    {
        divergences.push("declared isolated, but some instances share a store".to_string());
    }
    ProfileRow {
        profile,
        scopes: scopes.into_iter().collect(),
        instances,
        stores: stores.into_iter().collect(),
        sharing,
        divergences,
        without_memories,
    }
}

/// What `scope` asked for, and how the store the agent holds differs.
fn resolve(
    profile: &str,
    agent: &str,
    store: &str,
    scope: &str,
    writable: bool,
) -> (String, Option<String>) {
    let own = own_store(agent);
    match scope {
        // Another holder reading an isolated agent's store (a read-only
        // subagent) is that holder's resolution, not this one's.
        "isolated" => (
            format!("its own store ({own})"),
            (store != own).then(|| format!("declared isolated, holds {store}")),
        ),
        "shared" => {
            let shared = format!("profile.{profile}");
            let divergence =
                (store != shared).then(|| format!("declared shared, holds {store} instead of {shared}"));
            (format!("the profile's store ({shared})"), divergence)
        }
        "inherited" => (
            "its spawner's store, read/write".to_string(),
            (store == own).then(|| {
                format!("declared inherited, resolved to its own store {own}: nothing spawned it, or its spawner keeps no memories")
            }),
        ),
        "read-only" => (
            "its spawner's store, read-only".to_string(),
            if store == own || writable {
                Some(format!(
                    "declared read-only, resolved to {} store {store}, writable: nothing spawned it, or its spawner keeps no memories",
                    if store == own { "its own" } else { "the" }
                ))
            } else {
                None
            },
        ),
        other => (format!("scope {other}"), None),
    }
}
