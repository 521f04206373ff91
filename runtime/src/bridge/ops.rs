//! The op behind the `gg` module: `op_gg_call`, one dispatcher for every
//! `gg` call, so the whole surface a program can reach beyond the web
//! globals is the `match` in [`dispatch`].

use std::cell::RefCell;
use std::rc::Rc;

use deno_core::{op2, OpState};
use gg_module::{GgError, GgResult};
use serde_json::{json, Value};

use crate::bridge::memory_calls;
use crate::host::Host;
use gg_module::memories::{Call, Origin};

pub type SharedHost = Rc<RefCell<Host>>;

/// A program's console lines land in its agent's capture. A line printed
/// while a gg call holds the host (a hook it runs) waits for nothing: it is
/// dropped rather than panicking the host.
impl crate::engine::ConsoleSink for RefCell<Host> {
    fn line(&self, level: &'static str, text: &str) {
        if let Ok(mut host) = self.try_borrow_mut() {
            host.console.push(level, text.to_string());
        }
    }
}

/// Every `gg` call: its arguments and its reply travel as JSON text (see
/// `js/gg.js`), so nothing a program passes can trip the host's decoder.
#[op2]
#[string]
pub fn op_gg_call(state: &mut OpState, #[string] name: &str, #[string] args: &str) -> String {
    // A panic here would cross the engine's C frames and abort the whole
    // process: a defect in gg's own call handling ends this agent instead.
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| gg_call(state, name, args))) {
        Ok(reply) => reply_json(reply),
        Err(payload) => {
            let detail = crate::defect::panic_text(&payload);
            tracing::error!("gg's handling of {name} panicked: {detail}");
            if let Some(host) = state.try_borrow::<SharedHost>().cloned() {
                if let Ok(mut host) = host.try_borrow_mut() {
                    host.internal_error = Some(format!("gg failed inside the call {name}"));
                }
            }
            reply_json(json!([
                false,
                "internal",
                format!("gg failed inside {name}; this is gg's defect, not your program's. The run ends.")
            ]))
        }
    }
}

fn reply_json(reply: Value) -> String {
    serde_json::to_string(&reply)
        .unwrap_or_else(|_| r#"[false,"internal","the reply could not be encoded."]"#.to_string())
}

fn gg_call(state: &mut OpState, name: &str, args: &str) -> Value {
    let Some(host) = state.try_borrow::<SharedHost>().cloned() else {
        return json!([false, "internal", "this isolate serves no agent yet."]);
    };
    let args: Value = match serde_json::from_str(args) {
        Ok(args) => args,
        Err(e) => {
            return json!([
                false,
                "invalid-argument",
                format!("{name}: the arguments could not be read: {e}")
            ])
        }
    };
    let Ok(mut host) = host.try_borrow_mut() else {
        return json!([false, "unavailable", format!("{name} was called while another gg call was still running (from a getter or toJSON of its arguments); make the calls one after another.")]);
    };
    let result = dispatch(&mut host, name, args);
    match result {
        Ok(value) => json!([true, value]),
        Err(e) => {
            host.refusals.push(crate::turn::Refusal {
                call: name.to_string(),
                code: e.code.as_str().to_string(),
                message: e.message.clone(),
            });
            json!([false, e.code.as_str(), e.message])
        }
    }
}

/// Every call a program can make, checked here, host-side.
pub fn dispatch(host: &mut Host, name: &str, args: Value) -> GgResult<Value> {
    let args = Args::new(name, args);
    match name {
        "views.openFile" => {
            let path = args.string(0, "path")?;
            let options = args.object_or_none(1, "options")?;
            let offset = options.count("offset")?;
            let limit = options.count("limit")?;
            host.open_file(&path, offset, limit)?;
            Ok(Value::Null)
        }
        "views.openText" => {
            let label = args.string(0, "label")?;
            let body = args.string(1, "body")?;
            host.open_text(label, body)?;
            Ok(Value::Null)
        }
        "views.close" => {
            let name = args.string(0, "labelOrPath")?;
            host.close(&name)?;
            Ok(Value::Null)
        }
        _ if name.starts_with("memories.") => {
            let method = &name["memories.".len()..];
            let call = Call::from_module_name(method)
                .ok_or_else(|| GgError::unavailable(format!("gg has no call named {name}.")))?;
            memory_calls::call(
                host,
                call,
                Origin::Code,
                args.values.into_iter().next().unwrap_or(Value::Null),
            )
        }
        #[cfg(feature = "fault-injection")]
        "fault.panic" => panic!("injected fault: a defect in a gg call"),
        _ => Err(GgError::unavailable(format!(
            "gg has no call named {name}."
        ))),
    }
}

/// Positional arguments of one call, with refusals that name the call, the
/// parameter and what was wrong.
struct Args<'a> {
    call: &'a str,
    values: Vec<Value>,
}

impl<'a> Args<'a> {
    fn new(call: &'a str, args: Value) -> Self {
        let values = match args {
            Value::Array(values) => values,
            other => vec![other],
        };
        Args { call, values }
    }

    fn get(&self, i: usize) -> &Value {
        self.values.get(i).unwrap_or(&Value::Null)
    }

    fn string(&self, i: usize, param: &str) -> GgResult<String> {
        match self.get(i) {
            Value::String(s) => Ok(s.clone()),
            Value::Null => Err(GgError::invalid(format!(
                "{} needs {param} (a string); none was given.",
                self.call
            ))),
            other => Err(GgError::invalid(format!(
                "{}: {param} must be a string, got {}.",
                self.call,
                gg_module::json_kind(other)
            ))),
        }
    }

    fn object_or_none(&self, i: usize, param: &str) -> GgResult<Options<'_>> {
        match self.get(i) {
            Value::Null => Ok(Options {
                call: self.call,
                map: None,
            }),
            Value::Object(map) => Ok(Options {
                call: self.call,
                map: Some(map),
            }),
            other => Err(GgError::invalid(format!(
                "{}: {param} must be an object, got {}.",
                self.call,
                gg_module::json_kind(other)
            ))),
        }
    }
}

struct Options<'a> {
    call: &'a str,
    map: Option<&'a serde_json::Map<String, Value>>,
}

impl Options<'_> {
    fn count(&self, key: &str) -> GgResult<Option<usize>> {
        match self.map.and_then(|m| m.get(key)) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) if n.as_u64().is_some() => Ok(n.as_u64().map(|n| n as usize)),
            Some(other) => Err(GgError::invalid(format!(
                "{}: {key} must be a whole number of lines, got {}.",
                self.call,
                match other {
                    Value::Number(n) => n.to_string(),
                    v => gg_module::json_kind(v).to_string(),
                }
            ))),
        }
    }
}

deno_core::extension!(
    gg_host,
    deps = [gg_web],
    ops = [op_gg_call, crate::bridge::tool_calls::op_gg_tool_call],
    esm_entry_point = "ext:gg_host/gg.js",
    esm = [dir "src/bridge/js", "gg.js"],
);
