//! One tool call, from either execution mode: the host-side checks, the
//! call on the tool runtime within its limit, and its answer shaped for the
//! program (structured content, else text) or refused with a `GgError`.

use std::time::{Duration, Instant};

use gg_module::events::{Event, ToolCallRecord};
use gg_module::{ErrorCode, GgError, GgResult};
use rmcp::model::{CallToolResult, ContentBlock as RawContent};
use serde_json::Value;

use super::hub;
use super::offered::{OfferedTools, Source};
use super::upstream::UpstreamError;
use crate::engine::WaitClock;
use crate::policy::{ToolCallRequest, ToolDecision};

/// A call on its way: what the event will say of it, and its answer to
/// await (in an isolate's event loop) or wait for (in a native call).
pub(crate) struct PendingCall {
    pub server: String,
    pub tool: String,
    /// Characters of the argument, as JSON.
    pub argument_chars: usize,
    started: Instant,
    result_chars: usize,
    answer: tokio::task::JoinHandle<GgResult<Value>>,
}

impl OfferedTools {
    /// Checks the call host-side (the server and tool are offered, the
    /// argument passes the tool's schema) and starts it on the tool
    /// runtime. A refusal here never reaches the server.
    pub(crate) fn start(&self, server: &str, tool: &str, argument: Value) -> GgResult<PendingCall> {
        let offered = self.server(server)?;
        let Some(found) = offered.tools.iter().find(|t| t.tool == tool) else {
            let names: Vec<String> = offered
                .tools
                .iter()
                .map(|t| format!("{:?}", t.tool))
                .collect();
            return Err(GgError::unavailable(format!(
                "the server {:?} offers no tool {:?} to this agent; it offers {}.",
                gg_module::Quoted(server),
                gg_module::Quoted(tool),
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            )));
        };
        let argument = match argument {
            Value::Null => Value::Object(Default::default()),
            other => other,
        };
        let Value::Object(map) = argument else {
            return Err(GgError::invalid(format!(
                "{server}.{tool} takes one object argument, got {}.",
                gg_module::json_kind(&argument)
            )));
        };
        let argument = Value::Object(map);
        gg_module::tools::validate(&found.input_schema, &argument)
            .map_err(|problem| GgError::invalid(format!("{server}.{tool}: {problem}")))?;
        let argument_chars = argument.to_string().chars().count();
        // A host function carries its own limits; an upstream tool has its
        // server's.
        let (time_ms, result_chars) = match &found.host {
            Some(host) => (host.time_ms, host.result_chars),
            None => (offered.time_ms, offered.result_chars),
        };
        let limit = Duration::from_millis(time_ms);
        let label = format!("{server}.{tool}");
        // The profile allows the call; the embedder's policy decides it.
        let decided = match self.gate.policy.tool_call(&ToolCallRequest {
            agent: &self.gate.agent,
            server,
            tool,
            argument: &argument,
        }) {
            ToolDecision::Allow => None,
            ToolDecision::Refuse(why) => return Err(refused(&label, &why)),
            ToolDecision::Ask(decision) => Some((decision, self.gate.clock.clone())),
        };
        let answer = match (&offered.source, &found.host) {
            (_, Some(host)) => {
                let run = host.run(argument);
                hub::handle().spawn(async move {
                    decide(&label, decided).await?;
                    match tokio::time::timeout(limit, run).await {
                        Err(_) => Err(timed_out(&label, limit)),
                        Ok(Ok(value)) => Ok(value),
                        Ok(Err(e)) => Err(GgError::new(e.code, e.message)),
                    }
                })
            }
            (Source::Upstream(upstream), None) => {
                let upstream = upstream.clone();
                let tool = tool.to_string();
                hub::handle().spawn(async move {
                    decide(&label, decided).await?;
                    let Value::Object(map) = argument else {
                        unreachable!("checked above")
                    };
                    match upstream.call(&tool, map, limit).await {
                        Ok(result) => answer_of(&label, result),
                        Err(UpstreamError::TimedOut(limit)) => Err(timed_out(&label, limit)),
                        Err(UpstreamError::Unavailable(reason)) => Err(GgError::unavailable(
                            format!("{label}: the server is unavailable: {reason}"),
                        )),
                        Err(UpstreamError::Protocol { code, message }) => Err(GgError::new(
                            protocol_code(code),
                            format!("{label}: {message}"),
                        )),
                    }
                })
            }
            (Source::Host, None) => {
                return Err(GgError::internal(format!("{label} has no handler")))
            }
        };
        Ok(PendingCall {
            server: server.to_string(),
            tool: tool.to_string(),
            argument_chars,
            started: Instant::now(),
            result_chars,
            answer,
        })
    }
}

