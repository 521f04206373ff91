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
    /// Internal: time N fresh instances in this process and print the
    /// samples (µs), one per line.
    #[arg(long, hide = true)]
    fresh_batch: Option<usize>,
}

/// Fresh instances timed per child process: deno_core 0.413 on the QuickJS
/// backend does not free a dropped `JsRuntime` (about 0.9 MB each) and
/// refuses new ones after roughly 270 in one process, so the new-instance
/// row spreads its runs over child processes.
const FRESH_PER_PROCESS: usize = 200;

fn fresh_samples(n: usize) -> Vec<Duration> {
    (0..n)
        .map(|_| {
            let start = Instant::now();
            let mut a = agent();
            a.turn(Response::program(THREE_CALLS)).expect("turn");
            start.elapsed()
        })
        .collect()
}

fn fresh_in_children(runs: usize) -> Vec<Duration> {
    let exe = std::env::current_exe().expect("the gg binary");
    let mut samples = Vec::with_capacity(runs);
    while samples.len() < runs {
        let n = FRESH_PER_PROCESS.min(runs - samples.len());
        let out = std::process::Command::new(&exe)
            .args(["bench", "--fresh-batch", &n.to_string()])
            .output()
            .expect("running a bench batch");
        let text = String::from_utf8_lossy(&out.stdout);
        let batch: Vec<Duration> = text
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .map(Duration::from_micros)
            .collect();
        assert_eq!(
            batch.len(),
            n,
            "a bench batch failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        samples.extend(batch);
    }
    samples
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
    if let Some(n) = args.fresh_batch {
        for sample in fresh_samples(n) {
            println!("{}", sample.as_micros());
        }
        return 0;
    }
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
    let fresh = fresh_in_children(runs);

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

    // Memories: createMemory from JS, in memory and durable on disk.
    let create_mem = create_cost(None, 2000);
    let disk = tempdir();
    let create_disk = create_cost(Some(disk.clone()), 200);
    let _ = std::fs::remove_dir_all(&disk);

    // search_memories over 1 000 and 10 000 memories of 4 KB, 3 keywords.
    let search_1k = search_cost(1_000, 50);
    let search_10k = search_cost(10_000, 20);

    // Transpile a 32 KB module; load a memory module into a running isolate.
    let transpile_32k = transpile_cost(200);
    let (load_read, load_import) = module_load_cost(100);

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
    println!(
        "| transpile a 32 KB TypeScript module | {:.3} ms | {:.3} ms |",
        transpile_32k.0, transpile_32k.1
    );
    println!("| load a code memory: the readMemory turn that compiles and binds it | {:.3} ms | {:.3} ms |", load_read.0, load_read.1);
    println!(
        "| load a code memory: the first program importing it | {:.3} ms | {:.3} ms |",
        load_import.0, load_import.1
    );
    println!(
        "| memories.createMemory from JS, in-memory store | {:.1} µs | – |",
        create_mem * 1e3
    );
    println!("| memories.createMemory from JS, durable store (fsync per commit) | {create_disk:.3} ms | – |");
    println!(
        "| search_memories, 1 000 × 4 KB memories, 3 keywords | {:.3} ms | {:.3} ms |",
        search_1k.0, search_1k.1
    );
    println!(
        "| search_memories, 10 000 × 4 KB memories, 3 keywords | {:.3} ms | {:.3} ms |",
        search_10k.0, search_10k.1
    );
    0
}

fn tempdir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("gg-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn markdown_profile() -> Profile {
    Profile::from_json5(
        r#"{ id: "bench", capabilities: [{ id: "memories", enabled: true, implementation: "keyword-search",
            params: { scope: "isolated", maxCount: 0, maxLenPerMemory: 0, maxTotalLen: 0, maxLenIndex: 0, maxLenDescription: 0, maxResults: 25 } }] }"#,
        "bench",
    )
    .expect("bench profile")
}

/// Milliseconds per `memories.createMemory` call from a program.
fn create_cost(state: Option<std::path::PathBuf>, n: usize) -> f64 {
    let mut a = Agent::new(AgentOptions {
        profile: markdown_profile(),
        state,
        ..Default::default()
    })
    .expect("agent");
    let program = format!(
        r#"import {{ memories }} from "gg";
const t0 = performance.now();
for (let i = 0; i < {n}; i++) memories.createMemory({{ name: "m" + i, description: "bench memory " + i, body: "body of memory " + i }});
export default (performance.now() - t0) / {n};"#
    );
    let out = a.turn(Response::program(program)).expect("turn");
    out.acknowledgement
        .and_then(|a| a.value)
        .and_then(|v| v.parse().ok())
        .unwrap_or(f64::NAN)
}

