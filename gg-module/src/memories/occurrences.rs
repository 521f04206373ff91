//! Counting a keyword in a memory's folded text: every non-overlapping
//! occurrence, leftmost first (as `str::matches` counts), and where the
//! first one starts.
//!
//! `memchr`'s `find_iter` re-enters its searcher once per match, which is
//! most of a search's cost when a keyword occurs every few dozen bytes. On
//! a CPU with AVX2 the count is one pass instead: 32 candidate starts at a
//! time are kept where both the keyword's first and last bytes match, and
//! only those are compared whole. Elsewhere, and for one-byte keywords,
//! `find_iter` counts.

use memchr::memmem::Finder;

/// How many times `finder`'s needle occurs in `hay` without overlapping,
/// and the offset of the first occurrence.
pub(crate) fn count(hay: &[u8], finder: &Finder<'_>) -> (u64, Option<usize>) {
    #[cfg(target_arch = "x86_64")]
    if finder.needle().len() >= 2 && std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 is present, checked just above.
        return unsafe { count_avx2(hay, finder.needle()) };
    }
    count_with_finder(hay, finder)
}

fn count_with_finder(hay: &[u8], finder: &Finder<'_>) -> (u64, Option<usize>) {
    let mut found = finder.find_iter(hay);
    match found.next() {
        Some(first) => (1 + found.count() as u64, Some(first)),
        None => (0, None),
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn count_avx2(hay: &[u8], needle: &[u8]) -> (u64, Option<usize>) {
    use std::arch::x86_64::{
        __m256i, _mm256_and_si256, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8,
        _mm256_set1_epi8,
    };
    let len = needle.len();
    if hay.len() < len {
        return (0, None);
    }
    // Every offset where an occurrence could start: 0..starts.
    let starts = hay.len() - len + 1;
    let first = _mm256_set1_epi8(needle[0] as i8);
    let last = _mm256_set1_epi8(needle[len - 1] as i8);
    let middle = &needle[1..len - 1];
    let mut count = 0u64;
    let mut first_at = None;
    // The earliest start that does not overlap the last occurrence.
    let mut free_from = 0usize;
    let mut verify = |at: usize, count: &mut u64, first_at: &mut Option<usize>| {
        // Compared in line: a keyword's middle is a few bytes, shorter
        // than a call to `memcmp` costs.
        if at >= free_from
            && hay[at + 1..at + len - 1]
                .iter()
                .zip(middle)
                .all(|(a, b)| a == b)
        {
            *count += 1;
            first_at.get_or_insert(at);
            free_from = at + len;
        }
    };
    let mut at = 0usize;
    while at + 32 <= starts {
        // In bounds: at + 32 <= starts means at + len - 1 + 32 <= hay.len().
        let heads = _mm256_loadu_si256(hay.as_ptr().add(at) as *const __m256i);
        let tails = _mm256_loadu_si256(hay.as_ptr().add(at + len - 1) as *const __m256i);
        let both = _mm256_and_si256(
            _mm256_cmpeq_epi8(heads, first),
            _mm256_cmpeq_epi8(tails, last),
        );
        let mut candidates = _mm256_movemask_epi8(both) as u32;
        while candidates != 0 {
            let offset = candidates.trailing_zeros() as usize;
            candidates &= candidates - 1;
            verify(at + offset, &mut count, &mut first_at);
        }
        at += 32;
    }
    while at < starts {
        if hay[at] == needle[0] && hay[at + len - 1] == needle[len - 1] {
            verify(at, &mut count, &mut first_at);
        }
        at += 1;
    }
    (count, first_at)
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
        // A small generator, so the test needs no dependency and is the
        // same on every run.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        let needles: [&[u8]; 9] = [
            b"ab",
            b"aa",
            b"aba",
            b"delta",
            b"kilo",
            b"a b",
            b"abcabcabd",
            b"zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz",
            b"\xc3\xa9t\xc3\xa9",
        ];
        for round in 0..400 {
            // Alphabets from two letters (dense, overlapping) to many.
            let alphabet: &[u8] = match round % 4 {
                0 => b"ab",
                1 => b"ab ",
                2 => b"abcdeltakiloz ",
                _ => b"abcdefghijklmnopqrstuvwxyz \xc3\xa9",
            };
            let len = next(300) as usize;
            let hay: Vec<u8> = (0..len)
                .map(|_| alphabet[next(alphabet.len() as u64) as usize])
                .collect();
            for needle in needles {
                let finder = Finder::new(needle);
                assert_eq!(
                    count(&hay, &finder),
                    expected(&hay, needle),
                    "{:?} in {:?}",
                    String::from_utf8_lossy(needle),
                    String::from_utf8_lossy(&hay)
                );
            }
        }
    }

    #[test]
    fn edges_of_the_haystack_count_too() {
        let finder = Finder::new(b"xy");
        assert_eq!(count(b"", &finder), (0, None));
        assert_eq!(count(b"x", &finder), (0, None));
        assert_eq!(count(b"xy", &finder), (1, Some(0)));
        let mut hay = vec![b'.'; 70];
        hay[31] = b'x';
        hay[32] = b'y';
        hay[68] = b'x';
        hay[69] = b'y';
        assert_eq!(count(&hay, &finder), (2, Some(31)));
        let aaaa = Finder::new(b"aa");
        assert_eq!(count(&[b'a'; 65], &aaaa), (32, Some(0)));
        let one = Finder::new(b"a");
        assert_eq!(count(b"banana", &one), (3, Some(1)));
    }
}
