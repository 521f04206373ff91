//! One agent's transcript, read off what gg already keeps: its window in
//! `state.sqlite` (programs, acknowledgements, views, tool calls and
//! results, notices, compaction summaries, each tagged with its turn), the
//! program library's `programs` table (which keeps the programs a
//! compaction dropped from the window), its event stream
//! (`events/<id>.jsonl`, where each turn's events end with that turn's
//! `turn` record: status, refusals, duration), and the revisions it made in
//! the store it holds, with their times.

use std::collections::{BTreeMap, BTreeSet};

use rusqlite::OptionalExtension;
use serde::Serialize;
use serde_json::{json, Value};

use super::{MadeRevision, StateView};
use crate::durable::StoredProgram;
use crate::error::{GgError, GgResult};
use crate::window::{ItemBody, Window};

/// The most event lines, and the most revisions, a transcript carries:
/// the newest ones.
pub const MAX_EVENTS: usize = 500;

/// One turn's entries, in window order.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnView {
    /// The turn number; 0 is gg's opening material.
    pub turn: u32,
    /// The window's entries of that turn as the window stores them (each
    /// with its `type`: `program`, `acknowledgement`, `toolCall`,
    /// `toolResult`, `view`, `notice`, `summary`); a program only the
    /// library still has comes first, as a `program` with `compacted: true`.
    pub items: Vec<Value>,
    /// The turn's `turn` record from the event stream (how it ended, what
    /// gg refused, `durationMs`), when the stream's newest lines hold it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record: Option<Value>,
    /// The events the turn emitted before its record, oldest first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<Value>,
}

/// An agent's transcript.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Transcript {
    /// The agent instance's id.
    pub id: String,
    /// The profile it runs.
    pub profile: String,
    /// The last turn that ran.
    pub turn: u32,
    /// Its turns, oldest first.
    pub turns: Vec<TurnView>,
    /// Its event stream's newest lines (up to [`MAX_EVENTS`]), oldest
    /// first; a line that is not JSON is left out.
    pub events: Vec<Value>,
    /// Lines in its event stream in all (rotated-out segments included).
    pub events_total: usize,
    /// The newest revisions (up to [`MAX_EVENTS`]) it made in the store
    /// it holds, oldest first, with their times.
    pub revisions: Vec<MadeRevision>,
}

fn db(e: rusqlite::Error) -> GgError {
    GgError::io(format!("reading the agent state failed: {e}"))
}

impl StateView {
    /// The transcript of agent `id`; `None` if `state.sqlite` never
    /// recorded it.
    pub fn transcript(&self, id: &str) -> GgResult<Option<Transcript>> {
        let stored = match self.stored_agent_sqlite(id)? {
            Some(stored) => Some(stored),
            None => match &self.postgres {
                Some(pg) => pg.stored_agent(id)?,
                None => None,
            },
        };
        let Some(stored) = stored else {
            return Ok(None);
        };
        let (profile, turn, programs, window) =
            (stored.profile, stored.turn, stored.programs, stored.window);
        let (events, events_total) = self.event_lines(id);
        let store = self
            .modules_files()
            .get(id)
            .and_then(|m| m["store"].as_str().map(str::to_string));
        let revisions = match store.map(|s| self.store(&s)).transpose()?.flatten() {
            Some(store) => store.made_by(id, MAX_EVENTS)?,
            None => Vec::new(),
        };
        Ok(Some(Transcript {
            id: id.to_string(),
            profile,
            turn,
            turns: turns(&window, programs, &events),
            events,
            events_total,
            revisions,
        }))
    }

