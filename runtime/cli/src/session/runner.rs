//! Runs a session's steps through the real host, turn by turn.

use std::collections::HashMap;

use gg_module::run::Run;
use serde::Serialize;
use serde_json::Value;

use super::expect::{check, Observed};
use super::file::{Session, Step, TurnBody};
use gg_runtime::{Agent, Response, TurnOutcome};

/// What one step showed: what the model would see next, and what went wrong.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StepRecord {
    pub step: usize,
    pub line: usize,
    pub kind: &'static str,
    pub agent: String,
    pub title: String,
    /// The part of the window that is new since this agent's last record
    /// (the whole window when it was rewritten or is shown for the first time).
    pub window: Option<String>,
    pub rewritten: bool,
    pub events: Vec<Value>,
    pub failures: Vec<String>,
}

pub trait Sink {
    fn record(&mut self, record: &StepRecord);
}

/// Collects nothing: `gg test` only wants the failures.
pub struct Quiet;

impl Sink for Quiet {
    fn record(&mut self, _: &StepRecord) {}
}

#[derive(Debug, Default)]
pub struct Outcome {
    pub steps: usize,
    /// `file:line: message` for every failed expectation or step.
    pub failures: Vec<String>,
}

pub struct Options {
    /// The state folder; `None`: a fresh temporary one.
    pub state: Option<std::path::PathBuf>,
    /// Rewrite golden files that differ.
    pub update: bool,
}

