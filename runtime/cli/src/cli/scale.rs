//! `gg bench-scale`: the memory store across hosts, one table. Mutation
//! throughput (creates, committed one transaction each) and notice latency
//! (a write on host A → the revision pulled on host B), with one host
//! (threads of this process) and two (this process and child processes),
//! on SQLite (two processes sharing the file) and PostgreSQL.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use gg_module::durable::memory_store::{Change, StoreLocation};
use gg_module::memories::MemoryStore;

use crate::screen::{say, tell};

#[derive(clap::Args)]
pub struct ScaleArgs {
    /// A PostgreSQL server to measure against (a fresh schema is made);
    /// default: $GG_TEST_POSTGRES_URL, else the PostgreSQL rows are skipped.
    #[arg(long)]
    postgres: Option<String>,
    /// Mutations per throughput row (split over 4 writers).
    #[arg(long, default_value_t = 2000)]
    ops: usize,
    /// Notices timed per latency row.
    #[arg(long, default_value_t = 200)]
    samples: usize,
    /// Internal: a child host's role (`writer` or `listener`).
    #[arg(long, hide = true)]
    role: Option<String>,
    #[arg(long, hide = true)]
    location: Option<String>,
    #[arg(long, hide = true, default_value = "B")]
    host: String,
    #[arg(long, hide = true, default_value_t = 2)]
    threads: usize,
}

const STORE: &str = "profile.bench";

/// Makes a fresh store location (a new SQLite file or PostgreSQL schema).
type FreshStore = Box<dyn Fn() -> String>;

fn location(text: &str) -> StoreLocation {
    if gg_module::durable::pg::is_postgres_url(text) {
        StoreLocation::Postgres {
            url: text.to_string(),
        }
    } else {
        StoreLocation::Sqlite(text.into())
    }
}

fn open(loc: &StoreLocation) -> MemoryStore {
    MemoryStore::open_at(loc, STORE).expect("open the bench store")
}

fn now_us() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_micros() as i64)
        .unwrap_or(0)
}

fn create(store: &mut MemoryStore, agent: &str, slug: &str, body: String) {
    store
        .mutate(agent, slug, |_| {
            Ok(Change::Put {
                mutation: gg_module::memories::Mutation::Create,
                description: "bench".into(),
                body: body.clone(),
                code: None,
                on_use: None,
            })
        })
        .expect("a bench write");
}

/// `threads` writers, `ops` creates each; returns when all are done.
fn write(loc: &StoreLocation, host: &str, threads: usize, ops: usize) {
    std::thread::scope(|s| {
        for t in 0..threads {
            s.spawn(move || {
                let mut store = open(loc);
                let agent = format!("{host}-w{t}");
                for i in 0..ops {
                    create(&mut store, &agent, &format!("{agent}-{i}"), "x".into());
                }
            });
        }
    });
}

/// Waits for others' revisions and returns each one's latency (µs) from
/// the write time in its body: by notification on PostgreSQL, by polling
/// the watermark every 200 µs on SQLite (which has no notifications).
fn listen(loc: &StoreLocation, holder: &str, samples: usize, ready: impl FnOnce()) -> Vec<i64> {
    let mut store = open(loc);
    store.join(holder, "shared", true).expect("join");
    let mut listener = match loc {
        StoreLocation::Postgres { url } => {
            Some(gg_module::durable::pg::Listener::new(url).expect("listen"))
        }
        _ => None,
    };
    ready();
    let mut latencies = Vec::with_capacity(samples);
    let mut head = store.head().expect("head");
    while latencies.len() < samples {
        match &mut listener {
            Some(l) => {
                l.wait(STORE, head, Duration::from_secs(10)).expect("wait");
            }
            None => std::thread::sleep(Duration::from_micros(200)),
        }
        for r in store.pull(holder).expect("pull") {
            head = head.max(r.seq);
            if r.agent != holder {
                if let Ok(t) = r.body.parse::<i64>() {
                    latencies.push(now_us() - t);
                }
            }
        }
    }
    latencies
}

fn child(args: &[String]) -> (Child, BufReader<std::process::ChildStdout>) {
    let mut child = Command::new(std::env::current_exe().expect("the gg binary"))
        .arg("bench-scale")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("a child host");
    let out = BufReader::new(child.stdout.take().expect("stdout"));
    (child, out)
}

fn line(out: &mut BufReader<std::process::ChildStdout>) -> String {
    let mut l = String::new();
    out.read_line(&mut l).expect("read a child host");
    l.trim().to_string()
}