    /// Agent `id` as the folder's `state.sqlite` records it.
    fn stored_agent_sqlite(&self, id: &str) -> GgResult<Option<StoredAgent>> {
        let path = self.root.join("state.sqlite");
        if !path.is_file() {
            return Ok(None);
        }
        let conn = super::open_read_only(&path).map_err(db)?;
        let row: Option<(String, u32, String)> = conn
            .query_row(
                "SELECT profile_id, turn, window FROM agents WHERE id = ?1",
                [id],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()
            .map_err(db)?;
        let Some((profile, turn, header)) = row else {
            return Ok(None);
        };
        let window = crate::durable::agents::sqlite_window(&conn, id, &header)?;
        let programs = crate::durable::agents::sqlite_programs(&conn, id).map_err(db)?;
        Ok(Some(StoredAgent {
            profile,
            turn,
            window,
            programs,
        }))
    }

    /// The newest [`MAX_EVENTS`] JSON lines of `id`'s event stream (read
    /// backwards from its end, never the whole stream), and how many lines
    /// it has in all (from its index).
    fn event_lines(&self, id: &str) -> (Vec<Value>, usize) {
        let stream = self.root.join("events").join(format!("{id}.jsonl"));
        let lines = super::event_stream::newest_lines(&stream, MAX_EVENTS).unwrap_or_default();
        let events = lines
            .iter()
            .filter_map(|l| serde_json::from_slice(l).ok())
            .collect();
        let total = super::event_stream::total(&stream).max(lines.len() as u64);
        (events, total as usize)
    }
}

/// An agent as gg stores it (in the folder's `state.sqlite`, or in
/// PostgreSQL for a run with a shared store).
pub(super) struct StoredAgent {
    pub profile: String,
    pub turn: u32,
    /// The window.
    pub window: Window,
    /// Its program library, oldest first.
    pub programs: Vec<StoredProgram>,
}

/// The window's items grouped by turn, with the programs only the library
/// still has put back at the head of their turn, and each turn's events
/// and record from the stream.
fn turns(window: &Window, programs: Vec<StoredProgram>, events: &[Value]) -> Vec<TurnView> {
    let shown: BTreeSet<&str> = window
        .items()
        .iter()
        .filter_map(|i| match &i.body {
            ItemBody::Program { id: Some(id), .. } => Some(id.as_str()),
            _ => None,
        })
        .collect();
    let mut by_turn: BTreeMap<u32, Vec<Value>> = BTreeMap::new();
    for p in programs {
        if !shown.contains(p.id.as_str()) {
            by_turn.entry(p.turn).or_default().push(json!({
                "turn": p.turn, "type": "program", "id": p.id, "source": p.source,
                "opening": p.opening, "compacted": true,
            }));
        }
    }
    for item in window.items() {
        let value = serde_json::to_value(item).expect("a window item serializes");
        by_turn.entry(item.turn).or_default().push(value);
    }
    let mut recorded = records_by_turn(events);
    for turn in recorded.keys() {
        by_turn.entry(*turn).or_default();
    }
    by_turn
        .into_iter()
        .map(|(turn, items)| {
            let (record, events) = recorded.remove(&turn).unwrap_or_default();
            TurnView {
                turn,
                items,
                record,
                events,
            }
        })
        .collect()
}

/// Each recorded turn's `turn` event and the events before it back to the
/// previous record. Events after the last record (a turn still running)
/// belong to no turn yet.
fn records_by_turn(events: &[Value]) -> BTreeMap<u32, (Option<Value>, Vec<Value>)> {
    let mut recorded = BTreeMap::new();
    let mut pending = Vec::new();
    for event in events {
        let turn = match (event["type"].as_str(), event["turn"].as_u64()) {
            (Some("turn"), Some(turn)) => u32::try_from(turn).ok(),
            _ => None,
        };
        match turn {
            Some(turn) => {
                recorded.insert(turn, (Some(event.clone()), std::mem::take(&mut pending)));
            }
            None => pending.push(event.clone()),
        }
    }
    recorded
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_turn_takes_its_record_and_the_events_before_it() {
        let stream: Vec<Value> = [
            json!({ "type": "memory_state", "agent": "a" }),
            json!({ "type": "memory_revision", "seq": 1 }),
            json!({ "type": "turn", "turn": 1, "status": "ok", "durationMs": 4.5 }),
            json!({ "type": "turn", "turn": 2, "status": "threw", "durationMs": 1.0 }),
            json!({ "type": "memory_pull", "seqs": [2] }),
            json!({ "type": "turn", "turn": 3, "toolCalls": 2, "durationMs": 2.0 }),
            json!({ "type": "memory_revision", "seq": 3 }),
        ]
        .into();
        let window = Window::default();
        let turns = turns(&window, Vec::new(), &stream);
        let summary: Vec<(u32, Option<Value>, Vec<Value>)> = turns
            .into_iter()
            .map(|t| {
                let types = t.events.iter().map(|e| e["type"].clone()).collect();
                (t.turn, t.record.map(|r| r["durationMs"].clone()), types)
            })
            .collect();
        assert_eq!(
            summary,
            [
                (
                    1,
                    Some(json!(4.5)),
                    vec![json!("memory_state"), json!("memory_revision")]
                ),
                (2, Some(json!(1.0)), vec![]),
                (3, Some(json!(2.0)), vec![json!("memory_pull")]),
            ],
            "the revision after turn 3's record belongs to the turn still running"
        );
    }
}
