//! Helpers for the end-to-end tests: fixture paths and agents built on them.

use std::path::PathBuf;

use gg_module::{Acknowledgement, Profile};
use gg_runtime::{Agent, AgentOptions, Response, TurnOutcome};

/// Runs a test in a process of its own (see the function).
pub use gg_engine_tests::alone;

/// The repository's `fixtures/` folder.
pub fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures")
}

/// A fixture program's source.
pub fn program(name: &str) -> String {
    let path = fixtures().join("programs").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("fixture {}: {e}", path.display()))
}

/// The PostgreSQL server the tests may use (`GG_TEST_POSTGRES_URL`).
pub fn postgres_url() -> Option<String> {
    std::env::var("GG_TEST_POSTGRES_URL")
        .ok()
        .filter(|u| !u.is_empty())
}

/// Whether the suite runs against PostgreSQL: `GG_TEST_BACKEND=postgres`
/// with `GG_TEST_POSTGRES_URL` set (`scripts/test` runs the memories,
/// scopes and persistence suites both ways).
pub fn on_postgres() -> bool {
    std::env::var("GG_TEST_BACKEND").as_deref() == Ok("postgres")
}

/// The store a test's run or agent uses: `None` (SQLite, the default), or
/// on PostgreSQL a fresh schema of its own, so tests stay independent.
pub fn test_store() -> Option<String> {
    if !on_postgres() {
        return None;
    }
    let base = postgres_url().expect(
        "GG_TEST_BACKEND=postgres needs GG_TEST_POSTGRES_URL (scripts/pg start DIR prints one)",
    );
    Some(gg_module::durable::pg::fresh_schema(&base, "gg_test").expect("a fresh test schema"))
}

/// A fresh schema on the test server, or `None` (after saying the test is
/// skipped) when `GG_TEST_POSTGRES_URL` is absent.
pub fn postgres_or_skip(test: &str) -> Option<String> {
    match postgres_url() {
        Some(base) => Some(
            gg_module::durable::pg::fresh_schema(&base, "gg_test").expect("a fresh test schema"),
        ),
        None => {
            // Straight to the process's stderr, past the test harness's
            // capture, so a run without PostgreSQL says what it skipped.
            use std::io::Write;
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED {test}: GG_TEST_POSTGRES_URL is not set (scripts/test sets it)"
            );
            None
        }
    }
}

/// Opens store `id` of `run` directly, on whichever backend the run uses.
pub fn open_store(run: &gg_module::run::Run, id: &str) -> gg_module::memories::MemoryStore {
    gg_module::memories::MemoryStore::open_at(&run.store_location(id), id).expect("open store")
}

/// A code-mode agent on the fixture workspace, with tight limits so the
/// hostile fixtures finish fast.
pub fn agent() -> Agent {
    agent_with(Profile::default())
}

/// An agent with `profile`, its limits held to at most 1 s and 128 MiB so
/// the hostile fixtures finish fast.
pub fn agent_with(mut profile: Profile) -> Agent {
    profile.programs.time_ms = profile.programs.time_ms.min(1_000);
    profile.programs.heap_mib = profile.programs.heap_mib.min(128);
    agent_with_limits(profile)
}

/// An agent with `profile` as it is: a test that needs more time than
/// [`agent_with`] allows (work an unoptimized build does slowly) says so.
pub fn agent_with_limits(profile: Profile) -> Agent {
    Agent::new(
        AgentOptions::new(profile)
            .workspace(fixtures().join("workspace"))
            .database_url(test_store()),
    )
    .expect("agent")
}

/// The acknowledgement of the first turn of a new agent with the default
/// profile and options (it takes an isolate `Agent::prewarm` made for the
/// default profile, when one is waiting), a turn that runs `source` and
/// must end ok.
pub fn first_turn_of_a_default_agent(source: &str) -> Acknowledgement {
    let mut agent = Agent::new(AgentOptions::new(Profile::default())).expect("agent");
    let outcome = run(&mut agent, source);
    let ack = ack(&outcome).clone();
    assert_eq!(ack.status, gg_module::RunStatus::Ok, "{ack:?}");
    ack
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

/// The error a program turn ended with: what each stop or refusal test
/// checks the wording of.
pub fn error_text(outcome: &TurnOutcome) -> &str {
    ack(outcome)
        .error
        .as_deref()
        .expect("the acknowledgement carries an error")
}

/// A profile with a memories capability: `strategy`, and the six limits
/// (0 turns one off), in `mode`.
pub fn memories_profile(strategy: &str, limits: [u64; 6], mode: gg_module::Mode) -> Profile {
    let [max_count, per_memory, total, index, description, results] = limits;
    let text = format!(
        r#"{{ id: "m", capabilities: [{{ id: "memories", enabled: true, implementation: "{strategy}",
            params: {{ scope: "isolated", maxCount: {max_count}, maxLenPerMemory: {per_memory}, maxTotalLen: {total},
                       maxLenIndex: {index}, maxLenDescription: {description}, maxResults: {results} }} }}] }}"#
    );
    let mut profile = Profile::from_json5(&text, "test profile").expect("profile");
    profile.mode = mode;
    profile
}

/// A code-mode agent with the memories capability `strategy` and `limits`
/// (as [`memories_profile`] takes them): what most memories tests start from.
pub fn code_memories_agent(strategy: &str, limits: [u64; 6]) -> Agent {
    agent_with(memories_profile(strategy, limits, gg_module::Mode::Code))
}

