//! `Intl.Segmenter`: ICU4X's grapheme, word and sentence segmenters
//! (UAX #29, with dictionaries for scripts without spaces).

use deno_core::{op2, v8, OpState};
use icu_segmenter::options::{SentenceBreakInvariantOptions, WordBreakInvariantOptions};
use icu_segmenter::{GraphemeClusterSegmenter, SentenceSegmenter, WordSegmenter};

use crate::engine::host_memory;

/// Longest input segmented (in UTF-8 bytes): past it the JavaScript side
/// throws a RangeError, whatever the heap could hold.
pub const MAX_INPUT: usize = 32 << 20;

/// The granularities ECMA-402 names.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Granularity {
    Grapheme,
    Word,
    Sentence,
}

/// Calls `each` with every segment's end as a UTF-16 offset (what JS
/// indexes by) and, for words, whether the segment is word-like, in order;
/// stops when `each` returns false. False when the input is too long or
/// `each` stopped.
pub fn for_each_segment(
    text: &str,
    granularity: Granularity,
    each: impl FnMut(u32, bool) -> bool,
) -> bool {
    for_each_segment_in_pieces(text, granularity, WORD_PIECE, each)
}

/// Bytes of text the word segmenter is handed at a time. ICU4X segments a
/// run of a script without spaces (Thai, Lao, Khmer, Burmese, Chinese,
/// Japanese) whole before it yields the run's first word, with a
/// dictionary or a neural model: half a million Thai characters took
/// seconds that nothing could interrupt. A piece ends after its last
/// space, so words are whole unless a run has no space for this long (real
/// text has spaces between phrases); then it ends at a grapheme boundary.
const WORD_PIECE: usize = 16 << 10;

/// [`for_each_segment`], words segmented `piece` bytes at a time.
fn for_each_segment_in_pieces(
    text: &str,
    granularity: Granularity,
    piece: usize,
    mut each: impl FnMut(u32, bool) -> bool,
) -> bool {
    if text.len() > MAX_INPUT {
        return false;
    }
    // Byte offsets to UTF-16 offsets as they come (ends ascend); the start
    // of the text is not a segment's end.
    let (mut byte, mut unit) = (0usize, 0u32);
    let mut chars = text.chars();
    let mut emit = |end: usize, like: bool| -> bool {
        if end == 0 {
            return true;
        }
        while byte < end {
            let Some(c) = chars.next() else { break };
            byte += c.len_utf8();
            unit += c.len_utf16() as u32;
        }
        each(unit, like)
    };
    match granularity {
        Granularity::Grapheme => GraphemeClusterSegmenter::new()
            .segment_str(text)
            .all(|end| emit(end, false)),
        Granularity::Sentence => SentenceSegmenter::new(SentenceBreakInvariantOptions::default())
            .segment_str(text)
            .all(|end| emit(end, false)),
        Granularity::Word => {
            let words = WordSegmenter::new_auto(WordBreakInvariantOptions::default());
            let mut base = 0;
            while base < text.len() {
                let stop = piece_end(text, base, piece);
                let mut start = base;
                for (end, kind) in words.segment_str(&text[base..stop]).iter_with_word_type() {
                    // Ends within the piece, offset to the whole text; the
                    // piece's start ended the piece before.
                    let end = base + end;
                    if end == base {
                        continue;
                    }
                    let went_on = if kind.is_word_like() && end > start {
                        split_at_stops(text, start, end, &mut emit)
                    } else {
                        emit(end, kind.is_word_like())
                    };
                    if !went_on {
                        return false;
                    }
                    start = end;
                }
                base = stop;
            }
            true
        }
    }
}

/// Where the piece of `text` from `base` ends: the text's end when it is
/// at most `piece` bytes away, else just after the last space within
/// `piece` bytes, else at the last grapheme boundary there.
fn piece_end(text: &str, base: usize, piece: usize) -> usize {
    if text.len() - base <= piece {
        return text.len();
    }
    // The last character boundary within `piece` bytes, or the first one
    // past `base` when a character is longer than that.
    let mut cut = base + piece.max(1);
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    if cut == base {
        cut = base + text[base..].chars().next().map_or(1, char::len_utf8);
    }
    if let Some(space) = text.as_bytes()[base..cut].iter().rposition(|&b| b == b' ') {
        if space > 0 {
            return base + space + 1;
        }
    }
    // No space: the grapheme boundary closest below the cut, found in a
    // window around it (a cluster is rarely longer than a few characters).
    let mut from = cut.saturating_sub(256).max(base);
    while !text.is_char_boundary(from) {
        from += 1;
    }
    let mut to = (cut + 256).min(text.len());
    while !text.is_char_boundary(to) {
        to -= 1;
    }
    GraphemeClusterSegmenter::new()
        .segment_str(&text[from..to])
        .map(|at| from + at)
        .filter(|&at| at > base && at <= cut)
        .last()
        .filter(|&at| at > from || from == base)
        .unwrap_or(cut)
}

