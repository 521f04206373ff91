//! The agent's event stream: typed [`Event`]s, written as JSON lines to a
//! file under the state folder and handed to a callback for library users.
//!
//! On disk a stream is segmented: the current segment `<id>.jsonl`, the
//! older ones `<id>.jsonl.1` (newest) … `<id>.jsonl.N`, rotated by size
//! ([`EventLogLimits`]), and beside them a small index `<id>.jsonl.idx`
//! ([`StreamIndex`]), so a reader learns how many events the stream holds
//! without reading every byte of it (a long-lived agent's stream reaches
//! gigabytes: each `memory_state` carries the whole memory set).

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::durable::memory_store::{Mutation, Peaks};
use crate::memories::Limits;

/// One event of an agent's stream. Each is written as one JSON object whose
/// `type` is the variant's name in snake case (`memory_state`,
/// `desk_restored`, …) beside the variant's fields.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// The memory set as it stands, after a turn that changed it (or when
    /// the agent starts).
    MemoryState(MemoryState),
    /// One entry of the store's append-only record of mutations.
    MemoryRevision(MemoryRevision),
    /// Other holders' revisions this agent's notice handed over.
    MemoryPull {
        /// The agent that pulled.
        agent: String,
        /// The store pulled from.
        store: String,
        /// The revisions handed over, by their sequence number.
        seqs: Vec<i64>,
    },
    /// The desk re-opened at the top of a persistent agent's turn loop.
    DeskRestored {
        /// The agent whose desk it is.
        agent: String,
        /// File views re-opened.
        files: usize,
        /// Text views re-opened.
        texts: usize,
        /// Documentation views re-opened.
        documentation: usize,
        /// Views that could not be re-opened.
        skipped: usize,
        /// How the file views were re-opened (`opening programs`, `read_file
        /// call/result pairs`).
        mechanism: String,
    },
    /// A desk view that could not be re-opened.
    DeskSkipped {
        /// The agent whose desk it is.
        agent: String,
        /// The file's workspace path.
        path: String,
        /// Why it could not be opened.
        reason: String,
    },
    /// A memory's onUse hook failed (threw, or hit a limit).
    OnUseFailed {
        /// The agent whose turn used the memory.
        agent: String,
        /// The memory's slug.
        memory: String,
        /// What failed, as the hook's error says it.
        detail: String,
    },
    /// One turn has ended: what it ran, how it ended, what gg refused and
    /// how long it took. The events before it in the stream, back to the
    /// previous `turn`, are that turn's.
    Turn(TurnRecord),
    /// gg's own defect, blamed on gg (never on the program).
    InternalError {
        /// Always `gg`: whose fault it was.
        blame: Blame,
        /// The agent it ended, when it ended one.
        #[serde(skip_serializing_if = "Option::is_none")]
        agent: Option<String>,
        /// The `gg` call it happened in, when it happened in one.
        #[serde(skip_serializing_if = "Option::is_none")]
        call: Option<String>,
        /// What went wrong.
        detail: String,
    },
}

/// The `turn` event's fields.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnRecord {
    /// The agent whose turn it was.
    pub agent: String,
    /// The turn's number in the agent's life, from 1.
    pub turn: u32,
    /// Code mode: the program's id (`None` for an agent with no program
    /// library, or in tool-calling mode).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub program: Option<String>,
    /// Code mode: how the program ended (`ok`, `threw`, `ceiling`, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<crate::window::RunStatus>,
    /// Tool-calling mode: the calls the turn made.
    pub tool_calls: usize,
    /// Calls gg refused during the turn, caught by the program or not.
    pub refusals: Vec<Refusal>,
    /// Events the turn emitted before this one.
    pub events: usize,
    /// Wall-clock time from the turn's start (before its desk is restored)
    /// to its end, views arrived and the agent's state stored, in
    /// milliseconds.
    pub duration_ms: f64,
}

/// A call gg refused during a turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Refusal {
    /// `views.openFile`, `memories.createMemory`, `create_memory`, …
    pub call: String,
    /// The refusal's error code (`NOT_FOUND`, `INVALID_ARGUMENT`, …).
    pub code: String,
    /// What was wrong, as the program's error says it.
    pub message: String,
}

/// Whose fault an [`Event::InternalError`] was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Blame {
    /// gg's own code (or the engine under it).
    Gg,
}

