//! Uncaught errors, located in the TypeScript the author wrote.

use std::collections::HashMap;
use std::rc::Rc;

use deno_core::error::{CoreError, CoreErrorKind, JsError};
use gg_transpiler::{PositionMap, SourcePosition};

/// One stack frame in an author's module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// The module's display name (`p3.ts`, `csvTools.ts`).
    pub file: String,
    pub line: usize,
    pub column: usize,
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

pub(crate) fn from_core_error(
    error: CoreError,
    positions: &HashMap<String, (String, Rc<PositionMap>)>,
) -> ThrownError {
    match *error.0 {
        CoreErrorKind::Js(js) => from_js_error(&js, positions),
        CoreErrorKind::PendingPromiseResolution => ThrownError::plain(
            "the program's top-level await never settled: it awaited a promise nothing will resolve.".to_string(),
        ),
        other => ThrownError::plain(strip_uncaught(&other.to_string())),
    }
}

fn from_js_error(
    js: &JsError,
    positions: &HashMap<String, (String, Rc<PositionMap>)>,
) -> ThrownError {
    let message = strip_uncaught(&js.exception_message);
    let mut frames: Vec<Frame> = js
        .frames
        .iter()
        .filter_map(|f| {
            let file = f.file_name.as_deref()?;
            let (display, map) = positions.get(file)?;
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

fn scan_stack(
    stack: &str,
    positions: &HashMap<String, (String, Rc<PositionMap>)>,
) -> Option<Frame> {
    for (specifier, (display, map)) in positions {
        let Some(at) = stack.find(specifier.as_str()) else {
            continue;
        };
        let rest = &stack[at + specifier.len()..];
        let mut parts = rest.strip_prefix(':')?.split(|c: char| !c.is_ascii_digit());
        let line: usize = parts.next()?.parse().ok()?;
        let column: usize = parts.next().and_then(|c| c.parse().ok()).unwrap_or(1);
        let original = map
            .original(SourcePosition { line, column })
            .unwrap_or(SourcePosition { line, column });
        return Some(Frame {
            file: display.clone(),
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