/// Segment ends as UTF-16 offsets, and for words whether each segment is
/// word-like; None when the input is too long.
#[cfg(test)]
pub fn segment(text: &str, granularity: Granularity) -> Option<(Vec<u32>, Vec<bool>)> {
    let mut ends = Vec::new();
    let mut word_like = Vec::new();
    let whole = for_each_segment(text, granularity, |end, like| {
        ends.push(end);
        if granularity == Granularity::Word {
            word_like.push(like);
        }
        true
    });
    whole.then_some((ends, word_like))
}

/// Full stops and colons that join letters under UAX #29 (`a.m`, `e.g`,
/// `h:mm`) but not in the ICU that V8 and Chromium ship, whose word rules
/// keep them only between digits (`3.14`). Programs count and split words
/// as V8 does, so a word-like segment breaks around them.
const STOPS: [char; 5] = ['.', '\u{FF0E}', ':', '\u{FE55}', '\u{FF1A}'];

/// Emits the word-like segment `text[start..end]` (byte offsets), broken
/// around each stop that does not sit between two digits: the stop is a
/// segment of its own (not word-like) and the pieces around it are words.
/// False when `emit` stopped.
fn split_at_stops(
    text: &str,
    start: usize,
    end: usize,
    emit: &mut impl FnMut(usize, bool) -> bool,
) -> bool {
    let word = &text[start..end];
    let mut prev: Option<char> = None;
    let mut last = start;
    let mut chars = word.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let next = chars.peek().map(|&(_, n)| n);
        let between_digits =
            prev.is_some_and(char::is_numeric) && next.is_some_and(char::is_numeric);
        if STOPS.contains(&c) && prev.is_some() && next.is_some() && !between_digits {
            if last != start + i && !emit(start + i, true) {
                return false;
            }
            last = start + i + c.len_utf8();
            if !emit(last, false) {
                return false;
            }
        }
        prev = Some(c);
    }
    last == end || emit(end, true)
}

/// Segments, and UTF-16 code units, between two looks at whether the
/// program is being stopped.
const POLL_EVERY: u32 = 4096;
const POLL_UNITS: u32 = 1 << 16;

/// Bytes of the JSON answer for one segment at most: `[`, the end's ten
/// digits, `,`, the flag, `]` and a separating comma.
const JSON_PER_SEGMENT: usize = 15;

/// JSON `[[end, wordLike], ...]` for the segments of `text`, or "" when it
/// is too long. The copy of `text` and the answer are built only while
/// they fit in what the heap has left: past it the turn ends at its heap
/// ceiling (and the answer is "", never read).
#[op2]
#[string]
pub fn op_gg_intl_segment(
    scope: &mut v8::PinScope,
    state: &mut OpState,
    text: v8::Local<v8::String>,
    granularity: u32,
) -> String {
    let granularity = match granularity {
        0 => Granularity::Grapheme,
        1 => Granularity::Word,
        _ => Granularity::Sentence,
    };
    let room = host_memory::room(scope).max(host_memory::ALWAYS);
    if text.length() > MAX_INPUT {
        return String::new();
    }
    let Some(text) = host_memory::read_text(scope, state, text, 0) else {
        return String::new();
    };
    let room = room.saturating_sub(text.len());
    // Millions of segments take a second or more: the loop gives up once
    // the program is being stopped (its answer is then never read).
    let stopped = host_memory::stop_flag(state);
    super::guarded("op_gg_intl_segment", || {
        let mut out = String::new();
        out.push('[');
        let mut over = false;
        let (mut count, mut polled_at) = (0u32, 0u32);
        let whole = for_each_segment(&text, granularity, |end, like| {
            count = count.wrapping_add(1);
            // Every so many segments, or so many code units when segments
            // are long (a run of combining marks is one word).
            if count.is_multiple_of(POLL_EVERY) || end - polled_at >= POLL_UNITS {
                polled_at = end;
                if stopped() {
                    return false;
                }
            }
            if out.len() + JSON_PER_SEGMENT > out.capacity()
                && (out.capacity() * 2).max(JSON_PER_SEGMENT * 64) > room
            {
                over = true;
                return false;
            }
            if out.len() > 1 {
                out.push(',');
            }
            out.push('[');
            out.push_str(itoa_u32(end, &mut [0; 10]));
            out.push_str(if like { ",1]" } else { ",0]" });
            true
        });
        if over {
            host_memory::hit_ceiling(state);
            return String::new();
        }
        if !whole {
            return String::new();
        }
        out.push(']');
        out
    })
}

