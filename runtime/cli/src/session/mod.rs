//! Scripted sessions: a run and its agents driven turn by turn from a
//! `*.session.json5` file, without a model, with expectations checked along
//! the way. `gg session run` shows one; `gg test` runs many as tests.

pub mod expect;
pub mod file;
mod locate;
pub mod print;
pub mod runner;

pub use file::load;
pub use runner::{run, Options, Quiet};
