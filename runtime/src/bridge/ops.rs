//! The ops behind the `gg` module: `op_gg_call`, one dispatcher for every
//! `gg` call, so the whole surface a program can reach beyond the web
//! globals is the `match` in [`dispatch`]; and typed ops for the calls a
//! program makes in loops (`views.openText`, `views.close`), which skip the
//! JSON both ways when their arguments are strings and reach the same host
//! functions with the same checks.

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
    match guarded(state, name, |state| json_call(state, name, args)) {
        Ok(value) => reply_json(json!([true, value])),
        Err(e) => reply_json(json!([false, e.code.as_str(), e.message])),
    }
}

/// A typed op's answer: the call was made.
const TYPED_DONE: u32 = 0;
/// A typed op's answer: the call was refused, and the refusal waits for
/// [`op_gg_take_refusal`].
const TYPED_REFUSED: u32 = 1;
/// A typed op's answer: an argument holds U+FFFD, which is also what the
/// engine makes of a lone surrogate, so the op cannot tell what the program
/// passed; the module makes the call through `op_gg_call` instead, whose
/// JSON keeps the difference.
const TYPED_ASK_JSON: u32 = 2;

fn maybe_lossy(s: &str) -> bool {
    s.contains(char::REPLACEMENT_CHARACTER)
}

/// `views.openText(label, body)` with both arguments strings already (the
/// module takes this path only then): no JSON either way. Answers
/// [`TYPED_DONE`], [`TYPED_REFUSED`] or [`TYPED_ASK_JSON`].
#[op2(fast)]
pub fn op_gg_open_text(state: &mut OpState, #[string] label: &str, #[string] body: &str) -> u32 {
    const NAME: &str = "views.openText";
    if maybe_lossy(label) || maybe_lossy(body) {
        return TYPED_ASK_JSON;
    }
    let outcome = guarded(state, NAME, |state| {
        host_call(state, NAME, |host| {
            host.open_text(label.to_string(), body.to_string())
                .map(|()| Value::Null)
        })
    });
    hold_refusal(state, outcome)
}

/// `views.close(labelOrPath)` with a string argument; answers as
/// [`op_gg_open_text`] does.
#[op2(fast)]
pub fn op_gg_close(state: &mut OpState, #[string] label_or_path: &str) -> u32 {
    const NAME: &str = "views.close";
    if maybe_lossy(label_or_path) {
        return TYPED_ASK_JSON;
    }
    let outcome = guarded(state, NAME, |state| {
        host_call(state, NAME, |host| {
            host.close(label_or_path).map(|()| Value::Null)
        })
    });
    hold_refusal(state, outcome)
}

/// The refusal a typed op answered 1 for, as `[false, code, message]`.
#[op2]
#[string]
pub fn op_gg_take_refusal(state: &mut OpState) -> String {
    match state.try_take::<HeldRefusal>() {
        Some(HeldRefusal(e)) => reply_json(json!([false, e.code.as_str(), e.message])),
        None => reply_json(json!([
            false,
            "internal",
            "gg lost the refusal of the last call; this is gg's defect, not your program's."
        ])),
    }
}

/// A typed op's refusal, between the op and [`op_gg_take_refusal`].
struct HeldRefusal(GgError);

fn hold_refusal(state: &mut OpState, outcome: GgResult<Value>) -> u32 {
    match outcome {
        Ok(_) => TYPED_DONE,
        Err(e) => {
            state.put(HeldRefusal(e));
            TYPED_REFUSED
        }
    }
}

fn reply_json(reply: Value) -> String {
    serde_json::to_string(&reply)
        .unwrap_or_else(|_| r#"[false,"internal","the reply could not be encoded."]"#.to_string())
}

/// Runs one call's handling. A panic there would cross the engine's C
/// frames and abort the whole process: a defect in gg's own call handling
/// ends this agent instead.
fn guarded(
    state: &mut OpState,
    name: &str,
    handle: impl FnOnce(&mut OpState) -> GgResult<Value>,
) -> GgResult<Value> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| handle(state))) {
        Ok(outcome) => outcome,
        Err(payload) => {
            let detail = crate::defect::panic_text(&payload);
            tracing::error!("gg's handling of {name} panicked: {detail}");
            if let Some(host) = state.try_borrow::<SharedHost>().cloned() {
                if let Ok(mut host) = host.try_borrow_mut() {
                    host.internal_error = Some(format!("gg failed inside the call {name}"));
                }
            }
            Err(GgError::internal(format!(
                "gg failed inside {name}; this is gg's defect, not your program's. The run ends."
            )))
        }
    }
}

fn json_call(state: &mut OpState, name: &str, args: &str) -> GgResult<Value> {
    host_call(state, name, |host| {
        let args: Value = serde_json::from_str(args).map_err(|e| {
            // JSON.stringify writes a lone surrogate as a `\uD8xx`-style
            // escape and every other character validly, so an escape error
            // is one.
            let text = e.to_string();
            if text.contains("surrogate") || text.contains("hex escape") {
                GgError::invalid(format!("{name}: a string argument holds a lone surrogate (half of a UTF-16 pair), which is not text gg can keep; pass well-formed text, e.g. `s.toWellFormed()`."))
            } else {
                GgError::invalid(format!("{name}: the arguments could not be read: {e}"))
            }
        })?;
        dispatch(host, name, args)
    })
}

fn no_agent() -> GgError {
    GgError::internal("this isolate serves no agent yet.")
}

/// Runs `call` on the agent's host; a refusal it gives is kept in the
/// turn's refusals.
fn host_call(
    state: &mut OpState,
    name: &str,
    call: impl FnOnce(&mut Host) -> GgResult<Value>,
) -> GgResult<Value> {
    let host = state.try_borrow::<SharedHost>().ok_or_else(no_agent)?;
    let Ok(mut host) = host.try_borrow_mut() else {
        return Err(GgError::unavailable(format!("{name} was called while another gg call was still running (from a getter or toJSON of its arguments); make the calls one after another.")));
    };
    call(&mut host).inspect_err(|e| {
        host.refusals.push_with(|| crate::turn::Refusal {
            call: name.to_string(),
            code: e.code.as_str().to_string(),
            message: e.message.clone(),
        });
    })
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
    ops = [
        op_gg_call,
        op_gg_open_text,
        op_gg_close,
        op_gg_take_refusal,
        crate::bridge::tool_calls::op_gg_tool_call,
    ],
    esm_entry_point = "ext:gg_host/gg.js",
    esm = [dir "src/bridge/js", "gg.js"],
);