/// (median, p99) milliseconds of one search over `n` memories of 4 KB.
fn search_cost(n: usize, runs: usize) -> (f64, f64) {
    use gg_module::memories::store::Change;
    let a = Agent::new(AgentOptions {
        profile: markdown_profile(),
        ..Default::default()
    })
    .expect("agent");
    let words = [
        "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india",
        "juliet", "kilo", "lima",
    ];
    let host = a.memories_handle();
    let mut host = host.borrow_mut();
    let memories = host.memories.as_mut().expect("memories");
    for i in 0..n {
        let mut body = String::with_capacity(4096);
        let mut k = i;
        while body.len() < 4096 {
            body.push_str(words[k % words.len()]);
            body.push(' ');
            k = k.wrapping_mul(31).wrapping_add(7);
        }
        body.truncate(4096);
        memories
            .store
            .mutate("bench", &format!("m{i}"), |_| {
                Ok(Change::Put {
                    mutation: "create",
                    description: format!("memory {i}"),
                    body: body.clone(),
                    code: None,
                    on_use: None,
                })
            })
            .expect("populate");
    }
    let keywords: Vec<String> = ["delta", "kilo", "m42"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let mut samples = Vec::with_capacity(runs);
    for _ in 0..runs {
        let start = Instant::now();
        let hits = memories
            .search(&keywords, "search_memories")
            .expect("search");
        samples.push(start.elapsed());
        assert!(!hits.is_empty());
    }
    summarize(samples)
}

/// A 32 KB TypeScript module of typed helpers.
pub fn module_32k() -> String {
    let mut out = String::new();
    let mut i = 0;
    while out.len() < 32_000 {
        out.push_str(&format!(
            "interface Row{i} {{ id: number; name: string; tags?: string[] }}\n/** Helper {i}. */\nexport function helper{i}(rows: Row{i}[], min: number = {i}): Row{i}[] {{\n  return rows.filter((r) => r.id >= min).map((r) => ({{ ...r, name: r.name.trim() }}));\n}}\n"
        ));
        i += 1;
    }
    out.truncate(32_000);
    let cut = out.rfind("\ninterface").unwrap_or(out.len());
    out.truncate(cut);
    out
}

fn transpile_cost(runs: usize) -> (f64, f64) {
    let source = module_32k();
    let samples = (0..runs)
        .map(|_| {
            let start = Instant::now();
            gg_transpiler::transpile(&source, "m.ts").expect("the bench module compiles");
            start.elapsed()
        })
        .collect();
    summarize(samples)
}

fn module_load_cost(runs: usize) -> ((f64, f64), (f64, f64)) {
    let mut a = Agent::new(AgentOptions {
        profile: markdown_profile(),
        ..Default::default()
    })
    .expect("agent");
    let code = "export function parseCsv(text: string): string[][] { return text.split(\"\\n\").map((l) => l.split(\",\")); }";
    let mut reads = Vec::with_capacity(runs);
    let mut imports = Vec::with_capacity(runs);
    for i in 0..runs {
        a.turn(Response::program(format!(
            r#"import {{ memories }} from "gg"; memories.createMemory({{ name: "tools-{i}", description: "d", body: "b", code: {code:?} }});"#
        )))
        .expect("turn");
        let start = Instant::now();
        a.turn(Response::program(format!(
            r#"import {{ memories }} from "gg"; memories.readMemory("tools-{i}");"#
        )))
        .expect("turn");
        reads.push(start.elapsed());
        let start = Instant::now();
        let out = a
            .turn(Response::program(format!(
                r#"import {{ parseCsv }} from "tools{i}"; export default parseCsv("a,b").length;"#
            )))
            .expect("turn");
        imports.push(start.elapsed());
        assert_eq!(
            out.acknowledgement.and_then(|a| a.value).as_deref(),
            Some("1")
        );
    }
    (summarize(reads), summarize(imports))
}

fn engine_name() -> &'static str {
    if cfg!(feature = "v8") {
        "v8"
    } else {
        "quickjs"
    }
}
