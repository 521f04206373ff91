//! `gg bench`: what gg adds to every turn and every spawn, measured in this
//! process and printed as one table.

use std::time::{Duration, Instant};

use gg_module::Profile;
use gg_runtime::{Agent, AgentOptions, Response};

#[derive(clap::Args)]
pub struct BenchArgs {
    /// Runs per timed row.
    #[arg(long, default_value_t = 1000)]
    runs: usize,
    /// `gg` calls in the per-op row.
    #[arg(long, default_value_t = 200_000)]
    ops: usize,
}

/// The 3-call program every row runs.
pub const THREE_CALLS: &str = r#"import { views } from "gg";
views.openText("a", "first");
views.openText("b", "second");
views.close("a");
export default 3;
"#;

fn agent() -> Agent {
    Agent::new(AgentOptions {
        profile: Profile::default(),
        ..Default::default()
    })
    .expect("agent")
}

fn summarize(mut samples: Vec<Duration>) -> (f64, f64) {
    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let median = ms(samples[samples.len() / 2]);
    let p99 = ms(samples[((samples.len() as f64) * 0.99) as usize - 1]);
    (median, p99)
}

pub fn run(args: BenchArgs) -> i32 {
    if cfg!(debug_assertions) {
        eprintln!(
            "gg bench: this is a debug build; build with --release for numbers worth quoting."
        );
    }
    let runs = args.runs.max(10);
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);

    // Turn: one more program in a live agent instance.
    let mut live = agent();
    let mut turn = Vec::with_capacity(runs);
    for _ in 0..runs {
        let start = Instant::now();
        live.turn(Response::program(THREE_CALLS)).expect("turn");
        turn.push(start.elapsed());
    }

    // New instance: create the agent (isolate, gg module, bindings) and run.
    let mut fresh = Vec::with_capacity(runs);
    for _ in 0..runs {
        let start = Instant::now();
        let mut a = agent();
        a.turn(Response::program(THREE_CALLS)).expect("turn");
        fresh.push(start.elapsed());
    }

    // Op: ns per gg call from JS.
    let program = format!(
        r#"import {{ views }} from "gg";
const n = {};
const t0 = performance.now();
for (let i = 0; i < n; i++) views.openText("x", "y");
export default (performance.now() - t0) * 1e6 / n;"#,
        args.ops
    );
    let mut op_agent = agent();
    let out = op_agent.turn(Response::program(program)).expect("turn");
    let op_ns: f64 = out
        .acknowledgement
        .and_then(|a| a.value)
        .and_then(|v| v.parse().ok())
        .unwrap_or(f64::NAN);

    let (turn_median, turn_p99) = summarize(turn);
    let (fresh_median, fresh_p99) = summarize(fresh);
    println!(
        "gg bench · {cores} cores · {runs} runs per row · engine {}",
        engine_name()
    );
    println!("| row | median | p99 |");
    println!("|---|---|---|");
    println!(
        "| turn: 3-call program in a live instance | {turn_median:.3} ms | {turn_p99:.3} ms |"
    );
    println!("| new instance + 3-call program | {fresh_median:.3} ms | {fresh_p99:.3} ms |");
    println!(
        "| op: ns per gg call from JS ({} calls) | {op_ns:.0} ns | – |",
        args.ops
    );
    0
}

fn engine_name() -> &'static str {
    if cfg!(feature = "v8") {
        "v8"
    } else {
        "quickjs"
    }
}
