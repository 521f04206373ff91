//! One turn in code mode: the program is transpiled, run in the agent's
//! isolate, acknowledged, and the views it opened arrive in the window.

use std::rc::Rc;
use std::time::Duration;

use gg_module::durable::{StoredProgram, TurnInFlight};
use gg_module::events::{Blame, Event, TurnRecord};
use gg_module::{Acknowledgement, ItemBody, Mode, RunStatus};
use gg_transpiler::TranspileError;

use crate::engine::RunEnd;
use crate::host::{Host, SharedHost};
use crate::operator_log::untrusted;
use crate::turn::{Response, TurnOutcome};

use super::{heap_limit_of, Agent, AgentError};

impl Agent {
    /// Runs one turn, blocking the calling thread until it ends (the
    /// program runs its own event loop on it). Called from async code (a
    /// thread driving a tokio runtime) it is refused with
    /// [`AgentError::Setup`], the agent untouched: use
    /// [`AgentHandle`](crate::AgentHandle) there.
    ///
    /// A panic in gg's own code during the turn (a defect) ends this agent
    /// as `internal_error`: what the turn stored before it stays stored,
    /// the isolate is dropped, and the process and every other agent go on.
    pub fn turn(&mut self, response: Response) -> Result<TurnOutcome, AgentError> {
        super::async_guard::refuse_inside_async("Agent::turn")?;
        let result =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.turn_inner(response)));
        result.unwrap_or_else(|payload| {
            let detail = crate::defect::panic_text(&payload);
            tracing::error!(agent = %self.id, "gg panicked during a turn: {}", untrusted(&detail));
            self.engine = None;
            let reason = format!("gg failed during the turn ({detail}); this is gg's defect");
            self.ended = Some(reason.clone());
            if let Ok(mut host) = self.host.try_borrow_mut() {
                host.events.emit(Event::InternalError {
                    blame: Blame::Gg,
                    agent: Some(self.id.clone()),
                    call: None,
                    detail,
                });
            }
            Err(AgentError::Internal(reason))
        })
    }

    pub(super) fn turn_inner(&mut self, response: Response) -> Result<TurnOutcome, AgentError> {
        #[cfg(feature = "fault-injection")]
        crate::engine::fault::maybe_panic_in_turn();
        if let Some(reason) = &self.ended {
            return Err(AgentError::Internal(format!(
                "the agent has ended: {reason}"
            )));
        }
        let started = std::time::Instant::now();
        // The top of the turn loop: a persistent instance's desk first.
        if let Err(e) = self.restore_desk() {
            if let AgentError::Internal(reason) = &e {
                self.ended = Some(reason.clone());
            }
            return Err(e);
        }
        let mode = self.host.borrow().profile.mode;
        let outcome = match (mode, response) {
            (Mode::Code, Response::Program { source, file }) => self.run_program(source, file),
            (Mode::ToolCalling, Response::ToolCalls(calls)) => self.run_tool_calls(calls),
            (Mode::Code, Response::ToolCalls(_)) => Err(AgentError::Setup(
                "this agent runs in code mode: answer the turn with a TypeScript program, not tool calls.".into(),
            )),
            (Mode::ToolCalling, Response::Program { .. }) => Err(AgentError::Setup(
                "this agent runs in tool-calling mode: answer the turn with tool calls, not a program.".into(),
            )),
        };
        if let Err(AgentError::Internal(reason)) = &outcome {
            self.ended = Some(reason.clone());
        }
        if let Ok(TurnOutcome {
            internal_error: Some(reason),
            ..
        }) = &outcome
        {
            self.ended = Some(reason.clone());
        }
        let mut outcome = outcome?;
        self.persist()?;
        // Timed after the state is stored: what an aging agent's turn costs
        // is mostly there.
        self.record_turn(&mut outcome, started);
        Ok(outcome)
    }

    /// Ends the turn's events with its `turn` record, in the stream and in
    /// the outcome.
    fn record_turn(&self, outcome: &mut TurnOutcome, started: std::time::Instant) {
        let ack = outcome.acknowledgement.as_ref();
        let record = TurnRecord {
            agent: self.id.clone(),
            turn: outcome.turn,
            program: ack.and_then(|a| a.program_id.clone()),
            status: ack.map(|a| a.status),
            tool_calls: outcome.tool_results.len(),
            refusals: outcome.refusals.clone(),
            unrecorded_refusals: outcome.unrecorded_refusals,
            events: outcome.events.len(),
            duration_ms: started.elapsed().as_micros() as f64 / 1000.0,
        };
        let mut host = self.host.borrow_mut();
        host.events.emit(Event::Turn(record));
        outcome.events.extend(host.events.drain());
    }

    pub(super) fn begin_turn(&mut self) -> u32 {
        // Changes other holders made since the model's last look belong in
        // the prompt this response answers.
        let previous = self.turn;
        if let Err(e) = self.host.borrow_mut().pull_notice(previous) {
            tracing::warn!(agent = %self.id, "pulling memory notices failed: {}", untrusted(&e.message));
        }
        self.turn += 1;
        let mut host = self.host.borrow_mut();
        host.turn = self.turn;
        let limit = host.profile.programs.output_chars;
        host.console.reset(limit);
        host.pending_views.clear();
        host.pending_closes.clear();
        host.refusals.take();
        host.tool_calls_in_flight.clear();
        self.turn
    }

    /// Records the turn as begun, with its program, before the program
    /// (or the tool calls) runs (see [`Agent::persist_begun`]); from here
    /// until the turn ends every revision the agent makes names the
    /// program.
    pub(super) fn begin_recorded(
        &mut self,
        turn: u32,
        program_id: Option<&str>,
        source: Option<&str>,
    ) -> Result<(), AgentError> {
        let store_head = {
            let mut host = self.host.borrow_mut();
            host.memories.as_mut().and_then(|m| {
                m.program = program_id.map(str::to_string);
                m.store.head().ok()
            })
        };
        let in_flight = TurnInFlight {
            turn,
            program: program_id.map(str::to_string),
            source: source.map(str::to_string),
            store_head,
            started_ms: now_ms(),
        };
        let program = program_id.zip(source).map(|(id, source)| StoredProgram {
            id: id.to_string(),
            turn,
            source: source.to_string(),
            opening: false,
        });
        self.persist_begun(&in_flight, program)
    }

    pub(super) fn run_program(
        &mut self,
        source: String,
        file: Option<String>,
    ) -> Result<TurnOutcome, AgentError> {
        let turn = self.begin_turn();
        let program_id = match &mut self.library {
            Some(library) => Some(
                library
                    .mint()
                    .map_err(|e| AgentError::Internal(e.message))?,
            ),
            None => None,
        };
        self.begin_recorded(turn, program_id.as_deref(), Some(&source))?;
        let name = match (&file, &program_id) {
            (Some(file), _) => file.clone(),
            (None, Some(id)) => format!("{id}.ts"),
            (None, None) => "program.ts".to_string(),
        };
        let (time_limit, heap_limit) = {
            let host = self.host.borrow();
            (
                Duration::from_millis(host.profile.programs.time_ms),
                heap_limit_of(&host.profile),
            )
        };

        let mut ack = Acknowledgement {
            program_id: program_id.clone(),
            status: RunStatus::Ok,
            value: None,
            console: Vec::new(),
            error: None,
            notes: Vec::new(),
        };
        let mut error_location = None;
        match gg_transpiler::transpile_cached(&source, &name, "program") {
            Err(TranspileError::Internal(detail)) => {
                tracing::error!(agent = %self.id, "internal compiler failure: {}", untrusted(&detail));
                ack.status = RunStatus::CompileError;
                ack.error = Some("io-error: gg's TypeScript compiler failed on this program; this is gg's defect, not the program's.".into());
            }
            Err(e) => {
                ack.status = RunStatus::CompileError;
                error_location = e
                    .diagnostics()
                    .first()
                    .map(|d| format!("{}:{}", name, d.location()));
                ack.error = Some(e.to_string());
            }
            Ok(transpiled) => {
                self.anonymous_runs += 1;
                let specifier = match &program_id {
                    Some(id) => format!("gg:program/{id}.ts"),
                    None => format!("gg:program/run-{}.ts", self.anonymous_runs),
                };
                self.begin_code_run();
                let engine = self.engine_for_run(heap_limit, &transpiled.code)?;
                let end = engine.run_module(
                    &specifier,
                    &name,
                    transpiled.code,
                    Rc::new(transpiled.positions),
                    time_limit,
                );
                // A program stopped at a limit may leave the isolate mid-way
                // (an evaluation that will never settle, garbage its module
                // still reaches), and one that threw may leave work queued
                // that would run into the next program (a microtask that
                // re-queues itself and throws): the next program gets a
                // fresh isolate.
                let replace = matches!(end, RunEnd::Ceiling(_) | RunEnd::Threw(_));
                let pending = engine.pending_timers();
                match end {
                    RunEnd::Finished { value } => ack.value = value,
                    RunEnd::Threw(thrown) => {
                        ack.status = RunStatus::Threw;
                        error_location = thrown.location();
                        ack.notes.extend(missing_import(&thrown.message));
                        ack.error = Some(thrown.render());
                    }
                    RunEnd::Ceiling(ceiling) => {
                        ack.status = RunStatus::Ceiling;
                        ack.error = Some(ceiling.describe());
                        if matches!(ceiling, crate::engine::Ceiling::Time(_)) {
                            ack.notes.extend(still_waiting(pending));
                            ack.notes.extend(tools_still_waiting(&self.host));
                        }
                    }
                }
                if replace {
                    self.engine = None;
                }
            }
        }

        {
            let mut host = self.host.borrow_mut();
            let limit = host.profile.programs.output_chars;
            let advice = [
                (
                    "value",
                    " Export less, or show it in parts with views.openText.",
                ),
                ("error", ""),
            ];
            for ((what, then), text) in advice.into_iter().zip([&mut ack.value, &mut ack.error]) {
                if let Some(total) = text.as_mut().and_then(|t| crate::host::cap_chars(t, limit)) {
                    ack.notes.push(format!(
                        "the {what} was {total} characters; the first {limit} are shown (the profile's programs.outputChars).{then}"
                    ));
                }
            }
            ack.console = std::mem::take(&mut host.console.lines);
            if host.console.dropped_chars > 0 {
                ack.notes.push(format!(
                    "console output reached the {}-character limit; {} further characters were dropped.",
                    host.console.limit, host.console.dropped_chars
                ));
            }
        }
        // The turn's program has ended: the onUse hooks of the memories it
        // used run now, so the views they open arrive next turn.
        self.run_on_use_hooks(heap_limit)?;

        let mut host = self.host.borrow_mut();
        if let Some(m) = host.memories.as_mut() {
            m.program = None;
        }
        host.window.push(
            turn,
            ItemBody::Program {
                id: program_id,
                source,
            },
        );
        host.window
            .push(turn, ItemBody::Acknowledgement(ack.clone()));
        let views = self.arrive(&mut host, turn);
        let internal_error = host.internal_error.take();
        let (refusals, unrecorded_refusals) = host.refusals.take().into_parts();
        Ok(TurnOutcome {
            turn,
            acknowledgement: Some(ack),
            tool_results: Vec::new(),
            views,
            error_location,
            events: host.events.drain(),
            refusals,
            unrecorded_refusals,
            internal_error,
        })
    }

    /// Applies the turn's closes and appends the views it opened, then the
    /// turn's notices.
    pub(super) fn arrive(&self, host: &mut Host, turn: u32) -> Vec<gg_module::View> {
        host.flush_memory_state();
        if let Err(e) = host.pull_notice(turn) {
            tracing::warn!(agent = %self.id, "pulling memory notices failed: {}", untrusted(&e.message));
        }
        for text in std::mem::take(&mut host.pending_notices) {
            host.window.push(turn, ItemBody::Notice { text });
        }
        for name in std::mem::take(&mut host.pending_closes) {
            let _ = host.window.close(&name);
        }
        let views = std::mem::take(&mut host.pending_views);
        for view in &views {
            host.window.open_view(turn, view.clone());
        }
        views
    }
}

