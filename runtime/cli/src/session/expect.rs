//! Checking an `expect` step against an agent and its last turn.

use std::path::Path;

use serde_json::{Map, Value};

use gg_runtime::{Agent, TurnOutcome};

/// What an expectation is checked against.
pub struct Observed<'a> {
    pub agent: &'a Agent,
    pub last: Option<&'a TurnOutcome>,
    /// Events since the agent's last turn or refresh step.
    pub events: &'a [Value],
}

fn strings(v: &Value) -> Vec<String> {
    match v {
        Value::String(s) => vec![s.clone()],
        Value::Array(items) => items
            .iter()
            .filter_map(|i| i.as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    }
}

fn matches_fields(event: &Value, wanted: &Map<String, Value>) -> bool {
    wanted.iter().all(|(k, v)| event.get(k) == Some(v))
}

/// Checks every expectation of one step; returns one message per failure.
/// A golden file that differs is rewritten when `update` is set.
pub fn check(
    expect: &Map<String, Value>,
    seen: &Observed<'_>,
    dir: &Path,
    update: bool,
) -> Vec<String> {
    let mut failures = Vec::new();
    if let Some(spec) = expect.get("window") {
        let window = seen.agent.render_window();
        let spec = match spec {
            Value::String(_) | Value::Array(_) => {
                let mut m = Map::new();
                m.insert("contains".into(), spec.clone());
                m
            }
            Value::Object(m) => m.clone(),
            other => {
                failures.push(format!(
                    "window expectation must be text, a list or an object, got {other}"
                ));
                Map::new()
            }
        };
        for needle in spec.get("contains").map(strings).unwrap_or_default() {
            if !window.contains(&needle) {
                failures.push(format!("the window does not contain {needle:?}"));
            }
        }
        for needle in spec.get("notContains").map(strings).unwrap_or_default() {
            if window.contains(&needle) {
                failures.push(format!(
                    "the window contains {needle:?}, which it should not"
                ));
            }
        }
        if let Some(Value::String(golden)) = spec.get("golden") {
            let path = dir.join(golden);
            let expected = std::fs::read_to_string(&path).unwrap_or_default();
            if expected != window {
                if update {
                    if let Err(e) = std::fs::create_dir_all(path.parent().unwrap_or(dir))
                        .and_then(|_| std::fs::write(&path, &window))
                    {
                        failures.push(format!(
                            "cannot update the golden file {}: {e}",
                            path.display()
                        ));
                    }
                } else {
                    let diff = similar::TextDiff::from_lines(&expected, &window)
                        .unified_diff()
                        .context_radius(2)
                        .header(&format!("golden {golden}"), "actual window")
                        .to_string();
                    failures.push(format!("the window differs from the golden file {golden} (run with --update to accept):\n{diff}"));
                }
            }
        }
    }
    if let Some(spec) = expect.get("pinned") {
        let pinned = seen.agent.pinned();
        for needle in strings(spec) {
            if !pinned.contains(&needle) {
                failures.push(format!("the pinned block does not contain {needle:?}"));
            }
        }
    }
    let ack = seen.last.and_then(|o| o.acknowledgement.as_ref());
    if let Some(expected) = expect.get("value") {
        let actual: Option<Value> = ack
            .and_then(|a| a.value.as_deref())
            .map(|v| serde_json::from_str(v).unwrap_or(Value::String(v.to_string())));
        if actual.as_ref() != Some(expected) {
            failures.push(format!(
                "the last program's value is {}, expected {expected}",
                actual
                    .map(|v| v.to_string())
                    .unwrap_or_else(|| "nothing".into())
            ));
        }
    }
    if let Some(Value::String(status)) = expect.get("status") {
        let actual = ack.map(|a| {
            serde_json::to_value(a.status)
                .expect("status")
                .as_str()
                .unwrap_or("")
                .to_string()
        });
        if actual.as_deref() != Some(status.as_str()) {
            failures.push(format!(
                "the last program's status is {}, expected {status}",
                actual.unwrap_or_else(|| "none".into())
            ));
        }
    }
    if let Some(spec) = expect.get("console") {
        let lines: Vec<&str> = ack
            .map(|a| a.console.iter().map(|l| l.text.as_str()).collect())
            .unwrap_or_default();
        for needle in strings(spec) {
            if !lines.iter().any(|l| l.contains(&needle)) {
                failures.push(format!(
                    "no console line contains {needle:?} (console: {lines:?})"
                ));
            }
        }
    }
    if let Some(Value::Object(spec)) = expect.get("refusal") {
        let refusals = seen.last.map(|o| o.refusals.as_slice()).unwrap_or_default();
        let code = spec.get("code").and_then(Value::as_str);
        let fragment = spec.get("contains").and_then(Value::as_str);
        let found = refusals.iter().any(|r| {
            code.is_none_or(|c| r.code == c) && fragment.is_none_or(|f| r.message.contains(f))
        });
        if !found {
            failures.push(format!(
                "no refusal matches {} (refusals: {})",
                Value::Object(spec.clone()),
                if refusals.is_empty() {
                    "none".to_string()
                } else {
                    refusals
                        .iter()
                        .map(|r| format!("{} {}: {}", r.call, r.code, r.message))
                        .collect::<Vec<_>>()
                        .join("; ")
                }
            ));
        }
    }
    for (key, want) in [("event", true), ("noEvent", false)] {
        if let Some(Value::Object(spec)) = expect.get(key) {
            let found = seen.events.iter().any(|e| matches_fields(e, spec));
            if found != want {
                let types: Vec<&str> = seen
                    .events
                    .iter()
                    .filter_map(|e| e["type"].as_str())
                    .collect();
                failures.push(if want {
                    format!(
                        "no event matches {} (events: {types:?})",
                        Value::Object(spec.clone())
                    )
                } else {
                    format!(
                        "an event matches {}, which should not have been emitted",
                        Value::Object(spec.clone())
                    )
                });
            }
        }
    }
    if let Some(Value::Object(spec)) = expect.get("memory") {
        let name = spec.get("name").and_then(Value::as_str).unwrap_or("");
        match seen.agent.with_memories(|m| m.store.get(name)) {
            None => failures.push("the agent has no memories capability".to_string()),
            Some(Err(e)) => failures.push(format!("reading the store failed: {}", e.message)),
            Some(Ok(None)) => failures.push(format!("the store holds no memory named {name:?}")),
            Some(Ok(Some(m))) => {
                for (field, actual) in [("description", &m.description), ("body", &m.body)] {
                    if let Some(Value::String(want)) = spec.get(field) {
                        if want != actual {
                            failures.push(format!(
                                "memory {name:?}: {field} is {actual:?}, expected {want:?}"
                            ));
                        }
                    }
                }
                if let Some(Value::String(want)) = spec.get("bodyContains") {
                    if !m.body.contains(want.as_str()) {
                        failures.push(format!(
                            "memory {name:?}: the body does not contain {want:?}"
                        ));
                    }
                }
                if let Some(Value::Bool(want)) = spec.get("hasCode") {
                    if m.code.is_some() != *want {
                        failures.push(format!(
                            "memory {name:?}: hasCode is {}, expected {want}",
                            m.code.is_some()
                        ));
                    }
                }
            }
        }
    }
    if let Some(Value::String(name)) = expect.get("noMemory") {
        if let Some(Ok(Some(_))) = seen.agent.with_memories(|m| m.store.get(name)) {
            failures.push(format!("the store still holds {name:?}"));
        }
    }
    failures
}
