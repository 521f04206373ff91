//! Counting a keyword in a memory's folded text: every non-overlapping
//! occurrence, leftmost first (as `str::matches` counts), and where the
//! first one starts.
//!
//! `memchr`'s `find_iter` re-enters its searcher once per match, which is
//! most of a search's cost when a keyword occurs every few dozen bytes. On
//! a CPU with AVX2 the count is one pass instead, 32 candidate starts at a
//! time:
//!
//! - the keyword's first and last bytes are compared at every start, and
//!   where any pair matched, its next eight bytes too (one copy of the loop
//!   per keyword length, so those compares are unrolled), so a block's mask
//!   holds exactly the starts where a keyword of up to ten bytes occurs;
//!   a longer keyword's remaining bytes are compared at each start left;
//! - a keyword that no proper prefix of ends with (no *border*: "delta",
//!   unlike "aba") cannot overlap itself, so its count is the mask's
//!   population count; one with a border is walked bit by bit, skipping
//!   starts inside the last occurrence.
//!
//! Texts shorter than a block (slugs, descriptions) are compared byte by
//! byte; one-byte keywords, and CPUs without AVX2, use `find_iter`.

use memchr::memmem::Finder;

/// A keyword prepared once per search for counting in every text.
pub(crate) struct Needle<'n> {
    finder: Finder<'n>,
    /// Whether two occurrences can overlap (see [`has_border`]).
    overlapping: bool,
}

impl<'n> Needle<'n> {
    /// Prepares `bytes` (not empty) for counting.
    pub(crate) fn new(bytes: &'n [u8]) -> Self {
        Needle {
            finder: Finder::new(bytes),
            overlapping: has_border(bytes),
        }
    }

    /// The keyword's bytes.
    pub(crate) fn bytes(&self) -> &[u8] {
        self.finder.needle()
    }
}

/// How many times `needle` occurs in `hay` without overlapping, and the
/// offset of the first occurrence.
pub(crate) fn count(hay: &[u8], needle: &Needle<'_>) -> (u64, Option<usize>) {
    let bytes = needle.bytes();
    if bytes.len() >= 2 && hay.len() < bytes.len() + BLOCK - 1 {
        return count_bytewise(hay, bytes);
    }
    #[cfg(target_arch = "x86_64")]
    if bytes.len() >= 2 && std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 is present, checked just above; `hay` holds at
        // least one block of starts, checked above that.
        return unsafe { avx2::count(hay, bytes, needle.overlapping) };
    }
    count_with_finder(hay, &needle.finder)
}

fn count_with_finder(hay: &[u8], finder: &Finder<'_>) -> (u64, Option<usize>) {
    let mut found = finder.find_iter(hay);
    match found.next() {
        Some(first) => (1 + found.count() as u64, Some(first)),
        None => (0, None),
    }
}

/// Whether a proper prefix of `needle` is also its suffix, so that two
/// occurrences can overlap ("aba" in "ababa").
fn has_border(needle: &[u8]) -> bool {
    (1..needle.len()).any(|k| needle[..k] == needle[needle.len() - k..])
}

/// Starts compared at once: one 256-bit vector of bytes.
const BLOCK: usize = 32;

/// A running count of non-overlapping occurrences.
struct Tally {
    count: u64,
    first_at: Option<usize>,
    /// The earliest start that does not overlap the last occurrence.
    free_from: usize,
}

impl Tally {
    const NONE: Tally = Tally {
        count: 0,
        first_at: None,
        free_from: 0,
    };

    /// Counts the occurrence at `at` unless it overlaps the last one.
    #[inline]
    fn occurrence(&mut self, at: usize, len: usize) {
        if at >= self.free_from {
            self.count += 1;
            self.first_at.get_or_insert(at);
            self.free_from = at + len;
        }
    }
}

