//! Views: material opened into the agent's window. A view opened during a
//! turn arrives in the window on the next turn, never in the program's own
//! output.

use serde::{Deserialize, Serialize};

use crate::error::{GgError, GgResult};
use crate::workspace::Workspace;

mod region;

/// Lines a file view shows when the program names no limit and the profile
/// sets no `read-file` `lineCap`.
pub const DEFAULT_LINE_CAP: usize = 2000;

/// One view in the agent's window.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum View {
    /// A region of a workspace file, as the read returned it.
    #[serde(rename_all = "camelCase")]
    File {
        /// Workspace-relative path, normalized (`src/a.rs`).
        path: String,
        /// First line shown, 1-based.
        offset: usize,
        /// Lines shown (the region the read returned, after any cap).
        limit: usize,
        /// Lines the file had when it was read.
        total_lines: usize,
        /// The lines shown, joined by `\n`.
        content: String,
        /// Whether the one line shown was cut at the profile's
        /// `outputChars` (a line longer than a view may show).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        cut: bool,
    },
    /// Material the agent composed; the window is its only copy.
    Text {
        /// What the agent named it; `views.close` matches it.
        label: String,
        /// The material itself.
        body: String,
    },
    /// One function of a loaded code memory.
    #[serde(rename_all = "camelCase")]
    Documentation {
        /// The module key (`csvTools`).
        key: String,
        /// The memory the key belongs to (`csv-tools`); empty in a view an
        /// older gg stored.
        #[serde(default)]
        slug: String,
        /// The function's exported name (`default` for a default export).
        function: String,
        /// `name<T>(params): ReturnType`, as the author wrote it.
        signature: String,
        /// The JSDoc block above the function, if it has one.
        doc: Option<String>,
    },
}

impl View {
    /// Bytes of text the view holds (what the host keeps of it).
    pub fn held_bytes(&self) -> usize {
        match self {
            View::File { path, content, .. } => path.len() + content.len(),
            View::Text { label, body } => label.len() + body.len(),
            View::Documentation {
                key,
                slug,
                function,
                signature,
                doc,
            } => {
                key.len()
                    + slug.len()
                    + function.len()
                    + signature.len()
                    + doc.as_ref().map_or(0, String::len)
            }
        }
    }

    /// What `views.close(...)` matches: a file's path, a text view's
    /// label, or a documentation view's `key.function` (as its heading
    /// shows it).
    pub fn close_name(&self) -> Option<std::borrow::Cow<'_, str>> {
        match self {
            View::File { path, .. } => Some(path.into()),
            View::Text { label, .. } => Some(label.into()),
            View::Documentation { key, function, .. } => Some(format!("{key}.{function}").into()),
        }
    }

    /// `file src/a.rs (lines 1-3)`, `text plan`, `documentation csvTools.parseCsv`.
    pub fn describe(&self) -> String {
        match self {
            View::File {
                path,
                offset,
                limit,
                ..
            } => format!(
                "file {path} (lines {offset}-{})",
                offset + limit.saturating_sub(1)
            ),
            View::Text { label, .. } => format!("text {label}"),
            View::Documentation { key, function, .. } => format!("documentation {key}.{function}"),
        }
    }

    /// The line a program writes to reach a documented function.
    pub fn import_line(key: &str, function: &str) -> String {
        if function == "default" {
            format!("import {key} from \"{key}\";")
        } else {
            format!("import {{ {function} }} from \"{key}\";")
        }
    }

    /// The documentation key a desk records: `key.function`.
    pub fn documentation_key(&self) -> Option<String> {
        match self {
            View::Documentation { key, function, .. } => Some(format!("{key}.{function}")),
            _ => None,
        }
    }
}

