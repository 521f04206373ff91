//! Each turn's tool calls on an agent's page: the `tool_call` events among
//! the stream lines the transcript already read (its newest
//! [`MAX_EVENTS`](gg_module::durable::inspect::MAX_EVENTS), read backwards,
//! never the whole stream), grouped by the turn each names and put on that
//! turn as `toolCalls`. A turn whose first lines are older than the lines
//! read is marked `toolCallsPartial`: its oldest calls are not listed.

use std::collections::{BTreeMap, BTreeSet};

use gg_module::durable::inspect::Transcript;
use serde_json::{json, Map, Value};

/// The fields of a `tool_call` event the page shows, in its order.
const FIELDS: [&str; 7] = [
    "server",
    "tool",
    "durationMs",
    "ok",
    "errorCode",
    "argumentChars",
    "resultChars",
];

/// One call as the API answers it: the event without its `type`, `agent`
/// and `turn` (the turn it is listed under says those).
fn call(event: &Value) -> Value {
    let fields: Map<String, Value> = FIELDS
        .iter()
        .filter_map(|k| {
            event
                .get(*k)
                .filter(|v| !v.is_null())
                .map(|v| (k.to_string(), v.clone()))
        })
        .collect();
    Value::Object(fields)
}

/// The calls of each turn among `events` (oldest first), and the turns
/// whose start the lines reach back to. `whole` says `events` is the
/// whole stream.
fn by_turn(events: &[Value], whole: bool) -> (BTreeMap<u32, Vec<Value>>, BTreeSet<u32>) {
    let mut calls: BTreeMap<u32, Vec<Value>> = BTreeMap::new();
    let mut complete = BTreeSet::new();
    // A `turn` record earlier in the lines: every event after it is of a
    // turn whose start was read.
    let mut after_record = whole;
    // Lines since the last record (or the first line read).
    let mut since_record = 0u64;
    for event in events {
        let turn = event["turn"].as_u64().and_then(|t| u32::try_from(t).ok());
        match (event["type"].as_str(), turn) {
            (Some("turn"), Some(turn)) => {
                // The record counts the events its turn emitted before it.
                let emitted = event["events"].as_u64().unwrap_or(u64::MAX);
                if after_record || since_record >= emitted {
                    complete.insert(turn);
                }
                after_record = true;
                since_record = 0;
                continue;
            }
            (Some("tool_call"), Some(turn)) => {
                calls.entry(turn).or_default().push(call(event));
                if after_record {
                    // A turn still running (no record yet) past a record.
                    complete.insert(turn);
                }
            }
            _ => {}
        }
        since_record += 1;
    }
    (calls, complete)
}

/// `t` as the transcript route answers it, each turn that made tool calls
/// with its `toolCalls` (and `toolCallsPartial: true` when its oldest ones
/// were not read); a turn the window does not have yet (one still running)
/// is listed with no items.
pub fn attach(t: &Transcript) -> Result<Value, String> {
    let mut value = serde_json::to_value(t).map_err(|e| e.to_string())?;
    let (mut calls, complete) = by_turn(&t.events, t.events.len() >= t.events_total);
    if calls.is_empty() {
        return Ok(value);
    }
    let Some(turns) = value["turns"].as_array_mut() else {
        return Err("a transcript without turns".to_string());
    };
    for turn in turns.iter_mut() {
        let number = turn["turn"].as_u64().and_then(|t| u32::try_from(t).ok());
        if let Some((n, list)) = number.and_then(|n| calls.remove_entry(&n)) {
            turn["toolCalls"] = Value::Array(list);
            if !complete.contains(&n) {
                turn["toolCallsPartial"] = Value::Bool(true);
            }
        }
    }
    for (n, list) in calls {
        let mut turn = json!({ "turn": n, "items": [], "toolCalls": list });
        if !complete.contains(&n) {
            turn["toolCallsPartial"] = Value::Bool(true);
        }
        let at = turns.partition_point(|t| t["turn"].as_u64().is_some_and(|t| t < u64::from(n)));
        turns.insert(at, turn);
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool_call(turn: u32, tool: &str) -> Value {
        json!({
            "type": "tool_call", "agent": "a", "turn": turn, "server": "files", "tool": tool,
            "durationMs": 1.5, "ok": true, "argumentChars": 2, "resultChars": 9,
        })
    }

    fn record(turn: u32, events: u64) -> Value {
        json!({ "type": "turn", "agent": "a", "turn": turn, "events": events, "durationMs": 3.0 })
    }

    #[test]
    fn calls_are_grouped_by_turn_and_a_turn_cut_by_the_read_is_partial() {
        // The read starts inside turn 4: one of its three events is gone.
        let events = [
            tool_call(4, "late"),
            json!({ "type": "memory_pull", "turn": 4 }),
            record(4, 3),
            tool_call(5, "read"),
            tool_call(5, "list"),
            record(5, 2),
            tool_call(6, "running"),
        ];
        let (calls, complete) = by_turn(&events, false);
        let tools = |n: u32| -> Vec<&str> {
            calls[&n]
                .iter()
                .map(|c| c["tool"].as_str().unwrap())
                .collect()
        };
        assert_eq!(tools(4), ["late"]);
        assert_eq!(tools(5), ["read", "list"]);
        assert_eq!(tools(6), ["running"]);
        assert_eq!(complete, BTreeSet::from([5, 6]));
        assert_eq!(
            calls[&5][0],
            json!({ "server": "files", "tool": "read", "durationMs": 1.5, "ok": true,
                    "argumentChars": 2, "resultChars": 9 })
        );
        // The whole stream read: nothing is cut.
        assert_eq!(by_turn(&events, true).1, BTreeSet::from([4, 5, 6]));
        // Turn 4's every event read, its record says so.
        let (_, complete) = by_turn(&events[1..], false);
        assert!(!complete.contains(&4));
        let mut whole_turn = vec![json!({ "type": "memory_state" })];
        whole_turn.extend_from_slice(&events);
        assert!(by_turn(&whole_turn, false).1.contains(&4));
    }

    #[test]
    fn a_refused_call_keeps_its_error_code() {
        let refused = json!({
            "type": "tool_call", "agent": "a", "turn": 1, "server": "everything", "tool": "echo",
            "durationMs": 1.1, "ok": false, "errorCode": "invalid-argument",
            "argumentChars": 2, "resultChars": 0,
        });
        let c = call(&refused);
        assert_eq!(c["ok"], false);
        assert_eq!(c["errorCode"], "invalid-argument");
        assert!(c.get("type").is_none() && c.get("agent").is_none());
    }
}
