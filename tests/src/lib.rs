//! Helpers for the end-to-end tests: fixture paths and agents built on them.

use std::path::PathBuf;

use gg_module::{Acknowledgement, Profile};
use gg_runtime::{Agent, AgentOptions, Response, TurnOutcome};

/// The repository's `fixtures/` folder.
pub fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures")
}

/// A fixture program's source.
pub fn program(name: &str) -> String {
    let path = fixtures().join("programs").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("fixture {}: {e}", path.display()))
}

/// A code-mode agent on the fixture workspace, with tight limits so the
/// hostile fixtures finish fast.
pub fn agent() -> Agent {
    agent_with(Profile::default())
}

pub fn agent_with(mut profile: Profile) -> Agent {
    profile.programs.time_ms = profile.programs.time_ms.min(1_000);
    profile.programs.heap_mib = profile.programs.heap_mib.min(128);
    Agent::new(AgentOptions {
        profile,
        workspace: Some(fixtures().join("workspace")),
        state: None,
        agent_id: None,
    })
    .expect("agent")
}

/// Runs a fixture program as the agent's next turn.
pub fn run_fixture(agent: &mut Agent, name: &str) -> TurnOutcome {
    agent
        .turn(Response::Program {
            source: program(name),
            file: Some(name.to_string()),
        })
        .expect("turn")
}

/// Runs inline source as the agent's next turn.
pub fn run(agent: &mut Agent, source: &str) -> TurnOutcome {
    agent.turn(Response::program(source)).expect("turn")
}

pub fn ack(outcome: &TurnOutcome) -> &Acknowledgement {
    outcome
        .acknowledgement
        .as_ref()
        .expect("a program turn has an acknowledgement")
}
