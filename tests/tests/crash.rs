//! Every acknowledged mutation survives a `kill -9` of the host process,
//! and no mutation is half-applied.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use gg_module::memories::MemoryStore;

/// Replays the revision log into the set it implies.
fn replay(store: &MemoryStore) -> BTreeMap<String, (String, String)> {
    let mut set = BTreeMap::new();
    for r in store.revisions_since(0).unwrap() {
        if r.mutation == gg_module::memories::Mutation::Delete {
            set.remove(&r.slug);
        } else {
            set.insert(r.slug.clone(), (r.description.clone(), r.body.clone()));
        }
    }
    set
}

/// The writer's state folder, killed and restarted round after round: where
/// the next run starts and every revision acknowledged so far, which each
/// reopened store must hold.
struct KilledWriter {
    state: tempfile::TempDir,
    next: u64,
    acked: Vec<i64>,
}

impl KilledWriter {
    fn new() -> Self {
        KilledWriter {
            state: tempfile::tempdir().unwrap(),
            next: 0,
            acked: Vec::new(),
        }
    }

    /// Runs the writer from where the last run stopped (up to `count`
    /// mutations), kills it after `kill_after` acknowledgements (or when it
    /// ends) and returns how many it acknowledged.
    fn kill_mid_run(&mut self, count: u64, kill_after: u64) -> usize {
        let mut child = Command::new(env!("CARGO_BIN_EXE_memory-writer"))
            .args([
                self.state.path().to_str().unwrap(),
                &self.next.to_string(),
                &count.to_string(),
            ])
            .stdout(Stdio::piped())
            .spawn()
            .expect("spawn the writer");
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let before = self.acked.len();
        let mut last_i = self.next;
        for _ in 0..kill_after {
            let Some(Ok(line)) = lines.next() else { break };
            let parts: Vec<&str> = line.split_whitespace().collect();
            last_i = parts[1].parse().unwrap();
            self.acked.push(parts[2].parse().unwrap());
        }
        child.kill().expect("kill -9");
        child.wait().unwrap();
        self.next = last_i + 1;
        self.acked.len() - before
    }

    /// The store as the killed writer left it, checked against every
    /// acknowledgement so far.
    fn reopen_checked(&self, round: u64) -> MemoryStore {
        let path = self.state.path().join("memories/agent.writer.sqlite");
        let store = MemoryStore::open(&path, "agent.writer").unwrap();
        assert_consistent(&store, &self.acked, round);
        store
    }
}

/// The current set, as the replay compares it.
fn current(store: &MemoryStore) -> BTreeMap<String, (String, String)> {
    store
        .list()
        .unwrap()
        .iter()
        .map(|m| (m.slug.clone(), (m.description.clone(), m.body.clone())))
        .collect()
}

/// Every acknowledged revision is logged, and the store is exactly the
/// replay of its log: nothing lost, nothing partial.
fn assert_consistent(store: &MemoryStore, acked: &[i64], round: u64) {
    let logged: std::collections::HashSet<i64> = store
        .revisions_since(0)
        .unwrap()
        .iter()
        .map(|r| r.seq)
        .collect();
    for seq in acked {
        assert!(
            logged.contains(seq),
            "round {round}: acknowledged revision {seq} was lost"
        );
    }
    assert_eq!(
        current(store),
        replay(store),
        "round {round}: the store and its revision log disagree"
    );
}

#[test]
fn acknowledged_mutations_survive_kill_9() {
    let mut writer = KilledWriter::new();
    for round in 0..3 {
        // Kill it in the middle of its write loop, after a round-dependent
        // number of acknowledgements.
        let want = 40 + round * 17;
        assert_eq!(
            writer.kill_mid_run(100_000, want),
            want as usize,
            "the writer acknowledges"
        );

        let store = writer.reopen_checked(round);
        let log = store.revisions_since(0).unwrap();
        let current = current(&store);
        let totals = store.totals().unwrap();
        assert_eq!(totals.count as usize, current.len());
        assert_eq!(
            totals.chars,
            current
                .values()
                .map(|(_, b)| b.chars().count() as u64)
                .sum::<u64>()
        );
        // Revision numbers per slug are gap-free.
        let mut per_slug: BTreeMap<String, i64> = BTreeMap::new();
        for r in &log {
            let last = per_slug.entry(r.slug.clone()).or_insert(0);
            assert_eq!(r.revision, *last + 1, "slug {} skipped a revision", r.slug);
            *last = r.revision;
        }
    }
}

/// The hardening issue's version: 20 kills, each in the middle of a run of
/// up to 1 000 mixed mutations; after every restart the acknowledged
/// mutations are all there, none is partial, the log matches the store and
/// the peaks never go backwards.
#[test]
fn twenty_kills_in_the_middle_of_a_thousand_mutations() {
    let mut writer = KilledWriter::new();
    let mut last_peaks = gg_module::durable::memory_store::Peaks::default();
    for round in 0..20u64 {
        // Somewhere in the middle of the thousand, varying by round.
        let kill_after = 10 + (round * 23) % 120;
        writer.kill_mid_run(1000, kill_after);

        let store = writer.reopen_checked(round);
        let peaks = store.peaks().unwrap();
        assert!(
            peaks.count >= last_peaks.count
                && peaks.chars >= last_peaks.chars
                && peaks.lines >= last_peaks.lines,
            "round {round}: peaks went backwards: {last_peaks:?} -> {peaks:?}"
        );
        let totals = store.totals().unwrap();
        assert!(
            peaks.count >= totals.count && peaks.chars >= totals.chars,
            "peaks below the live totals"
        );
        last_peaks = peaks;
    }
    assert!(
        writer.acked.len() > 900,
        "the rounds acknowledged {} mutations",
        writer.acked.len()
    );
}
