//! The agent's context window: what the model sees on its next turn.
//!
//! A window is a system prompt, a pinned block (rebuilt only at a compaction
//! boundary or an agent's first turn) and the thread: programs and their
//! acknowledgements, native tool calls and results, views, notices. New
//! material is only ever appended, so a previous render stays a prefix of the
//! next one unless the agent itself closes a view or a compaction rewrites
//! the thread.

mod acknowledgement;
mod journal;
mod render;

use std::cell::RefCell;
use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::error::{GgError, GgResult};
use crate::views::View;

pub use acknowledgement::{Acknowledgement, ConsoleLine, RunStatus};
use journal::Journal;
pub use journal::WindowWrite;
use render::RenderCache;
pub use render::{file_view_text, numbered_lines};

/// The whole window: system prompt, pinned block and thread.
///
/// The thread is private so every change goes through a method that keeps
/// the window's bookkeeping: which views are open (an index, so closing
/// one does not walk the thread), what changed since the window was last
/// stored (so a store writes only that), and the last render (so a long
/// thread renders only what it appended).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", from = "StoredWindow")]
pub struct Window {
    /// The system prompt, rendered first.
    pub system_prompt: String,
    /// The pinned block; empty renders nothing.
    pub pinned: String,
    /// The thread, oldest first.
    items: Vec<Item>,
    /// Positions of the items that show an open view, in thread order.
    #[serde(skip)]
    open: BTreeSet<usize>,
    /// What changed since the window was last stored.
    #[serde(skip)]
    journal: Journal,
    /// The last render, extended or re-rendered from the first change.
    #[serde(skip)]
    rendered: RefCell<RenderCache>,
}

/// A window as stored: every field may be missing from older records.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct StoredWindow {
    #[serde(default)]
    system_prompt: String,
    #[serde(default)]
    pinned: String,
    #[serde(default)]
    items: Vec<Item>,
}

impl From<StoredWindow> for Window {
    fn from(stored: StoredWindow) -> Self {
        Window::from_parts(stored.system_prompt, stored.pinned, stored.items)
    }
}

/// Two windows are equal when they show the same thing; bookkeeping does
/// not count.
impl PartialEq for Window {
    fn eq(&self, other: &Self) -> bool {
        self.system_prompt == other.system_prompt
            && self.pinned == other.pinned
            && self.items == other.items
    }
}

/// One entry of the thread.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Item {
    /// The turn the item belongs to; 0 is gg's opening material.
    pub turn: u32,
    /// What the entry is.
    #[serde(flatten)]
    pub body: ItemBody,
}

/// The kinds of thread entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum ItemBody {
    /// A program the model (or gg, on turn 0) submitted.
    #[serde(rename_all = "camelCase")]
    Program {
        /// The id the program library minted; `None` without a library.
        id: Option<String>,
        /// The TypeScript as submitted.
        source: String,
    },
    /// gg's answer to a program.
    Acknowledgement(Acknowledgement),
    /// A native tool call the model made, in tool-calling mode.
    #[serde(rename_all = "camelCase")]
    ToolCall {
        /// The id pairing the call with its result.
        call_id: String,
        /// The tool's snake-case name (`read_memory`).
        name: String,
        /// The call's arguments, as the model sent them.
        arguments: serde_json::Value,
    },
    /// The answer to a native tool call.
    #[serde(rename_all = "camelCase")]
    ToolResult {
        /// The id of the call it answers.
        call_id: String,
        /// The result text the model reads.
        content: String,
        /// Whether the call was refused.
        is_error: bool,
        /// A `read_file` result is a file view: open until a compaction.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        view: Option<View>,
    },
    /// A view; `open` turns false when the agent closes or supersedes it.
    /// A `locked` view (an autoloaded specification) is pinned, not open:
    /// no desk records it.
    View {
        /// The view itself.
        view: View,
        /// Whether it still shows its content; a closed view renders a stub.
        open: bool,
        /// Whether autoload pinned it; `views.close` leaves it alone.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        locked: bool,
    },
    /// An ordinary message gg appends (linked-instance notices, warnings).
    Notice {
        /// The message as the model reads it.
        text: String,
    },
    /// A compaction's summary of what it dropped.
    Summary {
        /// The summary as the model reads it.
        text: String,
    },
}

impl Window {
    /// A window with a system prompt and pinned block and an empty thread.
    pub fn new(system_prompt: String, pinned: String) -> Self {
        Window {
            system_prompt,
            pinned,
            ..Default::default()
        }
    }

    /// A window of `items`, none of them stored yet.
    pub fn from_parts(system_prompt: String, pinned: String, items: Vec<Item>) -> Self {
        let open = items
            .iter()
            .enumerate()
            .filter(|(_, item)| shows_open_view(&item.body))
            .map(|(at, _)| at)
            .collect();
        Window {
            system_prompt,
            pinned,
            items,
            open,
            ..Default::default()
        }
    }

