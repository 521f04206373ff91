//! A turn the host never finished: its process stopped while the program
//! (or the tool calls) ran. The turn was recorded as begun before anything
//! ran, so the reopened agent tells it as one story: the program, a line
//! saying the host stopped while it ran, and every memory change it had
//! committed, in the words of an acknowledgement. Its program id stays
//! spent.
//!
//! The changes are not rolled back: each committed call was already
//! visible to every other holder of the store (and may have been pulled
//! into their windows), and the spec's refusals are per call, so a turn is
//! not all-or-nothing. The agent is told what stands instead.

use gg_module::durable::TurnInFlight;
use gg_module::events::{Event, TurnRecord};
use gg_module::memories::{telemetry, RevisionRecord};
use gg_module::{Acknowledgement, ItemBody, Mode, RunStatus};

use super::{Agent, AgentError};

impl Agent {
    /// Reports turn `in_flight`, which never ended, in the window and the
    /// event stream, and records it as ended.
    pub(super) fn report_interrupted(&mut self, in_flight: TurnInFlight) -> Result<(), AgentError> {
        let committed = self.committed_during(&in_flight)?;
        let turn = in_flight.turn;
        {
            let mut host = self.host.borrow_mut();
            let code_mode = host.profile.mode == Mode::Code;
            let mut notes: Vec<String> = committed
                .iter()
                .map(|r| {
                    format!(
                        "committed before the host stopped: {} `{}` (revision {}).",
                        r.mutation.past_tense(),
                        r.slug,
                        r.revision
                    )
                })
                .collect();
            if committed.is_empty() {
                notes.push("it had committed no memory changes.".to_string());
            }
            let what = if code_mode {
                "this program"
            } else {
                "this turn's tool calls"
            };
            let ack = Acknowledgement {
                program_id: in_flight.program.clone(),
                status: RunStatus::Interrupted,
                value: None,
                console: Vec::new(),
                error: Some(format!(
                    "the host stopped while {what} ran: its process ended before the turn did. What it committed before that stands; nothing after it ran."
                )),
                notes,
            };
            if let Some(source) = in_flight.source.clone() {
                host.window.push(
                    turn,
                    ItemBody::Program {
                        id: in_flight.program.clone(),
                        source,
                    },
                );
            }
            host.window.push(turn, ItemBody::Acknowledgement(ack));
            // The stream may lack the last revisions: the process can stop
            // between a commit and its event.
            if let Some(m) = &host.memories {
                let reported = host.events.revisions_after_last_turn();
                let missing: Vec<Event> = committed
                    .iter()
                    .filter(|r| !reported.contains(&r.seq))
                    .map(|r| telemetry::memory_revision(&m.agent, &m.store, r))
                    .collect();
                for event in missing {
                    host.events.emit(event);
                }
                host.memory_state_due = !committed.is_empty();
                host.flush_memory_state();
            }
            let record = TurnRecord {
                agent: self.id.clone(),
                turn,
                program: in_flight.program.clone(),
                status: Some(RunStatus::Interrupted),
                tool_calls: 0,
                refusals: Vec::new(),
                unrecorded_refusals: 0,
                events: committed.len(),
                duration_ms: 0.0,
            };
            host.events.emit(Event::Turn(record));
            // Written to the stream; no turn of this process made them.
            host.events.drain();
        }
        self.turn = self.turn.max(turn);
        self.persist()
    }

    /// The revisions this agent committed during `in_flight`: after the
    /// store head the turn began at, by this agent (and by its program,
    /// when it had one).
    fn committed_during(
        &self,
        in_flight: &TurnInFlight,
    ) -> Result<Vec<RevisionRecord>, AgentError> {
        let host = self.host.borrow();
        let Some(m) = &host.memories else {
            return Ok(Vec::new());
        };
        let since = in_flight.store_head.unwrap_or(0);
        let revisions = m.store.revisions_since(since).map_err(|e| {
            AgentError::Internal(format!(
                "reading the interrupted turn's revisions failed: {}",
                e.message
            ))
        })?;
        Ok(revisions
            .into_iter()
            .filter(|r| r.agent == m.agent)
            .filter(|r| in_flight.program.is_none() || r.program == in_flight.program)
            .collect())
    }
}
