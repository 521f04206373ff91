//! keyword-search: rank memories by how many distinct keywords they mention,
//! then by how often, over case-insensitive substring matching across slug,
//! description and body. Ties break by slug, ascending.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};

use serde::Serialize;

use super::occurrences::{self, Needle};
use crate::durable::memory_store::MemoryRecord;

/// One memory a search matched, as `searchMemories` returns it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SearchHit {
    /// The memory's slug.
    pub name: String,
    /// The memory's description (empty if it has none).
    pub description: String,
    /// A short one-line window of the body around the earliest match.
    pub excerpt: String,
    /// How many distinct keywords the memory mentions; the first sort key.
    pub distinct: u64,
    /// How many matches in all, across slug, description and body.
    pub occurrences: u64,
}

/// Characters shown before and after the first match in an excerpt.
const EXCERPT_BEFORE: usize = 40;
const EXCERPT_AFTER: usize = 80;

/// Lowercases char by char, keeping a char whose lowercase form has another
/// UTF-8 length as it is: the folded text has the original's byte layout, so
/// a match's byte offset in one is its offset in the other.
pub fn fold(s: &str) -> String {
    if s.is_ascii() {
        return s.to_ascii_lowercase();
    }
    s.chars()
        .map(|c| {
            let mut lower = c.to_lowercase();
            match (lower.next(), lower.next()) {
                (Some(l), None) if l.len_utf8() == c.len_utf8() => l,
                _ => c,
            }
        })
        .collect()
}

/// A memory's searchable text, folded once per revision of the memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Folded {
    /// The slug as stored, which orders the set: how a refold finds this
    /// memory's entry.
    of: String,
    slug: String,
    description: String,
    body: String,
}

impl Folded {
    fn of(memory: &MemoryRecord) -> Self {
        Folded {
            of: memory.slug.clone(),
            slug: fold(&memory.slug),
            description: fold(&memory.description),
            body: fold(&memory.body),
        }
    }
}

/// Folds every memory's slug, description and body, index for index.
pub fn fold_all(memories: &[MemoryRecord]) -> Vec<Folded> {
    memories.iter().map(Folded::of).collect()
}

/// [`fold_all`] of `memories`, given `before`, the folding of an earlier
/// set, and `changed`, every slug revised since: the other memories' folded
/// text is taken from `before` instead of folded again. Both sets are in
/// slug order.
pub fn refold(
    memories: &[MemoryRecord],
    before: Vec<Folded>,
    changed: &BTreeSet<String>,
) -> Vec<Folded> {
    let mut before = before.into_iter().peekable();
    memories
        .iter()
        .map(|memory| {
            while before.next_if(|f| f.of < memory.slug).is_some() {}
            match before.next_if(|f| f.of == memory.slug) {
                Some(folded) if !changed.contains(&memory.slug) => folded,
                _ => Folded::of(memory),
            }
        })
        .collect()
}

/// A memory that matched, before it is ranked: only the ones a search
/// returns are turned into [`SearchHit`]s (clones and an excerpt each).
#[derive(Debug, PartialEq, Eq)]
struct Candidate {
    index: usize,
    distinct: u64,
    occurrences: u64,
    /// The earliest match in the body: byte offset and needle length.
    first_body: Option<(usize, usize)>,
}

/// The most distinct keywords one search takes. Each keyword is one pass
/// over every memory's text, so this bounds a search's cost at this many
/// passes over the set, whoever asks (a program, or a model's tool call).
pub const MAX_KEYWORDS: usize = 64;

/// Why a search gave no ranking.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchRefusal {
    /// More distinct keywords than [`MAX_KEYWORDS`].
    TooManyKeywords {
        /// How many distinct keywords were asked for.
        distinct: usize,
    },
    /// The stop signal was set while the search ran: whoever asked is
    /// being stopped (a program at its time or heap limit).
    Stopped,
}

/// A search's keywords as it matches them: trimmed, folded, without empty
/// or repeated ones, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Keywords(Vec<String>);

