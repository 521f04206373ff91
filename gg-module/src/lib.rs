//! The host side of gg's `gg` module, free of any JavaScript engine: what
//! the agent's window holds, the views it opens, the workspace it reads, the
//! program library that names its programs, its profile and its durable
//! state. `gg-runtime` binds these to an isolate; everything here is
//! testable without one.

#![warn(missing_docs)]
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod desk;
pub mod durable;
pub mod error;
pub mod events;
pub mod memories;
pub mod profile;
pub mod program_library;
pub mod run;
pub mod system_prompt;
#[cfg(test)]
mod test_numbers;
pub mod tools;
pub mod views;
pub mod window;
pub mod workspace;

pub use error::{json_kind, ConfigError, ErrorCode, GgError, GgResult, Quoted, SchemaError};
pub use profile::{Capability, Mode, Profile, ProgramSettings};
pub use program_library::ProgramLibrary;
pub use views::View;
pub use window::{Acknowledgement, ConsoleLine, Item, ItemBody, RunStatus, Window};
pub use workspace::Workspace;
