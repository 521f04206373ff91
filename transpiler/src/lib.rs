//! TypeScript → ES module JavaScript for gg.
//!
//! Everything a model hands gg as code (a turn's program, a memory's `code`
//! and `onUse` halves) passes through [`transpile`]:
//!
//! 1. [`guard`] refuses a source over [`MAX_SOURCE_CHARS`] before the parser
//!    ever sees it;
//! 2. `strip` parses with swc, lowers TypeScript 5 standard decorators
//!    (the TC39 2022-03 form, helpers inlined; parameter decorators, the
//!    legacy form, are refused), strips types (enums and namespaces are
//!    lowered) and prints JavaScript;
//! 3. errors come back as located [`Diagnostic`]s, and a panic inside swc is
//!    caught and reported as [`TranspileError::Internal`], gg's own defect.
//!
//! [`declared`] lists the functions a module declares (for documentation
//! views) and [`module_key()`] turns a memory's slug into its import key.

#![warn(missing_docs)]
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod cache;
pub mod declared;
mod decorators;
mod deep_stack;
pub mod diagnostics;
#[cfg(feature = "differential")]
pub mod differential;
mod early_errors;
mod erase;
mod error;
#[cfg(feature = "fault-injection")]
pub mod fault_injection;
pub mod guard;
pub mod module_key;
pub mod position_map;
mod strip;

use std::sync::{Arc, OnceLock};

pub use declared::DeclaredFunction;
pub use diagnostics::Diagnostic;
pub use error::TranspileError;
pub use guard::MAX_SOURCE_CHARS;
pub use module_key::{module_key, module_key_avoiding, NOT_BINDINGS};
pub use position_map::{PositionMap, SourcePosition};

/// What a successful transpile hands back.
#[derive(Debug, Clone)]
pub struct Transpiled {
    /// ES module JavaScript, ready for the isolate.
    pub code: String,
    /// Maps positions in `code` back to the TypeScript the caller wrote.
    pub positions: PositionMap,
    /// The specifiers its static imports and re-exports name, in source
    /// order, each once (type-only ones left out: they vanish).
    pub imports: Vec<String>,
    /// The TypeScript, for [`Transpiled::declared`].
    source: Arc<str>,
    declared: OnceLock<Vec<DeclaredFunction>>,
}

impl Transpiled {
    fn new(code: String, positions: PositionMap, imports: Vec<String>, source: Arc<str>) -> Self {
        Transpiled {
            code,
            positions,
            imports,
            source,
            declared: OnceLock::new(),
        }
    }

    /// Top-level functions the module declares, in source order. Found on
    /// the first call, from a second parse of the source: running a module
    /// never needs them, only its documentation does.
    pub fn declared(&self) -> &[DeclaredFunction] {
        self.declared
            .get_or_init(|| declared::of_source(&self.source))
    }
}

/// Transpiles one TypeScript module, parsing it every time (see
/// [`transpile_cached`]). `file_name` only labels diagnostics.
pub fn transpile(source: &str, file_name: &str) -> Result<Transpiled, TranspileError> {
    guard::check_len(source, "source")?;
    strip::run_caught(source, file_name, strip::Pipeline::Fastest)
}

/// Transpiles one TypeScript module through the process-wide cache: a
/// source transpiled before under the same file name is not parsed again.
/// `what` names the source in a refusal (`"code"`, `"onUse"`, `"program"`);
/// the length limit is [`MAX_SOURCE_CHARS`], as for [`transpile`].
pub fn transpile_cached(
    source: &str,
    file_name: &str,
    what: &str,
) -> Result<Transpiled, TranspileError> {
    guard::check_len(source, what)?;
    #[cfg(feature = "fault-injection")]
    if fault_injection::armed() {
        return strip::run_caught(source, file_name, strip::Pipeline::Fastest);
    }
    if let Some(hit) = cache::get(source, file_name) {
        return Ok((*hit).clone());
    }
    let transpiled = strip::run_caught(source, file_name, strip::Pipeline::Fastest)?;
    cache::put(source, file_name, std::sync::Arc::new(transpiled.clone()));
    Ok(transpiled)
}
