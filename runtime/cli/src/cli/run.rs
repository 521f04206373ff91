use std::io::Write;
use std::path::PathBuf;

use gg_module::RunStatus;
use gg_runtime::{Agent, AgentOptions, Response};

use crate::screen::{self, say, tell};

#[derive(clap::Args)]
pub struct RunArgs {
    /// The TypeScript program to run as this turn; `-` reads it from standard input.
    program: PathBuf,
    /// The name errors give a program read from standard input (default: stdin).
    #[arg(long)]
    name: Option<String>,
    /// The agent's profile (JSON5); defaults to a code-mode agent with no capabilities.
    #[arg(long)]
    profile: Option<PathBuf>,
    /// The folder `views.openFile` reads under (default: the current folder).
    #[arg(long)]
    workspace: Option<PathBuf>,
    /// The folder the agent's state lives in, created if missing (default: .gg-state).
    #[arg(long, default_value = ".gg-state")]
    state: PathBuf,
    /// The agent's id within the state folder.
    #[arg(long, default_value = "main")]
    agent: String,
    /// Pins Math.random, crypto.getRandomValues and crypto.randomUUID to this seed.
    #[arg(long)]
    seed: Option<u64>,
    /// Pins Date.now() and new Date() to this ISO-8601 instant (e.g. 2026-01-02T03:04:05Z).
    #[arg(long)]
    clock: Option<String>,
    /// Print only the program's console output, as a script runner would:
    /// log/info/debug lines on stdout, warn/error lines, notes and any error
    /// on stderr (for comparing programs with Deno or Node).
    #[arg(long)]
    console_only: bool,
    /// Where state and memories live: a `postgres://` URL shared by every
    /// host of the run (default: SQLite files under the state folder).
    #[arg(long)]
    store: Option<String>,
}

pub fn run(args: RunArgs) -> i32 {
    let (source, mut name) = match super::read_program(&args.program, args.name.as_deref()) {
        Ok(read) => read,
        Err(e) => return super::usage_error(e),
    };
    // A file program is named by its file's name alone: the name is in
    // what the program itself can read (a thrown error's `stack`,
    // `CallSite.getFileName()`), and a path would tell it where on the host
    // it was run from.
    if args.name.is_none() && args.program.as_os_str() != "-" {
        if let Some(file) = args.program.file_name() {
            name = file.to_string_lossy().into_owned();
        }
    }
    let profile = match super::load_profile(args.profile.as_ref()) {
        Ok(p) => p,
        Err(e) => return super::usage_error(e),
    };
    let determinism = match gg_runtime_determinism(&args) {
        Ok(d) => d,
        Err(e) => return super::usage_error(e),
    };
    let workspace = args
        .workspace
        .clone()
        .or_else(|| std::env::current_dir().ok());
    let mut agent = match Agent::new(
        AgentOptions::new(profile)
            .workspace(workspace)
            .state(args.state.clone())
            .agent_id(args.agent.clone())
            .database_url(args.store.clone()),
    ) {
        Ok(agent) => agent,
        Err(e) => return super::usage_error(e),
    };
    if let Err(e) = agent.set_determinism(determinism) {
        tell!("gg: {e}");
        return 1;
    }
    let outcome = match agent.turn(Response::Program {
        source,
        file: Some(name),
    }) {
        Ok(outcome) => outcome,
        Err(e) => {
            tell!("gg: {e}");
            return 1;
        }
    };
    let ack = outcome
        .acknowledgement
        .expect("a program turn is acknowledged");
    if args.console_only {
        for line in &ack.console {
            match line.level.as_str() {
                "warn" | "error" => tell!("{}", line.text),
                _ => say!("{}", line.text),
            }
        }
        for note in &ack.notes {
            tell!("gg: note: {note}");
        }
        if let Some(error) = &ack.error {
            tell!("error: {error}");
        }
        agent.end_for_exit();
        return match ack.status {
            RunStatus::Ok => 0,
            _ => 1,
        };
    }
    let mut out = screen::stdout();
    let _ = writeln!(out, "{}", ack.render());
    let _ = writeln!(out);
    let _ = writeln!(out, "──── window for turn {} ────", outcome.turn + 1);
    let _ = write!(out, "{}", agent.render_window());
    drop(out);
    agent.end_for_exit();
    match ack.status {
        RunStatus::Ok => 0,
        _ => 1,
    }
}

fn gg_runtime_determinism(args: &RunArgs) -> Result<gg_runtime::Determinism, String> {
    gg_runtime::Determinism::from_parts(args.seed, args.clock.as_deref())
        .map_err(|e| format!("--clock: {e}"))
}
