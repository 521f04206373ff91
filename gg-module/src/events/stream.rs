//! An event stream on disk: segments rotated by size and the index beside
//! them.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// How big an agent's event stream may grow on disk. A stream is written in
/// segments: when the current one (`<id>.jsonl`) would pass
/// `segment_bytes`, it becomes `<id>.jsonl.1` (the older ones move up a
/// number, the one past `kept_segments` is deleted) and a fresh
/// `<id>.jsonl` starts.
///
/// The defaults keep at most 256 MiB of one agent's stream (the current
/// segment and three older ones), where an unbounded stream reached 3 GB in
/// 2 500 turns, and the newest events a reader shows (the
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
/// them in gigabytes of JSON. [`EventLog`](super::EventLog) rewrites it at
/// the end of each turn (each [`EventLog::drain`](super::EventLog::drain)),
/// at each rotation and when it is dropped, not per event. It may lag the
/// stream (a writer killed mid-turn leaves lines past `bytes` it never
/// recorded), so a reader trusts it for the bytes it covers and counts the
/// lines past them.
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

/// The file side of an [`EventLog`]: the current segment, appended to and
/// rotated by size, and the index kept beside it.
pub(super) struct StreamFile {
    /// The current segment's path (`events/<id>.jsonl`).
    pub(super) path: PathBuf,
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
    pub(super) fn open(path: &Path, limits: EventLogLimits) -> std::io::Result<Self> {
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
    pub(super) fn append(&mut self, line: &[u8]) {
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
    pub(super) fn checkpoint(&mut self) {
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