/// Counts a keyword of two bytes or more by comparing bytes at every
/// start: for texts shorter than one block (slugs, descriptions), where
/// vectors cost more than they save.
fn count_bytewise(hay: &[u8], needle: &[u8]) -> (u64, Option<usize>) {
    let len = needle.len();
    let mut tally = Tally::NONE;
    if hay.len() >= len {
        let (head, middle, tail) = (needle[0], &needle[1..len - 1], needle[len - 1]);
        for at in 0..=hay.len() - len {
            if hay[at] == head && hay[at + len - 1] == tail && hay[at + 1..at + len - 1] == *middle
            {
                tally.occurrence(at, len);
            }
        }
    }
    (tally.count, tally.first_at)
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::{
        __m256i, _mm256_and_si256, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8,
        _mm256_or_si256, _mm256_set1_epi8, _mm256_testz_si256,
    };

    use super::{Tally, BLOCK};

    /// Middle bytes compared in the vectors; a longer keyword's remaining
    /// middle is compared byte by byte at each start that passed these.
    const VECTOR_MIDDLE: usize = 8;

    /// The count of `needle` (two bytes or more) in `hay` (at least
    /// `needle.len() + BLOCK - 1` bytes); `overlapping` as
    /// [`super::has_border`] says.
    #[target_feature(enable = "avx2,popcnt")]
    pub(super) unsafe fn count(
        hay: &[u8],
        needle: &[u8],
        overlapping: bool,
    ) -> (u64, Option<usize>) {
        // One copy per middle length, so that its compares are unrolled
        // and its bytes stay in registers.
        match needle.len() - 2 {
            0 => count_with::<0>(hay, needle, overlapping),
            1 => count_with::<1>(hay, needle, overlapping),
            2 => count_with::<2>(hay, needle, overlapping),
            3 => count_with::<3>(hay, needle, overlapping),
            4 => count_with::<4>(hay, needle, overlapping),
            5 => count_with::<5>(hay, needle, overlapping),
            6 => count_with::<6>(hay, needle, overlapping),
            7 => count_with::<7>(hay, needle, overlapping),
            _ => count_with::<VECTOR_MIDDLE>(hay, needle, overlapping),
        }
    }

    /// [`count`], comparing the `MIDDLE` bytes after the first in the
    /// vectors and any further middle bytes one by one.
    #[target_feature(enable = "avx2,popcnt")]
    unsafe fn count_with<const MIDDLE: usize>(
        hay: &[u8],
        needle: &[u8],
        overlapping: bool,
    ) -> (u64, Option<usize>) {
        let len = needle.len();
        // Every offset where an occurrence could start: 0..starts.
        let starts = hay.len() - len + 1;
        let first = _mm256_set1_epi8(needle[0] as i8);
        let last = _mm256_set1_epi8(needle[len - 1] as i8);
        let lanes: [__m256i; MIDDLE] =
            std::array::from_fn(|j| _mm256_set1_epi8(needle[1 + j] as i8));
        let rest = &needle[1 + MIDDLE..len - 1];
        // Whether a mask bit is an occurrence, counted without a look.
        let popcount = rest.is_empty() && !overlapping;
        let mut tally = Tally::NONE;
        // Where the keyword's first and last bytes both match, per start.
        let candidates = |p: *const u8| {
            _mm256_and_si256(
                _mm256_cmpeq_epi8(_mm256_loadu_si256(p as *const __m256i), first),
                _mm256_cmpeq_epi8(_mm256_loadu_si256(p.add(len - 1) as *const __m256i), last),
            )
        };
        // Counts the occurrences among a block's candidates, but for its
        // first `seen` starts, which the block before it covered.
        let mut tally_block = |block: usize, mut both: __m256i, seen: usize| {
            let p = hay.as_ptr().add(block);
            for (j, lane) in lanes.iter().enumerate() {
                let bytes = _mm256_loadu_si256(p.add(1 + j) as *const __m256i);
                both = _mm256_and_si256(both, _mm256_cmpeq_epi8(bytes, *lane));
            }
            let mut mask = _mm256_movemask_epi8(both) as u32 & (u32::MAX << seen);
            if mask == 0 {
            } else if popcount {
                tally.count += u64::from(mask.count_ones());
                tally
                    .first_at
                    .get_or_insert(block + mask.trailing_zeros() as usize);
            } else {
                while mask != 0 {
                    let start = block + mask.trailing_zeros() as usize;
                    mask &= mask - 1;
                    let from = start + 1 + MIDDLE;
                    if hay[from..from + rest.len()] == *rest {
                        tally.occurrence(start, len);
                    }
                }
            }
        };
        // SAFETY (every load): a block's last start, block + BLOCK - 1, is
        // below `starts`, so the last byte read, block + BLOCK - 1 + len -
        // 1, is in `hay`.
        let mut at = 0;
        // Two blocks a step: most blocks of most texts hold no candidate.
        while at + 2 * BLOCK <= starts {
            let p = hay.as_ptr().add(at);
            let (low, high) = (candidates(p), candidates(p.add(BLOCK)));
            let any = _mm256_or_si256(low, high);
            if _mm256_testz_si256(any, any) == 0 {
                if _mm256_testz_si256(low, low) == 0 {
                    tally_block(at, low, 0);
                }
                if _mm256_testz_si256(high, high) == 0 {
                    tally_block(at + BLOCK, high, 0);
                }
            }
            at += 2 * BLOCK;
        }
        while at < starts {
            // The last block is moved back to end at the last start.
            let block = at.min(starts - BLOCK);
            let both = candidates(hay.as_ptr().add(block));
            if _mm256_testz_si256(both, both) == 0 {
                tally_block(block, both, at - block);
            }
            at += BLOCK;
        }
        (tally.count, tally.first_at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `str::matches` counts, the slow way.
    fn expected(hay: &[u8], needle: &[u8]) -> (u64, Option<usize>) {
        count_with_finder(hay, &Finder::new(needle))
    }

    #[test]
    fn counts_as_find_iter_does_on_dense_sparse_and_overlapping_text() {
        let mut next = crate::test_numbers::numbers(0x2545_f491_4f6c_dd1d);
        // With and without borders, up to the vectors' middle and past it.
        let needles: [&[u8]; 19] = [
            b"ab",
            b"aa",
            b"aba",
            b"delta",
            b"kilo",
            b"a b",
            b"kiloab",
            b"ab abab",
            b"deltakil",
            b"abcabcabd",
            b"abcabcabca",
            b"ababababab",
            b"abcdeltaki",
            b"abababababa",
            b"ab ab ab ab ab ab",
            b"ab abab ab abab ab",
            b"deltakiloz",
            b"zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz",
            b"\xc3\xa9t\xc3\xa9",
        ];
        for round in 0..600 {
            // Alphabets from two letters (dense, overlapping) to many.
            let alphabet: &[u8] = match round % 4 {
                0 => b"ab",
                1 => b"ab ",
                2 => b"abcdeltakiloz ",
                _ => b"abcdefghijklmnopqrstuvwxyz \xc3\xa9",
            };
            let len = next(700) as usize;
            let hay: Vec<u8> = (0..len)
                .map(|_| alphabet[next(alphabet.len() as u64) as usize])
                .collect();
            for needle in needles {
                assert_eq!(
                    count(&hay, &Needle::new(needle)),
                    expected(&hay, needle),
                    "{:?} in {:?}",
                    String::from_utf8_lossy(needle),
                    String::from_utf8_lossy(&hay)
                );
            }
        }
    }

    #[test]
    fn a_border_is_a_proper_prefix_that_is_also_a_suffix() {
        for (needle, border) in [
            (&b"aba"[..], true),
            (b"aa", true),
            (b"abcab", true),
            (b"delta", false),
            (b"kilo", false),
            (b"ab", false),
            (b"abcabd", false),
        ] {
            assert_eq!(has_border(needle), border, "{needle:?}");
        }
    }

    #[test]
    fn edges_of_the_haystack_count_too() {
        let finder = Needle::new(b"xy");
        assert_eq!(count(b"", &finder), (0, None));
        assert_eq!(count(b"x", &finder), (0, None));
        assert_eq!(count(b"xy", &finder), (1, Some(0)));
        let mut hay = vec![b'.'; 70];
        hay[31] = b'x';
        hay[32] = b'y';
        hay[68] = b'x';
        hay[69] = b'y';
        assert_eq!(count(&hay, &finder), (2, Some(31)));
        let aaaa = Needle::new(b"aa");
        assert_eq!(count(&[b'a'; 65], &aaaa), (32, Some(0)));
        let one = Needle::new(b"a");
        assert_eq!(count(b"banana", &one), (3, Some(1)));
    }
}
