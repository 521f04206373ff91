use super::*;
use crate::events::{Event, EventLog, EventLogLimits};

/// A pull event, numbered by its one seq.
fn pull(seq: i64) -> Event {
    Event::MemoryPull {
        agent: "a".into(),
        store: "agent.a".into(),
        seqs: vec![seq],
    }
}

/// The seq of each line.
fn seqs(lines: &[Vec<u8>]) -> Vec<i64> {
    lines
        .iter()
        .map(|l| {
            serde_json::from_slice::<serde_json::Value>(l).unwrap()["seqs"][0]
                .as_i64()
                .unwrap()
        })
        .collect()
}

/// The stream's files and their bytes, to show a read changed nothing.
fn files(dir: &Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| (e.path(), std::fs::read(e.path()).unwrap()))
        .collect();
    out.sort();
    out
}

#[test]
fn the_index_is_trusted_and_only_the_lines_a_killed_writer_never_recorded_are_counted() {
    let dir = tempfile::tempdir().unwrap();
    let stream = dir.path().join("a.jsonl");
    let mut log = EventLog::to_file(&stream).unwrap();
    for seq in 0..30 {
        log.emit(pull(seq));
    }
    log.drain();
    // A turn under way when the process is killed: its lines are written,
    // the index (recorded at the turn's end) is not.
    for seq in 30..35 {
        log.emit(pull(seq));
    }
    std::mem::forget(log);
    let recorded = StreamIndex::read(&stream).unwrap();
    assert_eq!(recorded.total(), 30);
    let before = files(dir.path());
    let now = index_now(&stream).unwrap();
    assert_eq!(now.total(), 35, "{now:?}");
    assert_eq!(now.bytes, std::fs::metadata(&stream).unwrap().len());
    assert_eq!(files(dir.path()), before, "reading writes nothing");

    // The recorded lines are taken on trust, not recounted.
    let inflated = StreamIndex {
        lines: recorded.lines + 1000,
        ..recorded
    };
    std::fs::write(
        StreamIndex::path(&stream),
        serde_json::to_vec(&inflated).unwrap(),
    )
    .unwrap();
    assert_eq!(total(&stream), 1035);
}

#[test]
fn a_writer_killed_between_rotating_and_recording_leaves_a_stream_that_counts_right() {
    let dir = tempfile::tempdir().unwrap();
    let stream = dir.path().join("a.jsonl");
    let mut log = EventLog::to_file(&stream).unwrap();
    for seq in 0..20 {
        log.emit(pull(seq));
    }
    log.drain();
    for seq in 20..25 {
        log.emit(pull(seq));
    }
    std::mem::forget(log);
    // What a rotation does before it records the index: the segment moves
    // to `.1` and a fresh one starts (here with one line another writer
    // appended).
    std::fs::rename(&stream, segment_path(&stream, 1)).unwrap();
    let mut log = std::fs::File::create(&stream).unwrap();
    std::io::Write::write_all(&mut log, b"{\"type\":\"memory_pull\",\"seqs\":[25]}\n").unwrap();
    let now = index_now(&stream).unwrap();
    assert_eq!((now.before, now.lines), (25, 1), "{now:?}");
    assert_eq!(
        seqs(&newest_lines(&stream, 4).unwrap()),
        [22, 23, 24, 25],
        "the newest lines reach into `.1` when the current segment holds too few"
    );
}

#[test]
fn a_stream_from_before_the_index_is_counted_as_it_always_was() {
    let dir = tempfile::tempdir().unwrap();
    let stream = dir.path().join("a.jsonl");
    // Blank lines never were events; a last line without its break was.
    std::fs::write(&stream, "{\"a\":1}\n\n{\"a\":2}\n   \n{\"a\":3}").unwrap();
    let before = files(dir.path());
    assert_eq!(total(&stream), 3);
    let newest: Vec<String> = newest_lines(&stream, 2)
        .unwrap()
        .into_iter()
        .map(|l| String::from_utf8(l).unwrap())
        .collect();
    assert_eq!(newest, ["{\"a\":2}", "{\"a\":3}"]);
    assert_eq!(files(dir.path()), before, "no index is written by a reader");
    assert_eq!(total(&dir.path().join("missing.jsonl")), 0);
}

#[test]
fn the_newest_lines_come_from_the_current_segment_and_the_one_before_only_if_needed() {
    let dir = tempfile::tempdir().unwrap();
    let stream = dir.path().join("a.jsonl");
    let limits = EventLogLimits {
        segment_bytes: 4000,
        kept_segments: 3,
    };
    let mut log = EventLog::to_file_with_limits(&stream, limits).unwrap();
    for seq in 0..200 {
        log.emit(pull(seq));
    }
    drop(log);
    let current = seqs(&tail_lines(&stream, usize::MAX).unwrap());
    let in_current = current.len();
    assert!(in_current > 10 && in_current < 100, "{in_current}");
    assert_eq!(current.last(), Some(&199));
    assert_eq!(
        seqs(&newest_lines(&stream, 10).unwrap()),
        (190..200).collect::<Vec<_>>()
    );
    let reach = in_current + 5;
    assert_eq!(
        seqs(&newest_lines(&stream, reach).unwrap()),
        ((200 - reach as i64)..200).collect::<Vec<_>>()
    );
    assert_eq!(total(&stream), 200);
}

#[test]
fn reading_backwards_finds_lines_longer_than_a_read() {
    let dir = tempfile::tempdir().unwrap();
    let stream = dir.path().join("a.jsonl");
    let long = format!("{{\"x\":\"{}\"}}", "y".repeat(3 * TAIL_FIRST as usize));
    std::fs::write(&stream, format!("{{\"a\":0}}\n{long}\n{{\"a\":1}}\n")).unwrap();
    let newest = newest_lines(&stream, 2).unwrap();
    assert_eq!(newest, [long.into_bytes(), b"{\"a\":1}".to_vec()]);
    assert_eq!(newest_lines(&stream, 5).unwrap().len(), 3);
}
