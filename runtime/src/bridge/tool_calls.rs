//! `op_gg_tool_call`: a program's call of a tool (`tools.call`, which the
//! generated `gg/tools/<server>` modules wrap). Async: the program awaits
//! the answer while its isolate's event loop runs on, and the host is held
//! only to check and start the call and to record its answer, never
//! across the wait.

use std::cell::RefCell;
use std::rc::Rc;

use deno_core::{op2, OpState};
use serde_json::{json, Value};

use crate::host::SharedHost;

#[op2]
#[string]
pub async fn op_gg_tool_call(
    state: Rc<RefCell<OpState>>,
    #[string] server: String,
    #[string] tool: String,
    #[string] argument: String,
) -> String {
    let Some(host) = state.borrow().try_borrow::<SharedHost>().cloned() else {
        return json!([false, "internal", "this isolate serves no agent yet."]).to_string();
    };
    let label = format!("{server}.{tool}");
    if argument.len() > crate::tools::MAX_ARGUMENT_CHARS {
        return refuse(
            &host,
            &label,
            gg_module::GgError::limit(format!(
                "{label}: the argument is {} bytes of JSON, over the {} a tool call may carry; pass less at a time.",
                argument.len(),
                crate::tools::MAX_ARGUMENT_CHARS
            )),
        );
    }
    let argument: Value = match serde_json::from_str(&argument) {
        Ok(argument) => argument,
        Err(e) => {
            return refuse(
                &host,
                &label,
                gg_module::GgError::invalid(format!(
                    "{label}: the argument could not be read: {e}"
                )),
            )
        }
    };
    let pending = {
        let Ok(mut held) = host.try_borrow_mut() else {
            return refuse_unborrowed(&label);
        };
        if held.tool_calls_in_flight.len() >= crate::tools::MAX_IN_FLIGHT {
            drop(held);
            return refuse(
                &host,
                &label,
                gg_module::GgError::limit(format!(
                    "{label}: {} tool calls are already waiting for their answers, the most one agent may have; await some before starting more.",
                    crate::tools::MAX_IN_FLIGHT
                )),
            );
        }
        let pending = held.tools.start(&server, &tool, argument);
        if pending.is_ok() {
            held.tool_calls_in_flight.push(label.clone());
        }
        pending
    };
    let pending = match pending {
        Ok(pending) => pending,
        Err(e) => return refuse(&host, &label, e),
    };
    let (result, parts) = pending.answer().await;
    let Ok(mut held) = host.try_borrow_mut() else {
        return refuse_unborrowed(&label);
    };
    if let Some(i) = held.tool_calls_in_flight.iter().position(|l| *l == label) {
        held.tool_calls_in_flight.remove(i);
    }
    let event = parts.event(&held.agent_id, held.turn, &result);
    held.events.emit(event);
    drop(held);
    match result {
        Ok(value) => json!([true, value]).to_string(),
        Err(e) => refuse(&host, &label, e),
    }
}

/// The refusal a program's promise rejects with, recorded as the turn's.
fn refuse(host: &SharedHost, label: &str, e: gg_module::GgError) -> String {
    if let Ok(mut host) = host.try_borrow_mut() {
        host.refusals.push_with(|| crate::turn::Refusal {
            call: label.to_string(),
            code: e.code.as_str().to_string(),
            message: e.message.clone(),
        });
    }
    json!([false, e.code.as_str(), e.message]).to_string()
}

fn refuse_unborrowed(label: &str) -> String {
    json!([
        false,
        "unavailable",
        format!("{label} was called while another gg call was still running (from a getter or toJSON of its argument); make the calls one after another.")
    ])
    .to_string()
}