impl PendingCall {
    /// The call's answer, once it has come (awaited in an isolate's
    /// event loop).
    pub(crate) async fn answer(self) -> (GgResult<Value>, ToolCallRecordParts) {
        let PendingCall {
            server,
            tool,
            argument_chars,
            started,
            result_chars,
            answer,
        } = self;
        let result = match answer.await {
            Ok(result) => result,
            Err(e) => Err(GgError::internal(format!(
                "{server}.{tool}: the call failed inside gg: {e}"
            ))),
        };
        let result = result.and_then(|value| cap(&server, &tool, value, result_chars));
        let parts = ToolCallRecordParts {
            server,
            tool,
            argument_chars,
            duration: started.elapsed(),
        };
        (result, parts)
    }

    /// The call's answer, waited for on this thread (a native tool call).
    pub(crate) fn wait(self) -> (GgResult<Value>, ToolCallRecordParts) {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        hub::handle().spawn(async move {
            let _ = tx.send(self.answer().await);
        });
        rx.recv()
            .expect("the tool runtime answers every call it was given")
    }
}

/// What the `tool_call` event needs besides the agent and the answer.
pub(crate) struct ToolCallRecordParts {
    server: String,
    tool: String,
    argument_chars: usize,
    duration: Duration,
}

impl ToolCallRecordParts {
    /// The call's `tool_call` event.
    pub(crate) fn event(&self, agent: &str, turn: u32, result: &GgResult<Value>) -> Event {
        Event::ToolCall(ToolCallRecord {
            agent: agent.to_string(),
            turn,
            server: self.server.clone(),
            tool: self.tool.clone(),
            duration_ms: self.duration.as_secs_f64() * 1000.0,
            ok: result.is_ok(),
            error_code: result.as_ref().err().map(|e| e.code.as_str().to_string()),
            argument_chars: self.argument_chars,
            result_chars: match result {
                Ok(Value::String(s)) => s.chars().count(),
                Ok(v) => v.to_string().chars().count(),
                Err(_) => 0,
            },
        })
    }
}

/// A decision the policy gives later, awaited with the program's clock
/// stopped: `Ok` when the call may go ahead.
async fn decide(label: &str, decided: Option<(AskedDecision, Option<WaitClock>)>) -> GgResult<()> {
    let Some((decision, clock)) = decided else {
        return Ok(());
    };
    let waiting = clock.as_ref().map(WaitClock::pause);
    let decision = tokio::time::timeout(DECIDE_WITHIN, decision).await;
    drop(waiting);
    match decision {
        Err(_) => Err(GgError::unavailable(format!(
            "{label}: the host's policy gave no decision within {} minutes",
            DECIDE_WITHIN.as_secs() / 60
        ))),
        Ok(ToolDecision::Allow) => Ok(()),
        Ok(ToolDecision::Refuse(why)) => Err(refused(label, &why)),
        Ok(ToolDecision::Ask(_)) => Err(GgError::internal(format!(
            "{label}: the host's policy answered a question with another question"
        ))),
    }
}

