//! The isolation row: what the worker process (`gg mcp`'s default) costs
//! beside an agent on a thread of the serving process — per turn (a
//! `run_program` call answered over the worker's pipes) and per new
//! instance (a worker started, confined, its agent opened and its first
//! program run).

use std::time::{Duration, Instant};

use crate::mcp::agent_thread::{self, CallJob, Job, SessionAgentOptions};
use crate::mcp::worker::{self, WorkerSettings};
use gg_module::Profile;

use super::rows::THREE_CALLS;
use super::table::median_p99;
use super::table::Table;

/// New instances timed per mode.
const STARTS: usize = 20;

type Spawn = dyn Fn(SessionAgentOptions) -> Result<std::sync::mpsc::Sender<Job>, String>;

fn options(state: &std::path::Path, n: usize) -> SessionAgentOptions {
    SessionAgentOptions {
        profile: Profile::default(),
        state: state.to_path_buf(),
        agent_id: format!("bench-{n}"),
        workspace: None,
        database_url: None,
        park_after: None,
    }
}

/// One `run_program` call through the job channel.
fn call(jobs: &std::sync::mpsc::Sender<Job>) -> Result<(), String> {
    let (reply, answer) = tokio::sync::oneshot::channel();
    jobs.send(Job::Call(CallJob {
        name: "run_program".into(),
        arguments: serde_json::json!({ "program": THREE_CALLS }),
        console: None,
        reply,
    }))
    .map_err(|_| "the agent stopped".to_string())?;
    let answer = answer
        .blocking_recv()
        .map_err(|_| "the agent stopped".to_string())??;
    if answer.is_error {
        return Err(answer.text);
    }
    Ok(())
}

/// Times `runs` turns and [`STARTS`] new instances for one way of spawning.
fn measure(spawn: &Spawn, runs: usize) -> Result<(Vec<Duration>, Vec<Duration>), String> {
    let state = tempfile::tempdir().map_err(|e| e.to_string())?;
    let mut starts = Vec::with_capacity(STARTS);
    for n in 0..STARTS {
        let began = Instant::now();
        let jobs = spawn(options(state.path(), n))?;
        call(&jobs)?;
        starts.push(began.elapsed());
    }
    let jobs = spawn(options(state.path(), STARTS))?;
    for _ in 0..20 {
        call(&jobs)?;
    }
    let mut turns = Vec::with_capacity(runs);
    for _ in 0..runs {
        let began = Instant::now();
        call(&jobs)?;
        turns.push(began.elapsed());
    }
    Ok((turns, starts))
}

pub fn row(table: &mut Table, runs: usize) {
    let in_process: Box<Spawn> = Box::new(agent_thread::spawn);
    let settings = WorkerSettings::this_executable();
    let cell = |measured: Result<(Vec<Duration>, Vec<Duration>), String>| match measured {
        Ok((turns, starts)) => format!(
            "turn {}; new instance {}",
            median_p99(turns),
            median_p99(starts)
        ),
        Err(e) => format!("failed: {e}"),
    };
    let workers = match settings {
        Ok(settings) => {
            let spawn: Box<Spawn> =
                Box::new(move |options| worker::spawn(options, settings.clone()));
            cell(measure(&*spawn, runs))
        }
        Err(e) => format!("failed: {e}"),
    };
    table.row(
        format!("isolation: the 3-call program as an MCP call, in a confined worker process ({runs} turns, {STARTS} new instances)"),
        format!("worker process: {workers}"),
        vec![format!("agent thread in the serving process: {}", cell(measure(&*in_process, runs)))],
    );
}