    /// The thread, oldest first.
    pub fn items(&self) -> &[Item] {
        &self.items
    }

    /// How many items the thread holds.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether the thread is empty.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Appends `body` to the thread as part of `turn`.
    pub fn push(&mut self, turn: u32, body: ItemBody) {
        if shows_open_view(&body) {
            self.open.insert(self.items.len());
        }
        self.items.push(Item { turn, body });
    }

    /// Drops the whole thread (a compaction): the next store rewrites it.
    pub fn clear_thread(&mut self) {
        self.items.clear();
        self.open.clear();
        self.journal.rewrite();
        self.rendered.get_mut().changed_from(0);
    }

    /// Appends a view; a text view supersedes an open one with its label,
    /// and a documentation view one of the same function (a reload).
    pub fn open_view(&mut self, turn: u32, view: View) {
        if matches!(view, View::Text { .. } | View::Documentation { .. }) {
            let name = view.close_name();
            let superseded: Vec<usize> = self
                .open
                .iter()
                .copied()
                .filter(|&at| match &self.items[at].body {
                    ItemBody::View { view: old, .. } => {
                        std::mem::discriminant(old) == std::mem::discriminant(&view)
                            && old.close_name() == name
                    }
                    _ => false,
                })
                .collect();
            for at in superseded {
                self.set_closed(at);
            }
        }
        self.push(
            turn,
            ItemBody::View {
                view,
                open: true,
                locked: false,
            },
        );
    }

    /// Closes every open file view of `name` (a path) or text view labelled
    /// `name`. Refuses when nothing open matches, listing what is open.
    pub fn close(&mut self, name: &str) -> GgResult<usize> {
        let wanted = name.trim_start_matches("./");
        let matching: Vec<usize> = self
            .open
            .iter()
            .copied()
            .filter(|&at| {
                matches!(&self.items[at].body,
                    ItemBody::View { view, locked: false, .. } if view.close_name().as_deref() == Some(wanted))
            })
            .collect();
        if matching.is_empty() {
            return Err(self.no_open_view(name, &[]));
        }
        for &at in &matching {
            self.set_closed(at);
        }
        Ok(matching.len())
    }

    /// The refusal of closing `name` when no open view has that name,
    /// listing what is open (leaving out `closing`, names already being
    /// closed).
    pub fn no_open_view(&self, name: &str, closing: &[String]) -> GgError {
        let name_q = crate::Quoted(name);
        let open: Vec<String> = self
            .open_views()
            .filter_map(|v| v.close_name())
            .filter(|n| !closing.iter().any(|c| c == n.as_ref()))
            .map(|n| format!("{:?}", crate::Quoted(&n)))
            .collect();
        let listing = if open.is_empty() {
            "no views are open".to_string()
        } else {
            format!("open: {}", open.join(", "))
        };
        GgError::not_found(format!("no open view is called {name_q:?} ({listing})."))
    }

    /// Marks the view at `at` closed, noting the change for the store and
    /// the render.
    fn set_closed(&mut self, at: usize) {
        if let ItemBody::View { open, .. } = &mut self.items[at].body {
            *open = false;
        }
        self.open.remove(&at);
        self.journal.edited(at);
        self.rendered.get_mut().changed_from(at);
    }

    /// Open views in the order they were opened (a `read_file` result in
    /// tool-calling mode is one).
    pub fn open_views(&self) -> impl Iterator<Item = &View> {
        self.open
            .iter()
            .filter_map(|&at| match &self.items[at].body {
                ItemBody::View { view, .. } => Some(view),
                ItemBody::ToolResult {
                    view: Some(view), ..
                } => Some(view),
                _ => None,
            })
    }

    /// Open views a desk records: open, and not locked by autoload.
    pub fn desk_views(&self) -> impl Iterator<Item = &View> {
        self.open
            .iter()
            .filter_map(|&at| match &self.items[at].body {
                ItemBody::View {
                    view,
                    locked: false,
                    ..
                } => Some(view),
                ItemBody::ToolResult {
                    view: Some(view), ..
                } => Some(view),
                _ => None,
            })
    }

    /// Whether a file view of `path` is open.
    pub fn has_open_file(&self, path: &str) -> bool {
        self.open_views()
            .any(|v| matches!(v, View::File { path: p, .. } if p == path))
    }

    /// The items from `index` on, rendered as in [`Window::render`] but
    /// without the system prompt and pinned block (what arrived since).
    pub fn render_from(&self, index: usize) -> String {
        self.render_where(index, |_| true)
    }

    /// The items from `index` on that `keep` accepts, rendered as in
    /// [`Window::render_from`].
    pub fn render_where(&self, index: usize, keep: impl Fn(&ItemBody) -> bool) -> String {
        let mut out = String::new();
        for item in self.items.iter().skip(index).filter(|i| keep(&i.body)) {
            render::render_item(&mut out, &item.body);
        }
        out
    }

