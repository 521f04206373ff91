//! `gg bench`: what gg costs per process, per turn, per instance, per call,
//! per upstream tool call, per transpiled file, per idle instance, per
//! isolate replaced on a crowded thread, per search and per console page
//! over an old agent, every row measured in this one run and printed as one table, with the peers beside gg (Deno,
//! Node.js with esbuild, @swc/core, the MCP TypeScript SDK's client:
//! installed by `bench/setup`; a peer that is not installed is named as
//! such in its row).

mod aging;
mod bare_op;
mod crowd;
mod isolation;
mod memory;
mod peers;
mod rows;
mod suite;
mod table;
mod tool_call;

use crate::screen::{say, tell};
use peers::Peers;
use std::io::Write;
use table::Table;

/// The rows `--only` can name, in the order they run.
const ROWS: [&str; 14] = [
    "cold",
    "turn",
    "aging",
    "new-instance",
    "op",
    "tool-call",
    "transpile",
    "memory",
    "churn",
    "crowd",
    "isolation",
    "memories",
    "console",
    "suite",
];

#[derive(clap::Args)]
pub struct BenchArgs {
    /// Runs per timed row (turn, new instance, and the tool-call row's calls;
    /// at least 1 000 for numbers worth quoting).
    #[arg(long, default_value_t = 1000)]
    runs: usize,
    /// `gg` calls in the per-op row (and calls of its bare peer): enough
    /// that the loop runs for a fifth of a second or more.
    #[arg(long, default_value_t = 1_000_000)]
    ops: usize,
    /// Whole-process runs per tool in the cold row.
    #[arg(long, default_value_t = 30)]
    cold_runs: usize,
    /// Timed passes over the corpus in the transpile row.
    #[arg(long, default_value_t = 5)]
    passes: usize,
    /// Where `bench/setup` installed the peers (default: target/bench-peers
    /// of this checkout).
    #[arg(long)]
    peers: Option<std::path::PathBuf>,
    /// Sessions (and Deno test files) in the suite row.
    #[arg(long, default_value_t = 1000)]
    sessions: usize,
    /// Only these rows, comma-separated (see `ROWS`: cold, turn, aging,
    /// new-instance, op, tool-call, transpile, memory, churn, crowd, isolation,
    /// memories, console, suite); all when omitted.
    #[arg(long, value_delimiter = ',')]
    only: Vec<String>,
    /// Internal: time N fresh instances in this process and print the
    /// samples (µs), one per line.
    #[arg(long, hide = true)]
    fresh_batch: Option<usize>,
    /// Internal: with --fresh-batch, warm an isolate (untimed) before each.
    #[arg(long, hide = true)]
    prewarmed: bool,
    /// Internal: with --fresh-batch or --memory-probe, the first program
    /// prints a line too (its isolate loads deno_web's globals).
    #[arg(long, hide = true)]
    printing: bool,
    /// Internal: print this process's resident memory before and after
    /// creating 1 and then N idle instances.
    #[arg(long, hide = true)]
    memory_probe: Option<usize>,
    /// Internal: with --memory-probe, park each instance after its program
    /// (`Agent::park`, as `gg mcp` does after `--park-after`).
    #[arg(long, hide = true)]
    parked: bool,
    /// Internal: print this process's resident memory with one live
    /// instance, then after creating, using and dropping N on this thread.
    #[arg(long, hide = true)]
    churn_probe: Option<usize>,
    /// Internal: print the median create and drop times (ms) of an
    /// isolate on an empty thread, then with N live ones on it.
    #[arg(long, hide = true)]
    crowd_probe: Option<usize>,
}

pub fn run(args: BenchArgs) -> i32 {
    if let Some(n) = args.fresh_batch {
        for sample in rows::fresh_samples(n, args.prewarmed, args.printing) {
            let _ = writeln!(crate::screen::machine_stdout(), "{}", sample.as_micros());
        }
        return 0;
    }
    if let Some(n) = args.memory_probe {
        memory::probe(n, args.parked, args.printing);
        return 0;
    }
    if let Some(n) = args.churn_probe {
        memory::churn_probe(n);
        return 0;
    }
    if let Some(n) = args.crowd_probe {
        crowd::probe(n);
        return 0;
    }
    if cfg!(debug_assertions) {
        tell!("gg bench: this is a debug build; build with --release for numbers worth quoting.");
    }
    let runs = args.runs.max(10);
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let peers = Peers::locate(args.peers.clone());
    let mut table = Table::default();
    if let Some(unknown) = args.only.iter().find(|o| !ROWS.contains(&o.as_str())) {
        tell!(
            "gg bench: there is no row {unknown:?}; --only takes any of {}",
            ROWS.join(", ")
        );
        return 2;
    }
    let wanted = |row: &str| args.only.is_empty() || args.only.iter().any(|o| o == row);

    if wanted("cold") {
        tell!("gg bench: cold");
        rows::cold(&mut table, &peers, args.cold_runs.max(3));
    }
    if wanted("turn") {
        tell!("gg bench: turn");
        rows::turn(&mut table, &peers, runs);
    }
    if wanted("aging") {
        tell!("gg bench: aging");
        aging::row(&mut table);
    }
    if wanted("new-instance") {
        tell!("gg bench: new instance");
        rows::new_instance(&mut table, &peers, runs);
    }
    if wanted("op") {
        tell!("gg bench: op");
        rows::op(&mut table, args.ops);
    }
    if wanted("tool-call") {
        tell!("gg bench: tool call");
        tool_call::row(&mut table, &peers, runs);
    }
    if wanted("transpile") {
        tell!("gg bench: transpile");
        rows::transpile(&mut table, &peers, args.passes.max(1));
    }
    if wanted("memory") {
        tell!("gg bench: memory");
        memory::rows(&mut table, &peers);
    }
    if wanted("churn") {
        tell!("gg bench: isolate churn");
        memory::churn_row(&mut table);
    }
    if wanted("crowd") {
        tell!("gg bench: crowd");
        crowd::row(&mut table);
    }
    if wanted("isolation") {
        tell!("gg bench: isolation");
        isolation::row(&mut table, runs.min(300));
    }
    if wanted("memories") {
        tell!("gg bench: memories");
        rows::memories(&mut table);
    }
    if wanted("console") {
        tell!("gg bench: console");
        rows::console_overview(&mut table, runs.min(50));
    }
    if wanted("suite") {
        tell!("gg bench: suite");
        suite::row(&mut table, &peers, &rows::scratch(), args.sessions.max(1));
    }

    say!(
        "gg bench · {cores} cores · {} · {runs} runs per timed row · engine {} · {}",
        memory::cpu_model(),
        rows::engine_name(),
        if cfg!(debug_assertions) {
            "debug build"
        } else {
            "release build"
        }
    );
    let _ = write!(crate::screen::stdout(), "{}", table.render());
    0
}
