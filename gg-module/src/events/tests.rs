use std::fs::OpenOptions;
use std::io::Write;
use std::path::Path;

use serde_json::Value;

use super::*;
use crate::durable::inspect::event_stream::index_now;

/// A pull event of about 70 bytes, numbered by its one seq.
fn pull(seq: i64) -> Event {
    Event::MemoryPull {
        agent: "a".into(),
        store: "agent.a".into(),
        seqs: vec![seq],
    }
}

/// The seqs of the pull events in the file at `path`, in order.
fn seqs(path: &Path) -> Vec<i64> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["seqs"][0]
                .as_i64()
                .unwrap()
        })
        .collect()
}

#[test]
fn a_stream_rotates_by_size_keeps_the_newest_segments_and_counts_every_line() {
    let dir = tempfile::tempdir().unwrap();
    let stream = dir.path().join("events").join("a.jsonl");
    let limits = EventLogLimits {
        segment_bytes: 1000,
        kept_segments: 2,
    };
    let mut log = EventLog::to_file_with_limits(&stream, limits).unwrap();
    for seq in 0..300 {
        log.emit(pull(seq));
        if seq % 10 == 9 {
            log.drain();
        }
    }
    log.drain();
    for n in 0..=2 {
        let len = std::fs::metadata(segment_path(&stream, n)).unwrap().len();
        assert!(len <= 1000, "segment {n} holds {len} bytes");
    }
    assert!(!segment_path(&stream, 3).exists(), "the oldest was dropped");
    // The kept segments, oldest first, are the stream's newest lines
    // without a gap.
    let kept: Vec<i64> = (0..=2)
        .rev()
        .flat_map(|n| seqs(&segment_path(&stream, n)))
        .collect();
    let first = kept[0];
    assert!(first > 0, "the oldest lines are gone");
    assert_eq!(kept, (first..300).collect::<Vec<_>>());
    let index = StreamIndex::read(&stream).unwrap();
    assert_eq!(index.total(), 300, "{index:?}");
    assert_eq!(index.bytes, std::fs::metadata(&stream).unwrap().len());
    assert_eq!(index_now(&stream).unwrap(), index);
    // Reopened, the stream goes on counting from where it stood.
    drop(log);
    let mut log = EventLog::to_file_with_limits(&stream, limits).unwrap();
    for seq in 300..350 {
        log.emit(pull(seq));
    }
    drop(log);
    assert_eq!(StreamIndex::read(&stream).unwrap().total(), 350);
    assert_eq!(seqs(&stream).last(), Some(&349));
}

#[test]
fn an_event_larger_than_a_segment_is_written_whole_in_a_fresh_one() {
    let dir = tempfile::tempdir().unwrap();
    let stream = dir.path().join("a.jsonl");
    let limits = EventLogLimits {
        segment_bytes: 100,
        kept_segments: 1,
    };
    let mut log = EventLog::to_file_with_limits(&stream, limits).unwrap();
    log.emit(pull(1));
    let big = Event::OnUseFailed {
        agent: "a".into(),
        memory: "m".into(),
        detail: "x".repeat(500),
    };
    log.emit(big);
    log.emit(pull(2));
    drop(log);
    let lines = |n| std::fs::read_to_string(segment_path(&stream, n)).unwrap();
    assert_eq!(
        lines(0).lines().count(),
        1,
        "the event after it rotates again"
    );
    assert!(lines(1).contains(&"x".repeat(500)));
    assert_eq!(lines(1).lines().count(), 1);
    assert_eq!(StreamIndex::read(&stream).unwrap().total(), 3);
}

#[test]
fn a_line_cut_by_a_killed_writer_is_ended_when_the_stream_reopens() {
    let dir = tempfile::tempdir().unwrap();
    let stream = dir.path().join("a.jsonl");
    let mut log = EventLog::to_file(&stream).unwrap();
    log.emit(pull(1));
    log.drain();
    drop(log);
    let mut file = OpenOptions::new().append(true).open(&stream).unwrap();
    file.write_all(br#"{"type":"memory_pu"#).unwrap();
    let mut log = EventLog::to_file(&stream).unwrap();
    log.emit(pull(2));
    drop(log);
    let text = std::fs::read_to_string(&stream).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(serde_json::from_str::<Value>(lines[2]).is_ok(), "{text}");
    assert_eq!(StreamIndex::read(&stream).unwrap().total(), 3);
}
