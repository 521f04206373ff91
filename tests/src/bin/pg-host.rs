//! A gg host process for the cross-host tests: a run against a PostgreSQL
//! store, driving real agents through the host library, printing what it
//! did as flushed lines the test reads.
//!
//! Usage:
//!   pg-host persistent URL AGENT HOLD_MS
//!       starts AGENT, an instance of the persistent profile `owner`, takes
//!       its running slot and key, prints `running AGENT MS`, runs one turn,
//!       holds HOLD_MS, finishes, prints `releasing AGENT MS` and lets go.
//!   pg-host stress URL HOST AGENTS PER_AGENT
//!       AGENTS threads, each an agent `HOST-aN` of the shared-memories
//!       profile `team`, make PER_AGENT mixed mutations 25 a turn; then the
//!       host writes `done-HOST`, waits (LISTEN/NOTIFY) for the other host's
//!       `done-…`, pulls a last time, and prints one JSON line per agent:
//!       `{"agent": …, "heard": [seq, …]}`.

use std::io::Write;
use std::time::Duration;

use gg_module::run::{Run, RunConfig, StartKind};
use gg_runtime::{Agent, Finish, Response};
use serde_json::json;

fn now_ms() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis()
}

fn say(line: &str) {
    let stdout = std::io::stdout();
    let mut lock = stdout.lock();
    writeln!(lock, "{line}").expect("stdout");
    lock.flush().expect("flush");
}

fn run(url: &str) -> Run {
    let text = format!(
        r#"{{ maxParallel: 16, store: "{url}", profiles: [
            {{ id: "owner", mode: "code", capabilities: [{{ id: "agent-persistence", enabled: true }}] }},
            {{ id: "team", mode: "tool-calling", capabilities: [{}] }},
        ] }}"#,
        gg_tests::memories_block("markdown", "shared")
    );
    let config = RunConfig::from_json5(&text, "pg-host").expect("run config");
    let state = tempfile::tempdir().expect("state").keep();
    Run::launch(config, &state).unwrap_or_else(|p| panic!("launch: {}", p.join("; ")))
}

fn persistent(url: &str, agent_id: &str, hold_ms: u64) {
    let run = run(url);
    let mut agent = Agent::start(&run, agent_id, "owner", &StartKind::Root, None).expect("start");
    let slot = run.scheduler().acquire(run.key_for("owner"));
    say(&format!("running {agent_id} {}", now_ms()));
    agent
        .turn(Response::program("export default 1;"))
        .expect("turn");
    std::thread::sleep(Duration::from_millis(hold_ms));
    agent
        .finish(Finish::Done { gate_passed: true })
        .expect("finish");
    say(&format!("releasing {agent_id} {}", now_ms()));
    drop(slot);
}

fn pulled(events: &[gg_runtime::Event]) -> Vec<i64> {
    events
        .iter()
        .flat_map(|e| match e {
            gg_runtime::Event::MemoryPull { seqs, .. } => seqs.clone(),
            _ => Vec::new(),
        })
        .collect()
}

fn stress(url: &str, host: &str, agents: usize, per_agent: usize) {
    let run = std::sync::Arc::new(run(url));
    let other = if host == "A" { "B" } else { "A" };
    let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
    let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
    let go_rx = std::sync::Arc::new(std::sync::Mutex::new(go_rx));
    let (start_tx, start_rx) = std::sync::mpsc::channel::<()>();
    let start_rx = std::sync::Arc::new(std::sync::Mutex::new(start_rx));
    let handles: Vec<_> = (0..agents)
        .map(|i| {
            let run = run.clone();
            let host = host.to_string();
            let done_tx = done_tx.clone();
            let go_rx = go_rx.clone();
            let start_rx = start_rx.clone();
            std::thread::spawn(move || {
                let id = format!("{host}-a{i}");
                let mut agent = Agent::start(&run, &id, "team", &StartKind::Root, None).unwrap();
                done_tx.send(()).unwrap();
                // Every agent of both hosts has joined before anyone writes.
                start_rx.lock().unwrap().recv().unwrap();
                let mut heard: Vec<i64> = Vec::new();
                for turn in 0..per_agent / 25 {
                    let calls = gg_tests::stress_turn(&id, i, turn);
                    let out = agent.turn(Response::ToolCalls(calls)).unwrap();
                    heard.extend(pulled(&out.events));
                }
                done_tx.send(()).unwrap();
                // Wait for the host's go (both hosts done), then pull once more.
                go_rx.lock().unwrap().recv().unwrap();
                agent.refresh().unwrap();
                heard.extend(pulled(&agent.drain_events()));
                say(&json!({ "agent": id, "heard": heard }).to_string());
            })
        })
        .collect();
    let mut store = gg_tests::open_store(&run, "profile.team");
    let marker = format!("{host}-marker");
    store.join(&marker, "shared", true).unwrap();
    let mut listener = gg_module::durable::pg::Listener::new(url).unwrap();
    // Says `word-HOST` in the store, then learns (by notification, not
    // polling) when the other host has said `word-OTHER`.
    let mut barrier = |word: &str| {
        store
            .mutate(&marker, &format!("{word}-{host}"), |_| {
                Ok(gg_module::durable::memory_store::Change::Put {
                    mutation: gg_module::durable::memory_store::Mutation::Create,
                    description: word.into(),
                    body: word.into(),
                    code: None,
                    on_use: None,
                })
            })
            .unwrap();
        let deadline = std::time::Instant::now() + Duration::from_secs(300);
        loop {
            let head = store.head().unwrap();
            if store.get(&format!("{word}-{other}")).unwrap().is_some() {
                break;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the other host never said {word}"
            );
            listener
                .wait("profile.team", head, Duration::from_secs(1))
                .unwrap();
        }
    };
    for _ in 0..agents {
        done_rx.recv().unwrap();
    }
    barrier("ready");
    for _ in 0..agents {
        start_tx.send(()).unwrap();
    }
    for _ in 0..agents {
        done_rx.recv().unwrap();
    }
    barrier("done");
    for _ in 0..agents {
        go_tx.send(()).unwrap();
    }
    for h in handles {
        h.join().unwrap();
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("persistent") => persistent(&args[2], &args[3], args[4].parse().expect("HOLD_MS")),
        Some("stress") => stress(
            &args[2],
            &args[3],
            args[4].parse().expect("AGENTS"),
            args[5].parse().expect("PER_AGENT"),
        ),
        _ => {
            eprintln!(
                "usage: pg-host persistent URL AGENT HOLD_MS | stress URL HOST AGENTS PER_AGENT"
            );
            std::process::exit(2);
        }
    }
}
