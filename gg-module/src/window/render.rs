//! The window as a model reads it, and the render a long thread reuses:
//! a turn that only appended renders only what it appended.

use super::{Item, ItemBody, View};

pub(super) fn render_item(out: &mut String, body: &ItemBody) {
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

/// A file view's lines as a tool result gives them: numbered, and a line
/// cut at the profile's `outputChars` said to be cut. `None` for any other
/// view.
pub fn file_view_text(view: &View) -> Option<String> {
    let View::File {
        offset,
        content,
        cut,
        ..
    } = view
    else {
        return None;
    };
    let mut text = numbered_lines(*offset, content);
    if *cut {
        text.push_str(&format!(
            "(line {offset} is cut after {} characters: it is longer than a view may show)\n",
            content.chars().count()
        ));
    }
    Some(text)
}

fn render_view(out: &mut String, view: &View) {
    match view {
        View::File {
            path,
            offset,
            limit,
            total_lines,
            content,
            cut,
        } => {
            let last = offset + limit.saturating_sub(1);
            if *cut {
                // One line longer than a view may show: say so, and where.
                let shown = content.chars().count();
                out.push_str(&format!(
                    "--- view: file {path} (line {offset} of {total_lines}, cut after {shown} characters) ---\n"
                ));
            } else {
                out.push_str(&format!(
                    "--- view: file {path} (lines {offset}-{last} of {total_lines}) ---\n"
                ));
            }
            out.push_str(&numbered_lines(*offset, content));
        }
        View::Text { label, body } => {
            out.push_str(&format!("--- view: text {label} ---\n"));
            out.push_str(body.trim_end());
            out.push('\n');
        }
        View::Documentation {
            key,
            slug,
            function,
            signature,
            doc,
        } => {
            out.push_str(&format!("--- view: documentation {key}.{function} ---\n"));
            out.push_str(&View::import_line(key, function));
            if !slug.is_empty() {
                out.push_str(&format!(" // the code of memory \"{slug}\""));
            }
            out.push('\n');
            out.push_str(&format!("{signature}\n"));
            if let Some(doc) = doc {
                out.push_str(doc.trim_end());
                out.push('\n');
            }
        }
    }
}

/// The last render of a window, reused while its header and the items it
/// covers are unchanged.
#[derive(Debug, Clone, Default)]
pub(super) struct RenderCache {
    /// The header it was rendered with (system prompt, pinned block):
    /// compared, not tracked, because both are public fields.
    system_prompt: String,
    pinned: String,
    /// The rendered text.
    text: String,
    /// Where each rendered item starts in `text`, by position.
    starts: Vec<usize>,
}

impl RenderCache {
    /// Forgets the render of the items from `at` on.
    pub(super) fn changed_from(&mut self, at: usize) {
        if at < self.starts.len() {
            self.text.truncate(self.starts[at]);
            self.starts.truncate(at);
        }
    }

    /// The whole window rendered, extending the last render.
    pub(super) fn render(&mut self, system_prompt: &str, pinned: &str, items: &[Item]) -> String {
        if self.system_prompt != system_prompt
            || self.pinned != pinned
            || self.starts.len() > items.len()
            || self.text.is_empty()
        {
            *self = RenderCache {
                system_prompt: system_prompt.to_string(),
                pinned: pinned.to_string(),
                ..Default::default()
            };
            self.text.push_str("=== system ===\n");
            self.text.push_str(system_prompt);
            self.text.push('\n');
            if !pinned.is_empty() {
                self.text.push_str("=== pinned ===\n");
                self.text.push_str(pinned);
                self.text.push('\n');
            }
        }
        let from = self.starts.len();
        let mut turn = from.checked_sub(1).map(|last| items[last].turn);
        for item in &items[from..] {
            self.starts.push(self.text.len());
            if turn != Some(item.turn) {
                turn = Some(item.turn);
                if item.turn == 0 {
                    self.text.push_str("=== opening ===\n");
                } else {
                    self.text.push_str(&format!("=== turn {} ===\n", item.turn));
                }
            }
            render_item(&mut self.text, &item.body);
        }
        self.text.clone()
    }
}
