//! Decoding a memory call's arguments, from a program (camelCase) or a
//! native tool call (snake_case), with refusals that name what was wrong.

use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::Value;

use super::service::{MemoryInput, Origin};
use crate::error::{GgError, GgResult};

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct CodeMemory {
    name: String,
    description: Option<String>,
    body: String,
    code: Option<String>,
    on_use: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NativeMemory {
    name: String,
    description: Option<String>,
    body: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct CodeEdit {
    name: String,
    old_string: String,
    new_string: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NativeEdit {
    name: String,
    old_string: String,
    new_string: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NameArg {
    name: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct KeywordsArg {
    keywords: Vec<String>,
}

fn decode<T: DeserializeOwned>(call: &str, value: Value, shape: &str) -> GgResult<T> {
    if value.is_null() {
        return Err(GgError::invalid(format!(
            "{call} needs an argument: {shape}."
        )));
    }
    serde_json::from_value(value)
        .map_err(|e| GgError::invalid(format!("{call}: {e}; expected {shape}.")))
}

/// Decodes a write, update or create argument for `call`. Code mode reads
/// `{ name, description, body, code?, onUse? }`; a native call reads
/// `{ name, description, body }` and never carries code halves.
pub fn memory_input(call: &str, value: Value, origin: Origin) -> GgResult<MemoryInput> {
    Ok(match origin {
        Origin::Code => {
            let m: CodeMemory = decode(call, value, "{ name, description, body, code?, onUse? }")?;
            MemoryInput {
                name: m.name,
                description: m.description,
                body: m.body,
                code: m.code,
                on_use: m.on_use,
            }
        }
        Origin::Native => {
            let m: NativeMemory = decode(call, value, "{ name, description, body }")?;
            MemoryInput {
                name: m.name,
                description: m.description,
                body: m.body,
                code: None,
                on_use: None,
            }
        }
    })
}

/// (name, old, new)
pub fn edit(call: &str, value: Value, origin: Origin) -> GgResult<(String, String, String)> {
    Ok(match origin {
        Origin::Code => {
            let e: CodeEdit = decode(call, value, "{ name, oldString, newString }")?;
            (e.name, e.old_string, e.new_string)
        }
        Origin::Native => {
            let e: NativeEdit = decode(call, value, "{ name, old_string, new_string }")?;
            (e.name, e.old_string, e.new_string)
        }
    })
}

/// A name: a bare string from a program, `{ name }` from a tool call.
pub fn name(call: &str, value: Value, origin: Origin) -> GgResult<String> {
    match (origin, value) {
        (Origin::Code, Value::String(s)) => Ok(s),
        (Origin::Code, Value::Object(o)) if o.contains_key("name") => {
            Ok(decode::<NameArg>(call, Value::Object(o), "a memory's name")?.name)
        }
        (Origin::Code, other) => Err(GgError::invalid(format!(
            "{call} takes the memory's name as a string, got {other}."
        ))),
        (Origin::Native, value) => Ok(decode::<NameArg>(call, value, "{ name }")?.name),
    }
}

/// Keywords: an array from a program, `{ keywords }` from a tool call.
pub fn keywords(call: &str, value: Value, origin: Origin) -> GgResult<Vec<String>> {
    match (origin, value) {
        (Origin::Code, Value::Array(items)) => items
            .into_iter()
            .map(|v| match v {
                Value::String(s) => Ok(s),
                other => Err(GgError::invalid(format!(
                    "{call}: every keyword must be a string, got {other}."
                ))),
            })
            .collect(),
        (Origin::Code, Value::String(s)) => Err(GgError::invalid(format!(
            "{call} takes an array of keywords, e.g. [{:?}], not a single string.",
            crate::Quoted(&s)
        ))),
        (Origin::Code, other) => Err(GgError::invalid(format!(
            "{call} takes an array of keywords, got {other}."
        ))),
        (Origin::Native, value) => {
            Ok(decode::<KeywordsArg>(call, value, "{ keywords: string[] }")?.keywords)
        }
    }
}
