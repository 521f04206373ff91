//! `GgError`: the one refusal shape every `gg` call, tool call and launch
//! check uses. Its `code` is what a program sees as `GgError.code`.

use serde::{Deserialize, Serialize};

/// The kinds of refusal gg-api.md pins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ErrorCode {
    InvalidArgument,
    LimitExceeded,
    Unavailable,
    ReadOnly,
    NotFound,
    IoError,
    Internal,
}

impl ErrorCode {
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
    pub code: ErrorCode,
    pub message: String,
}

impl GgError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        GgError {
            code,
            message: message.into(),
        }
    }
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidArgument, message)
    }
    pub fn limit(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::LimitExceeded, message)
    }
    pub fn unavailable(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Unavailable, message)
    }
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::NotFound, message)
    }
    pub fn io(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::IoError, message)
    }
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Internal, message)
    }
}

pub type GgResult<T> = Result<T, GgError>;
