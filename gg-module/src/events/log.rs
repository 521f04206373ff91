//! [`EventLog`]: where an agent's events go as they are emitted.

use std::path::Path;

use super::stream::StreamFile;
use super::{Event, EventLogLimits};

/// Called with every event as it is emitted.
pub type EventCallback = Box<dyn FnMut(&Event)>;

/// Where an event stream's lines are kept: a file under the state folder
/// ([`EventLog::to_file`]), or a stream another process keeps for this one
/// ([`EventLog::to_sink`]).
pub trait EventSink {
    /// Appends one line (an event's JSON and its line break). A failed
    /// write is logged and skipped.
    fn append(&mut self, line: &[u8]);
    /// Records the stream's index: a turn ended.
    fn checkpoint(&mut self);
    /// The `seq` of every `memory_revision` the stream holds after its last
    /// `turn` record.
    fn revisions_after_last_turn(&self) -> std::io::Result<Vec<i64>>;
}

/// The event stream at `path` (creating folders as needed), rotated by the
/// default [`EventLogLimits`], for a host that appends lines another
/// process emitted.
pub fn file_sink(path: &Path) -> std::io::Result<Box<dyn EventSink>> {
    Ok(Box::new(StreamFile::open(path, EventLogLimits::default())?))
}

impl EventSink for StreamFile {
    fn append(&mut self, line: &[u8]) {
        StreamFile::append(self, line)
    }

    fn checkpoint(&mut self) {
        StreamFile::checkpoint(self)
    }

    fn revisions_after_last_turn(&self) -> std::io::Result<Vec<i64>> {
        crate::durable::inspect::event_stream::revisions_after_last_turn(&self.path)
    }
}

/// One agent's event stream: appended to a JSON-lines file (segmented and
/// indexed, see the module's documentation), handed to a callback, and
/// kept until drained. The default writes nowhere.
#[derive(Default)]
pub struct EventLog {
    file: Option<Box<dyn EventSink>>,
    callback: Option<EventCallback>,
    /// Every event this log emitted, in order (kept for the turn's outcome).
    emitted: Vec<Event>,
}

impl EventLog {
    /// Appends to `path` (creating folders as needed), rotated by the
    /// default [`EventLogLimits`].
    pub fn to_file(path: &Path) -> std::io::Result<Self> {
        Self::to_file_with_limits(path, EventLogLimits::default())
    }

    /// Appends to `path` (creating folders as needed), rotated by `limits`.
    pub fn to_file_with_limits(path: &Path, limits: EventLogLimits) -> std::io::Result<Self> {
        Ok(Self::to_sink(Box::new(StreamFile::open(path, limits)?)))
    }

    /// Appends to `sink`.
    pub fn to_sink(sink: Box<dyn EventSink>) -> Self {
        EventLog {
            file: Some(sink),
            callback: None,
            emitted: Vec::new(),
        }
    }

    /// Hands every later event to `callback` as well, replacing any before.
    pub fn set_callback(&mut self, callback: EventCallback) {
        self.callback = Some(callback);
    }

    /// Writes `event` as one JSON line, hands it to the callback and keeps it
    /// for [`EventLog::drain`]. A failed write is logged and skipped.
    pub fn emit(&mut self, event: Event) {
        if let Some(file) = &mut self.file {
            let mut line = event.to_line();
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
        file.revisions_after_last_turn().unwrap_or_else(|e| {
            tracing::warn!("cannot read the event stream: {e}");
            Vec::new()
        })
    }

    /// Takes the events emitted since the last call, and records the
    /// stream's index (a turn's end is the natural checkpoint).
    pub fn drain(&mut self) -> Vec<Event> {
        if let Some(file) = &mut self.file {
            file.checkpoint();
        }
        std::mem::take(&mut self.emitted)
    }
}
