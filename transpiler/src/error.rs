use crate::Diagnostic;

/// Why a source did not become JavaScript.
#[derive(Debug, Clone, thiserror::Error)]
pub enum TranspileError {
    /// The source is over the cap; refused before parsing.
    #[error(
        "limit exceeded: the {what} is {chars} characters, over the {limit}-character limit by {over}. \
         Shorten it (split helpers into separate memories, drop dead code) and try again.",
        over = chars - limit
    )]
    TooLong {
        /// What was refused: `"source"`, `"program"`, `"code"` or `"onUse"`.
        what: String,
        /// The source's length, in characters.
        chars: usize,
        /// The cap it is over, in characters.
        limit: usize,
    },
    /// The caller's source does not parse or cannot be transformed.
    #[error("{}", render_all(.0))]
    Invalid(Vec<Diagnostic>),
    /// The compiler itself failed (a panic inside swc): gg's defect, not the
    /// caller's. The detail is for the operator, never for the model.
    #[error("internal compiler failure: {0}")]
    Internal(String),
}

impl TranspileError {
    /// The `GgError` code a refusal of this kind carries.
    pub fn code(&self) -> &'static str {
        match self {
            TranspileError::TooLong { .. } => "limit-exceeded",
            TranspileError::Invalid(_) => "invalid-argument",
            TranspileError::Internal(_) => "io-error",
        }
    }

    /// The diagnostics, when the source itself was at fault.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        match self {
            TranspileError::Invalid(d) => d,
            _ => &[],
        }
    }
}

fn render_all(diagnostics: &[Diagnostic]) -> String {
    diagnostics
        .iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}