/// Now, in milliseconds since the Unix epoch (when a turn began).
fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// What a program stopped at its time limit was still waiting on, said so
/// the model can act on it: a program runs until nothing is left to do, as
/// under `deno run`, so an interval never cleared keeps it running.
fn still_waiting(pending: crate::engine::PendingTimers) -> Option<String> {
    let plural = |n: u32, one: &'static str, many: &'static str| if n == 1 { one } else { many };
    if pending.intervals > 0 {
        let n = pending.intervals;
        return Some(format!(
            "{n} setInterval timer{} {} still running at the time limit: a program runs until nothing is left to do (as under `deno run`), and an interval never cleared keeps it running. Clear it with `clearInterval(id)` once its work is done.",
            plural(n, "", "s"),
            plural(n, "was", "were"),
        ));
    }
    if pending.timeouts > 0 {
        let n = pending.timeouts;
        return Some(format!(
            "{n} timer{} {} still pending at the time limit: a program runs until nothing is left to do, its timers included. Shorten the delay, or do not set a timer the program does not need.",
            plural(n, "", "s"),
            plural(n, "was", "were"),
        ));
    }
    None
}

/// The tool calls a program stopped at its time limit was still waiting
/// for, named, so the model knows which call was slow.
fn tools_still_waiting(host: &SharedHost) -> Option<String> {
    let host = host.try_borrow().ok()?;
    let waiting = &host.tool_calls_in_flight;
    if waiting.is_empty() {
        return None;
    }
    Some(format!(
        "{} tool call{} {} still waiting for an answer at the time limit ({}): the program's timeMs bounds its tool calls too. Ask for less per call, or make fewer calls in one turn.",
        waiting.len(),
        if waiting.len() == 1 { "" } else { "s" },
        if waiting.len() == 1 { "was" } else { "were" },
        waiting.join(", ")
    ))
}

