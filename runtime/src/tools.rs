//! Native tool calls (tool-calling mode), dispatched to the same host
//! functions the `gg` module reaches.

use gg_module::{GgError, GgResult};
use serde_json::Value;

use crate::host::Host;

/// Runs one native tool call.
pub fn dispatch(_host: &mut Host, name: &str, _arguments: Value) -> GgResult<Value> {
    Err(GgError::unavailable(format!(
        "there is no tool named {name}: this agent has no tools enabled."
    )))
}
