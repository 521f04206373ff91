//! The state folder out of every view, for an embedder's agents
//! (`AgentOptions`): two isolated agents on one state folder inside their
//! workspace, where Bob's tool-calling `read_file` and his profile's
//! `autoload` reach nothing of Alice's; a workspace at or inside the state
//! folder refused at launch. (The command-line modes are tested in
//! `runtime/cli/tests/state_isolation.rs`, the desk in `persistence.rs`.)

use gg_module::{Mode, Profile};
use gg_runtime::{Agent, AgentOptions};
use gg_tests::{call_tools, memories_profile, run};
use serde_json::json;

const SECRET: &str = "ALICE-SECRET-31";

fn profile(mode: Mode, autoload: &[&str]) -> Profile {
    let mut profile = memories_profile("markdown", [8, 2000, 8000, 2000, 200, 5], mode);
    profile.capabilities.push(
        serde_json::from_value(json!({ "id": "read-file", "enabled": true,
            "implementation": "default-cap", "params": { "lineCap": 250 } }))
        .unwrap(),
    );
    profile.capabilities.push(
        serde_json::from_value(
            json!({ "id": "autoload", "enabled": true, "params": { "paths": autoload } }),
        )
        .unwrap(),
    );
    profile
}

fn open(
    profile: Profile,
    ws: &std::path::Path,
    state: &std::path::Path,
    id: &str,
) -> Result<Agent, gg_runtime::AgentError> {
    Agent::new(
        AgentOptions::new(profile)
            .workspace(ws.to_path_buf())
            .state(state.to_path_buf())
            .agent_id(id.to_string()),
    )
}

#[test]
fn read_file_and_autoload_reach_nothing_of_another_agents_state() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path();
    let state = ws.join("state");
    std::fs::write(ws.join("mine.txt"), "bob's own\n").unwrap();
    let mut alice = open(profile(Mode::Code, &[]), ws, &state, "alice").unwrap();
    let out = run(
        &mut alice,
        &format!(
            r#"import {{ memories }} from "gg";
memories.createMemory({{ name: "vault", description: "d", body: "{SECRET}" }});"#
        ),
    );
    assert!(out.acknowledgement.as_ref().unwrap().error.is_none());
    drop(alice);
    std::os::unix::fs::symlink("state/events", ws.join("streams")).unwrap();
    let routes = [
        "state/events/alice.jsonl",
        "streams/alice.jsonl",
        "./x/../state/agents/alice/modules/memories",
    ];
    std::fs::create_dir_all(ws.join("x")).unwrap();

    // Tool-calling mode, with the routes also autoloaded.
    let mut autoload: Vec<&str> = routes.to_vec();
    autoload.push("mine.txt");
    let mut bob = open(profile(Mode::ToolCalling, &autoload), ws, &state, "bob").unwrap();
    let calls: Vec<(&str, serde_json::Value)> = routes
        .iter()
        .map(|p| ("read_file", json!({ "path": p })))
        .collect();
    let out = call_tools(&mut bob, &calls);
    for (result, path) in out.tool_results.iter().zip(routes) {
        assert!(
            result.is_error && result.content.contains("is in gg's state folder"),
            "{path}: {result:?}"
        );
    }
    let window = bob.render_window();
    assert!(!window.contains(SECRET), "{window}");
    assert!(window.contains("bob's own"), "autoload read his own file");
}

#[test]
fn an_embedders_workspace_at_or_inside_the_state_folder_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    std::fs::create_dir_all(state.join("events")).unwrap();
    for ws in [state.clone(), state.join("events")] {
        let error = open(Profile::default(), &ws, &state, "a")
            .err()
            .expect("refused")
            .to_string();
        assert!(
            error.contains("the state folder") && error.contains("Give a workspace outside"),
            "{error}"
        );
    }
}