/// The import a program needs when it used a name of the `gg` module
/// without importing it (`ReferenceError: memories is not defined`): the
/// one line to add, so the model need not guess it.
fn missing_import(message: &str) -> Option<String> {
    let name = message
        .strip_prefix("ReferenceError: ")?
        .strip_suffix(" is not defined")?;
    let line = match name {
        "memories" | "views" | "GgError" => format!("import {{ {name} }} from \"gg\";"),
        "gg" => "import * as gg from \"gg\";".to_string(),
        _ => return None,
    };
    Some(format!(
        "`{name}` comes from the gg module, which a program imports: add `{line}` at the top of the program."
    ))
}

#[cfg(test)]
mod tests {
    use super::missing_import;

    #[test]
    fn a_gg_name_used_without_its_import_gets_the_import_line() {
        assert_eq!(
            missing_import("ReferenceError: memories is not defined").as_deref(),
            Some("`memories` comes from the gg module, which a program imports: add `import { memories } from \"gg\";` at the top of the program.")
        );
        assert!(missing_import("ReferenceError: views is not defined")
            .unwrap()
            .contains("import { views } from \"gg\";"));
        assert!(missing_import("ReferenceError: gg is not defined")
            .unwrap()
            .contains("import * as gg from \"gg\";"));
        assert_eq!(missing_import("ReferenceError: fetch is not defined"), None);
        assert_eq!(missing_import("TypeError: memories is not defined"), None);
    }
}
