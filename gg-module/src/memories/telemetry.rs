//! The two memory events: `memory_state` (the set as it stands) and
//! `memory_revision` (one entry of the append-only record of mutations).

use serde_json::{json, Value};

use super::config::MemoriesConfig;
use super::store::{MemoryStore, RevisionRecord};
use crate::error::GgResult;

pub fn memory_state(
    agent: &str,
    config: &MemoriesConfig,
    store: &MemoryStore,
    writable: bool,
) -> GgResult<Value> {
    let set = store.list()?;
    let totals = store.totals()?;
    let peaks = store.peaks()?;
    let memories: Vec<Value> = set
        .iter()
        .map(|m| json!({ "name": m.slug, "description": m.description, "chars": m.chars, "lines": m.lines }))
        .collect();
    Ok(json!({
        "type": "memory_state",
        "agent": agent,
        "store": store.id(),
        "strategy": config.strategy.name(),
        "scope": config.scope.name(),
        "writable": writable,
        "memories": memories,
        "totals": { "count": totals.count, "chars": totals.chars, "lines": totals.lines },
        "limits": config.limits,
        "peaks": peaks,
    }))
}

pub fn memory_revision(agent: &str, store: &MemoryStore, revision: &RevisionRecord) -> Value {
    json!({
        "type": "memory_revision",
        "agent": agent,
        "store": store.id(),
        "seq": revision.seq,
        "name": revision.slug,
        "revision": revision.revision,
        "mutation": revision.mutation,
        "description": revision.description,
        "body": revision.body,
    })
}
