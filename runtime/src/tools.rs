//! Native tool calls (tool-calling mode), dispatched to the same host
//! functions the `gg` module reaches.

use gg_module::memories::{schemas, Call, Origin};
use gg_module::{GgError, GgResult};
use serde_json::Value;

use crate::host::Host;
use crate::memory_calls;

/// Runs one native tool call.
pub fn dispatch(host: &mut Host, name: &str, arguments: Value) -> GgResult<Value> {
    if let Some(call) = Call::from_tool_name(name) {
        return memory_calls::call(host, call, Origin::Native, arguments);
    }
    let offered = offered_names(host);
    Err(GgError::unavailable(if offered.is_empty() {
        format!("there is no tool named {name}: this agent has no tools enabled.")
    } else {
        format!(
            "there is no tool named {name}. Your tools: {}.",
            offered.join(", ")
        )
    }))
}

fn offered_names(host: &Host) -> Vec<String> {
    host.memories
        .as_ref()
        .map(|m| {
            m.offered()
                .iter()
                .map(|c| c.tool_name().to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// The JSON Schemas of exactly the tools this agent is offered.
pub fn schemas(host: &Host) -> Vec<Value> {
    match &host.memories {
        Some(m) => schemas::tool_schemas(m.strategy(), &m.offered()),
        None => Vec::new(),
    }
}
