//! One timed pass (or PASSES) of `gg_transpiler::transpile` over every `.ts`
//! file of a folder: `cargo run --release -p gg-transpiler --example
//! corpus_pass -- target/bench-peers/corpus`. For profiling the transpiler
//! (perf, callgrind) on a real corpus.
fn main() {
    let dir = std::env::args().nth(1).expect("a folder of .ts files");
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).expect("readable folder").flatten() {
        if entry.path().extension().is_some_and(|e| e == "ts") {
            files.push(std::fs::read_to_string(entry.path()).expect("UTF-8 file"));
        }
    }
    let total: usize = files.iter().map(String::len).sum();
    let passes = std::env::var("PASSES")
        .ok()
        .and_then(|p| p.parse().ok())
        .unwrap_or(5);
    for _ in 0..passes {
        let start = std::time::Instant::now();
        for source in &files {
            let _ = gg_transpiler::transpile(source, "corpus.ts");
        }
        let seconds = start.elapsed().as_secs_f64();
        eprintln!("{:.1} MB/s", total as f64 / 1e6 / seconds);
    }
}