pub fn run(session: &Session, options: &Options, sink: &mut dyn Sink) -> Result<Outcome, String> {
    let shown = session.path.display().to_string();
    let temp;
    let state = match &options.state {
        Some(dir) => dir.clone(),
        None => {
            temp = tempfile::tempdir().map_err(|e| format!("cannot create a state folder: {e}"))?;
            temp.path().to_path_buf()
        }
    };
    let run = Run::launch(session.run.clone(), &state).map_err(|problems| {
        format!(
            "{shown}: the run cannot launch:\n  - {}",
            problems.join("\n  - ")
        )
    })?;
    let dir = session
        .path
        .parent()
        .unwrap_or(std::path::Path::new("."))
        .to_path_buf();
    let mut agents: HashMap<String, Agent> = HashMap::new();
    let mut last: HashMap<String, TurnOutcome> = HashMap::new();
    let mut events: HashMap<String, Vec<Value>> = HashMap::new();
    let mut shown_window: HashMap<String, String> = HashMap::new();
    let mut turns: HashMap<String, u32> = HashMap::new();
    let mut outcome = Outcome::default();

    for (index, located) in session.steps.iter().enumerate() {
        let at = format!("{shown}:{}", located.line);
        let name = located.step.agent().to_string();
        let mut failures = Vec::new();
        let mut step_events = Vec::new();
        let (kind, title) = match &located.step {
            Step::Start {
                agent,
                profile,
                start,
            } => {
                match Agent::start(&run, agent, profile, start, session.workspace.clone()) {
                    Ok(mut a) => {
                        if let Err(e) = a.set_determinism(session.determinism) {
                            failures.push(format!("{at}: {e}"));
                        }
                        if let Err(e) = a.refresh() {
                            failures.push(format!("{at}: {e}"));
                        }
                        step_events.extend(a.drain_events().iter().map(gg_runtime::Event::to_json));
                        agents.insert(agent.clone(), a);
                    }
                    Err(e) => failures.push(format!("{at}: agent {agent:?} could not start: {e}")),
                }
                (
                    "start",
                    format!("start {agent} ({profile}, {})", start.label()),
                )
            }
            Step::Turn { agent, body } => {
                let Some(a) = agents.get_mut(agent) else {
                    outcome
                        .failures
                        .push(format!("{at}: agent {agent:?} is not running"));
                    continue;
                };
                let n = turns.entry(agent.clone()).or_insert(0);
                *n += 1;
                let (response, what) = match body {
                    TurnBody::Program { source, file } => (
                        Response::Program {
                            source: source.clone(),
                            // Named by its file's name, as `gg run` names
                            // one: the name is in what the program can read
                            // (its stacks), a path is the host's.
                            file: file.as_deref().map(|f| {
                                std::path::Path::new(f).file_name().map_or_else(
                                    || f.to_string(),
                                    |n| n.to_string_lossy().into_owned(),
                                )
                            }),
                        },
                        file.clone().unwrap_or_else(|| "inline program".into()),
                    ),
                    TurnBody::Tools(calls) => {
                        let names: Vec<&str> = calls.iter().map(|c| c.name.as_str()).collect();
                        (Response::ToolCalls(calls.clone()), names.join(", "))
                    }
                };
                if let Err(e) = a.refresh() {
                    failures.push(format!("{at}: {e}"));
                }
                step_events.extend(a.drain_events().iter().map(gg_runtime::Event::to_json));
                match a.turn(response) {
                    Ok(out) => {
                        step_events.extend(out.events.iter().map(gg_runtime::Event::to_json));
                        last.insert(agent.clone(), out);
                    }
                    Err(e) => failures.push(format!("{at}: the turn failed: {e}")),
                }
                ("turn", format!("turn {n} of {agent} · {what}"))
            }
            Step::Compact { agent, summary } => {
                if let Some(a) = agents.get_mut(agent) {
                    if let Err(e) = a.compact(summary) {
                        failures.push(format!("{at}: compaction failed: {e}"));
                    }
                    shown_window.remove(agent);
                }
                ("compact", format!("compact {agent}"))
            }
            Step::Finish { agent, how } => {
                let recorded = agents.get_mut(agent).map(|a| a.finish(*how));
                let note = match recorded {
                    Some(Ok(true)) => "desk recorded",
                    Some(Ok(false)) => "no desk recorded",
                    Some(Err(e)) => {
                        failures.push(format!("{at}: finish failed: {e}"));
                        "failed"
                    }
                    None => "not running",
                };
                agents.remove(agent);
                ("finish", format!("finish {agent} ({how:?}): {note}"))
            }
            Step::Refresh { agent } => {
                if let Some(a) = agents.get_mut(agent) {
                    if let Err(e) = a.refresh() {
                        failures.push(format!("{at}: {e}"));
                    }
                    step_events.extend(a.drain_events().iter().map(gg_runtime::Event::to_json));
                }
                ("refresh", format!("refresh {agent}"))
            }
            Step::Expect { agent, expect } => {
                match agents.get(agent) {
                    Some(a) => {
                        let seen = Observed {
                            agent: a,
                            last: last.get(agent),
                            events: events.get(agent).map(Vec::as_slice).unwrap_or_default(),
                        };
                        failures.extend(
                            check(expect, &seen, &dir, options.update)
                                .into_iter()
                                .map(|f| format!("{at}: {f}")),
                        );
                    }
                    None => failures.push(format!("{at}: agent {agent:?} is not running")),
                }
                ("expect", format!("expect on {agent}"))
            }
        };
        if kind != "expect" {
            events.insert(name.clone(), step_events.clone());
        }
        let (window, rewritten) = match (kind, agents.get(&name)) {
            ("expect", _) | (_, None) => (None, false),
            (_, Some(a)) => {
                let now = a.render_window();
                let before = shown_window.insert(name.clone(), now.clone());
                match before {
                    Some(before) if now.starts_with(&before) => {
                        let delta = now[before.len()..].to_string();
                        (Some(delta), false)
                    }
                    // A view closed or superseded earlier lines: show from
                    // the first line that changed.
                    Some(before) if !matches!(kind, "compact") => {
                        let old: Vec<&str> = before.lines().collect();
                        let new: Vec<&str> = now.lines().collect();
                        let same = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
                        let mut delta = format!(
                            "(… {same} lines as before; from line {} on the window changed)\n",
                            same + 1
                        );
                        for line in &new[same..] {
                            delta.push_str(line);
                            delta.push('\n');
                        }
                        (Some(delta), false)
                    }
                    _ => (Some(now), true),
                }
            }
        };
        let record = StepRecord {
            step: index + 1,
            line: located.line,
            kind,
            agent: name,
            title,
            window,
            rewritten,
            events: step_events,
            failures: failures.clone(),
        };
        sink.record(&record);
        outcome.failures.extend(failures);
        outcome.steps += 1;
    }
    Ok(outcome)
}
