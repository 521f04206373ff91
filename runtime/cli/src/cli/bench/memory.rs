//! The memory rows: resident memory (VmRSS) of a clean child process before
//! and after it creates 1 and then 100 idle agent instances, each of which
//! ran the 3-call program once (holding their isolates, and again parked),
//! beside Node.js with as many `vm` contexts;
//! and what a thread keeps after it has made and dropped 1 000 isolates.

use std::io::Write;
use std::process::Command;

use gg_runtime::Response;

use super::peers::Peers;
use super::rows::{agent, three_calls_file, THREE_CALLS, THREE_CALLS_PRINTING};
use super::table::{met, Table};

/// Live instances in the second measurement.
const LIVE: usize = 100;

/// This process's resident memory in KB, from /proc/self/status.
fn rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

/// The child's side: prints `before after_1 after_n` in KB. With `parked`,
/// each instance lets go of its isolate after its program, as a host does
/// with an agent that waits for its next turn; with `printing`, each ran
/// the 3-call program that also prints a line (deno_web's globals loaded).
pub fn probe(n: usize, parked: bool, printing: bool) {
    let program = if printing {
        THREE_CALLS_PRINTING
    } else {
        THREE_CALLS
    };
    let warm = || {
        let mut a = agent();
        a.turn(Response::program(program)).expect("turn");
        a
    };
    // Load the transpiler worker and the engine's one-time state first, so
    // the baseline holds what every instance shares.
    drop(warm());
    let instance = || {
        let mut agent = warm();
        if parked && agent.park() {
            crate::process::return_freed_heap();
        }
        agent
    };
    let before = rss_kb();
    let mut live = vec![instance()];
    let one = rss_kb();
    while live.len() < n {
        live.push(instance());
    }
    let _ = writeln!(
        crate::screen::machine_stdout(),
        "{before} {one} {}",
        rss_kb()
    );
}

/// A new agent that has run the 3-call program once.
pub fn warm() -> gg_runtime::Agent {
    let mut a = agent();
    a.turn(Response::program(THREE_CALLS)).expect("turn");
    a
}

/// Isolates made and dropped in the churn row.
const CHURNED: usize = 1_000;

/// The goal for what a thread keeps after [`CHURNED`] isolates (MB).
const CHURN_GOAL_MB: f64 = 20.0;

/// The child's side of the churn row: prints `before one after` in KB —
/// before any instance, with one live instance, and after [`CHURNED`] more
/// were created, each running the 3-call program, and dropped, one at a time
/// on this thread.
pub fn churn_probe(n: usize) {
    drop(warm());
    let before = rss_kb();
    let one = warm();
    let with_one = rss_kb();
    drop(one);
    for _ in 0..n {
        drop(warm());
    }
    let after = rss_kb();
    let _ = writeln!(
        crate::screen::machine_stdout(),
        "{before} {with_one} {after}"
    );
}

/// The churn row: the resident growth after [`CHURNED`] isolates came and
/// went, beside the growth one live instance costs.
pub fn churn_row(table: &mut Table) {
    let gg = match measure("--churn-probe", CHURNED) {
        Ok([before, one, after]) => {
            let mb = |kb: u64| kb as f64 / 1024.0;
            let kept = mb(after.saturating_sub(before));
            format!(
                "{kept:.1} MB kept after {CHURNED} isolates (goal < {CHURN_GOAL_MB} MB: {}); one live instance: {:.2} MB",
                if kept < CHURN_GOAL_MB { "met" } else { "not met" },
                mb(one.saturating_sub(before))
            )
        }
        Err(e) => e,
    };
    table.row(
        format!("isolate churn: resident growth after {CHURNED} isolates were created, ran the 3-call program and were dropped, one thread"),
        gg,
        vec![],
    );
}

fn measure(probe: &str, n: usize) -> Result<[u64; 3], String> {
    measure_with(&[probe], n)
}

fn measure_with(probe: &[&str], n: usize) -> Result<[u64; 3], String> {
    let v: Vec<u64> = probe_numbers_with(probe, n)?;
    v.try_into()
        .map_err(|v: Vec<u64>| format!("the memory probe printed {} numbers, not 3", v.len()))
}

/// Runs this binary's hidden `bench <probe> <n>` in a child process and
/// reads the numbers it prints.
pub fn probe_numbers<T: std::str::FromStr>(probe: &str, n: usize) -> Result<Vec<T>, String> {
    probe_numbers_with(&[probe], n)
}

/// [`probe_numbers`], with the probe's flags (the first takes `n`).
fn probe_numbers_with<T: std::str::FromStr>(probe: &[&str], n: usize) -> Result<Vec<T>, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let out = Command::new(exe)
        .arg("bench")
        .arg(probe[0])
        .arg(n.to_string())
        .args(&probe[1..])
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!(
            "the {} child failed: {}",
            probe.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect())
}

fn describe([before, one, many]: [u64; 3]) -> String {
    let mb = |kb: u64| kb as f64 / 1024.0;
    format!(
        "{:.2} MB for 1 instance; {:.1} MB for {LIVE} ({:.2} MB each); process {:.1} MB",
        mb(one.saturating_sub(before)),
        mb(many.saturating_sub(before)),
        mb(many.saturating_sub(before)) / LIVE as f64,
        mb(many)
    )
}

/// The memory row's goal: resident growth per idle instance (MB).
const PER_INSTANCE_GOAL_MB: f64 = 1.0;

/// gg's figures, with the per-instance goal and whether it is met.
fn describe_with_goal(figures: [u64; 3]) -> String {
    let [before, _, many] = figures;
    let each = many.saturating_sub(before) as f64 / 1024.0 / LIVE as f64;
    format!(
        "{} (goal ≤ {PER_INSTANCE_GOAL_MB:.0} MB each: {})",
        describe(figures),
        met(each, PER_INSTANCE_GOAL_MB)
    )
}

pub fn rows(table: &mut Table, peers: &Peers) {
    let held = match measure("--memory-probe", LIVE) {
        Ok(v) => format!("holding their isolates: {}", describe_with_goal(v)),
        Err(e) => e,
    };
    let parked = match measure_with(&["--memory-probe", "--parked"], LIVE) {
        Ok(v) => format!(
            "parked after their program (`Agent::park`, as `gg mcp` does after `--park-after`): {}",
            describe_with_goal(v)
        ),
        Err(e) => e,
    };
    let printing = match measure_with(&["--memory-probe", "--printing"], LIVE) {
        Ok(v) => format!(
            "holding isolates whose program also printed a line (deno_web's globals loaded): {}",
            describe(v)
        ),
        Err(e) => e,
    };
    let gg = format!("{held}; {parked}; {printing}");
    let program = three_calls_file();
    let node = match peers.node_memory(LIVE, &program) {
        Ok(v) => format!("node vm contexts: {}", describe(v)),
        Err(e) => peers.missing("node/esbuild", &e),
    };
    table.row(
        "memory: resident growth for idle instances (each ran the 3-call program once; VmRSS of a fresh child process)",
        gg,
        vec![node],
    );
}

/// The CPU model from /proc/cpuinfo.
pub fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into())
}
