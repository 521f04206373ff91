//! Reading an agent's event stream without reading all of it: how many
//! event lines it holds (its index, [`StreamIndex`], plus the lines past
//! what the index recorded), and its newest lines (read backwards from the
//! end of the current segment). Shared by the console's readers and by the
//! writer, [`EventLog`](crate::events::EventLog), which learns here where a
//! stream it reopens stands. Read-only: nothing here writes a byte, not
//! even a missing index.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

use crate::events::{segment_path, StreamIndex};

/// Bytes read at a time when counting forwards.
const CHUNK: usize = 1 << 20;
/// Bytes read first when reading backwards; each further read doubles,
/// up to [`TAIL_MOST`], so a stream of short lines costs one small read and
/// one of 4 MB `memory_state` lines a few large ones.
const TAIL_FIRST: u64 = 64 * 1024;
/// The most bytes one backwards read takes.
const TAIL_MOST: u64 = 16 << 20;

/// Every event line the stream at `stream` (its current segment's path,
/// `events/<id>.jsonl`) ever held; 0 for a stream that cannot be read.
pub(crate) fn total(stream: &Path) -> u64 {
    index_now(stream).map(|i| i.total()).unwrap_or(0)
}

/// The stream whose current segment is `stream` as it stands now: the
/// lines before the current segment, its length and its lines. A missing
/// stream is an empty one.
///
/// The index is trusted for the lines it recorded; only the current
/// segment's bytes past it are counted. A current segment shorter than the
/// index recorded was rotated since (the writer died between moving it to
/// `.1` and recording the fresh one): the recorded lines, and those past
/// them in `.1`, are then the rotated segment's. Without an index (a
/// stream from before gg kept one) every segment on disk is counted.
pub(crate) fn index_now(stream: &Path) -> io::Result<StreamIndex> {
    let len = segment_len(stream)?;
    let Some(recorded) = StreamIndex::read(stream) else {
        let mut before = 0;
        for n in 1.. {
            let older = segment_path(stream, n);
            if !older.is_file() {
                break;
            }
            before += count_lines(&older, 0)?;
        }
        return Ok(StreamIndex {
            before,
            bytes: len,
            lines: count_lines(stream, 0)?,
        });
    };
    if len >= recorded.bytes {
        return Ok(StreamIndex {
            before: recorded.before,
            bytes: len,
            lines: recorded.lines + count_lines(stream, recorded.bytes)?,
        });
    }
    let rotated = segment_path(stream, 1);
    let rotated_lines = if segment_len(&rotated)? >= recorded.bytes {
        recorded.lines + count_lines(&rotated, recorded.bytes)?
    } else {
        // Deleted as it rotated out (no segments kept), or not the segment
        // the index described: its recorded lines are all that is known.
        recorded.lines
    };
    Ok(StreamIndex {
        before: recorded.before + rotated_lines,
        bytes: len,
        lines: count_lines(stream, 0)?,
    })
}

/// The newest `max` lines of the stream whose current segment is `stream`,
/// oldest first: from the current segment, read backwards from its end,
/// and from the one before only when the current one holds fewer. Blank
/// lines are left out, as they never were events.
pub(crate) fn newest_lines(stream: &Path, max: usize) -> io::Result<Vec<Vec<u8>>> {
    let mut lines = tail_lines(stream, max)?;
    if lines.len() < max {
        let mut older = tail_lines(&segment_path(stream, 1), max - lines.len())?;
        older.append(&mut lines);
        lines = older;
    }
    Ok(lines)
}

