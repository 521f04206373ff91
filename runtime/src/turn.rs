//! What a turn takes and what it gives back.

use gg_module::{Acknowledgement, View};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The model's answer for one turn.
#[derive(Debug, Clone)]
pub enum Response {
    /// Code mode: a TypeScript program. `file` names it in diagnostics
    /// (a fixture's path); `None` names it by its program id.
    Program {
        source: String,
        file: Option<String>,
    },
    /// Tool-calling mode: native tool calls, run in order.
    ToolCalls(Vec<ToolCall>),
}

impl Response {
    pub fn program(source: impl Into<String>) -> Self {
        Response::Program {
            source: source.into(),
            file: None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub arguments: Value,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResult {
    pub call_id: String,
    pub content: String,
    pub is_error: bool,
    /// The refusal's code, when it is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_code: Option<String>,
}

/// A call gg refused during a turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refusal {
    /// `views.openFile`, `memories.createMemory`, `create_memory`, …
    pub call: String,
    pub code: String,
    pub message: String,
}

/// What one turn did.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnOutcome {
    pub turn: u32,
    /// Code mode: the program's acknowledgement.
    pub acknowledgement: Option<Acknowledgement>,
    /// Tool-calling mode: one result per call.
    pub tool_results: Vec<ToolResult>,
    /// Views that arrive in the window for the next turn.
    pub views: Vec<View>,
    /// The TypeScript location of an uncaught error, `file:line:col`.
    pub error_location: Option<String>,
    /// Events the turn emitted (`memory_revision`, `memory_state`, …).
    pub events: Vec<Value>,
    /// Calls gg refused during the turn (caught by the program or not).
    pub refusals: Vec<Refusal>,
    /// gg's own defect met during the turn (a compiler crash): the turn is
    /// recorded against gg, and the agent has ended as `internal_error`.
    pub internal_error: Option<String>,
}
