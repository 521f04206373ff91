//! `GgError`: the one refusal shape every `gg` call, tool call and launch
//! check uses. Its `code` is what a program sees as `GgError.code`.

use serde::{Deserialize, Serialize};

/// The kinds of refusal gg-api.md pins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ErrorCode {
    /// `invalid-argument`: the caller's argument is malformed or refused.
    InvalidArgument,
    /// `limit-exceeded`: the call would breach a configured limit.
    LimitExceeded,
    /// `unavailable`: the agent's strategy or grants do not offer the call.
    Unavailable,
    /// `read-only`: a write through a read-only handle.
    ReadOnly,
    /// `not-found`: the named memory, view or file does not exist.
    NotFound,
    /// `io-error`: storage or the compiler failed, not the caller's argument.
    IoError,
    /// `internal`: gg's own defect.
    Internal,
}

impl ErrorCode {
    /// The kebab-case code a program sees as `GgError.code`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidArgument => "invalid-argument",
            ErrorCode::LimitExceeded => "limit-exceeded",
            ErrorCode::Unavailable => "unavailable",
            ErrorCode::ReadOnly => "read-only",
            ErrorCode::NotFound => "not-found",
            ErrorCode::IoError => "io-error",
            ErrorCode::Internal => "internal",
        }
    }

    /// The code spelled `s` in kebab case; `None` for an unknown one.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "invalid-argument" => ErrorCode::InvalidArgument,
            "limit-exceeded" => ErrorCode::LimitExceeded,
            "unavailable" => ErrorCode::Unavailable,
            "read-only" => ErrorCode::ReadOnly,
            "not-found" => ErrorCode::NotFound,
            "io-error" => ErrorCode::IoError,
            "internal" => ErrorCode::Internal,
            _ => return None,
        })
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A refused call: a code and a message written for the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{code}: {message}")]
pub struct GgError {
    /// The kind of refusal.
    pub code: ErrorCode,
    /// What went wrong and what to do instead, addressed to the model.
    pub message: String,
}

impl GgError {
    /// A refusal with `code` and `message`.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        GgError {
            code,
            message: message.into(),
        }
    }
    /// An `invalid-argument` refusal.
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidArgument, message)
    }
    /// A `limit-exceeded` refusal.
    pub fn limit(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::LimitExceeded, message)
    }
    /// An `unavailable` refusal.
    pub fn unavailable(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Unavailable, message)
    }
    /// A `not-found` refusal.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::NotFound, message)
    }
    /// An `io-error` refusal.
    pub fn io(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::IoError, message)
    }
    /// An `internal` refusal: gg's own defect.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Internal, message)
    }
}

/// The result of a call that gg may refuse.
pub type GgResult<T> = Result<T, GgError>;

/// Why an operator's configuration cannot be used: a profile or run
/// configuration that does not parse, a value out of range, a workspace or
/// state folder that cannot be opened. Worded for the operator (it names
/// the file or folder and what to change), never shown to the model.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The text is not JSON5 of the expected shape.
    #[error("{origin}: not a valid {what}: {source}")]
    Syntax {
        /// The file (or what stands for it) the text came from.
        origin: String,
        /// What the text should have been: `"profile"`, `"run configuration"`.
        what: &'static str,
        /// The parser's own account.
        #[source]
        source: json5::Error,
    },
    /// A folder or file the configuration names cannot be read.
    #[error("{context}: {source}")]
    Io {
        /// What was being opened or listed.
        context: String,
        /// The system's answer.
        #[source]
        source: std::io::Error,
    },
    /// A value is refused: the message names it and the fix.
    #[error("{0}")]
    Invalid(String),
}

/// A value that does not match a tool's JSON Schema: where in the argument
/// (`args["path"][0]`) and the first thing wrong there, as a sentence.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SchemaError(pub String);

/// How a refusal names the kind of JSON value a caller passed where another
/// was expected ("a string", "an array", "null", …).
pub fn json_kind(value: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A name a caller chose, as a refusal quotes it: escaped as Rust's `{:?}`
/// escapes it, and cut after [`Quoted::MOST_CHARS`] characters with how
/// many there were. A refusal's words then cost a few hundred bytes however
/// long the name a program passed (a 60-million-character name, escaped
/// six bytes a character, once made a 360 MB message).
#[derive(Clone, Copy)]
pub struct Quoted<'a>(pub &'a str);

impl Quoted<'_> {
    /// The most characters of a name a refusal quotes.
    pub const MOST_CHARS: usize = 100;
}

impl std::fmt::Debug for Quoted<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0.char_indices().nth(Self::MOST_CHARS) {
            None => write!(f, "{:?}", self.0),
            Some((cut, _)) => write!(
                f,
                "{:?}… ({} characters)",
                &self.0[..cut],
                self.0.chars().count()
            ),
        }
    }
}

#[cfg(test)]
mod quoted_tests {
    use super::Quoted;

    #[test]
    fn a_long_name_is_quoted_cut_with_its_length() {
        assert_eq!(format!("{:?}", Quoted("a\u{1}")), "\"a\\u{1}\"");
        let long = "\u{1}".repeat(1_000_000);
        let shown = format!("{:?}", Quoted(&long));
        assert!(shown.ends_with("… (1000000 characters)"), "{shown}");
        assert!(shown.len() < 1_000, "{}", shown.len());
    }
}
