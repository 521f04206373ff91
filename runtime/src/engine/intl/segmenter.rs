//! `Intl.Segmenter`: ICU4X's grapheme, word and sentence segmenters
//! (UAX #29, with dictionaries for scripts without spaces).

use deno_core::op2;
use icu_segmenter::options::{SentenceBreakInvariantOptions, WordBreakInvariantOptions};
use icu_segmenter::{GraphemeClusterSegmenter, SentenceSegmenter, WordSegmenter};

/// Longest input segmented (in bytes): every boundary is kept in memory at
/// once, so a bound keeps a hostile string from costing gigabytes.
pub const MAX_INPUT: usize = 32 << 20;

/// The granularities ECMA-402 names.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Granularity {
    Grapheme,
    Word,
    Sentence,
}

/// Segment ends as UTF-16 offsets (what JS indexes by), and for words
/// whether each segment is word-like; None when the input is too long.
pub fn segment(text: &str, granularity: Granularity) -> Option<(Vec<u32>, Vec<bool>)> {
    if text.len() > MAX_INPUT {
        return None;
    }
    let mut ends = Vec::new();
    let mut word_like = Vec::new();
    match granularity {
        Granularity::Grapheme => ends.extend(GraphemeClusterSegmenter::new().segment_str(text)),
        Granularity::Sentence => ends.extend(
            SentenceSegmenter::new(SentenceBreakInvariantOptions::default()).segment_str(text),
        ),
        Granularity::Word => {
            let words = WordSegmenter::new_auto(WordBreakInvariantOptions::default());
            let mut start = 0;
            for (end, kind) in words.segment_str(text).iter_with_word_type() {
                if kind.is_word_like() && end > start {
                    split_at_stops(text, start, end, &mut ends, &mut word_like);
                } else {
                    ends.push(end);
                    word_like.push(kind.is_word_like());
                }
                start = end;
            }
        }
    }
    // Byte offsets to UTF-16 offsets, in one pass (ends ascend).
    let mut utf16 = Vec::with_capacity(ends.len());
    let (mut byte, mut unit) = (0usize, 0u32);
    let mut chars = text.chars();
    for end in ends {
        while byte < end {
            let Some(c) = chars.next() else { break };
            byte += c.len_utf8();
            unit += c.len_utf16() as u32;
        }
        utf16.push(unit);
    }
    // The first boundary is the start of the text.
    if utf16.first() == Some(&0) {
        utf16.remove(0);
        if !word_like.is_empty() {
            word_like.remove(0);
        }
    }
    Some((utf16, word_like))
}

/// Full stops and colons that join letters under UAX #29 (`a.m`, `e.g`,
/// `h:mm`) but not in the ICU that V8 and Chromium ship, whose word rules
/// keep them only between digits (`3.14`). Programs count and split words
/// as V8 does, so a word-like segment breaks around them.
const STOPS: [char; 5] = ['.', '\u{FF0E}', ':', '\u{FE55}', '\u{FF1A}'];

/// Pushes the word-like segment `text[start..end]`, broken around each stop
/// that does not sit between two digits: the stop is a segment of its own
/// (not word-like) and the pieces around it are words.
fn split_at_stops(
    text: &str,
    start: usize,
    end: usize,
    ends: &mut Vec<usize>,
    word_like: &mut Vec<bool>,
) {
    let word = &text[start..end];
    let mut prev: Option<char> = None;
    let mut chars = word.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let next = chars.peek().map(|&(_, n)| n);
        let between_digits =
            prev.is_some_and(char::is_numeric) && next.is_some_and(char::is_numeric);
        if STOPS.contains(&c) && prev.is_some() && next.is_some() && !between_digits {
            if ends.last() != Some(&(start + i)) {
                ends.push(start + i);
                word_like.push(true);
            }
            ends.push(start + i + c.len_utf8());
            word_like.push(false);
        }
        prev = Some(c);
    }
    if ends.last() != Some(&end) {
        ends.push(end);
        word_like.push(true);
    }
}

/// JSON `[[end, wordLike], ...]` for the segments of `text`, or "" when it is
/// too long.
#[op2]
#[string]
pub fn op_gg_intl_segment(#[string] text: &str, granularity: u32) -> String {
    super::guarded("op_gg_intl_segment", || {
        let granularity = match granularity {
            0 => Granularity::Grapheme,
            1 => Granularity::Word,
            _ => Granularity::Sentence,
        };
        let Some((ends, word_like)) = segment(text, granularity) else {
            return String::new();
        };
        let mut out = String::with_capacity(ends.len() * 8 + 2);
        out.push('[');
        for (i, end) in ends.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            let like = word_like.get(i).map_or(0, |&w| u8::from(w));
            out.push_str(&format!("[{end},{like}]"));
        }
        out.push(']');
        out
    })
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