/// A code-mode agent with a scratchpad store of everyday limits (16
/// memories of up to 4096 characters, 16384 in all): for the tests that
/// only need somewhere to write.
pub fn scratchpad_agent() -> Agent {
    code_memories_agent("scratchpad", [16, 4096, 16384, 0, 256, 0])
}

/// Runs native tool calls as the agent's next turn.
pub fn call_tools(agent: &mut Agent, calls: &[(&str, serde_json::Value)]) -> TurnOutcome {
    let calls = calls
        .iter()
        .enumerate()
        .map(|(i, (name, args))| gg_runtime::ToolCall {
            id: format!("c{i}"),
            name: name.to_string(),
            arguments: args.clone(),
        })
        .collect();
    agent.turn(Response::ToolCalls(calls)).expect("turn")
}

/// What the agent's store holds: (slug, description, body), in slug order.
pub fn stored(agent: &Agent) -> Vec<(String, String, String)> {
    agent
        .with_memories(|m| {
            m.store
                .list()
                .expect("list")
                .iter()
                .map(|r| (r.slug.clone(), r.description.clone(), r.body.clone()))
                .collect()
        })
        .unwrap_or_default()
}

/// The i-th mutation of the crash tests' mix: creates, appending edits and
/// deletes over a rolling set of 16 slugs.
pub fn crash_mix(i: u64) -> (&'static str, serde_json::Value) {
    let slug = format!("m{}", i % 16);
    match (i / 16) % 3 {
        0 => (
            "create_memory",
            serde_json::json!({ "name": slug, "description": format!("memory {i}"), "body": format!("line {i}") }),
        ),
        1 => (
            "edit_memory",
            serde_json::json!({ "name": slug, "old_string": format!("line {}", i - 16), "new_string": format!("line {}\nline {i}", i - 16) }),
        ),
        _ => ("delete_memory", serde_json::json!({ "name": slug })),
    }
}

/// A memories capability block as JSON5 text.
pub fn memories_block(strategy: &str, scope: &str) -> String {
    format!(
        r#"{{ id: "memories", enabled: true, implementation: "{strategy}", params: {{ scope: "{scope}", maxCount: 0,
            maxLenPerMemory: 0, maxTotalLen: 0, maxLenIndex: 0, maxLenDescription: 0, maxResults: 0 }} }}"#
    )
}

/// A run configuration from `(profile id, mode, capability blocks)` triples.
pub fn run_config(
    profiles: &[(&str, &str, Vec<String>)],
    roster: &[(&str, &str)],
) -> gg_module::run::RunConfig {
    let profiles: Vec<String> = profiles
        .iter()
        .map(|(id, mode, caps)| {
            format!(
                r#"{{ id: "{id}", mode: "{mode}", capabilities: [{}] }}"#,
                caps.join(", ")
            )
        })
        .collect();
    let roster: Vec<String> = roster
        .iter()
        .map(|(s, c)| format!(r#"{{ spawner: "{s}", subagent: "{c}" }}"#))
        .collect();
    let text = format!(
        "{{ maxParallel: 16, profiles: [{}], roster: [{}] }}",
        profiles.join(", "),
        roster.join(", ")
    );
    let mut config = gg_module::run::RunConfig::from_json5(&text, "test run").expect("run config");
    config.store = test_store();
    config
}

/// The store equals a serial replay of its revision log (no lost update, no
/// partial write): what every consistency check ends with.
pub fn assert_store_equals_replay(
    store: &gg_module::memories::MemoryStore,
    log: &[gg_module::memories::RevisionRecord],
) {
    let mut replay = std::collections::BTreeMap::new();
    for r in log {
        if r.mutation == gg_module::durable::memory_store::Mutation::Delete {
            replay.remove(&r.slug);
        } else {
            replay.insert(r.slug.clone(), r.body.clone());
        }
    }
    let current: std::collections::BTreeMap<String, String> = store
        .list()
        .unwrap()
        .iter()
        .map(|m| (m.slug.clone(), m.body.clone()))
        .collect();
    assert_eq!(
        current, replay,
        "the store differs from a replay of its log"
    );
}

/// One turn of the scopes stress mix for agent `id` (the `i`-th): 25 native
/// calls that create, delete and create again over 40 shared slugs.
pub fn stress_turn(id: &str, i: usize, turn: usize) -> Vec<gg_runtime::ToolCall> {
    (turn * 25..turn * 25 + 25)
        .map(|k| {
            let slug = format!("s{}", (i * 7 + k) % 40);
            let (name, arguments) = match k % 3 {
                0 => (
                    "create_memory",
                    serde_json::json!({ "name": slug, "description": "d", "body": format!("{id}:{k}") }),
                ),
                1 => ("delete_memory", serde_json::json!({ "name": slug })),
                _ => (
                    "create_memory",
                    serde_json::json!({ "name": format!("{slug}-{id}"), "description": "d", "body": "x" }),
                ),
            };
            gg_runtime::ToolCall {
                id: format!("c{k}"),
                name: name.into(),
                arguments,
            }
        })
        .collect()
}

/// Events as the JSON objects of their stream lines, for assertions that
/// read them by field (`e["type"] == "tool_call"`).
pub fn json(events: &[gg_runtime::Event]) -> Vec<serde_json::Value> {
    events.iter().map(gg_runtime::Event::to_json).collect()
}