/// The longest a call waits for the policy's decision: a person may take
/// their time, but a decision that never comes must not hold the call (and
/// the agent's turn) forever.
const DECIDE_WITHIN: Duration = Duration::from_secs(10 * 60);

/// A decision still to come.
type AskedDecision = std::pin::Pin<Box<dyn std::future::Future<Output = ToolDecision> + Send>>;

/// The refusal of a call the host's policy did not allow.
fn refused(label: &str, why: &str) -> GgError {
    GgError::unavailable(format!("{label} was refused by the host: {why}"))
}

fn timed_out(label: &str, limit: Duration) -> GgError {
    GgError::limit(format!(
        "{label} did not answer within its limit of {} ms and was abandoned; ask for less, or raise the server's timeMs.",
        limit.as_millis()
    ))
}

/// A JSON-RPC error's code as the program's `GgError` code.
fn protocol_code(code: i32) -> ErrorCode {
    match code {
        // Invalid params.
        -32602 => ErrorCode::InvalidArgument,
        // Method not found.
        -32601 => ErrorCode::Unavailable,
        _ => ErrorCode::IoError,
    }
}

/// A tool's result as the program gets it: its structured content when it
/// has one, else its text; `isError` as a refusal with the server's text.
fn answer_of(label: &str, result: CallToolResult) -> GgResult<Value> {
    let text = text_of(&result);
    if result.is_error == Some(true) {
        return Err(GgError::new(
            error_code_of(&text),
            format!("{label}: {text}"),
        ));
    }
    Ok(match result.structured_content {
        Some(structured) => structured,
        None => Value::String(text),
    })
}

/// The result's content blocks as text: text as it is, an embedded
/// resource's text, and a line naming anything that is not text.
fn text_of(result: &CallToolResult) -> String {
    let mut parts = Vec::new();
    for block in &result.content {
        match block {
            RawContent::Text(t) => parts.push(t.text.clone()),
            RawContent::Image(i) => parts.push(format!(
                "[an image, {}, {} base64 characters]",
                i.mime_type,
                i.data.len()
            )),
            RawContent::Audio(a) => parts.push(format!(
                "[audio, {}, {} base64 characters]",
                a.mime_type,
                a.data.len()
            )),
            RawContent::Resource(r) => match &r.resource {
                rmcp::model::ResourceContents::TextResourceContents { text, .. } => {
                    parts.push(text.clone())
                }
                rmcp::model::ResourceContents::BlobResourceContents { uri, .. } => {
                    parts.push(format!("[a binary resource, {uri}]"))
                }
                _ => parts.push("[a resource of a kind gg does not know]".to_string()),
            },
            RawContent::ResourceLink(link) => {
                parts.push(format!("[a resource link, {}]", link.uri))
            }
            _ => parts.push("[content of a kind gg does not know]".to_string()),
        }
    }
    parts.join("\n")
}

/// What kind of failure a tool's error text describes. The MCP SDKs
/// report a schema mismatch in the text of an `isError` result
/// (`MCP error -32602: Input validation error: …`).
fn error_code_of(text: &str) -> ErrorCode {
    let lower = text.to_ascii_lowercase();
    if lower.contains("-32602")
        || lower.contains("invalid argument")
        || lower.contains("invalid input")
        || lower.contains("validation error")
    {
        ErrorCode::InvalidArgument
    } else if lower.contains("not found") && lower.contains("tool") {
        ErrorCode::Unavailable
    } else {
        ErrorCode::IoError
    }
}

/// Refuses a result longer than the server's cap.
fn cap(server: &str, tool: &str, value: Value, result_chars: usize) -> GgResult<Value> {
    let chars = match &value {
        Value::String(s) => s.chars().count(),
        other => other.to_string().chars().count(),
    };
    if chars > result_chars {
        return Err(GgError::limit(format!(
            "{server}.{tool} answered {chars} characters, over the {result_chars} this agent takes from {server}; ask for less at a time."
        )));
    }
    Ok(value)
}