impl Keywords {
    /// The keywords a search for `keywords` matches, or a refusal when
    /// there are more than [`MAX_KEYWORDS`] distinct ones.
    pub fn of(keywords: &[String]) -> Result<Self, SearchRefusal> {
        let mut needles: Vec<String> = keywords
            .iter()
            .map(|k| fold(k.trim()))
            .filter(|k| !k.is_empty())
            .collect();
        needles.sort();
        needles.dedup();
        if needles.len() > MAX_KEYWORDS {
            return Err(SearchRefusal::TooManyKeywords {
                distinct: needles.len(),
            });
        }
        Ok(Keywords(needles))
    }

    /// Whether there is nothing to look for.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Ranks `memories` (with `folded`, their folded text, index for index)
/// against `keywords`; `max_results` 0 means no cap. The scan gives up
/// when `stop` is set, checked before each memory.
pub fn search(
    memories: &[MemoryRecord],
    folded: &[Folded],
    keywords: &Keywords,
    max_results: u64,
    stop: &AtomicBool,
) -> Result<Vec<SearchHit>, SearchRefusal> {
    let needles = &keywords.0;
    // Counted non-overlapping, like `str::matches`.
    let finders: Vec<Needle<'_>> = needles.iter().map(|n| Needle::new(n.as_bytes())).collect();
    let candidates = scan_all(folded, &finders, stop).ok_or(SearchRefusal::Stopped)?;
    let rank = |a: &Candidate, b: &Candidate| {
        b.distinct
            .cmp(&a.distinct)
            .then(b.occurrences.cmp(&a.occurrences))
            .then_with(|| memories[a.index].slug.cmp(&memories[b.index].slug))
    };
    // Slugs are unique, so the order is total and the top `max_results`
    // are the same whichever way they are picked.
    let mut candidates = candidates;
    let cap = usize::try_from(max_results).unwrap_or(usize::MAX);
    if cap > 0 && candidates.len() > cap {
        candidates.select_nth_unstable_by(cap - 1, rank);
        candidates.truncate(cap);
    }
    candidates.sort_unstable_by(rank);
    Ok(candidates
        .into_iter()
        .map(|c| {
            let memory = &memories[c.index];
            SearchHit {
                name: memory.slug.clone(),
                description: memory.description.clone(),
                excerpt: excerpt(&memory.body, c.first_body),
                distinct: c.distinct,
                occurrences: c.occurrences,
            }
        })
        .collect())
}

/// Folded text, in bytes, from which a search is split across threads:
/// below it, starting them costs more than they save.
const PARALLEL_FROM_BYTES: usize = 1 << 20;
/// The most threads one search uses.
const MAX_SEARCH_THREADS: usize = 4;

/// Every memory that matches at least one needle, in index order, or
/// `None` when `stop` was set before the scan ended. A large
/// set is scanned in contiguous parts on scoped threads (one per core, up
/// to [`MAX_SEARCH_THREADS`]), as ripgrep splits its work; a part whose
/// thread cannot start is scanned here.
fn scan_all(
    folded: &[Folded],
    finders: &[Needle<'_>],
    stop: &AtomicBool,
) -> Option<Vec<Candidate>> {
    let bytes: usize = folded
        .iter()
        .map(|f| f.slug.len() + f.description.len() + f.body.len())
        .sum();
    let threads = if bytes >= PARALLEL_FROM_BYTES {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(MAX_SEARCH_THREADS)
    } else {
        1
    };
    scan_split(folded, finders, threads, stop)
}

/// [`scan`] over `threads` contiguous parts of `folded`, the first on this
/// thread and each other on a scoped thread, the results joined in index
/// order.
fn scan_split(
    folded: &[Folded],
    finders: &[Needle<'_>],
    threads: usize,
    stop: &AtomicBool,
) -> Option<Vec<Candidate>> {
    if threads <= 1 || folded.len() < threads {
        return scan(folded, 0, finders, stop);
    }
    let part = folded.len().div_ceil(threads);
    std::thread::scope(|scope| {
        // The first part is this thread's own: one thread fewer to start.
        let mut chunks = folded.chunks(part).enumerate();
        let (_, own) = chunks.next().expect("at least one part");
        let started: Vec<_> = chunks
            .map(|(i, chunk)| {
                let base = i * part;
                let thread = std::thread::Builder::new()
                    .name("gg-search".into())
                    .spawn_scoped(scope, move || scan(chunk, base, finders, stop));
                (chunk, base, thread.ok())
            })
            .collect();
        // Every started thread is joined, even after a stop.
        let mut all = scan(own, 0, finders, stop);
        for (chunk, base, thread) in started {
            let found = match thread.map(|t| t.join()) {
                Some(Ok(found)) => found,
                _ => scan(chunk, base, finders, stop),
            };
            match (&mut all, found) {
                (Some(all), Some(found)) => all.extend(found),
                _ => all = None,
            }
        }
        all
    })
}

/// The memories of `folded` (whose first is memory `base`) that match, or
/// `None` when `stop` was set before the last of them.
fn scan(
    folded: &[Folded],
    base: usize,
    finders: &[Needle<'_>],
    stop: &AtomicBool,
) -> Option<Vec<Candidate>> {
    let mut candidates = Vec::new();
    for (offset, text) in folded.iter().enumerate() {
        // One relaxed load per memory: a set signal is seen within one
        // memory's scan, and its cost is lost in the scan's.
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        let mut distinct = 0;
        let mut occurrences = 0;
        // The excerpt centres on the earliest match in the body.
        let mut first_body: Option<(usize, usize)> = None;
        for finder in finders {
            let count = |hay: &str| occurrences::count(hay.as_bytes(), finder).0;
            let (in_body, first) = occurrences::count(text.body.as_bytes(), finder);
            let n = count(&text.slug) + count(&text.description) + in_body;
            if n == 0 {
                continue;
            }
            distinct += 1;
            occurrences += n;
            if let Some(at) = first {
                if first_body.is_none_or(|(best, _)| at < best) {
                    first_body = Some((at, finder.bytes().len()));
                }
            }
        }
        if distinct > 0 {
            candidates.push(Candidate {
                index: base + offset,
                distinct,
                occurrences,
                first_body,
            });
        }
    }
    Some(candidates)
}

/// A short window of the body around a match (a byte offset and length),
/// on one line, with `…` where it was cut.
pub fn excerpt(body: &str, at: Option<(usize, usize)>) -> String {
    let (from, to) = at.map(|(at, len)| (at, at + len)).unwrap_or((0, 0));
    // Walk EXCERPT_BEFORE chars back from the match and EXCERPT_AFTER on.
    let start = body[..from]
        .char_indices()
        .rev()
        .nth(EXCERPT_BEFORE - 1)
        .map(|(i, _)| i)
        .unwrap_or(0);
    let start = if body[..from].chars().count() < EXCERPT_BEFORE {
        0
    } else {
        start
    };
    let after = if at.is_some() {
        EXCERPT_AFTER
    } else {
        EXCERPT_BEFORE + EXCERPT_AFTER
    };
    let end = body[to..]
        .char_indices()
        .nth(after)
        .map(|(i, _)| to + i)
        .unwrap_or(body.len());
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    out.push_str(
        &body[start..end]
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" "),
    );
    if end < body.len() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(slug: &str, description: &str, body: &str) -> MemoryRecord {
        MemoryRecord {
            slug: slug.into(),
            description: description.into(),
            body: body.into(),
            code: None,
            on_use: None,
            chars: 0,
            lines: 0,
            key: None,
        }
    }

    fn kw(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    /// [`super::search`] of `keywords`, never stopped.
    fn search(
        memories: &[MemoryRecord],
        folded: &[Folded],
        keywords: &[String],
        max_results: u64,
    ) -> Vec<SearchHit> {
        let keywords = Keywords::of(keywords).expect("few enough keywords");
        super::search(
            memories,
            folded,
            &keywords,
            max_results,
            &AtomicBool::new(false),
        )
        .expect("never stopped")
    }

    #[test]
    fn more_distinct_keywords_than_the_most_are_refused_before_any_scan() {
        let words: Vec<String> = (0..MAX_KEYWORDS).map(|i| format!("w{i}")).collect();
        assert!(Keywords::of(&words).is_ok());
        // Repeats, case and blanks do not count twice.
        let mut padded = words.clone();
        padded.extend(["W0".into(), " w1 ".into(), "".into()]);
        assert!(Keywords::of(&padded).is_ok());
        let mut over = words;
        over.push("one-more".into());
        assert_eq!(
            Keywords::of(&over),
            Err(SearchRefusal::TooManyKeywords {
                distinct: MAX_KEYWORDS + 1
            })
        );
    }

    #[test]
    fn a_set_stop_signal_ends_the_scan_on_every_thread() {
        let set: Vec<_> = (0..40).map(|i| m(&format!("m{i:02}"), "", "hit")).collect();
        let folded = fold_all(&set);
        let keywords = Keywords::of(&kw(&["hit"])).unwrap();
        let stop = AtomicBool::new(true);
        assert_eq!(
            super::search(&set, &folded, &keywords, 0, &stop),
            Err(SearchRefusal::Stopped)
        );
        let finders = [Needle::new(b"hit")];
        for threads in [1, 2, 4] {
            assert_eq!(scan_split(&folded, &finders, threads, &stop), None);
        }
        stop.store(false, Ordering::Relaxed);
        assert_eq!(
            super::search(&set, &folded, &keywords, 0, &stop).map(|h| h.len()),
            Ok(40)
        );
    }

    #[test]
    fn ranks_by_distinct_then_occurrences_then_slug() {
        let set = vec![
            m("b-deploy", "Deploy notes", "deploy deploy deploy"),
            m("a-deploy", "deploy", "staging"),
            m("c-both", "x", "Deploy to STAGING"),
            m("d-none", "x", "nothing here"),
            m("e-tie", "x", "deploy staging"),
        ];
        let hits = search(&set, &fold_all(&set), &kw(&["deploy", "staging"]), 0);
        let order: Vec<(&str, u64, u64)> = hits
            .iter()
            .map(|h| (h.name.as_str(), h.distinct, h.occurrences))
            .collect();
        assert_eq!(
            order,
            [
                // distinct 2: "a-deploy" (slug + description + body) beats the two ties on occurrences…
                ("a-deploy", 2, 3),
                // …and the ties break by slug.
                ("c-both", 2, 2),
                ("e-tie", 2, 2),
                ("b-deploy", 1, 5),
            ]
        );
    }

    #[test]
    fn overlapping_and_repeated_keywords_count_once() {
        let set = vec![m("x", "", "keyword keywords")];
        let hits = search(
            &set,
            &fold_all(&set),
            &kw(&["key", "keyword", "KEY", " key "]),
            0,
        );
        assert_eq!((hits[0].distinct, hits[0].occurrences), (2, 4));
    }

    #[test]
    fn max_results_caps_hits() {
        let set: Vec<_> = (0..5).map(|i| m(&format!("m{i}"), "", "hit")).collect();
        assert_eq!(search(&set, &fold_all(&set), &kw(&["hit"]), 3).len(), 3);
        assert_eq!(search(&set, &fold_all(&set), &kw(&["hit"]), 0).len(), 5);
    }

    #[test]
    fn a_capped_search_returns_the_head_of_the_full_ranking() {
        let words = ["red", "green", "blue", "redblue", "x"];
        let set: Vec<_> = (0..200)
            .map(|i: usize| {
                let body: Vec<&str> = (0..(i * 7) % 13)
                    .map(|j| words[(i * 31 + j * 17) % words.len()])
                    .collect();
                m(&format!("m{:03}", (i * 37) % 200), "", &body.join(" "))
            })
            .collect();
        let mut set = set;
        set.sort_by(|a, b| a.slug.cmp(&b.slug));
        let folded = fold_all(&set);
        let keywords = kw(&["red", "blue", "x"]);
        let full = search(&set, &folded, &keywords, 0);
        assert!(full.len() > 100, "{}", full.len());
        for cap in [1, 2, 7, 25, 100, full.len() as u64, 1000] {
            let capped = search(&set, &folded, &keywords, cap);
            let expected = &full[..full.len().min(cap as usize)];
            assert_eq!(capped, expected, "cap {cap}");
        }
    }

    #[test]
    fn a_scan_split_across_threads_finds_what_one_thread_finds() {
        let set: Vec<_> = (0..101)
            .map(|i: usize| m(&format!("m{i:03}"), "", &"ab ".repeat(i % 7)))
            .collect();
        let folded = fold_all(&set);
        let finders = [Needle::new(b"ab"), Needle::new(b"m0")];
        let go = AtomicBool::new(false);
        let alone = scan(&folded, 0, &finders, &go).unwrap();
        assert!(alone.len() > 90, "{}", alone.len());
        for threads in [2, 3, 4, 100, 101, 500] {
            assert_eq!(
                scan_split(&folded, &finders, threads, &go).as_ref(),
                Some(&alone),
                "{threads}"
            );
        }
    }

    #[test]
    fn a_refold_is_a_fold_of_the_new_set() {
        let before: Vec<_> = ["a", "B", "c", "d", "É"]
            .iter()
            .map(|s| m(s, "Old", &format!("Old {s}")))
            .collect();
        let mut before = before;
        before.sort_by(|a, b| a.slug.cmp(&b.slug));
        // "c" revised, "d" deleted, "bb" and "z" created; "a", "B" and "É"
        // kept.
        let mut after: Vec<_> = before
            .iter()
            .filter(|r| r.slug != "d")
            .map(|r| {
                if r.slug == "c" {
                    m("c", "NEW", "New c")
                } else {
                    r.clone()
                }
            })
            .chain([m("bb", "x", "Bb"), m("z", "", "Zed")])
            .collect();
        after.sort_by(|a, b| a.slug.cmp(&b.slug));
        let changed: BTreeSet<String> = ["c", "d", "bb", "z"].map(String::from).into();
        let refolded = refold(&after, fold_all(&before), &changed);
        assert_eq!(refolded, fold_all(&after));
        // An entry a refold keeps is not folded again: a stale one (which a
        // correct `changed` never leaves) shows through.
        let mut stale = fold_all(&before);
        stale[0].body = "stale".into();
        let kept = refold(&after, stale, &changed);
        assert_eq!(kept[0].body, "stale");
    }

    #[test]
    fn excerpts_centre_on_the_first_body_match() {
        let body = format!(
            "{}The RARE word sits here.{}",
            "a ".repeat(60),
            " b".repeat(60)
        );
        let set = [m("x", "", &body)];
        let hits = search(&set, &fold_all(&set), &kw(&["rare"]), 0);
        let e = &hits[0].excerpt;
        assert!(e.starts_with('…') && e.ends_with('…'), "{e}");
        assert!(e.contains("The RARE word sits here."), "{e}");
        assert!(
            e.chars().count() <= EXCERPT_BEFORE + EXCERPT_AFTER + 6,
            "{e}"
        );
        let set = [m("x", "", "tiny rare")];
        let short = search(&set, &fold_all(&set), &kw(&["rare"]), 0);
        assert_eq!(short[0].excerpt, "tiny rare");
        let set = [m("x", "", "Ünïcödé ÄRE here")];
        let hits = search(&set, &fold_all(&set), &kw(&["äre"]), 0);
        assert_eq!(hits[0].excerpt, "Ünïcödé ÄRE here");
    }
}
