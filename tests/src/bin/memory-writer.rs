//! A host process for the crash tests: runs mixed memory mutations through
//! a real agent (native tool calls) against a state folder and prints one
//! `ack` line per acknowledged mutation, flushed, until it is killed.
//!
//! Usage: memory-writer STATE_DIR START COUNT [STORE_URL]

use std::io::Write;

use gg_module::Mode;
use gg_runtime::{Agent, AgentOptions, Response, ToolCall};
use serde_json::json;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let state = std::path::PathBuf::from(&args[1]);
    let start: u64 = args[2].parse().expect("START");
    let count: u64 = args[3].parse().expect("COUNT");
    let mut agent = Agent::new(
        AgentOptions::new(gg_tests::memories_profile(
            "markdown",
            [0; 6],
            Mode::ToolCalling,
        ))
        .state(state)
        .agent_id("writer".to_string())
        .database_url(args.get(4).cloned()),
    )
    .expect("agent");
    let stdout = std::io::stdout();
    for i in start..start + count {
        let (name, args) = gg_tests::crash_mix(i);
        let out = agent
            .turn(Response::ToolCalls(vec![ToolCall {
                id: format!("c{i}"),
                name: name.into(),
                arguments: args,
            }]))
            .expect("turn");
        let result = &out.tool_results[0];
        if !result.is_error {
            let seq = out
                .events
                .iter()
                .find_map(|e| match e {
                    gg_runtime::Event::MemoryRevision(revision) => Some(json!(revision.seq)),
                    _ => None,
                })
                .unwrap_or(json!(null));
            let mut lock = stdout.lock();
            writeln!(lock, "ack {i} {seq}").expect("stdout");
            lock.flush().expect("flush");
        }
    }
}