fn throughput(loc_text: &str, hosts: usize, ops: usize) -> f64 {
    let loc = location(loc_text);
    let per_writer = ops / 4;
    if hosts == 1 {
        let start = Instant::now();
        write(&loc, "A", 4, per_writer);
        return (4 * per_writer) as f64 / start.elapsed().as_secs_f64();
    }
    // Two hosts: two child processes of two writers each.
    let mut children: Vec<_> = ["A", "B"]
        .iter()
        .map(|h| {
            child(&[
                "--role".into(),
                "writer".into(),
                "--location".into(),
                loc_text.into(),
                "--host".into(),
                h.to_string(),
                "--threads".into(),
                "2".into(),
                "--ops".into(),
                per_writer.to_string(),
            ])
        })
        .collect();
    for (_, out) in &mut children {
        assert_eq!(line(out), "ready");
    }
    let start = Instant::now();
    for (c, _) in &mut children {
        writeln!(c.stdin.as_mut().expect("stdin"), "go").expect("go");
    }
    for (_, out) in &mut children {
        assert_eq!(line(out), "done");
    }
    let elapsed = start.elapsed();
    for (mut c, _) in children {
        let _ = c.wait();
    }
    (4 * per_writer) as f64 / elapsed.as_secs_f64()
}

/// Writes `samples` revisions on this host, 5 ms apart, each carrying its
/// write time; the listener (a thread, or a child host) times its pull.
fn latency(loc_text: &str, hosts: usize, samples: usize) -> Vec<i64> {
    let loc = location(loc_text);
    let mut writer = open(&loc);
    writer.join("A", "shared", true).expect("join");
    let emit = |writer: &mut MemoryStore| {
        for i in 0..samples {
            std::thread::sleep(Duration::from_millis(5));
            create(
                writer,
                "A",
                &format!("n{i}-{}", now_us()),
                now_us().to_string(),
            );
        }
    };
    if hosts == 1 {
        let (tx, rx) = std::sync::mpsc::channel();
        return std::thread::scope(|s| {
            let loc = &loc;
            let h = s.spawn(move || listen(loc, "B", samples, move || tx.send(()).unwrap()));
            rx.recv().unwrap();
            emit(&mut writer);
            h.join().unwrap()
        });
    }
    let (mut c, mut out) = child(&[
        "--role".into(),
        "listener".into(),
        "--location".into(),
        loc_text.into(),
        "--samples".into(),
        samples.to_string(),
    ]);
    assert_eq!(line(&mut out), "ready");
    emit(&mut writer);
    let lats: Vec<i64> = line(&mut out)
        .split(',')
        .filter_map(|s| s.parse().ok())
        .collect();
    let _ = c.wait();
    lats
}

fn pct(sorted: &[i64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i] as f64 / 1000.0
}

fn say(text: &str) {
    let stdout = crate::screen::machine_stdout();
    let mut lock = stdout.lock();
    writeln!(lock, "{text}").expect("stdout");
    lock.flush().expect("flush");
}

pub fn run(args: ScaleArgs) -> i32 {
    if let Some(role) = &args.role {
        let loc = location(args.location.as_deref().expect("--location"));
        match role.as_str() {
            "writer" => {
                drop(open(&loc));
                say("ready");
                let mut go = String::new();
                std::io::stdin().read_line(&mut go).expect("go");
                write(&loc, &args.host, args.threads, args.ops);
                say("done");
            }
            "listener" => {
                let lats = listen(&loc, "B", args.samples, || say("ready"));
                let text: Vec<String> = lats.iter().map(|l| l.to_string()).collect();
                say(&text.join(","));
            }
            other => return super::usage_error(format!("no bench role {other:?}")),
        }
        return 0;
    }
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => return super::usage_error(format!("cannot create a temporary folder: {e}")),
    };
    let mut backends: Vec<(&str, FreshStore)> = Vec::new();
    let sqlite_dir = dir.path().to_path_buf();
    let counter = std::cell::Cell::new(0);
    backends.push((
        "sqlite",
        Box::new(move || {
            counter.set(counter.get() + 1);
            sqlite_dir
                .join(format!("bench-{}.sqlite", counter.get()))
                .display()
                .to_string()
        }),
    ));
    let pg = args
        .postgres
        .clone()
        .or_else(|| std::env::var("GG_TEST_POSTGRES_URL").ok())
        .filter(|u| !u.is_empty());
    match &pg {
        Some(url) => {
            let url = url.clone();
            backends.push((
                "postgres",
                Box::new(move || {
                    gg_module::durable::pg::fresh_schema(&url, "gg_bench").expect("a bench schema")
                }),
            ));
        }
        None => tell!(
            "gg: no --postgres URL (or GG_TEST_POSTGRES_URL): the PostgreSQL rows are skipped"
        ),
    }
    say!(
        "{:<9} {:>5} {:>14} {:>16} {:>16}",
        "backend",
        "hosts",
        "mutations/s",
        "notice p50 ms",
        "notice p99 ms"
    );
    for (name, fresh) in &backends {
        for hosts in [1, 2] {
            let ops = throughput(&fresh(), hosts, args.ops);
            let mut lats = latency(&fresh(), hosts, args.samples);
            lats.sort();
            say!(
                "{:<9} {:>5} {:>14.0} {:>16.3} {:>16.3}",
                name,
                hosts,
                ops,
                pct(&lats, 0.5),
                pct(&lats, 0.99)
            );
        }
    }
    say!(
        "(mutations: creates by 4 writers, one transaction each; two hosts = two processes of 2 writers. \
notices: a write on host A until host B has pulled it; PostgreSQL wakes B by LISTEN/NOTIFY, SQLite polls every 200 µs.)"
    );
    0
}
