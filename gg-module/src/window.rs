//! The agent's context window: what the model sees on its next turn.
//!
//! A window is a system prompt, a pinned block (rebuilt only at a compaction
//! boundary or an agent's first turn) and the thread: programs and their
//! acknowledgements, native tool calls and results, views, notices. New
//! material is only ever appended, so a previous render stays a prefix of the
//! next one unless the agent itself closes a view or a compaction rewrites
//! the thread.

use serde::{Deserialize, Serialize};

use crate::error::{GgError, GgResult};
use crate::views::View;

/// The whole window: system prompt, pinned block and thread.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Window {
    /// The system prompt, rendered first.
    pub system_prompt: String,
    /// The pinned block; empty renders nothing.
    pub pinned: String,
    /// The thread, oldest first.
    pub items: Vec<Item>,
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

/// How a program's run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum RunStatus {
    /// Ran to the end.
    Ok,
    /// Did not transpile.
    CompileError,
    /// Threw (or rejected) an uncaught value.
    Threw,
    /// Stopped by a limit: time, heap or output.
    Ceiling,
}

/// One line a program wrote to its console.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsoleLine {
    /// `log`, `info`, `debug`, `warn` or `error`.
    pub level: String,
    /// The line's text.
    pub text: String,
}

/// What gg answers a submitted program with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Acknowledgement {
    /// The id the program library minted; `None` for an agent with no
    /// library, whose acknowledgement is the fixed `ok`.
    pub program_id: Option<String>,
    /// How the run ended.
    pub status: RunStatus,
    /// The program's value, rendered (JSON where it is JSON).
    pub value: Option<String>,
    /// What the program logged, in order.
    pub console: Vec<ConsoleLine>,
    /// What went wrong, located in the program's own lines.
    pub error: Option<String>,
    /// Notes from gg about the run (an output cap reached, timers cancelled).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl Acknowledgement {
    /// The first line: the id and how the run ended.
    pub fn headline(&self) -> String {
        let id = match &self.program_id {
            Some(id) => id.as_str(),
            None if self.status == RunStatus::Ok => return "ok".to_string(),
            None => "program",
        };
        match self.status {
            RunStatus::Ok => format!("{id}: ok"),
            RunStatus::CompileError => format!("{id}: did not compile"),
            RunStatus::Threw => format!("{id}: threw"),
            RunStatus::Ceiling => format!("{id}: stopped at a limit"),
        }
    }

    /// The acknowledgement as the model reads it: the headline, then the
    /// value, console lines, error and notes that are present.
    pub fn render(&self) -> String {
        let mut out = self.headline();
        if let Some(value) = &self.value {
            out.push_str("\nvalue: ");
            out.push_str(value);
        }
        if !self.console.is_empty() {
            out.push_str("\nconsole:");
            for line in &self.console {
                out.push_str(&format!("\n  [{}] {}", line.level, line.text));
            }
        }
        if let Some(error) = &self.error {
            out.push_str("\nerror: ");
            out.push_str(error);
        }
        for note in &self.notes {
            out.push_str("\nnote: ");
            out.push_str(note);
        }
        out
    }
}

impl Window {
    /// Appends `body` to the thread as part of `turn`.
    pub fn push(&mut self, turn: u32, body: ItemBody) {
        self.items.push(Item { turn, body });
    }

