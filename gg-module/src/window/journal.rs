//! What changed in a window since a store last held it, so a store writes
//! only that: the items appended since, and the few earlier ones that
//! changed (a view closed or superseded). A compaction rewrites once.

use std::collections::BTreeSet;

use super::Item;

/// What a store must write to hold the window as it stands.
#[derive(Debug, PartialEq)]
pub enum WindowWrite<'a> {
    /// The thread was rewritten (a compaction): replace every stored item
    /// with these.
    Whole(&'a [Item]),
    /// Write these items at their positions (0-based), over what is
    /// stored there or after it.
    Changed(Vec<(usize, &'a Item)>),
}

/// The window's record of what its store does not hold yet.
#[derive(Debug, Clone, Default)]
pub(super) struct Journal {
    /// Items `0..stored` are held by the store (before `edited`).
    stored: usize,
    /// Stored items changed since.
    edited: BTreeSet<usize>,
    /// The thread was replaced since it was stored.
    rewritten: bool,
}

impl Journal {
    pub(super) fn edited(&mut self, at: usize) {
        if at < self.stored {
            self.edited.insert(at);
        }
    }

    pub(super) fn rewrite(&mut self) {
        self.rewritten = true;
        self.stored = 0;
        self.edited.clear();
    }

    pub(super) fn stored(&mut self, len: usize) {
        *self = Journal {
            stored: len,
            ..Default::default()
        };
    }

    pub(super) fn unstored<'a>(&self, items: &'a [Item]) -> WindowWrite<'a> {
        if self.rewritten {
            return WindowWrite::Whole(items);
        }
        let from = self.stored.min(items.len());
        let changed = self
            .edited
            .iter()
            .copied()
            .filter(|&at| at < from)
            .chain(from..items.len())
            .map(|at| (at, &items[at]))
            .collect();
        WindowWrite::Changed(changed)
    }
}
