//! The two memory events: `memory_state` (the set as it stands) and
//! `memory_revision` (one entry of the append-only record of mutations).

use super::config::MemoriesConfig;
use crate::durable::memory_store::{MemoryStore, RevisionRecord};
use crate::error::GgResult;
use crate::events::{Event, MemoryEntry, MemoryRevision, MemoryState, SetTotals};

/// The `memory_state` event for `agent`'s view of `store`.
pub fn memory_state(
    agent: &str,
    config: &MemoriesConfig,
    store: &MemoryStore,
    writable: bool,
) -> GgResult<Event> {
    let totals = store.totals()?;
    let memories = store
        .list()?
        .iter()
        .map(|m| MemoryEntry {
            name: m.slug.clone(),
            description: m.description.clone(),
            chars: m.chars,
            lines: m.lines,
        })
        .collect();
    Ok(Event::MemoryState(MemoryState {
        agent: agent.to_string(),
        store: store.id().to_string(),
        strategy: config.strategy.name().to_string(),
        scope: config.scope.name().to_string(),
        writable,
        memories,
        totals: SetTotals {
            count: totals.count,
            chars: totals.chars,
            lines: totals.lines,
        },
        limits: config.limits,
        peaks: store.peaks()?,
    }))
}

/// The `memory_revision` event for one revision `agent` made.
pub fn memory_revision(agent: &str, store: &MemoryStore, revision: &RevisionRecord) -> Event {
    Event::MemoryRevision(MemoryRevision {
        agent: agent.to_string(),
        program: revision.program.clone(),
        store: store.id().to_string(),
        seq: revision.seq,
        name: revision.slug.clone(),
        revision: revision.revision,
        mutation: revision.mutation,
        description: revision.description.clone(),
        body: revision.body.clone(),
    })
}