/// The `memory_state` event's fields.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MemoryState {
    /// The agent that holds the store.
    pub agent: String,
    /// The store's id (`agent.alice`, `profile.team`, …).
    pub store: String,
    /// The memories strategy (`markdown`, `scratchpad`, `keyword-search`).
    pub strategy: String,
    /// The scope the store was bound by.
    pub scope: String,
    /// Whether this agent may write (a read-only holder may not).
    pub writable: bool,
    /// Every memory in the set, in the store's order.
    pub memories: Vec<MemoryEntry>,
    /// The set's totals.
    pub totals: SetTotals,
    /// The capability's limits.
    pub limits: Limits,
    /// The most the store ever held at once.
    pub peaks: Peaks,
}

/// One memory in a [`MemoryState`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MemoryEntry {
    /// The memory's slug.
    pub name: String,
    /// Its one-line description.
    pub description: String,
    /// Body characters.
    pub chars: u64,
    /// Body lines.
    pub lines: u64,
}

/// The totals a [`MemoryState`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SetTotals {
    /// Memories held.
    pub count: u64,
    /// Body characters across them.
    pub chars: u64,
    /// Body lines across them.
    pub lines: u64,
}

/// The `memory_revision` event's fields.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MemoryRevision {
    /// The agent that made the mutation.
    pub agent: String,
    /// The program that made it (`p3`), when a program did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub program: Option<String>,
    /// The store's id.
    pub store: String,
    /// The revision's place in the store's record, from 1.
    pub seq: i64,
    /// The memory's slug.
    pub name: String,
    /// The memory's revision number, from 1.
    pub revision: i64,
    /// What the mutation was (`create`, `edit`, `delete`, …).
    pub mutation: Mutation,
    /// The description as of this revision (the last one, for a delete).
    pub description: String,
    /// The body as of this revision (empty for a delete).
    pub body: String,
}

/// How big an agent's event stream may grow on disk. A stream is written in
/// segments: when the current one (`<id>.jsonl`) would pass
/// `segment_bytes`, it becomes `<id>.jsonl.1` (the older ones move up a
/// number, the one past `kept_segments` is deleted) and a fresh
/// `<id>.jsonl` starts.
///
/// The defaults keep at most 256 MiB of one agent's stream (the current
/// segment and three older ones), where an unbounded stream reached 3 GB in
/// 2 500 turns (issue #24), and the newest events a reader shows (the
/// console's transcript keeps the newest 500 lines) are nearly always in
/// the current segment, else in it and the one before.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventLogLimits {
    /// Bytes the current segment may hold before it is rotated; an event
    /// larger than this is written whole, alone in a fresh segment.
    /// Default: 64 MiB (67 108 864): about twenty `memory_state` events of a
    /// 40 000-memory set, so one segment still spans many turns, yet small
    /// enough that reading a whole segment (what a reader does for a stream
    /// without an index) takes a fraction of a second.
    pub segment_bytes: u64,
    /// Rotated segments kept beside the current one (`<id>.jsonl.1` …
    /// `<id>.jsonl.N`, newest first); 0 deletes a segment as it is rotated
    /// out. Default: 3, so at least 192 MiB of history stays behind the
    /// current segment for whoever wants to read further back.
    pub kept_segments: u32,
}

impl Default for EventLogLimits {
    fn default() -> Self {
        EventLogLimits {
            segment_bytes: 64 * 1024 * 1024,
            kept_segments: 3,
        }
    }
}

/// The index beside an event stream (`<id>.jsonl.idx`, JSON): a checkpoint
/// of how many event lines the stream holds, so no reader has to count
/// them in gigabytes of JSON. [`EventLog`] rewrites it at the end of each
/// turn (each [`EventLog::drain`]), at each rotation and when it is
/// dropped, not per event. It may lag the stream (a writer killed mid-turn
/// leaves lines past `bytes` it never recorded), so a reader trusts it for
/// the bytes it covers and counts the lines past them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StreamIndex {
    /// Event lines written before the current segment began: those of the
    /// rotated segments, kept or already deleted.
    pub before: u64,
    /// Bytes of the current segment this index covers (a line's end).
    pub bytes: u64,
    /// Event lines in those bytes.
    pub lines: u64,
}

