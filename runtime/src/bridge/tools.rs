//! Native tool calls (tool-calling mode), dispatched to the same host
//! functions the `gg` module reaches: memory calls, `read_file`, and the
//! tool servers' tools (`files__read_file`).

use gg_module::memories::{schemas, Call, Origin};
use gg_module::{GgError, GgResult, View};
use serde_json::Value;

use crate::bridge::memory_calls;
use crate::host::Host;

/// Runs one native tool call. A `read_file` result comes with the file
/// view it is.
pub fn dispatch(host: &mut Host, name: &str, arguments: Value) -> GgResult<(Value, Option<View>)> {
    if let Some(call) = Call::from_tool_name(name) {
        return memory_calls::call(host, call, Origin::Native, arguments).map(|v| (v, None));
    }
    if name == "read_file" && host.profile.capability("read-file").is_some() {
        return read_file(host, arguments);
    }
    if let Some((server, tool)) = host
        .tools
        .by_native(name)
        .map(|(s, t)| (s.name.clone(), t.tool.clone()))
    {
        // The same path a program's call takes: checked, limited, shaped
        // and recorded alike; only the wait is on this thread.
        let (result, parts) = host.tools.start(&server, &tool, arguments)?.wait();
        let event = parts.event(&host.agent_id, host.turn, &result);
        host.events.emit(event);
        return result.map(|value| (value, None));
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
    let mut names: Vec<String> = host
        .memories
        .as_ref()
        .map(|m| {
            m.offered()
                .iter()
                .map(|c| c.tool_name().to_string())
                .collect()
        })
        .unwrap_or_default();
    if host.profile.capability("read-file").is_some() {
        names.insert(0, "read_file".into());
    }
    for server in &host.tools.servers {
        names.extend(server.tools.iter().map(|t| t.native.clone()));
    }
    names
}

fn read_file(host: &mut Host, arguments: Value) -> GgResult<(Value, Option<View>)> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Args {
        path: String,
        offset: Option<usize>,
        limit: Option<usize>,
    }
    let args: Args = serde_json::from_value(arguments).map_err(|e| {
        GgError::invalid(format!(
            "read_file: {e}; expected {{ path, offset?, limit? }}."
        ))
    })?;
    let workspace = host.workspace.as_ref().ok_or_else(|| {
        GgError::unavailable("read_file is unavailable: this agent has no workspace.")
    })?;
    let cap = host
        .profile
        .line_cap()
        .unwrap_or(gg_module::views::DEFAULT_LINE_CAP);
    let view = gg_module::views::read_file_view(
        workspace,
        &args.path,
        args.offset,
        args.limit,
        cap,
        host.profile.programs.output_chars,
    )?;
    let text = gg_module::window::file_view_text(&view).expect("a file view");
    Ok((Value::String(text), Some(view)))
}

/// The JSON Schemas of exactly the tools this agent is offered: `read_file`
/// when the profile grants `read-file`, then the memory calls, then its
/// tool servers' allowed tools.
pub fn schemas(host: &Host) -> Vec<Value> {
    let mut tools = Vec::new();
    if host.profile.capability("read-file").is_some() {
        tools.push(read_file_schema(host));
    }
    if let Some(m) = &host.memories {
        tools.extend(schemas::tool_schemas(m.strategy(), &m.offered()));
    }
    tools.extend(host.tools.native_schemas());
    tools
}

fn read_file_schema(host: &Host) -> Value {
    let cap = host
        .profile
        .line_cap()
        .unwrap_or(gg_module::views::DEFAULT_LINE_CAP);
    serde_json::json!({
        "name": "read_file",
        "description": format!(
            "Read a file of the workspace as numbered lines: at most {cap} lines from `offset` (1-based; default 1). The file stays open as a view for later turns."
        ),
        "input_schema": {
            "type": "object",
            "properties": {
                "path": { "type": "string", "description": "The file's path, relative to the workspace." },
                "offset": { "type": "integer", "minimum": 1, "description": "The first line to show, from 1." },
                "limit": { "type": "integer", "minimum": 1, "description": format!("How many lines to show, at most {cap}.") }
            },
            "required": ["path"],
            "additionalProperties": false
        }
    })
}
