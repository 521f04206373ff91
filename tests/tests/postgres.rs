//! Scale-out: two gg host processes against one PostgreSQL database. Each
//! test needs `GG_TEST_POSTGRES_URL` (`scripts/test` sets it) and says it
//! was skipped otherwise.

use std::io::{BufRead, BufReader};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use gg_module::run::{Run, RunConfig};

fn host(args: &[&str]) -> (Child, BufReader<ChildStdout>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pg-host"))
        .args(args)
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn pg-host");
    let out = BufReader::new(child.stdout.take().unwrap());
    (child, out)
}

/// Waits for every host to exit, failing the test unless each one
/// succeeded.
fn all_succeed<const N: usize>(hosts: [&mut Child; N]) {
    for host in hosts {
        assert!(host.wait().unwrap().success());
    }
}

/// The next line a host prints, as (word, agent, ms).
fn next(out: &mut BufReader<ChildStdout>) -> (String, String, u128) {
    let mut line = String::new();
    out.read_line(&mut line).expect("read");
    let parts: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(parts.len(), 3, "unexpected host line {line:?}");
    (
        parts[0].to_string(),
        parts[1].to_string(),
        parts[2].parse().unwrap(),
    )
}

/// Reads lines on a thread, so a test can wait for one with a timeout.
fn lines(out: BufReader<ChildStdout>) -> std::sync::mpsc::Receiver<String> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in out.lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

#[test]
fn a_persistent_profile_on_host_a_holds_host_b_back_until_a_finishes() {
    let Some(url) = gg_tests::postgres_or_skip("persistent key across hosts") else {
        return;
    };
    let (mut a, mut a_out) = host(&["persistent", &url, "A", "1500"]);
    let (word, _, _) = next(&mut a_out);
    assert_eq!(word, "running");
    let (mut b, mut b_out) = host(&["persistent", &url, "B", "0"]);
    let (word, _, a_released) = next(&mut a_out);
    assert_eq!(word, "releasing");
    let (word, agent, b_running) = next(&mut b_out);
    assert_eq!((word.as_str(), agent.as_str()), ("running", "B"));
    assert!(
        b_running >= a_released,
        "B ran at {b_running}, before A let go at {a_released}"
    );
    all_succeed([&mut a, &mut b]);
}

#[test]
fn kill_9_of_host_a_lets_host_b_start_and_waiters_are_served_in_order() {
    let Some(url) = gg_tests::postgres_or_skip("kill -9 releases keys") else {
        return;
    };
    let (mut a, mut a_out) = host(&["persistent", &url, "A", "600000"]);
    assert_eq!(next(&mut a_out).0, "running");
    let (mut b, b_out) = host(&["persistent", &url, "B", "300"]);
    let b_lines = lines(b_out);
    // B queues first, C after it, on another host.
    std::thread::sleep(Duration::from_millis(700));
    let (mut c, c_out) = host(&["persistent", &url, "C", "0"]);
    let c_lines = lines(c_out);
    std::thread::sleep(Duration::from_millis(700));
    assert!(
        b_lines.try_recv().is_err() && c_lines.try_recv().is_err(),
        "nobody runs while A holds the key"
    );
    let killed = Instant::now();
    a.kill().unwrap(); // SIGKILL: no clean-up runs in A
    a.wait().unwrap();
    let b_running = b_lines
        .recv_timeout(Duration::from_secs(20))
        .expect("B starts once A's connection is gone");
    assert!(b_running.starts_with("running B"), "{b_running}");
    eprintln!("B started {:?} after A was killed", killed.elapsed());
    let b_releasing = b_lines.recv_timeout(Duration::from_secs(20)).unwrap();
    let c_running = c_lines.recv_timeout(Duration::from_secs(20)).unwrap();
    let ms = |line: &str| -> u128 { line.split_whitespace().nth(2).unwrap().parse().unwrap() };
    assert!(
        ms(&c_running) >= ms(&b_releasing),
        "C (queued later) waited for B: {c_running} vs {b_releasing}"
    );
    all_succeed([&mut b, &mut c]);
}

