//! What a turn takes and what it gives back.

use gg_module::events::Event;
pub use gg_module::events::Refusal;
use gg_module::{Acknowledgement, View};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The model's answer for one turn.
#[derive(Debug, Clone)]
pub enum Response {
    /// Code mode: a TypeScript program. `file` names it in diagnostics
    /// (a fixture's path); `None` names it by its program id.
    Program {
        /// The program's TypeScript source.
        source: String,
        /// The name diagnostics give the program; `None`: its program id.
        file: Option<String>,
    },
    /// Tool-calling mode: native tool calls, run in order.
    ToolCalls(Vec<ToolCall>),
}

impl Response {
    /// A program named by its program id.
    pub fn program(source: impl Into<String>) -> Self {
        Response::Program {
            source: source.into(),
            file: None,
        }
    }
}

/// One native tool call of a tool-calling turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The model's id for the call, echoed in its [`ToolResult`].
    pub id: String,
    /// The tool's name (`create_memory`, `read_file`, …).
    pub name: String,
    /// The tool's arguments, a JSON object.
    #[serde(default)]
    pub arguments: Value,
}

/// What one native tool call answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResult {
    /// The [`ToolCall::id`] this answers.
    pub call_id: String,
    /// The answer as the model reads it: JSON text, or the refusal's message.
    pub content: String,
    /// Whether the call was refused.
    pub is_error: bool,
    /// The refusal's code, when it is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_code: Option<String>,
}

/// What one turn did.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnOutcome {
    /// The turn's number in the agent's life, from 1.
    pub turn: u32,
    /// Code mode: the program's acknowledgement.
    pub acknowledgement: Option<Acknowledgement>,
    /// Tool-calling mode: one result per call.
    pub tool_results: Vec<ToolResult>,
    /// Views that arrive in the window for the next turn.
    pub views: Vec<View>,
    /// The TypeScript location of an uncaught error, `file:line:col`.
    pub error_location: Option<String>,
    /// Events the turn emitted (`memory_revision`, `memory_state`, …),
    /// the `turn` record last. Serialized as the stream's lines are.
    #[serde(serialize_with = "events_as_lines")]
    pub events: Vec<Event>,
    /// Calls gg refused during the turn (caught by the program or not): the
    /// first [`gg_module::events::RECORDED_REFUSALS`].
    pub refusals: Vec<Refusal>,
    /// Refusals past those, counted but not recorded one by one.
    pub unrecorded_refusals: u64,
    /// gg's own defect met during the turn (a compiler crash): the turn is
    /// recorded against gg, and the agent has ended as `internal_error`.
    pub internal_error: Option<String>,
}

/// Serializes events as their stream lines hold them (each object's keys in
/// alphabetical order), so a turn's JSON is the same whichever way its
/// events were read.
fn events_as_lines<S: serde::Serializer>(events: &[Event], out: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq;
    let mut seq = out.serialize_seq(Some(events.len()))?;
    for event in events {
        seq.serialize_element(&event.to_json())?;
    }
    seq.end()
}
