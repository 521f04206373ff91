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
            for (end, kind) in words.segment_str(text).iter_with_word_type() {
                ends.push(end);
                word_like.push(kind.is_word_like());
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

/// JSON `[[end, wordLike], ...]` for the segments of `text`, or "" when it is
/// too long.
#[op2]
#[string]
pub fn op_gg_intl_segment(#[string] text: &str, granularity: u32) -> String {
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
    fn sentences_and_the_input_bound() {
        let (ends, _) = segment("One. Two!", Granularity::Sentence).unwrap();
        assert_eq!(ends, [5, 9]);
        assert!(segment(&"a".repeat(MAX_INPUT + 1), Granularity::Grapheme).is_none());
    }
}
