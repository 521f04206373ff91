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
            let mut start = 0;
            for (end, kind) in words.segment_str(text).iter_with_word_type() {
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
            true
        }
    }
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

/// Segments between two looks at whether the program is being stopped.
const POLL_EVERY: u32 = 4096;

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
        let mut count = 0u32;
        let whole = for_each_segment(&text, granularity, |end, like| {
            count = count.wrapping_add(1);
            if count % POLL_EVERY == 0 && stopped() {
                return false;
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
