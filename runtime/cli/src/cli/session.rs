use std::path::PathBuf;

use crate::screen::{self, tell};
use crate::session::{self, print};

#[derive(clap::Subcommand)]
pub enum SessionCommand {
    /// Run a session file against the embedded default and show, per step,
    /// what the model would see next.
    Run(RunArgs),
}

#[derive(clap::Args)]
pub struct RunArgs {
    /// The session file (`*.session.json5`).
    file: PathBuf,
    /// Print JSON lines (one per step) instead of text.
    #[arg(long)]
    json: bool,
    /// Keep the run's state in this folder (default: a fresh temporary one).
    #[arg(long)]
    state: Option<PathBuf>,
    /// Rewrite golden files that differ instead of failing.
    #[arg(long)]
    update: bool,
    /// Show the gg module's declarations in system prompts (folded by default).
    #[arg(long)]
    full: bool,
    /// Where state and memories live: a `postgres://` URL (overrides the
    /// session's `run.store`; default: SQLite files under the state folder).
    #[arg(long)]
    store: Option<String>,
}

pub fn run(command: SessionCommand) -> i32 {
    let SessionCommand::Run(args) = command;
    let loaded = match session::load(&args.file) {
        Ok(mut s) => {
            if args.store.is_some() {
                s.run.store = args.store.clone();
            }
            s
        }
        Err(e) => {
            tell!("gg: {e}");
            return 2;
        }
    };
    let options = session::Options {
        state: args.state,
        update: args.update,
    };
    let result = if args.json {
        session::run(
            &loaded,
            &options,
            &mut print::JsonLines::new(screen::machine_stdout().lock()),
        )
    } else {
        session::run(
            &loaded,
            &options,
            &mut print::Text::new(screen::stdout(), args.full),
        )
    };
    match result {
        Ok(outcome) if outcome.failures.is_empty() => 0,
        Ok(outcome) => {
            tell!(
                "gg: {} expectation(s) failed in {}",
                outcome.failures.len(),
                args.file.display()
            );
            1
        }
        Err(e) => {
            tell!("gg: {e}");
            2
        }
    }
}
