//! The crowd row: what creating and dropping one agent's isolate costs on
//! a thread that already holds many live ones, beside the same on an empty
//! thread. A host of many agents replaces isolates all the time (a new
//! agent, every 64 runs, a time ceiling); none of that may cost more
//! because other agents are alive.

use std::io::Write;
use std::time::Instant;

use gg_runtime::Agent;

use super::memory::{probe_numbers, warm};
use super::table::{met, ms, summarize, Table};

/// Live isolates on the thread in the crowded measurement.
pub const CROWD: usize = 1_000;

/// Isolates made and dropped in each measurement.
const SAMPLES: usize = 40;

/// The goal: crowded over empty, for creating and for dropping.
const GOAL_RATIO: f64 = 1.25;

/// Median creation (new agent and its first turn) and drop times, in ms.
fn make_and_drop() -> (f64, f64) {
    let mut make = Vec::with_capacity(SAMPLES);
    let mut drop_times = Vec::with_capacity(SAMPLES);
    for _ in 0..SAMPLES {
        let start = Instant::now();
        let a = warm();
        make.push(start.elapsed());
        let start = Instant::now();
        drop(a);
        drop_times.push(start.elapsed());
    }
    (summarize(make).0, summarize(drop_times).0)
}

/// The child's side: prints `make drop` (ms) on an empty thread, then the
/// same with `live` instances alive on it.
pub fn probe(live: usize) {
    drop(warm());
    let (make, dropped) = make_and_drop();
    let _ = writeln!(crate::screen::machine_stdout(), "{make} {dropped}");
    let crowd: Vec<Agent> = (0..live).map(|_| warm()).collect();
    let (make, dropped) = make_and_drop();
    let _ = writeln!(crate::screen::machine_stdout(), "{make} {dropped}");
    drop(crowd);
}

fn measure() -> Result<[f64; 4], String> {
    let v: Vec<f64> = probe_numbers("--crowd-probe", CROWD)?;
    v.try_into()
        .map_err(|v: Vec<f64>| format!("the crowd probe printed {} numbers, not 4", v.len()))
}

pub fn row(table: &mut Table) {
    let (gg, beside) = match measure() {
        Ok([make_empty, drop_empty, make_crowded, drop_crowded]) => {
            let make_ratio = make_crowded / make_empty;
            let drop_ratio = drop_crowded / drop_empty;
            (
                format!(
                    "with {CROWD} alive: create {} · drop {}",
                    ms(make_crowded),
                    ms(drop_crowded)
                ),
                vec![format!(
                    "the same thread empty: create {} · drop {}; crowded / empty: create {make_ratio:.2}×, drop {drop_ratio:.2}× (goal ≤ {GOAL_RATIO}× each: {}; before: the engine's 16-bit function numbering failed the 155th live isolate on a thread, and once widened, disposal that scanned the thread's whole tables made drop 6× with 1 000 alive)",
                    ms(make_empty),
                    ms(drop_empty),
                    met(make_ratio.max(drop_ratio), GOAL_RATIO)
                )],
            )
        }
        Err(e) => (e, Vec::new()),
    };
    table.row(
        format!("crowd: one agent created (with its first 3-call turn) and dropped on a thread holding {CROWD} live agents (median of {SAMPLES})"),
        gg,
        beside,
    );
}
