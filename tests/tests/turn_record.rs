//! Every turn ends its events with a `turn` record: what ran, how it ended,
//! what gg refused, how many events came before it and how long it took.

use gg_module::Mode;
use gg_tests::{call_tools, memories_profile, run, scratchpad_agent};
use serde_json::{json, Value};

/// The outcome's `turn` record, which must be its last event, alone.
fn record(events: &[gg_runtime::Event]) -> Value {
    let events = gg_tests::json(events);
    let records: Vec<&Value> = events.iter().filter(|e| e["type"] == "turn").collect();
    assert_eq!(records.len(), 1, "one turn record: {events:?}");
    let last = events.last().unwrap();
    assert_eq!(last["type"], "turn", "the record comes last: {events:?}");
    last.clone()
}

/// One write, one refused call the program catches, and 30 ms of its own.
const WRITE_REFUSAL_AND_SPIN: &str = r#"import { memories } from "gg";
memories.writeMemory({ name: "plan", description: "d", body: "one" });
try { memories.deleteMemory("nothing-here"); } catch {}
const started = Date.now();
while (Date.now() - started < 30) {}
export default 1;"#;

#[test]
fn a_program_turn_records_its_status_refusals_events_and_duration() {
    let mut a = scratchpad_agent();
    let out = run(&mut a, WRITE_REFUSAL_AND_SPIN);
    let r = record(&out.events);
    assert_eq!(r["agent"], a.id());
    assert_eq!(r["turn"], 1);
    assert_eq!(r["program"], "p1");
    assert_eq!(r["status"], "ok");
    assert_eq!(r["toolCalls"], 0);
    assert_eq!(r["events"], gg_tests::json(&out.events).len() - 1);
    assert!(
        gg_tests::json(&out.events)
            .iter()
            .any(|e| e["type"] == "memory_revision"),
        "{:?}",
        gg_tests::json(&out.events)
    );
    let refusals = r["refusals"].as_array().unwrap();
    assert_eq!(refusals.len(), 1, "{r}");
    assert_eq!(refusals[0]["call"], "memories.deleteMemory");
    assert_eq!(refusals[0]["code"], json!(out.refusals[0].code));
    let ms = r["durationMs"].as_f64().unwrap();
    assert!(
        (30.0..60_000.0).contains(&ms),
        "the program alone spins 30 ms: {ms}"
    );

    let out = run(&mut a, "throw new Error('no');");
    let r = record(&out.events);
    assert_eq!(
        (
            r["turn"].as_u64(),
            r["program"].as_str(),
            r["status"].as_str()
        ),
        (Some(2), Some("p2"), Some("threw"))
    );
    assert_eq!(r["refusals"], json!([]));
}

#[test]
fn a_tool_calling_turn_records_its_calls_and_refusals() {
    let mut a = gg_tests::agent_with(memories_profile(
        "markdown",
        [16, 4096, 16384, 4096, 256, 0],
        Mode::ToolCalling,
    ));
    let out = call_tools(
        &mut a,
        &[
            (
                "create_memory",
                json!({ "name": "a", "description": "d", "body": "b" }),
            ),
            ("read_memory", json!({ "name": "missing" })),
        ],
    );
    let r = record(&out.events);
    assert_eq!(r["toolCalls"], 2);
    assert!(
        r.get("status").is_none() && r.get("program").is_none(),
        "{r}"
    );
    let refusals = r["refusals"].as_array().unwrap();
    assert_eq!(refusals.len(), 1, "{r}");
    assert_eq!(refusals[0]["call"], "read_memory");
}

/// Every line of an agent's event stream reads back as a typed
/// `gg_runtime::Event` that writes the same bytes again, and the events
/// each turn hands the embedder are those lines, in order.
#[test]
fn stream_lines_read_back_as_the_typed_events_that_write_them() {
    let state = tempfile::tempdir().unwrap();
    let profile = memories_profile("markdown", [0; 6], Mode::Code);
    let mut a = gg_runtime::Agent::new(
        gg_runtime::AgentOptions::new(profile)
            .state(state.path().to_path_buf())
            .agent_id("typed".to_string()),
    )
    .unwrap();
    let mut handed = Vec::new();
    for program in [
        r#"import { memories } from "gg";
memories.createMemory({ name: "a", description: "first", body: "one\ntwo" });
try { memories.readMemory("missing"); } catch {}
console.log("\u001b[2J");"#,
        r#"import { memories } from "gg";
memories.editMemory({ name: "a", oldString: "two", newString: "2" });
memories.deleteMemory("a");
export default 1;"#,
        "throw new Error('boom');",
    ] {
        let out = run(&mut a, program);
        handed.extend(out.events.iter().map(gg_runtime::Event::to_line));
    }
    let stream = std::fs::read_to_string(state.path().join("events/typed.jsonl")).unwrap();
    let lines: Vec<&str> = stream.lines().collect();
    for line in &lines {
        let event: gg_runtime::Event = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("a stream line reads as an Event ({e}): {line}"));
        assert_eq!(&event.to_line(), line);
    }
    // What the turns handed over is the stream's tail (opening the agent
    // may have written a line or two before the first turn).
    assert!(handed.len() >= 6, "{handed:?}");
    assert_eq!(&lines[lines.len() - handed.len()..], handed.as_slice());
}