    /// Appends a view; a text view supersedes an open one with its label.
    pub fn open_view(&mut self, turn: u32, view: View) {
        if let View::Text { label, .. } = &view {
            for item in &mut self.items {
                if let ItemBody::View {
                    view: View::Text { label: old, .. },
                    open,
                    ..
                } = &mut item.body
                {
                    if old == label {
                        *open = false;
                    }
                }
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
        let mut closed = 0;
        for item in &mut self.items {
            if let ItemBody::View {
                view,
                open: open @ true,
                locked: false,
            } = &mut item.body
            {
                if view.close_name() == Some(wanted) {
                    *open = false;
                    closed += 1;
                }
            }
        }
        if closed == 0 {
            let open: Vec<String> = self
                .open_views()
                .filter_map(|v| v.close_name().map(|n| format!("{n:?}")))
                .collect();
            let listing = if open.is_empty() {
                "no views are open".to_string()
            } else {
                format!("open: {}", open.join(", "))
            };
            return Err(GgError::not_found(format!(
                "no open view is called {name:?} ({listing})."
            )));
        }
        Ok(closed)
    }

    /// Open views in the order they were opened (a `read_file` result in
    /// tool-calling mode is one).
    pub fn open_views(&self) -> impl Iterator<Item = &View> {
        self.items.iter().filter_map(|item| match &item.body {
            ItemBody::View {
                view, open: true, ..
            } => Some(view),
            ItemBody::ToolResult {
                view: Some(view), ..
            } => Some(view),
            _ => None,
        })
    }

    /// Open views a desk records: open, and not locked by autoload.
    pub fn desk_views(&self) -> impl Iterator<Item = &View> {
        self.items.iter().filter_map(|item| match &item.body {
            ItemBody::View {
                view,
                open: true,
                locked: false,
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
        let mut out = String::new();
        for item in self.items.iter().skip(index) {
            render_item(&mut out, &item.body);
        }
        out
    }

    /// The window as a model reads it.
    pub fn render(&self) -> String {
        let mut out = String::new();
        out.push_str("=== system ===\n");
        out.push_str(&self.system_prompt);
        out.push('\n');
        if !self.pinned.is_empty() {
            out.push_str("=== pinned ===\n");
            out.push_str(&self.pinned);
            out.push('\n');
        }
        let mut turn = None;
        for item in &self.items {
            if turn != Some(item.turn) {
                turn = Some(item.turn);
                if item.turn == 0 {
                    out.push_str("=== opening ===\n");
                } else {
                    out.push_str(&format!("=== turn {} ===\n", item.turn));
                }
            }
            render_item(&mut out, &item.body);
        }
        out
    }
}

fn render_item(out: &mut String, body: &ItemBody) {
    match body {
        ItemBody::Program { id, source } => {
            out.push_str(&format!(
                "--- program {} ---\n",
                id.as_deref().unwrap_or("")
            ));
            out.push_str(source.trim_end());
            out.push('\n');
        }
        ItemBody::Acknowledgement(ack) => {
            out.push_str("--- acknowledgement ---\n");
            out.push_str(&ack.render());
            out.push('\n');
        }
        ItemBody::ToolCall {
            call_id,
            name,
            arguments,
        } => {
            out.push_str(&format!(
                "--- tool call {call_id}: {name} ---\n{arguments}\n"
            ));
        }
        ItemBody::ToolResult {
            call_id,
            content,
            is_error,
            ..
        } => {
            let mark = if *is_error { " (error)" } else { "" };
            out.push_str(&format!("--- tool result {call_id}{mark} ---\n{content}\n"));
        }
        // Closed or superseded: a one-line stub, the content freed.
        ItemBody::View {
            view, open: false, ..
        } => {
            out.push_str(&format!("--- view: {} (closed) ---\n", view.describe()));
        }
        ItemBody::View { view, .. } => render_view(out, view),
        ItemBody::Notice { text } => {
            out.push_str("--- notice ---\n");
            out.push_str(text.trim_end());
            out.push('\n');
        }
        ItemBody::Summary { text } => {
            out.push_str("--- summary ---\n");
            out.push_str(text.trim_end());
            out.push('\n');
        }
    }
}

/// A file region's lines, numbered as a model reads them.
pub fn numbered_lines(offset: usize, content: &str) -> String {
    let mut out = String::new();
    for (i, line) in content.lines().enumerate() {
        out.push_str(&format!("{:>5}  {line}\n", offset + i));
    }
    out
}

fn render_view(out: &mut String, view: &View) {
    match view {
        View::File {
            path,
            offset,
            limit,
            total_lines,
            content,
        } => {
            let last = offset + limit.saturating_sub(1);
            out.push_str(&format!(
                "--- view: file {path} (lines {offset}-{last} of {total_lines}) ---\n"
            ));
            out.push_str(&numbered_lines(*offset, content));
        }
        View::Text { label, body } => {
            out.push_str(&format!("--- view: text {label} ---\n"));
            out.push_str(body.trim_end());
            out.push('\n');
        }
        View::Documentation {
            key,
            function,
            signature,
            doc,
        } => {
            out.push_str(&format!("--- view: documentation {key}.{function} ---\n"));
            out.push_str(&format!("{}\n", View::import_line(key, function)));
            out.push_str(&format!("{signature}\n"));
            if let Some(doc) = doc {
                out.push_str(doc.trim_end());
                out.push('\n');
            }
        }
    }
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
}