#[test]
fn the_scopes_stress_test_split_over_two_hosts() {
    let Some(url) = gg_tests::postgres_or_skip("stress over two hosts") else {
        return;
    };
    // 2 hosts × 8 agents × 625 mutations: the scopes issue's 10 000.
    let (mut a, a_out) = host(&["stress", &url, "A", "8", "625"]);
    let (mut b, b_out) = host(&["stress", &url, "B", "8", "625"]);
    let collect = |out: BufReader<ChildStdout>| -> Vec<serde_json::Value> {
        out.lines()
            .map_while(Result::ok)
            .map(|l| serde_json::from_str(&l).expect("json line"))
            .collect()
    };
    let a_thread = std::thread::spawn(move || collect(a_out));
    let mut results = collect(b_out);
    results.extend(a_thread.join().unwrap());
    all_succeed([&mut a, &mut b]);
    assert_eq!(results.len(), 16);

    let config =
        RunConfig::from_json5(&format!(r#"{{ store: "{url}", profiles: [] }}"#), "check").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let run = Run::launch(config, dir.path()).unwrap();
    let store = gg_tests::open_store(&run, "profile.team");
    let log = store.revisions_since(0).unwrap();
    // Gap-free, ordered seqs; per-slug revisions gap-free and ordered.
    for (i, r) in log.iter().enumerate() {
        assert_eq!(r.seq, i as i64 + 1, "seq gap");
    }
    let mut last: std::collections::HashMap<&str, i64> = Default::default();
    for r in &log {
        let prev = last.insert(&r.slug, r.revision).unwrap_or(0);
        assert_eq!(r.revision, prev + 1, "revision gap for {}", r.slug);
    }
    // The store equals a serial replay of its revision log: no lost update.
    gg_tests::assert_store_equals_replay(&store, &log);
    // After both hosts finished writing, every holder heard every other
    // holder's revision (on either host) exactly once.
    for result in &results {
        let id = result["agent"].as_str().unwrap();
        let mut heard: Vec<i64> = result["heard"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_i64().unwrap())
            .collect();
        let n = heard.len();
        heard.sort();
        heard.dedup();
        assert_eq!(n, heard.len(), "{id} heard a revision twice");
        let others: Vec<i64> = log
            .iter()
            .filter(|r| r.agent != id)
            .map(|r| r.seq)
            .collect();
        // Only the `ready-…` markers may predate a holder's join (a late
        // joiner starts at the head); everything else came after every join.
        let due: Vec<i64> = log
            .iter()
            .filter(|r| r.agent != id && !r.slug.starts_with("ready-"))
            .map(|r| r.seq)
            .collect();
        assert!(
            heard.iter().all(|s| others.contains(s)),
            "{id} heard its own write"
        );
        let heard_due: Vec<i64> = heard.iter().copied().filter(|s| due.contains(s)).collect();
        let missed: Vec<&gg_module::memories::RevisionRecord> = log
            .iter()
            .filter(|r| due.contains(&r.seq) && !heard_due.contains(&r.seq))
            .collect();
        assert!(missed.is_empty(), "{id} missed revisions: {missed:?}");
        let other_host = if id.starts_with('A') { 'B' } else { 'A' };
        assert!(
            log.iter()
                .any(|r| r.agent.starts_with(other_host) && heard.contains(&r.seq)),
            "{id} heard the other host"
        );
    }
}

#[test]
fn a_clear_error_when_the_database_is_unreachable_or_newer() {
    let Some(url) = gg_tests::postgres_or_skip("unreachable and newer schemas") else {
        return;
    };
    // Nothing listens on port 1.
    let config = RunConfig::from_json5(
        r#"{ store: "postgres://gg@127.0.0.1:1/postgres", profiles: [] }"#,
        "check",
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let problems = Run::launch(config, dir.path())
        .err()
        .expect("refused")
        .join("\n");
    assert!(problems.contains("is unreachable"), "{problems}");

    // A schema a newer gg migrated.
    let config =
        RunConfig::from_json5(&format!(r#"{{ store: "{url}", profiles: [] }}"#), "check").unwrap();
    drop(Run::launch(config, dir.path()).unwrap());
    let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    client
        .execute("INSERT INTO gg_schema_version (version) VALUES (999)", &[])
        .unwrap();
    drop(client);
    // A new process would open a fresh pool: model that with a second URL
    // spelling of the same database.
    let again = format!("{url}&application_name=gg-newer");
    let config =
        RunConfig::from_json5(&format!(r#"{{ store: "{again}", profiles: [] }}"#), "check")
            .unwrap();
    let problems = Run::launch(config, dir.path())
        .err()
        .expect("refused")
        .join("\n");
    assert!(
        problems.contains("schema version 999, newer than this gg binary knows"),
        "{problems}"
    );
}

#[test]
fn acknowledged_mutations_survive_kill_9_on_postgres() {
    let Some(url) = gg_tests::postgres_or_skip("kill -9 durability") else {
        return;
    };
    let state = tempfile::tempdir().unwrap();
    let mut next = 0u64;
    let mut acked: Vec<i64> = Vec::new();
    for round in 0..3u64 {
        let mut child = Command::new(env!("CARGO_BIN_EXE_memory-writer"))
            .args([
                state.path().to_str().unwrap(),
                &next.to_string(),
                "100000",
                &url,
            ])
            .stdout(Stdio::piped())
            .spawn()
            .expect("spawn the writer");
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        for _ in 0..40 + round * 17 {
            let line = lines.next().expect("an ack").unwrap();
            let parts: Vec<&str> = line.split_whitespace().collect();
            next = parts[1].parse::<u64>().unwrap() + 1;
            acked.push(parts[2].parse().unwrap());
        }
        child.kill().expect("kill -9");
        child.wait().unwrap();

        let store = gg_module::memories::MemoryStore::open_postgres(&url, "agent.writer").unwrap();
        let log = store.revisions_since(0).unwrap();
        let logged: std::collections::HashSet<i64> = log.iter().map(|r| r.seq).collect();
        for seq in &acked {
            assert!(
                logged.contains(seq),
                "round {round}: acknowledged revision {seq} was lost"
            );
        }
        gg_tests::assert_store_equals_replay(&store, &log);
        assert_eq!(
            store.totals().unwrap().count as usize,
            store.list().unwrap().len(),
            "round {round}"
        );
    }
}

#[test]
fn max_parallel_across_hosts_counts_every_hosts_agents_when_the_run_says_so() {
    let Some(url) = gg_tests::postgres_or_skip("maxParallel across hosts") else {
        return;
    };
    // Two runs with their own schedulers stand for two hosts.
    let launch = |across: bool| {
        let config = RunConfig::from_json5(
            &format!(
                r#"{{ store: "{url}", maxParallel: 1, maxParallelAcrossHosts: {across}, profiles: [] }}"#
            ),
            "check",
        )
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::sync::Arc::new(Run::launch(config, dir.path()).unwrap())
    };
    let (a, b) = (launch(true), launch(true));
    let held = a.scheduler().acquire(None);
    let (tx, rx) = std::sync::mpsc::channel();
    let b2 = b.clone();
    let waiter = std::thread::spawn(move || {
        let _slot = b2.scheduler().acquire(None);
        tx.send(Instant::now()).unwrap();
    });
    assert!(
        rx.recv_timeout(Duration::from_millis(500)).is_err(),
        "host B waits: the run's one slot is taken on host A"
    );
    let released = Instant::now();
    drop(held);
    let got = rx.recv_timeout(Duration::from_secs(10)).expect("B runs");
    assert!(got >= released);
    waiter.join().unwrap();
    // Without the setting, maxParallel is per host.
    let (c, d) = (launch(false), launch(false));
    let _c = c.scheduler().acquire(None);
    let _d = d.scheduler().acquire(None);
}
