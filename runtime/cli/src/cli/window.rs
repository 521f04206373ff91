use std::io::Write;
use std::path::PathBuf;

use gg_runtime::{Agent, AgentOptions};

use crate::screen;

#[derive(clap::Args)]
pub struct WindowArgs {
    /// The agent's profile (JSON5).
    #[arg(long)]
    profile: Option<PathBuf>,
    /// The folder the agent's state lives in.
    #[arg(long, default_value = ".gg-state")]
    state: PathBuf,
    /// The agent's id within the state folder.
    #[arg(long, default_value = "main")]
    agent: String,
    /// Where state and memories live, as for `gg run --store`: a
    /// `postgres://` URL (default: SQLite files under the state folder).
    #[arg(long)]
    store: Option<String>,
    /// Print the window as JSON instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(args: WindowArgs) -> i32 {
    let profile = match super::load_profile(args.profile.as_ref()) {
        Ok(p) => p,
        Err(e) => return super::usage_error(e),
    };
    let agent = match Agent::new(
        AgentOptions::new(profile)
            .state(args.state)
            .agent_id(args.agent)
            .database_url(args.store),
    ) {
        Ok(agent) => agent,
        Err(e) => return super::usage_error(e),
    };
    if args.json {
        let _ = writeln!(
            screen::machine_stdout(),
            "{}",
            serde_json::to_string_pretty(&agent.window()).expect("a window serializes")
        );
    } else {
        let _ = write!(screen::stdout(), "{}", agent.render_window());
    }
    0
}
