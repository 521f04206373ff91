//! keyword-search: rank memories by how many distinct keywords they mention,
//! then by how often, over case-insensitive substring matching across slug,
//! description and body. Ties break by slug, ascending.

use serde::Serialize;

use super::store::MemoryRecord;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SearchHit {
    pub name: String,
    pub description: String,
    pub excerpt: String,
    pub distinct: u64,
    pub occurrences: u64,
}

/// Characters shown before and after the first match in an excerpt.
const EXCERPT_BEFORE: usize = 40;
const EXCERPT_AFTER: usize = 80;

/// Lowercases char by char, keeping one char per char so that char
/// positions in the folded text are positions in the original.
fn fold(s: &str) -> Vec<char> {
    s.chars()
        .map(|c| {
            let mut lower = c.to_lowercase();
            match (lower.next(), lower.next()) {
                (Some(l), None) => l,
                _ => c,
            }
        })
        .collect()
}

fn count_and_first(hay: &[char], needle: &[char]) -> (u64, Option<usize>) {
    if needle.is_empty() || needle.len() > hay.len() {
        return (0, None);
    }
    let mut count = 0;
    let mut first = None;
    let mut i = 0;
    while i + needle.len() <= hay.len() {
        if hay[i..i + needle.len()] == *needle {
            count += 1;
            first.get_or_insert(i);
            i += needle.len();
        } else {
            i += 1;
        }
    }
    (count, first)
}

/// Ranks `memories` against `keywords`; `max_results` 0 means no cap.
pub fn search(memories: &[MemoryRecord], keywords: &[String], max_results: u64) -> Vec<SearchHit> {
    let mut needles: Vec<Vec<char>> = keywords
        .iter()
        .map(|k| fold(k.trim()))
        .filter(|k| !k.is_empty())
        .collect();
    needles.sort();
    needles.dedup();
    let mut hits: Vec<SearchHit> = Vec::new();
    for memory in memories {
        let fields = [
            fold(&memory.slug),
            fold(&memory.description),
            fold(&memory.body),
        ];
        let mut distinct = 0;
        let mut occurrences = 0;
        // Where the excerpt centres: the earliest match in the body, else
        // in the description, else the body's start.
        let mut first_body: Option<(usize, usize)> = None;
        for needle in &needles {
            let mut found = 0;
            for (f, field) in fields.iter().enumerate() {
                let (n, first) = count_and_first(field, needle);
                found += n;
                if f == 2 {
                    if let Some(at) = first {
                        if first_body.is_none_or(|(best, _)| at < best) {
                            first_body = Some((at, needle.len()));
                        }
                    }
                }
            }
            if found > 0 {
                distinct += 1;
                occurrences += found;
            }
        }
        if distinct == 0 {
            continue;
        }
        hits.push(SearchHit {
            name: memory.slug.clone(),
            description: memory.description.clone(),
            excerpt: excerpt(&memory.body, first_body),
            distinct,
            occurrences,
        });
    }
    hits.sort_by(|a, b| {
        b.distinct
            .cmp(&a.distinct)
            .then(b.occurrences.cmp(&a.occurrences))
            .then_with(|| a.name.cmp(&b.name))
    });
    if max_results > 0 {
        hits.truncate(max_results as usize);
    }
    hits
}

/// A short window of the body around a match, on one line, with `…` where
/// it was cut.
pub fn excerpt(body: &str, at: Option<(usize, usize)>) -> String {
    let chars: Vec<char> = body.chars().collect();
    let (start, end) = match at {
        Some((at, len)) => (
            at.saturating_sub(EXCERPT_BEFORE),
            (at + len + EXCERPT_AFTER).min(chars.len()),
        ),
        None => (0, (EXCERPT_BEFORE + EXCERPT_AFTER).min(chars.len())),
    };
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    let text: String = chars[start..end].iter().collect();
    out.push_str(&text.split_whitespace().collect::<Vec<_>>().join(" "));
    if end < chars.len() {
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
        }
    }

    fn kw(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
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
        let hits = search(&set, &kw(&["deploy", "staging"]), 0);
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
        let hits = search(&set, &kw(&["key", "keyword", "KEY", " key "]), 0);
        assert_eq!((hits[0].distinct, hits[0].occurrences), (2, 4));
    }

    #[test]
    fn max_results_caps_hits() {
        let set: Vec<_> = (0..5).map(|i| m(&format!("m{i}"), "", "hit")).collect();
        assert_eq!(search(&set, &kw(&["hit"]), 3).len(), 3);
        assert_eq!(search(&set, &kw(&["hit"]), 0).len(), 5);
    }

    #[test]
    fn excerpts_centre_on_the_first_body_match() {
        let body = format!(
            "{}The RARE word sits here.{}",
            "a ".repeat(60),
            " b".repeat(60)
        );
        let hits = search(&[m("x", "", &body)], &kw(&["rare"]), 0);
        let e = &hits[0].excerpt;
        assert!(e.starts_with('…') && e.ends_with('…'), "{e}");
        assert!(e.contains("The RARE word sits here."), "{e}");
        assert!(
            e.chars().count() <= EXCERPT_BEFORE + EXCERPT_AFTER + 6,
            "{e}"
        );
        let short = search(&[m("x", "", "tiny rare")], &kw(&["rare"]), 0);
        assert_eq!(short[0].excerpt, "tiny rare");
    }
}
