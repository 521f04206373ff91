//! The six limits, checked inside the mutation's transaction against the
//! store as it stands. A breach is refused, never truncated; the refusal
//! names the limit, the numbers and the fix. The description is checked
//! before the body limits, so a call that breaches both hears about the
//! cheaper fix first.

use super::config::{MemoriesConfig, Strategy};
use crate::durable::memory_store::{char_count, index_cost, MemoryRecord, TxView};
use crate::error::{GgError, GgResult};

fn names(list: &[(String, u64)], unit: &str) -> String {
    list.iter()
        .map(|(slug, n)| format!("\"{slug}\" ({n} {unit})"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// By how much `len` exceeds `limit`, if it does; a limit of 0 is off.
fn excess(len: u64, limit: u64) -> Option<u64> {
    (limit > 0 && len > limit).then(|| len - limit)
}

/// " — {lead} …" naming up to three of `ranked` other than `slug`, or
/// nothing: a refusal points at what else could make room, never at the
/// memory it is refusing.
fn other_candidates(ranked: Vec<(String, u64)>, slug: &str, lead: &str) -> String {
    let others: Vec<(String, u64)> = ranked
        .into_iter()
        .filter(|(s, _)| s != slug)
        .take(3)
        .collect();
    if others.is_empty() {
        String::new()
    } else {
        format!(" — {lead} {}", names(&others, "chars"))
    }
}

/// Checks a memory about to be stored as `slug` with `description` and
/// `body`; `old` is the version it replaces, if any.
pub fn check(
    config: &MemoriesConfig,
    view: &TxView<'_>,
    slug: &str,
    description: &str,
    body: &str,
    old: Option<&MemoryRecord>,
) -> GgResult<()> {
    let limits = &config.limits;
    let strategy = config.strategy;

    let desc_len = char_count(description);
    if let Some(by) = excess(desc_len, limits.max_len_description) {
        return Err(GgError::limit(format!(
            "limit exceeded: the description of \"{slug}\" is {desc_len} characters, over maxLenDescription ({}) by {by}. Revise it to one shorter line and move the detail into the body; nothing was stored.",
            limits.max_len_description
        )));
    }

    let body_len = char_count(body);
    if let Some(by) = excess(body_len, limits.max_len_per_memory) {
        return Err(GgError::limit(format!(
            "limit exceeded: the body of \"{slug}\" is {body_len} characters, over maxLenPerMemory ({}) by {by}. Revise it to be shorter, or split it into several memories; nothing was stored.",
            limits.max_len_per_memory
        )));
    }

    let totals = view.totals;
    if old.is_none()
        && matches!(strategy, Strategy::Scratchpad | Strategy::KeywordSearch)
        && limits.max_count > 0
        && totals.count >= limits.max_count
    {
        let largest = view.largest(3)?;
        return Err(GgError::limit(format!(
            "limit exceeded: the set already holds {} memories, maxCount ({}). Delete or merge one you no longer need before adding \"{slug}\" — the largest are {}; nothing was stored.",
            totals.count,
            limits.max_count,
            names(&largest, "chars")
        )));
    }

    if strategy == Strategy::Scratchpad && limits.max_total_len > 0 {
        let old_len = old.map(|m| m.chars).unwrap_or(0);
        let total = totals.chars - old_len + body_len;
        if total > limits.max_total_len {
            let candidates = other_candidates(view.largest(4)?, slug, "the largest are");
            return Err(GgError::limit(format!(
                "limit exceeded: storing \"{slug}\" would bring the pinned memories to {total} characters, over maxTotalLen ({}) by {}. Revise it shorter, or evict or delete other memories first{candidates}; nothing was stored.",
                limits.max_total_len,
                total - limits.max_total_len
            )));
        }
    }

    if strategy == Strategy::Markdown && limits.max_len_index > 0 {
        let old_cost = old
            .map(|m| index_cost(&m.slug, &m.description))
            .unwrap_or(0);
        let index = totals.index_chars - old_cost + index_cost(slug, description);
        if index > limits.max_len_index {
            let candidates =
                other_candidates(view.longest_index_lines(4)?, slug, "the longest lines are");
            return Err(GgError::limit(format!(
                "limit exceeded: the index line for \"{slug}\" would bring the index to {index} characters, over maxLenIndex ({}) by {}. Shorten descriptions, or delete memories you no longer need{candidates}; nothing was stored.",
                limits.max_len_index,
                index - limits.max_len_index
            )));
        }
    }
    Ok(())
}
