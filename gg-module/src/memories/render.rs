//! What memories put in the window: the pinned block, and the system
//! prompt's account of the calls and limits.

use super::calls::Call;
use super::config::{MemoriesConfig, Strategy};
use crate::durable::memory_store::{index_line, MemoryRecord};

/// The pinned block for `set` under `strategy`; empty when there is
/// nothing to pin (an empty store renders nothing).
pub fn pinned_block(strategy: Strategy, set: &[MemoryRecord]) -> String {
    if set.is_empty() {
        return String::new();
    }
    match strategy {
        Strategy::Scratchpad => {
            let mut out = String::from("## Memories\n");
            for m in set {
                out.push_str(&format!(
                    "\n### {} — {}\n{}\n",
                    m.slug,
                    m.description,
                    m.body.trim_end()
                ));
            }
            out
        }
        Strategy::Markdown => {
            let mut out = String::from("## Memory index\n");
            for m in set {
                out.push_str(&index_line(&m.slug, &m.description));
                out.push('\n');
            }
            out
        }
        Strategy::KeywordSearch => String::new(),
    }
}

/// The system prompt's memories section.
pub fn system_prompt_section(
    config: &MemoriesConfig,
    offered: &[Call],
    code_mode: bool,
    writable: bool,
) -> String {
    let spell = |c: &Call| {
        if code_mode {
            format!("memories.{}", c.module_name())
        } else {
            c.tool_name().to_string()
        }
    };
    let calls = offered.iter().map(spell).collect::<Vec<_>>().join(", ");
    let l = &config.limits;
    let limit = |n: u64| {
        if n == 0 {
            "no limit".to_string()
        } else {
            n.to_string()
        }
    };
    let mut out = String::from("## Memories\n");
    if !writable {
        out.push_str(
            "These memories are another agent's: you may read them but not change them.\n",
        );
    }
    match config.strategy {
        Strategy::Scratchpad => {
            out.push_str("Your memories are durable notes pinned in full at the top of this window (the block is rebuilt at each compaction; between compactions the thread carries your changes).\n");
            if !writable {
                out.push_str(
                    "You have no memory calls: you read them by having them in your window.\n",
                );
            }
        }
        Strategy::Markdown => {
            out.push_str("Your memories are files with a pinned index: one `slug` — description line each. Read a body with the read call when it bears on your work.\n");
            out.push_str("The index is rebuilt at each compaction only, so a memory created since the last one is stored and readable but not listed yet: a missing line is not a lost memory.\n");
        }
        Strategy::KeywordSearch => {
            out.push_str("Your memories are files with no index: nothing about them is in this window until you search. Search ranks by how many distinct keywords a memory mentions, then how often, over slug, description and body.\n");
        }
    }
    if !calls.is_empty() {
        out.push_str(&format!("Calls: {calls}.\n"));
    }
    if writable && config.strategy != Strategy::Scratchpad && config.revise {
        out.push_str("Edits are search/replace: quote text that occurs exactly once. To append, quote the last line and replace it with itself plus the addition.\n");
    }
    if writable && !config.revise {
        out.push_str("Memories are append-only: they cannot be revised or deleted.\n");
    }
    let mut limits = vec![
        format!("description {}", limit(l.max_len_description)),
        format!("body {}", limit(l.max_len_per_memory)),
    ];
    match config.strategy {
        Strategy::Scratchpad => {
            limits.push(format!("count {}", limit(l.max_count)));
            limits.push(format!("all bodies together {}", limit(l.max_total_len)));
        }
        Strategy::Markdown => limits.push(format!("index {}", limit(l.max_len_index))),
        Strategy::KeywordSearch => {
            limits.push(format!("count {}", limit(l.max_count)));
            limits.push(format!("results per search {}", limit(l.max_results)));
        }
    }
    out.push_str(&format!(
        "Limits (characters unless said): {}. A change that would breach one is refused and nothing is truncated: revise, evict or delete, then try again.\n",
        limits.join(", ")
    ));
    out
}
