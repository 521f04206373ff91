//! Search, filter and paging over a state folder's memories and agents,
//! so a folder with thousands of memories and hundreds of agents is shown
//! a page at a time: the matches are counted in full, only one page of
//! them is handed back.

use serde::Serialize;

use super::{AgentSummary, MemoryEver, StateView};
use crate::error::GgResult;

/// The most a page may hold, whatever the caller asks for.
pub const MAX_PAGE: usize = 500;

/// One page of matches, with how many there are in all.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Page<T> {
    /// Matches in all, on every page.
    pub total: usize,
    /// The first match's position among them, from 0.
    pub offset: usize,
    /// The page size asked for (capped at [`MAX_PAGE`]).
    pub limit: usize,
    /// This page's matches, in order.
    pub items: Vec<T>,
}

impl<T> Page<T> {
    /// The page of `all` that starts at `offset` and holds up to `limit`.
    pub fn of(all: Vec<T>, offset: usize, limit: usize) -> Self {
        let limit = limit.clamp(1, MAX_PAGE);
        let total = all.len();
        let items = all.into_iter().skip(offset).take(limit).collect();
        Page {
            total,
            offset,
            limit,
            items,
        }
    }
}

/// A memory found by [`StateView::find_memories`]: which store holds it,
/// and the same fields as the store's memory list.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FoundMemory {
    /// The store that holds (or held) it.
    pub store: String,
    /// The memory, as the store's list shows it.
    #[serde(flatten)]
    pub memory: MemoryEver,
}

/// What to find: a text to look for and, optionally, where.
#[derive(Debug, Clone, Default)]
pub struct Query {
    /// Text to look for, ignoring ASCII case; empty finds everything.
    pub text: String,
    /// Only this store's memories, or only this profile's agents.
    pub within: Option<String>,
    /// The first match to return, from 0.
    pub offset: usize,
    /// How many matches to return at most.
    pub limit: usize,
}

impl StateView {
    /// The memories whose slug, description or text contains the query's
    /// text, in every store or the one it names, in store then slug order.
    /// `None` if it names a store the folder does not hold.
    pub fn find_memories(&self, query: &Query) -> GgResult<Option<Page<FoundMemory>>> {
        let stores = match &query.within {
            Some(id) => match self.store(id)? {
                Some(store) => vec![store],
                None => return Ok(None),
            },
            None => self.stores()?,
        };
        let mut found = Vec::new();
        for store in stores {
            found.extend(
                store
                    .search(&query.text)?
                    .into_iter()
                    .map(|memory| FoundMemory {
                        store: store.id().to_string(),
                        memory,
                    }),
            );
        }
        Ok(Some(Page::of(found, query.offset, query.limit)))
    }

    /// The agents whose id or profile contains the query's text, of every
    /// profile or the one it names, in id order.
    pub fn find_agents(&self, query: &Query) -> Page<AgentSummary> {
        let needle = query.text.to_ascii_lowercase();
        let found = self
            .agents()
            .into_iter()
            .filter(|a| query.within.is_none() || a.profile == query.within)
            .filter(|a| {
                a.id.to_ascii_lowercase().contains(&needle)
                    || a.profile
                        .as_ref()
                        .is_some_and(|p| p.to_ascii_lowercase().contains(&needle))
            })
            .collect();
        Page::of(found, query.offset, query.limit)
    }
}