impl StreamIndex {
    /// Every event line the stream ever held, as far as this index knows.
    pub fn total(&self) -> u64 {
        self.before + self.lines
    }

    /// The index file of the stream whose current segment is `stream`.
    pub fn path(stream: &Path) -> PathBuf {
        suffixed(stream, "idx")
    }

    /// The index beside `stream`; `None` when there is none (a stream
    /// written before gg kept one) or it cannot be read.
    pub fn read(stream: &Path) -> Option<StreamIndex> {
        let bytes = std::fs::read(Self::path(stream)).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    /// Writes the index beside `stream`, through a temporary file renamed
    /// over the old one, so a reader sees the old index or the new, never
    /// half of one.
    fn write(&self, stream: &Path) -> std::io::Result<()> {
        let path = Self::path(stream);
        let tmp = suffixed(&path, "tmp");
        std::fs::write(&tmp, serde_json::to_vec(self).expect("an index serializes"))?;
        std::fs::rename(&tmp, &path)
    }
}

/// Segment `n` of the stream whose current segment is `stream`: 0 is
/// `stream` itself, 1 the newest rotated one (`<id>.jsonl.1`), and so on.
/// A rotated segment's extension is its number, so readers that find
/// agents by `*.jsonl` never take it for an agent.
pub fn segment_path(stream: &Path, n: u32) -> PathBuf {
    if n == 0 {
        stream.to_path_buf()
    } else {
        suffixed(stream, &n.to_string())
    }
}

/// `path` with `.suffix` after its file name.
fn suffixed(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".");
    name.push(suffix);
    path.with_file_name(name)
}

/// Called with every event as it is emitted.
pub type EventCallback = Box<dyn FnMut(&Value)>;

/// One agent's event stream: appended to a JSON-lines file (segmented and
/// indexed, see the module's documentation), handed to a callback, and
/// kept until drained. The default writes nowhere.
#[derive(Default)]
pub struct EventLog {
    file: Option<StreamFile>,
    callback: Option<EventCallback>,
    /// Every event this log emitted, in order (kept for the turn's outcome).
    emitted: Vec<Value>,
}

impl EventLog {
    /// Appends to `path` (creating folders as needed), rotated by the
    /// default [`EventLogLimits`].
    pub fn to_file(path: &Path) -> std::io::Result<Self> {
        Self::to_file_with_limits(path, EventLogLimits::default())
    }

    /// Appends to `path` (creating folders as needed), rotated by `limits`.
    pub fn to_file_with_limits(path: &Path, limits: EventLogLimits) -> std::io::Result<Self> {
        Ok(EventLog {
            file: Some(StreamFile::open(path, limits)?),
            callback: None,
            emitted: Vec::new(),
        })
    }

    /// Hands every later event to `callback` as well, replacing any before.
    pub fn set_callback(&mut self, callback: EventCallback) {
        self.callback = Some(callback);
    }

    /// Writes `event` as one JSON line, hands it to the callback and keeps it
    /// for [`EventLog::drain`]. A failed write is logged and skipped.
    pub fn emit(&mut self, event: Event) {
        let event = serde_json::to_value(&event).expect("events serialize");
        if let Some(file) = &mut self.file {
            let mut line = serde_json::to_string(&event).expect("events serialize");
            line.push('\n');
            file.append(line.as_bytes());
        }
        if let Some(callback) = &mut self.callback {
            callback(&event);
        }
        self.emitted.push(event);
    }

    /// The `seq` of every `memory_revision` this stream holds after its
    /// last `turn` record (none for a log that writes nowhere): what an
    /// unfinished turn already reported before its process stopped.
    pub fn revisions_after_last_turn(&self) -> Vec<i64> {
        let Some(file) = &self.file else {
            return Vec::new();
        };
        crate::durable::inspect::event_stream::revisions_after_last_turn(&file.path).unwrap_or_else(
            |e| {
                tracing::warn!("cannot read the event stream {}: {e}", file.path.display());
                Vec::new()
            },
        )
    }

    /// Takes the events emitted since the last call, and records the
    /// stream's index (a turn's end is the natural checkpoint).
    pub fn drain(&mut self) -> Vec<Value> {
        if let Some(file) = &mut self.file {
            file.checkpoint();
        }
        std::mem::take(&mut self.emitted)
    }
}

