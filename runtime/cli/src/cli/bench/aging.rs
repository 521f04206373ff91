//! Aging: what a turn costs as one agent's thread grows. The agent keeps
//! its state in a folder (window, program library, event stream), as a
//! long-lived host's agents do; the goal is that turn 3 000 costs what
//! turn 50 does (within 1.5×).

use std::time::{Duration, Instant};

use gg_module::Profile;
use gg_runtime::{Agent, AgentOptions, Response};

use super::rows::THREE_CALLS;
use super::table::{ms, summarize, Table};

/// The thread lengths compared, and how many turns around each are timed.
const AT: [usize; 3] = [50, 1_000, 3_000];
const AROUND: usize = 40;

pub fn row(table: &mut Table) {
    let dir = std::env::temp_dir().join(format!("gg-bench-aging-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let measured = turn_times(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    let (gg, beside) = match measured {
        Ok(medians) => {
            let cells: Vec<String> = AT
                .iter()
                .zip(&medians)
                .map(|(at, m)| format!("turn {at}: median {}", ms(*m)))
                .collect();
            let ratio = medians[2] / medians[0];
            (
                cells.join(" · "),
                vec![format!(
                    "turn 3 000 / turn 50: {ratio:.2}× (goal: within 1.5×; before the window was stored in parts, 17–28 ms against 0.6–0.8 ms)"
                )],
            )
        }
        Err(e) => (format!("failed: {e}"), Vec::new()),
    };
    table.row(
        format!("aging: the 3-call program in one agent with a state folder, at thread lengths 50, 1 000 and 3 000 (median of the {AROUND} turns ending there)"),
        gg,
        beside,
    );
}

/// The median turn time (ms) of the [`AROUND`] turns ending at each of
/// [`AT`].
fn turn_times(dir: &std::path::Path) -> Result<Vec<f64>, String> {
    let mut agent = Agent::new(AgentOptions::new(Profile::default()).state(dir.to_path_buf()))
        .map_err(|e| e.to_string())?;
    let last = *AT.last().expect("thread lengths");
    let mut samples: Vec<Duration> = Vec::with_capacity(last);
    for _ in 0..last {
        let start = Instant::now();
        agent
            .turn(Response::program(THREE_CALLS))
            .map_err(|e| e.to_string())?;
        samples.push(start.elapsed());
    }
    Ok(AT
        .iter()
        .map(|&at| summarize(samples[at - AROUND..at].to_vec()).0)
        .collect())
}