    /// The window as a model reads it. A thread that only grew since the
    /// last render is rendered only from where that render ended.
    pub fn render(&self) -> String {
        self.rendered
            .borrow_mut()
            .render(&self.system_prompt, &self.pinned, &self.items)
    }

    /// What a store must write to bring its copy of the window up to this
    /// one (the header is always written: it is small).
    pub fn unstored(&self) -> WindowWrite<'_> {
        self.journal.unstored(&self.items)
    }

    /// Records that a store now holds the window as it stands.
    pub fn mark_stored(&mut self) {
        self.journal.stored(self.items.len());
    }
}

/// Whether an item shows an open view: a view not closed, or a
/// `read_file` result (a file view until a compaction).
fn shows_open_view(body: &ItemBody) -> bool {
    matches!(
        body,
        ItemBody::View { open: true, .. } | ItemBody::ToolResult { view: Some(_), .. }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(label: &str, body: &str) -> View {
        View::Text {
            label: label.into(),
            body: body.into(),
        }
    }

    #[test]
    fn reopening_a_label_supersedes_and_close_hides() {
        let mut w = Window::default();
        w.open_view(1, text("notes", "v1"));
        w.open_view(2, text("notes", "v2"));
        assert_eq!(w.open_views().count(), 1);
        let r = w.render();
        assert!(r.contains("v2") && !r.contains("v1"), "{r}");
        assert_eq!(w.close("notes").unwrap(), 1);
        assert!(!w.render().contains("v2"));
        let err = w.close("notes").unwrap_err();
        assert!(err.message.contains("no views are open"), "{}", err.message);
    }

    #[test]
    fn appending_keeps_the_previous_render_a_prefix() {
        let mut w = Window {
            system_prompt: "sys".into(),
            ..Default::default()
        };
        w.push(
            1,
            ItemBody::Program {
                id: Some("p1".into()),
                source: "1".into(),
            },
        );
        let before = w.render();
        w.push(
            2,
            ItemBody::Notice {
                text: "news".into(),
            },
        );
        assert!(w.render().starts_with(&before));
    }

    #[test]
    fn round_trips_through_json() {
        let mut w = Window::default();
        w.open_view(1, text("a", "b"));
        w.push(
            1,
            ItemBody::Acknowledgement(Acknowledgement {
                program_id: Some("p1".into()),
                status: RunStatus::Ok,
                value: Some("3".into()),
                console: vec![ConsoleLine {
                    level: "log".into(),
                    text: "hi".into(),
                }],
                error: None,
                notes: vec![],
            }),
        );
        let json = serde_json::to_string(&w).unwrap();
        let back: Window = serde_json::from_str(&json).unwrap();
        assert_eq!(back, w);
    }

    /// The render a window reuses must equal a render from scratch,
    /// through appends, closes and supersedes far back, and a compaction.
    #[test]
    fn a_reused_render_equals_a_fresh_one() {
        let mut w = Window::new("sys".into(), "pins".into());
        let fresh = |w: &Window| {
            Window::from_parts(w.system_prompt.clone(), w.pinned.clone(), w.items.clone()).render()
        };
        for turn in 1..=30 {
            w.push(
                turn,
                ItemBody::Notice {
                    text: format!("n{turn}"),
                },
            );
            w.open_view(
                turn,
                text(&format!("v{}", turn % 4), &format!("body {turn}")),
            );
            assert_eq!(w.render(), fresh(&w), "turn {turn}");
        }
        w.close("v1").unwrap();
        assert_eq!(w.render(), fresh(&w));
        w.pinned = "new pins".into();
        assert_eq!(w.render(), fresh(&w));
        w.clear_thread();
        w.push(31, ItemBody::Summary { text: "s".into() });
        assert_eq!(w.render(), fresh(&w));
    }

    /// A store is asked for what it does not hold: appended items, earlier
    /// ones a close changed, or the whole thread after a compaction.
    #[test]
    fn unstored_names_only_what_changed() {
        let mut w = Window::default();
        w.open_view(1, text("a", "1"));
        w.push(1, ItemBody::Notice { text: "n".into() });
        assert!(matches!(w.unstored(), WindowWrite::Changed(c) if c.len() == 2));
        w.mark_stored();
        assert_eq!(w.unstored(), WindowWrite::Changed(vec![]));
        w.open_view(2, text("a", "2"));
        let WindowWrite::Changed(changed) = w.unstored() else {
            panic!("not a compaction")
        };
        let at: Vec<usize> = changed.iter().map(|(at, _)| *at).collect();
        assert_eq!(at, vec![0, 2], "the superseded view and the new one");
        w.mark_stored();
        w.clear_thread();
        w.push(3, ItemBody::Summary { text: "s".into() });
        assert!(matches!(w.unstored(), WindowWrite::Whole(items) if items.len() == 1));
    }
}