/// The file side of an [`EventLog`]: the current segment, appended to and
/// rotated by size, and the index kept beside it.
struct StreamFile {
    /// The current segment's path (`events/<id>.jsonl`).
    path: PathBuf,
    file: File,
    limits: EventLogLimits,
    /// The stream as written so far.
    now: StreamIndex,
    /// The stream as the index file last recorded it.
    recorded: Option<StreamIndex>,
    /// A write failed, so `now` may be wrong: recounted at the next
    /// checkpoint.
    stale: bool,
}

impl StreamFile {
    /// Opens the stream at `path` for appending and learns where it stands
    /// from its index and the lines past it (a stream from before gg kept
    /// an index is counted once, and indexed at once).
    fn open(path: &Path, limits: EventLogLimits) -> std::io::Result<Self> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let mut file = OpenOptions::new().create(true).append(true).open(path)?;
        // A writer killed mid-line left half an event: end it, so the next
        // event starts a line of its own (the half stays, unreadable, as
        // one line, as readers already count it).
        if ends_mid_line(path)? {
            file.write_all(b"\n")?;
        }
        let mut stream = StreamFile {
            path: path.to_path_buf(),
            file,
            limits,
            now: crate::durable::inspect::event_stream::index_now(path)?,
            recorded: StreamIndex::read(path),
            stale: false,
        };
        stream.checkpoint();
        Ok(stream)
    }

    /// Appends one line, rotating first when it would take the current
    /// segment past its limit.
    fn append(&mut self, line: &[u8]) {
        let len = line.len() as u64;
        if self.now.bytes > 0 && self.now.bytes + len > self.limits.segment_bytes {
            if let Err(e) = self.rotate() {
                tracing::warn!(
                    "cannot rotate the event stream {}: {e}",
                    self.path.display()
                );
                self.stale = true;
            }
        }
        match self.file.write_all(line) {
            Ok(()) => {
                self.now.bytes += len;
                self.now.lines += 1;
            }
            Err(e) => {
                tracing::warn!("cannot write the event stream: {e}");
                self.stale = true;
            }
        }
    }

    /// Moves the current segment to `.1` (and each older one up a number,
    /// the one past the kept count deleted), starts a fresh one and records
    /// the index for it before any line is written there.
    fn rotate(&mut self) -> std::io::Result<()> {
        let kept = self.limits.kept_segments;
        if kept == 0 {
            std::fs::remove_file(&self.path)?;
        } else {
            remove_if_present(&segment_path(&self.path, kept))?;
            for n in (1..kept).rev() {
                let from = segment_path(&self.path, n);
                if from.exists() {
                    std::fs::rename(&from, segment_path(&self.path, n + 1))?;
                }
            }
            std::fs::rename(&self.path, segment_path(&self.path, 1))?;
        }
        self.file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)?;
        self.now = StreamIndex {
            before: self.now.total(),
            bytes: 0,
            lines: 0,
        };
        self.checkpoint();
        Ok(())
    }

    /// Records the index if the stream moved since it was last recorded.
    fn checkpoint(&mut self) {
        if self.stale {
            match crate::durable::inspect::event_stream::index_now(&self.path) {
                Ok(now) => {
                    self.now = now;
                    self.stale = false;
                }
                Err(e) => {
                    tracing::warn!(
                        "cannot recount the event stream {}: {e}",
                        self.path.display()
                    );
                    return;
                }
            }
        }
        if self.recorded == Some(self.now) {
            return;
        }
        match self.now.write(&self.path) {
            Ok(()) => self.recorded = Some(self.now),
            Err(e) => tracing::warn!(
                "cannot write the event stream's index {}: {e}",
                StreamIndex::path(&self.path).display()
            ),
        }
    }
}

impl Drop for StreamFile {
    /// An agent that ends between turns leaves its stream indexed.
    fn drop(&mut self) {
        self.checkpoint();
    }
}

/// Whether the file at `path` is non-empty and its last byte is not a
/// line break.
fn ends_mid_line(path: &Path) -> std::io::Result<bool> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = File::open(path)?;
    let len = file.metadata()?.len();
    if len == 0 {
        return Ok(false);
    }
    file.seek(SeekFrom::Start(len - 1))?;
    let mut last = [0u8];
    file.read_exact(&mut last)?;
    Ok(last[0] != b'\n')
}

fn remove_if_present(path: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
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
}
