//! What making and dropping one agent costs while many others stay alive on
//! the same thread: `N` agents are made and kept, then `CYCLES` agents are
//! made, run one program and are dropped, one at a time. Prints the median
//! cycle in milliseconds. A host of many agents must not pay per cycle for
//! the agents it already holds.
//!
//! ```text
//! cargo run --release -p gg-tests --example many_live_agents -- 150 200
//! ```

use std::time::Instant;

use gg_runtime::Agent;

/// An agent on the fixture workspace that has run one program with views.
fn agent() -> Agent {
    let mut agent = gg_tests::agent();
    gg_tests::run_fixture(&mut agent, "open_views.ts");
    agent
}

fn main() {
    let mut args = std::env::args().skip(1).map(|a| a.parse::<usize>().ok());
    let live_count = args.next().flatten().unwrap_or(100);
    let cycles = args.next().flatten().unwrap_or(200);
    let live: Vec<Agent> = (0..live_count).map(|_| agent()).collect();
    let mut times: Vec<f64> = (0..cycles)
        .map(|_| {
            let started = Instant::now();
            drop(agent());
            started.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    times.sort_by(f64::total_cmp);
    println!(
        "{} live agents: median cycle {:.3} ms over {cycles}",
        live.len(),
        times[times.len() / 2]
    );
}
