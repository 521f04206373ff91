//! The desk a persistent profile's instance leaves for the next one: the
//! views still open when it finished, recorded by reference (a file's path
//! and the region the read returned, never its bytes), a text view's label
//! and body, a documentation view's key.

use serde::{Deserialize, Serialize};

use crate::views::View;
use crate::window::Window;

/// One view on a desk, recorded as what restores it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum DeskView {
    /// A file view: the path and line region, re-read from the workspace.
    File {
        /// Workspace-relative path.
        path: String,
        /// First line the read returned, 1-based.
        offset: usize,
        /// Lines the read returned (after any cap).
        limit: usize,
    },
    /// A text view, handed back verbatim.
    Text {
        /// The label the agent opened it under.
        label: String,
        /// The body; the desk is its only copy.
        body: String,
    },
    /// A documentation view, rendered again for the arriving instance's scope.
    Documentation {
        /// `key.function`, as [`View::documentation_key`] spells it.
        key: String,
    },
}

/// The views a persistent profile's instance still had open when it finished.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Desk {
    /// Open views in the order they were opened.
    pub views: Vec<DeskView>,
}

impl Desk {
    /// What is open in `window` now, in the order it was opened.
    pub fn from_window(window: &Window) -> Desk {
        let views = window
            .desk_views()
            .map(|view| match view {
                View::File {
                    path,
                    offset,
                    limit,
                    ..
                } => DeskView::File {
                    path: path.clone(),
                    offset: *offset,
                    limit: *limit,
                },
                View::Text { label, body } => DeskView::Text {
                    label: label.clone(),
                    body: body.clone(),
                },
                View::Documentation { .. } => DeskView::Documentation {
                    key: view.documentation_key().expect("a doc view"),
                },
            })
            .collect();
        Desk { views }
    }

    /// Whether nothing was open.
    pub fn is_empty(&self) -> bool {
        self.views.is_empty()
    }

    /// The views in restore order: file views, then text views, then
    /// documentation views, each kind in the order it was opened.
    pub fn restore_order(&self) -> Vec<&DeskView> {
        let rank = |v: &DeskView| match v {
            DeskView::File { .. } => 0,
            DeskView::Text { .. } => 1,
            DeskView::Documentation { .. } => 2,
        };
        let mut views: Vec<&DeskView> = self.views.iter().collect();
        views.sort_by_key(|v| rank(v));
        views
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_open_views_by_reference_and_restores_files_first() {
        let mut w = Window::default();
        w.open_view(
            1,
            View::Text {
                label: "t".into(),
                body: "b".into(),
            },
        );
        w.open_view(
            1,
            View::File {
                path: "a.rs".into(),
                offset: 3,
                limit: 2,
                total_lines: 9,
                content: "x\ny".into(),
                cut: false,
            },
        );
        w.open_view(
            1,
            View::Text {
                label: "gone".into(),
                body: "b".into(),
            },
        );
        w.close("gone").unwrap();
        w.open_view(
            1,
            View::Documentation {
                key: "k".into(),
                slug: "k".into(),
                function: "f".into(),
                signature: "f()".into(),
                doc: None,
            },
        );
        w.open_view(
            1,
            View::File {
                path: "a.rs".into(),
                offset: 10,
                limit: 1,
                total_lines: 9,
                content: "z".into(),
                cut: false,
            },
        );
        let desk = Desk::from_window(&w);
        assert_eq!(
            desk.views.len(),
            4,
            "a closed view is not carried; a file in two windows is two views"
        );
        let order: Vec<String> = desk
            .restore_order()
            .iter()
            .map(|v| format!("{v:?}"))
            .collect();
        assert!(
            order[0].contains("offset: 3") && order[1].contains("offset: 10"),
            "{order:?}"
        );
        assert!(
            order[2].starts_with("Text") && order[3].starts_with("Documentation"),
            "{order:?}"
        );
        assert!(
            !serde_json::to_string(&desk).unwrap().contains("x\\ny"),
            "file bytes are never recorded"
        );
    }
}
