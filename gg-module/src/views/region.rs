//! A region of a text file, read in one pass without holding the file:
//! the lines from a first one, at most so many and so many characters, and
//! how many lines the whole file has. Lines end at `\n` with a `\r` before
//! it dropped, as `str::lines` splits them; the whole file must be UTF-8.

use std::io::Read;

/// What [`read`] found.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Region {
    /// The region's lines, joined by `\n`.
    pub content: String,
    /// How many lines it shows (a first line cut at the character cap
    /// counts as one).
    pub lines: usize,
    /// The lines the whole file has.
    pub total_lines: usize,
    /// Whether the one line shown is cut at the character cap.
    pub cut: bool,
}

/// Bytes read at a time.
const CHUNK: usize = 64 << 10;

/// The region of `file` from line `start` (0-based): at most `want` lines
/// and `char_cap` characters. `None` when the file is not UTF-8.
pub(super) fn read(
    mut file: impl Read,
    start: usize,
    want: usize,
    char_cap: usize,
) -> std::io::Result<Option<Region>> {
    // A UTF-8 character is at most four bytes: this many bytes of the
    // region always hold `char_cap` characters when the region has them.
    let byte_cap = char_cap.saturating_mul(4).saturating_add(4);
    let end = start.saturating_add(want);
    let mut kept: Vec<u8> = Vec::new();
    // Whether the bytes kept stop before the region's text does.
    let mut kept_all = true;
    let mut line = 0usize;
    let mut last = None::<u8>;
    let mut carry: Vec<u8> = Vec::new();
    let mut chunk = vec![0u8; CHUNK];
    loop {
        let n = match file.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let bytes = &chunk[..n];
        // UTF-8 checked across chunk boundaries: an incomplete character at
        // a chunk's end is carried to the next.
        carry.extend_from_slice(bytes);
        match std::str::from_utf8(&carry) {
            Ok(_) => carry.clear(),
            Err(e) if e.error_len().is_none() => {
                carry.drain(..e.valid_up_to());
            }
            Err(_) => return Ok(None),
        }
        if line >= end || !kept_all {
            // Past the region: only its lines are counted.
            line += memchr::memchr_iter(b'\n', bytes).count();
        } else {
            let mut from = 0;
            let breaks = memchr::memchr_iter(b'\n', bytes).map(|at| at + 1);
            for to in breaks.chain((!bytes.is_empty()).then_some(bytes.len())) {
                if from == to {
                    continue;
                }
                let piece = &bytes[from..to];
                if (start..end).contains(&line) && kept_all {
                    let room = byte_cap.saturating_sub(kept.len());
                    if piece.len() > room {
                        kept.extend_from_slice(&piece[..room]);
                        kept_all = false;
                    } else {
                        kept.extend_from_slice(piece);
                    }
                }
                if piece.last() == Some(&b'\n') {
                    line += 1;
                }
                from = to;
            }
        }
        last = bytes.last().copied().or(last);
    }
    if !carry.is_empty() {
        return Ok(None);
    }
    let total_lines = line + usize::from(last.is_some_and(|b| b != b'\n'));
    let (content, lines, cut) = region(&kept, char_cap, kept_all);
    Ok(Some(Region {
        content,
        lines,
        total_lines,
        cut,
    }))
}

/// The kept bytes as whole lines within `char_cap` characters (the first
/// line cut when it alone passes it); `complete` when the bytes are the
/// region's whole text. The last answer says whether that first line was
/// cut.
fn region(kept: &[u8], char_cap: usize, complete: bool) -> (String, usize, bool) {
    // Cut at a byte cap, the bytes may end inside a character.
    let text = match std::str::from_utf8(kept) {
        Ok(text) => text,
        Err(e) => std::str::from_utf8(&kept[..e.valid_up_to()]).unwrap_or_default(),
    };
    let mut content = String::new();
    let mut chars = 0usize;
    let mut lines = 0usize;
    let mut cut = false;
    let mut pieces = text.split_inclusive('\n').peekable();
    while let Some(piece) = pieces.next() {
        let ends = piece.ends_with('\n');
        let body = piece.strip_suffix('\n').unwrap_or(piece);
        let body = body.strip_suffix('\r').unwrap_or(body);
        // A line whose end was not kept is not whole.
        let whole = ends || (complete && pieces.peek().is_none());
        let n = body.chars().count() + usize::from(lines > 0);
        if chars + n > char_cap || !whole {
            if lines == 0 {
                content.extend(body.chars().take(char_cap));
                lines = 1;
                cut = true;
            }
            break;
        }
        if lines > 0 {
            content.push('\n');
        }
        content.push_str(body);
        chars += n;
        lines += 1;
    }
    (content, lines, cut)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(text: &str, start: usize, want: usize, cap: usize) -> Region {
        read(text.as_bytes(), start, want, cap).unwrap().unwrap()
    }

    #[test]
    fn the_region_is_what_str_lines_gives() {
        let text = "a\r\nbb\n\nccc\ndd";
        let lines: Vec<&str> = text.lines().collect();
        for start in 0..lines.len() {
            for want in 1..6 {
                let r = of(text, start, want, 1000);
                let end = (start + want).min(lines.len());
                assert_eq!(r.content, lines[start..end].join("\n"), "{start} {want}");
                assert_eq!(r.lines, end - start);
                assert_eq!(r.total_lines, lines.len());
            }
        }
        assert_eq!(of("x\n", 0, 5, 10).total_lines, 1);
        assert_eq!(of("", 0, 5, 10).total_lines, 0);
    }

    #[test]
    fn the_characters_are_capped_at_line_ends_or_in_a_first_long_line() {
        let r = of("ab\ncd\nef\n", 0, 10, 5);
        assert_eq!((r.content.as_str(), r.lines, r.cut), ("ab\ncd", 2, false));
        let long = format!("{}\nnext\n", "é".repeat(100_000));
        let r = of(&long, 0, 10, 7);
        assert_eq!(
            (r.content.as_str(), r.lines, r.total_lines, r.cut),
            ("ééééééé", 1, 2, true)
        );
        // A first line of exactly the cap is whole.
        let r = of("abcde\nf\n", 0, 10, 5);
        assert_eq!((r.content.as_str(), r.lines, r.cut), ("abcde", 1, false));
    }

    #[test]
    fn utf8_is_checked_across_reads_of_the_whole_file() {
        // A character split across two chunks is text; a bad byte after
        // the region still refuses the file.
        let mut text = "a".repeat(CHUNK - 1).into_bytes();
        text.extend("é\nz\n".as_bytes());
        let r = read(&text[..], 1, 1, 10).unwrap().unwrap();
        assert_eq!(r.content, "z");
        text.extend([0xff, b'\n']);
        assert_eq!(read(&text[..], 0, 1, 10).unwrap(), None);
    }
}
