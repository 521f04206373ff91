//! Uncaught errors, located in the TypeScript the author wrote.
//!
//! deno_core maps each stack frame through the source maps the loader
//! serves (see `loader.rs`) before an error reaches here, caught or not: a
//! frame of an author's module comes named by its display name, in
//! TypeScript positions. A frame still named by its specifier is one
//! deno_core could not map, and is mapped here.

use deno_core::error::{CoreError, CoreErrorKind, JsError};
use gg_transpiler::SourcePosition;

use super::loader::GgLoader;

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

pub(crate) fn from_core_error(error: CoreError, modules: &GgLoader) -> ThrownError {
    match *error.0 {
        CoreErrorKind::Js(js) => from_js_error(&js, modules),
        CoreErrorKind::PendingPromiseResolution => ThrownError::plain(
            "the program's top-level await never settled: it awaited a promise nothing will resolve.".to_string(),
        ),
        other => ThrownError::plain(strip_uncaught(&other.to_string())),
    }
}

fn from_js_error(js: &JsError, modules: &GgLoader) -> ThrownError {
    let message = strip_uncaught(&js.exception_message);
    let mut frames: Vec<Frame> = js
        .frames
        .iter()
        .filter_map(|f| {
            let generated = SourcePosition {
                line: f.line_number? as usize,
                column: f.column_number.unwrap_or(1).max(1) as usize,
            };
            let (file, at) = locate(f.file_name.as_deref()?, generated, modules)?;
            Some(Frame {
                file,
                line: at.line,
                column: at.column,
                function: f.function_name.clone().filter(|n| !n.is_empty()),
            })
        })
        .collect();
    if frames.is_empty() {
        // A syntax error in a module or a frame-less engine error: look for
        // `file:line:col` in the stack text.
        if let Some(frame) = scan_stack(
            js.stack.as_deref().unwrap_or(&js.exception_message),
            modules,
        ) {
            frames.push(frame);
        }
    }
    ThrownError { message, frames }
}

/// Where a frame at `file:line:col` is in the author's TypeScript: as it is
/// when `file` is a display name a source map gave it, mapped here when it
/// is an author's module's specifier; `None` for a frame of anything else
/// (`gg`, the web layer).
fn locate(file: &str, at: SourcePosition, modules: &GgLoader) -> Option<(String, SourcePosition)> {
    if let Some((display, map)) = modules.located(file) {
        return Some((display, map.original(at).unwrap_or(at)));
    }
    modules.is_mapped_name(file).then(|| (file.to_string(), at))
}

fn scan_stack(stack: &str, modules: &GgLoader) -> Option<Frame> {
    // Frames read `p1.ts:3:5` (mapped) or `gg:program/p1.ts:3:5`, possibly
    // inside parentheses.
    let tokens = stack.split(|c: char| c.is_whitespace() || c == '(' || c == ')');
    for token in tokens {
        let specifier_at = token.find("gg:").filter(|at| *at > 0);
        for candidate in std::iter::once(token).chain(specifier_at.map(|at| &token[at..])) {
            let mut parts = candidate.rsplitn(3, ':');
            let (Some(column), Some(line), Some(file)) = (parts.next(), parts.next(), parts.next())
            else {
                continue;
            };
            let (Ok(line), Ok(column)) = (line.parse::<usize>(), column.parse::<usize>()) else {
                continue;
            };
            if let Some((file, at)) = locate(file, SourcePosition { line, column }, modules) {
                return Some(Frame {
                    file,
                    line: at.line,
                    column: at.column,
                    function: None,
                });
            }
        }
    }
    None
}

fn strip_uncaught(message: &str) -> String {
    let m = message.strip_prefix("Uncaught ").unwrap_or(message);
    let m = m.strip_prefix("(in promise) ").unwrap_or(m);
    m.to_string()
}

#[cfg(test)]
mod tests {
    use std::rc::Rc;

    use deno_core::ModuleLoader;

    use super::*;

    /// A loader running program `p1.ts`, whose third TypeScript line is the
    /// first line of its JavaScript (the enum sends it through the full
    /// pipeline, which moves positions; erased types keep them).
    fn running_p1() -> GgLoader {
        let source = "type A = number;\ninterface B { b: A }\nexport const x = (1 as any).y.z;\nenum E { One }\n";
        let transpiled = gg_transpiler::transpile(source, "p1.ts").expect("compiles");
        assert!(transpiled.code.starts_with("export const x"));
        let loader = GgLoader::new(Default::default(), "");
        loader.register_root("gg:program/p1.ts", "p1.ts", Rc::new(transpiled.positions));
        loader
    }

    fn at(frame: Option<Frame>) -> Option<String> {
        frame.map(|f| format!("{}:{}:{}", f.file, f.line, f.column))
    }

    #[test]
    fn a_frame_less_stack_text_is_located_whether_mapped_or_not() {
        let loader = running_p1();
        // Unmapped: the specifier and a JavaScript position, mapped here.
        assert_eq!(
            at(scan_stack(
                "SyntaxError: boom\n    at <anonymous> (gg:program/p1.ts:1:14)",
                &loader
            )),
            Some("p1.ts:3:14".to_string())
        );
        // A display name is a frame only once a map named it so.
        let mapped = "SyntaxError: boom\n    at <anonymous> (p1.ts:3:14)";
        assert_eq!(at(scan_stack(mapped, &loader)), None);
        assert!(loader.get_source_map("gg:program/p1.ts").is_some());
        // Mapped already: as it is, not mapped a second time.
        assert_eq!(
            at(scan_stack(mapped, &loader)),
            Some("p1.ts:3:14".to_string())
        );
        // Nothing of gg's or the web layer's.
        assert_eq!(
            at(scan_stack(
                "Error\n    at __processTimers (ext:core/01_core.js:448:21)\n    at gg:gg:3:4",
                &loader
            )),
            None
        );
    }
}
