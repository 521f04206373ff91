//! JSON Schemas for the native memory tools: exactly the calls offered, and
//! no code fields (a tool-calling run sees description and body alone).

use serde_json::{json, Value};

use super::calls::Call;
use super::config::Strategy;

/// `{ name, description, input_schema }` for each offered call.
pub fn tool_schemas(strategy: Strategy, offered: &[Call]) -> Vec<Value> {
    offered.iter().map(|c| schema(strategy, *c)).collect()
}

fn memory_object(strategy: Strategy) -> Value {
    let mut required = vec!["name", "body"];
    if strategy != Strategy::KeywordSearch {
        required.insert(1, "description");
    }
    json!({
        "type": "object",
        "properties": {
            "name": { "type": "string", "pattern": "^[A-Za-z0-9._-]{1,64}$", "description": "The memory's slug: 1-64 letters, digits, '-', '_' or '.'." },
            "description": { "type": "string", "description": "One line saying what the memory holds." },
            "body": { "type": "string", "description": "The memory's text." }
        },
        "required": required,
        "additionalProperties": false
    })
}

fn name_only() -> Value {
    json!({
        "type": "object",
        "properties": { "name": { "type": "string", "description": "The memory's slug." } },
        "required": ["name"],
        "additionalProperties": false
    })
}

fn schema(strategy: Strategy, call: Call) -> Value {
    let (description, input) = match call {
        Call::Write => (
            "Store a new memory; it is pinned in full in your window from the next compaction on.",
            memory_object(strategy),
        ),
        Call::Update => (
            "Replace a memory's description and body.",
            memory_object(strategy),
        ),
        Call::Create => ("Create a new memory.", memory_object(strategy)),
        Call::Read => ("Read a memory's description and body.", name_only()),
        Call::Delete => ("Delete a memory.", name_only()),
        Call::Edit => (
            "Revise a memory's body by search/replace: old_string must occur exactly once.",
            json!({
                "type": "object",
                "properties": {
                    "name": { "type": "string" },
                    "old_string": { "type": "string", "description": "Exact text to replace; must occur exactly once." },
                    "new_string": { "type": "string", "description": "The replacement." }
                },
                "required": ["name", "old_string", "new_string"],
                "additionalProperties": false
            }),
        ),
        Call::Search => (
            "Search memories by keywords: ranked by distinct keywords matched, then occurrences.",
            json!({
                "type": "object",
                "properties": { "keywords": { "type": "array", "items": { "type": "string" }, "minItems": 1 } },
                "required": ["keywords"],
                "additionalProperties": false
            }),
        ),
    };
    json!({ "name": call.tool_name(), "description": description, "input_schema": input })
}
