//! One turn in tool-calling mode: native tool calls and their results.

use gg_module::ItemBody;
use serde_json::Value;

use crate::turn::{ToolCall, ToolResult, TurnOutcome};

use super::{Agent, AgentError};

impl Agent {
    pub(super) fn run_tool_calls(
        &mut self,
        calls: Vec<ToolCall>,
    ) -> Result<TurnOutcome, AgentError> {
        let turn = self.begin_turn();
        self.begin_recorded(turn, None, None)?;
        let mut results = Vec::new();
        let names: Vec<String> = calls.iter().map(|c| c.name.clone()).collect();
        let mut host = self.host.borrow_mut();
        for call in calls {
            host.window.push(
                turn,
                ItemBody::ToolCall {
                    call_id: call.id.clone(),
                    name: call.name.clone(),
                    arguments: call.arguments.clone(),
                },
            );
            let (result, view) =
                match crate::bridge::tools::dispatch(&mut host, &call.name, call.arguments) {
                    Ok((value, view)) => {
                        let content = match value {
                            Value::Null => "ok".to_string(),
                            Value::String(s) => s,
                            v => v.to_string(),
                        };
                        (
                            ToolResult {
                                call_id: call.id,
                                content,
                                is_error: false,
                                error_code: None,
                            },
                            view,
                        )
                    }
                    Err(e) => (
                        ToolResult {
                            call_id: call.id,
                            content: format!("{}: {}", e.code, e.message),
                            is_error: true,
                            error_code: Some(e.code.as_str().to_string()),
                        },
                        None,
                    ),
                };
            host.window.push(
                turn,
                ItemBody::ToolResult {
                    call_id: result.call_id.clone(),
                    content: result.content.clone(),
                    is_error: result.is_error,
                    view,
                },
            );
            results.push(result);
        }
        let views = self.arrive(&mut host, turn);
        let mut refusals_of = gg_module::events::TurnRefusals::default();
        for (r, name) in results.iter().zip(&names).filter(|(r, _)| r.is_error) {
            refusals_of.push_with(|| crate::turn::Refusal {
                call: name.clone(),
                code: r.error_code.clone().unwrap_or_default(),
                message: r
                    .content
                    .split_once(": ")
                    .map(|x| x.1)
                    .unwrap_or(&r.content)
                    .to_string(),
            });
        }
        let (refusals, unrecorded_refusals) = refusals_of.into_parts();
        Ok(TurnOutcome {
            turn,
            acknowledgement: None,
            tool_results: results,
            views,
            error_location: None,
            events: host.events.drain(),
            refusals,
            unrecorded_refusals,
            internal_error: host.internal_error.take(),
        })
    }
}
