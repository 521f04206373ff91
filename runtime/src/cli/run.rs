use std::path::PathBuf;

use gg_module::RunStatus;
use gg_runtime::{Agent, AgentOptions, Response};

#[derive(clap::Args)]
pub struct RunArgs {
    /// The TypeScript program to run as this turn.
    program: PathBuf,
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
    /// Where state and memories live: a `postgres://` URL shared by every
    /// host of the run (default: SQLite files under the state folder).
    #[arg(long)]
    store: Option<String>,
}

pub fn run(args: RunArgs) -> i32 {
    let source = match std::fs::read_to_string(&args.program) {
        Ok(source) => source,
        Err(e) => {
            return super::usage_error(format!(
                "cannot read the program {}: {e}",
                args.program.display()
            ))
        }
    };
    let profile = match super::load_profile(args.profile.as_ref()) {
        Ok(p) => p,
        Err(e) => return super::usage_error(e),
    };
    let workspace = args
        .workspace
        .clone()
        .or_else(|| std::env::current_dir().ok());
    let mut agent = match Agent::new(AgentOptions {
        profile,
        workspace,
        state: Some(args.state.clone()),
        agent_id: Some(args.agent.clone()),
        binding: None,
        store: args.store.clone(),
    }) {
        Ok(agent) => agent,
        Err(e) => return super::usage_error(e),
    };
    let outcome = match agent.turn(Response::Program {
        source,
        file: Some(args.program.display().to_string()),
    }) {
        Ok(outcome) => outcome,
        Err(e) => {
            eprintln!("gg: {e}");
            return 1;
        }
    };
    let ack = outcome
        .acknowledgement
        .expect("a program turn is acknowledged");
    println!("{}", ack.render());
    println!();
    println!("──── window for turn {} ────", outcome.turn + 1);
    print!("{}", agent.render_window());
    match ack.status {
        RunStatus::Ok => 0,
        _ => 1,
    }
}