/// The `seq` of every `memory_revision` event written after the stream's
/// last `turn` record: what a turn the process never finished already
/// reported. Read backwards, so it costs that turn's events, not the
/// stream's.
pub(crate) fn revisions_after_last_turn(stream: &Path) -> io::Result<Vec<i64>> {
    let is = |line: &[u8], kind: &str| {
        memchr::memmem::find(line, format!("\"type\":\"{kind}\"").as_bytes()).is_some()
    };
    let mut max = 64;
    loop {
        let lines = newest_lines(stream, max)?;
        let turn = lines.iter().rposition(|l| is(l, "turn"));
        if turn.is_some() || lines.len() < max {
            let after = turn.map_or(0, |at| at + 1);
            return Ok(lines[after..]
                .iter()
                .filter(|l| is(l, "memory_revision"))
                .filter_map(|l| serde_json::from_slice::<serde_json::Value>(l).ok())
                .filter_map(|event| event["seq"].as_i64())
                .collect());
        }
        max *= 4;
    }
}

/// The newest `max` non-blank lines of the file at `path` (none if it is
/// missing), oldest first, read backwards in growing chunks until they are
/// found or the file's start is reached.
fn tail_lines(path: &Path, max: usize) -> io::Result<Vec<Vec<u8>>> {
    let Some(mut file) = open(path)? else {
        return Ok(Vec::new());
    };
    if max == 0 {
        return Ok(Vec::new());
    }
    // `tail` holds the file's bytes from `start` to the end.
    let mut start = file.metadata()?.len();
    let mut tail: Vec<u8> = Vec::new();
    let mut step = TAIL_FIRST;
    loop {
        let from = start.saturating_sub(step);
        let mut chunk = vec![0u8; (start - from) as usize];
        file.seek(SeekFrom::Start(from))?;
        file.read_exact(&mut chunk)?;
        chunk.extend_from_slice(&tail);
        tail = chunk;
        start = from;
        // Unless the file's start was reached, the first line may be cut.
        let mut lines: Vec<&[u8]> = split_lines(&tail)
            .skip(usize::from(start > 0))
            .filter(|line| has_content(line))
            .collect();
        if lines.len() >= max || start == 0 {
            let skip = lines.len().saturating_sub(max);
            return Ok(lines.drain(skip..).map(<[u8]>::to_vec).collect());
        }
        step = (step * 2).min(TAIL_MOST);
    }
}

/// The lines of `bytes` (the last one may lack its line break, or be
/// empty), found with `memchr` so a 4 MB line is not walked byte by byte.
fn split_lines(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut start = 0;
    memchr::memchr_iter(b'\n', bytes)
        .chain(std::iter::once(bytes.len()))
        .map(move |end| {
            let line = &bytes[start..end];
            start = end + 1;
            line
        })
}

/// Non-blank lines of the file at `path` from byte `from` on (a last line
/// without its line break counts), as `str::lines` with blank lines left
/// out counted them before the index: streamed, never held whole.
fn count_lines(path: &Path, from: u64) -> io::Result<u64> {
    let Some(mut file) = open(path)? else {
        return Ok(0);
    };
    file.seek(SeekFrom::Start(from))?;
    let mut buf = vec![0u8; CHUNK];
    let mut lines = 0;
    // Whether the line under way (begun in an earlier chunk) has content.
    let mut open_line = false;
    loop {
        let n = match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let mut start = 0;
        for end in memchr::memchr_iter(b'\n', &buf[..n]) {
            if open_line || has_content(&buf[start..end]) {
                lines += 1;
            }
            open_line = false;
            start = end + 1;
        }
        open_line = open_line || has_content(&buf[start..n]);
    }
    Ok(lines + u64::from(open_line))
}

/// Whether a line holds anything but white space (an event's line starts
/// with `{`, so this stops at its first byte).
fn has_content(line: &[u8]) -> bool {
    line.iter().any(|b| !b.is_ascii_whitespace())
}

fn segment_len(path: &Path) -> io::Result<u64> {
    match std::fs::metadata(path) {
        Ok(meta) => Ok(meta.len()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(0),
        Err(e) => Err(e),
    }
}

fn open(path: &Path) -> io::Result<Option<File>> {
    match File::open(path) {
        Ok(file) => Ok(Some(file)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests;
