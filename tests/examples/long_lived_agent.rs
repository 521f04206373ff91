//! A soak of one long-lived agent: every program under `fixtures/programs`
//! (the hostile and escape ones included), round after round, each followed
//! by an ordinary program, under the program fuzz target's limits (200 ms,
//! 32 MiB). Prints each round's wall time, the window's size and the
//! process's resident memory, and any ordinary program that did not run;
//! exits 1 if one did not.
//!
//! ```text
//! cargo run --release -p gg-tests --example long_lived_agent -- 200
//! ```
//!
//! A long-lived agent must serve its ten-thousandth turn as a fresh one
//! would: the round times should stay flat, the resident memory should grow
//! only with the window (the thread the model reads, kept until a
//! compaction), and no failure should appear.

use std::path::{Path, PathBuf};
use std::time::Instant;

use gg_module::{Profile, RunStatus};
use gg_runtime::Response;

/// The ordinary program run after each fixture.
const ORDINARY: &str = "export default [1, 2].length;";

fn programs(root: &Path) -> Vec<(PathBuf, String)> {
    let mut found = Vec::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("a fixtures folder") {
            let path = entry.expect("a folder entry").path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "ts") {
                let source = std::fs::read_to_string(&path).expect("a program");
                found.push((path, source));
            }
        }
    }
    found.sort();
    found
}

/// This process's resident memory in MB, from /proc/self/status.
fn resident_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(100);
    let programs = programs(&gg_tests::fixtures().join("programs"));
    let mut profile = Profile::default();
    profile.programs.time_ms = 200;
    profile.programs.heap_mib = 32;
    // On the fixture workspace, as the tests run these programs.
    let mut agent = gg_tests::agent_with(profile);
    let mut failures = 0;
    for round in 1..=rounds {
        let started = Instant::now();
        for (path, source) in &programs {
            agent
                .turn(Response::program(source.clone()))
                .expect("a turn inside gg");
            let next = agent
                .turn(Response::program(ORDINARY.to_string()))
                .expect("the ordinary turn");
            let ack = next.acknowledgement.expect("an acknowledgement");
            if ack.status != RunStatus::Ok || ack.value.as_deref() != Some("2") {
                failures += 1;
                println!(
                    "round {round}, after {}: the ordinary program gave {:?} {:?}",
                    path.display(),
                    ack.status,
                    ack.error
                );
            }
        }
        let elapsed = started.elapsed().as_secs_f64();
        // The thread is the model's context and grows with every turn until
        // a compaction: what it holds, beside what the process holds.
        let thread_mb = agent.window().render().len() as f64 / (1024.0 * 1024.0);
        println!(
            "round {round}: {} programs in {elapsed:.2} s; window {} items, {thread_mb:.1} MB rendered; resident {:.1} MB",
            programs.len(),
            agent.window_len(),
            resident_mb()
        );
    }
    if failures > 0 {
        std::process::exit(1);
    }
}