/// `n` in decimal, written into `buf`.
fn itoa_u32(mut n: u32, buf: &mut [u8; 10]) -> &str {
    let mut at = buf.len();
    loop {
        at -= 1;
        buf[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    std::str::from_utf8(&buf[at..]).expect("ASCII digits")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Segments of `text` as (piece, word-like), words segmented `piece`
    /// bytes at a time.
    fn pieces_of(text: &str, piece: usize) -> Vec<(String, bool)> {
        let units: Vec<u16> = text.encode_utf16().collect();
        let mut out = Vec::new();
        let mut start = 0usize;
        assert!(for_each_segment_in_pieces(
            text,
            Granularity::Word,
            piece,
            |end, like| {
                out.push((
                    String::from_utf16(&units[start..end as usize]).unwrap(),
                    like,
                ));
                start = end as usize;
                true
            }
        ));
        assert_eq!(start, units.len(), "the segments cover the text");
        out
    }

    #[test]
    fn words_segmented_in_pieces_are_the_words_of_the_whole_text() {
        // Text with spaces: every piece ends after a space, so the words
        // are exactly those of the text segmented at once.
        let words = [
            "alpha",
            "b.c",
            "3.14",
            "don't",
            "日本語",
            "ไทย",
            "x:y",
            "e\u{301}t\u{e9}",
        ];
        let text: String = (0..4000)
            .map(|i| words[i * 7 % words.len()])
            .collect::<Vec<_>>()
            .join(" ");
        let whole = pieces_of(&text, usize::MAX);
        // Any piece that holds a word and a space: the words are whole.
        for piece in [24, 64, 1000, WORD_PIECE] {
            let pieces = pieces_of(&text, piece);
            let differs = pieces.iter().zip(&whole).position(|(a, b)| a != b);
            assert_eq!(
                (differs, pieces.len()),
                (None, whole.len()),
                "pieces of {piece} bytes"
            );
        }
        // A piece smaller than a character still moves on, character by
        // character.
        let tiny: String = pieces_of("日本", 1).into_iter().map(|(s, _)| s).collect();
        assert_eq!(tiny, "日本");
    }

    #[test]
    fn a_long_run_without_spaces_is_segmented_in_pieces_at_grapheme_boundaries() {
        // Half a million Thai characters, one run: seconds, uninterruptible,
        // when handed to the dictionary whole.
        let text = "\u{e01}\u{e34}\u{e19}".repeat(1 << 17);
        let started = std::time::Instant::now();
        let segments = pieces_of(&text, WORD_PIECE);
        assert!(segments.len() > 1);
        assert!(
            segments.iter().all(|(s, _)| !s.starts_with('\u{e34}')),
            "no segment starts inside a cluster"
        );
        assert!(started.elapsed() < std::time::Duration::from_secs(30));
    }

    #[test]
    fn graphemes_keep_clusters_whole() {
        let (ends, _) = segment("e\u{301}👨‍👩‍👧x", Granularity::Grapheme).unwrap();
        assert_eq!(ends, [2, 10, 11]);
    }

    #[test]
    fn words_say_which_are_word_like() {
        let (ends, like) = segment("Hi, you", Granularity::Word).unwrap();
        assert_eq!(ends, [2, 3, 4, 7]);
        assert_eq!(like, [true, false, false, true]);
    }

    #[test]
    fn stops_break_words_between_letters_but_not_digits() {
        let words = |text: &str| {
            let (ends, like) = segment(text, Granularity::Word).unwrap();
            let units: Vec<u16> = text.encode_utf16().collect();
            let mut start = 0;
            ends.iter()
                .zip(like)
                .map(|(&end, like)| {
                    let piece = String::from_utf16(&units[start..end as usize]).unwrap();
                    start = end as usize;
                    (piece, like)
                })
                .collect::<Vec<_>>()
        };
        let pieces = |text: &str| words(text).into_iter().map(|(p, _)| p).collect::<Vec<_>>();
        assert_eq!(pieces("a.m."), ["a", ".", "m", "."]);
        assert_eq!(
            pieces("h:mm 3.14 v1.2"),
            ["h", ":", "mm", " ", "3.14", " ", "v1.2"]
        );
        assert_eq!(
            pieces("can't x\u{FF1A}y"),
            ["can't", " ", "x", "\u{FF1A}", "y"]
        );
        assert_eq!(
            words("e.g"),
            [("e".into(), true), (".".into(), false), ("g".into(), true)]
        );
    }

    #[test]
    fn sentences_and_the_input_bound() {
        let (ends, _) = segment("One. Two!", Granularity::Sentence).unwrap();
        assert_eq!(ends, [5, 9]);
        assert!(segment(&"a".repeat(MAX_INPUT + 1), Granularity::Grapheme).is_none());
    }
}