/// Reads a region of a workspace file into a file view.
///
/// `offset` is the first line (1-based, default 1); `limit` the most lines
/// (default and ceiling `line_cap`); `char_cap` the most characters the
/// view shows (the profile's `outputChars`): the region ends before the
/// first line that would pass it, and a first line longer than it is shown
/// cut. The file is read through once and never held whole, so a file of
/// gigabytes costs the region's size, not its own.
pub fn read_file_view(
    workspace: &Workspace,
    path: &str,
    offset: Option<usize>,
    limit: Option<usize>,
    line_cap: usize,
    char_cap: usize,
) -> GgResult<View> {
    let path_q = crate::Quoted(path);
    let offset = offset.unwrap_or(1);
    if offset == 0 {
        return Err(GgError::invalid("offset is the first line to show and counts from 1; pass 1 (or omit it) for the start of the file."));
    }
    if limit == Some(0) {
        return Err(GgError::invalid("limit is how many lines to show and must be at least 1; omit it to show up to the line cap."));
    }
    let cap = line_cap.max(1);
    let want = limit.unwrap_or(cap).min(cap);
    let file = workspace.open_file(path)?;
    let region = region::read(file, offset - 1, want, char_cap.max(1))
        .map_err(|e| GgError::io(format!("cannot read {path_q:?}: {e}")))?
        .ok_or_else(|| crate::workspace::not_text(path))?;
    let total_lines = region.total_lines;
    if offset > total_lines.max(1) {
        return Err(GgError::invalid(format!(
            "offset {offset} is past the end of {path_q:?}, which has {total_lines} lines."
        )));
    }
    Ok(View::File {
        path: normalize(path),
        offset,
        limit: region.lines,
        total_lines,
        content: region.content,
        cut: region.cut,
    })
}

/// `./src//a.rs` → `src/a.rs`, so one file is one path in the window.
fn normalize(path: &str) -> String {
    std::path::Path::new(path)
        .components()
        .filter_map(|c| match c {
            std::path::Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_requested_region_within_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        let body: String = (1..=10).map(|i| format!("line {i}\n")).collect();
        std::fs::write(dir.path().join("f.txt"), body).unwrap();
        let ws = Workspace::new(dir.path()).unwrap();
        let View::File {
            offset,
            limit,
            total_lines,
            content,
            ..
        } = read_file_view(&ws, "./f.txt", Some(3), Some(4), 100, usize::MAX).unwrap()
        else {
            panic!()
        };
        assert_eq!((offset, limit, total_lines), (3, 4, 10));
        assert_eq!(content, "line 3\nline 4\nline 5\nline 6");
        let View::File { limit, .. } =
            read_file_view(&ws, "f.txt", None, None, 2, usize::MAX).unwrap()
        else {
            panic!()
        };
        assert_eq!(limit, 2, "the cap reduces the window");
        assert!(read_file_view(&ws, "f.txt", Some(11), None, 100, usize::MAX).is_err());
        assert!(read_file_view(&ws, "f.txt", Some(0), None, 100, usize::MAX).is_err());
    }

    #[test]
    fn a_line_longer_than_a_view_may_show_is_said_to_be_cut() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("f.txt"), format!("{}\nb\n", "a".repeat(50))).unwrap();
        let ws = Workspace::new(dir.path()).unwrap();
        let cut = read_file_view(&ws, "f.txt", None, None, 100, 10).unwrap();
        assert_eq!(
            crate::window::file_view_text(&cut).unwrap(),
            format!(
                "    1  {}\n(line 1 is cut after 10 characters: it is longer than a view may show)\n",
                "a".repeat(10)
            )
        );
        let whole = read_file_view(&ws, "f.txt", Some(2), None, 100, 10).unwrap();
        assert_eq!(crate::window::file_view_text(&whole).unwrap(), "    2  b\n");
        // A window restored from before views said so reads as whole.
        let old: View = serde_json::from_str(
            r#"{"kind":"file","path":"f.txt","offset":2,"limit":1,"totalLines":2,"content":"b"}"#,
        )
        .unwrap();
        assert_eq!(old, whole);
        assert!(!serde_json::to_string(&whole).unwrap().contains("cut"));
    }
}
