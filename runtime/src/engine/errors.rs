//! Uncaught errors, located in the TypeScript the author wrote.

use std::rc::Rc;

use deno_core::error::{CoreError, CoreErrorKind, JsError};
use gg_transpiler::{PositionMap, SourcePosition};

/// Finds a module's display name and position map by specifier.
pub(crate) type Positions<'a> = dyn Fn(&str) -> Option<(String, Rc<PositionMap>)> + 'a;

/// One stack frame in an author's module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// The module's display name (`p3.ts`, `csvTools.ts`).
    pub file: String,
    /// The TypeScript line, from 1.
    pub line: usize,
    /// The TypeScript column, from 1.
    pub column: usize,
    /// The function's name; `None` at module level or when anonymous.
    pub function: Option<String>,
}

/// An uncaught exception or rejection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThrownError {
    /// `Error: boom`, `TypeError: x is not a function`, `42` for a thrown non-Error.
    pub message: String,
    /// Frames in gg modules, innermost first, in TypeScript positions.
    pub frames: Vec<Frame>,
}

impl ThrownError {
    /// An error with no frames.
    pub fn plain(message: String) -> Self {
        ThrownError {
            message,
            frames: Vec::new(),
        }
    }

    /// `message (at file:line:col)`, plus further frames.
    pub fn render(&self) -> String {
        let mut out = self.message.clone();
        for frame in &self.frames {
            let func = frame
                .function
                .as_deref()
                .map(|f| format!("{f} "))
                .unwrap_or_default();
            out.push_str(&format!(
                "\n    at {func}{}:{}:{}",
                frame.file, frame.line, frame.column
            ));
        }
        out
    }

    /// The innermost located frame, `file:line:col`.
    pub fn location(&self) -> Option<String> {
        self.frames
            .first()
            .map(|f| format!("{}:{}:{}", f.file, f.line, f.column))
    }
}

pub(crate) fn from_core_error(error: CoreError, positions: &Positions<'_>) -> ThrownError {
    match *error.0 {
        CoreErrorKind::Js(js) => from_js_error(&js, positions),
        CoreErrorKind::PendingPromiseResolution => ThrownError::plain(
            "the program's top-level await never settled: it awaited a promise nothing will resolve.".to_string(),
        ),
        other => ThrownError::plain(strip_uncaught(&other.to_string())),
    }
}

fn from_js_error(js: &JsError, positions: &Positions<'_>) -> ThrownError {
    let message = strip_uncaught(&js.exception_message);
    let mut frames: Vec<Frame> = js
        .frames
        .iter()
        .filter_map(|f| {
            let file = f.file_name.as_deref()?;
            let (display, map) = positions(file)?;
            let generated = SourcePosition {
                line: f.line_number? as usize,
                column: f.column_number.unwrap_or(1).max(1) as usize,
            };
            let original = map.original(generated).unwrap_or(generated);
            Some(Frame {
                file: display.clone(),
                line: original.line,
                column: original.column,
                function: f.function_name.clone().filter(|n| !n.is_empty()),
            })
        })
        .collect();
    if frames.is_empty() {
        // A syntax error in a module or a frame-less engine error: look for
        // `specifier:line:col` in the stack text.
        if let Some(frame) = scan_stack(
            js.stack.as_deref().unwrap_or(&js.exception_message),
            positions,
        ) {
            frames.push(frame);
        }
    }
    ThrownError { message, frames }
}

fn scan_stack(stack: &str, positions: &Positions<'_>) -> Option<Frame> {
    // Frames read `gg:program/p1.ts:3:5`, possibly inside parentheses.
    for (at, _) in stack.match_indices("gg:") {
        let token: String = stack[at..]
            .chars()
            .take_while(|c| !c.is_whitespace() && *c != ')')
            .collect();
        let mut parts = token.rsplitn(3, ':');
        let (Some(column), Some(line), Some(specifier)) =
            (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let (Ok(line), Ok(column)) = (line.parse::<usize>(), column.parse::<usize>()) else {
            continue;
        };
        let Some((display, map)) = positions(specifier) else {
            continue;
        };
        let generated = SourcePosition { line, column };
        let original = map.original(generated).unwrap_or(generated);
        return Some(Frame {
            file: display,
            line: original.line,
            column: original.column,
            function: None,
        });
    }
    None
}

fn strip_uncaught(message: &str) -> String {
    let m = message.strip_prefix("Uncaught ").unwrap_or(message);
    let m = m.strip_prefix("(in promise) ").unwrap_or(m);
    m.to_string()
}
