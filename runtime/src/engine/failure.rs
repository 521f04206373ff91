//! Why an isolate could not be made or made ready for an agent: the engine
//! or gg's own bootstrap failing, never a program (a program's failures are
//! its acknowledgement's).

use deno_core::error::CoreError;

/// The engine could not make an isolate, or a step of gg's own bootstrap
/// in it failed. gg's defect or the machine's (an allocation refused), not
/// the operator's and not the model's; the agent ends as `internal_error`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EngineError {
    /// The engine refused to make an isolate.
    #[error("cannot create a JavaScript isolate: {0}")]
    Create(#[source] CoreError),
    /// The isolate's event loop (a current-thread tokio runtime) could not
    /// be started.
    #[error("cannot start the isolate's event loop: {0}")]
    EventLoop(#[source] std::io::Error),
    /// A step of gg's bootstrap threw in the isolate (or ended without a
    /// value): `step` says which, `thrown` what the isolate threw.
    #[error("{step}{}", .thrown.as_ref().map_or(String::new(), |t| format!(": {t}")))]
    Bootstrap {
        /// What gg was doing: "the web bootstrap's loadWebLayer failed".
        step: String,
        /// The exception's text, when there was one.
        thrown: Option<String>,
    },
}
