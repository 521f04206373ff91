//! The ops behind the `gg` module: `op_gg_call`, one dispatcher for every
//! `gg` call, so the whole surface a program can reach beyond the web
//! globals is the `match` in [`dispatch`]; and typed ops for the calls a
//! program makes in loops (`views.openText`, `views.close`), bound as the
//! methods themselves, which skip the JSON both ways when their arguments
//! are strings and reach the same host functions with the same checks.

use std::borrow::Cow;
use std::cell::RefCell;
use std::rc::Rc;

use deno_core::{op2, v8, OpState};
use gg_module::{GgError, GgResult};
use serde_json::{json, Value};

use crate::bridge::memory_calls;
use crate::host::{Host, SharedHost};
use gg_module::memories::{Call, Origin};

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
pub fn op_gg_call(
    scope: &mut v8::PinScope,
    state: &mut OpState,
    #[string] name: &str,
    #[string] args: &str,
) -> String {
    // The arguments' tree is built in host memory, at most some tens of
    // bytes a token: held to what the heap has left, as the heap would hold
    // it.
    if args.len() > ARGS_ALWAYS_FIT
        && !crate::engine::claim_host_bytes(scope, state, args_cost(args))
    {
        return reply_json(json!([
            false,
            "limit-exceeded",
            "the arguments need more memory than the heap limit leaves"
        ]));
    }
    match guarded(state, name, |state| json_call(state, name, args)) {
        Ok(value) => reply_json(json!([true, value])),
        Err(e) => reply_json(json!([false, e.code.as_str(), e.message])),
    }
}

/// Bytes of host memory one JSON token of a call's arguments may take once
/// parsed (a `serde_json::Value` and its allocation), at most.
const BYTES_PER_ARGS_TOKEN: usize = 80;

/// Arguments this long always fit: their tree cannot outgrow what an op
/// may always build.
const ARGS_ALWAYS_FIT: usize = 3 << 10;

/// What parsing `args` (JSON) may build in host memory: its text, and a
/// value per token outside its strings.
fn args_cost(args: &str) -> usize {
    let mut tokens = 1usize;
    let (mut in_string, mut escaped) = (false, false);
    for &b in args.as_bytes() {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
        } else {
            match b {
                b'"' => in_string = true,
                b',' | b':' | b'[' | b'{' => tokens += 1,
                _ => {}
            }
        }
    }
    args.len()
        .saturating_add(tokens.saturating_mul(BYTES_PER_ARGS_TOKEN))
}

/// Whether a typed op may copy `string` out of the heap: ASCII is read in
/// place; other text is converted to UTF-8 (at most two bytes a Latin-1
/// character, three a UTF-16 unit), held to what the heap has left. When
/// it may not, the program is ended at its heap ceiling.
fn may_copy(
    scope: &mut v8::Isolate,
    state: &RefCell<OpState>,
    string: v8::Local<v8::String>,
) -> bool {
    let bytes = {
        let view = v8::ValueView::new(scope, string);
        match view.data() {
            v8::ValueViewData::OneByte(bytes) if bytes.is_ascii() => 0,
            v8::ValueViewData::OneByte(latin1) => latin1.len().saturating_mul(2),
            v8::ValueViewData::TwoByte(units) => units.len().saturating_mul(3),
        }
    };
    crate::engine::claim_host_bytes(scope, &state.borrow(), bytes)
}

/// What the typed ops need of the module's JavaScript, registered once by
/// `gg.js` ([`op_gg_bind_module`]) before any program runs.
struct ModuleClasses {
    /// The `GgError` class programs catch: a typed op's refusal is thrown as
    /// an instance of it, as the JSON path's refusals are.
    gg_error: v8::Global<v8::Function>,
}

/// Registers the `GgError` class with the typed ops. Called by `gg.js`
/// while the module is built; programs never see this op.
#[op2(fast)]
pub fn op_gg_bind_module(
    state: &mut OpState,
    scope: &mut v8::PinScope,
    gg_error: v8::Local<v8::Function>,
) {
    let gg_error = v8::Global::new(scope, gg_error);
    state.put(ModuleClasses { gg_error });
}

/// A typed op's string argument as text, when it is a primitive string
/// that is well-formed text: ASCII is read in place. `None` for a string
/// holding a lone surrogate (half of a UTF-16 pair), which takes the JSON
/// path, whose checks phrase the refusal.
fn exact_text<'v>(view: &'v v8::ValueView) -> Option<Cow<'v, str>> {
    match view.data() {
        v8::ValueViewData::OneByte(bytes) if bytes.is_ascii() => {
            // SAFETY: ASCII is UTF-8.
            Some(Cow::Borrowed(unsafe {
                std::str::from_utf8_unchecked(bytes)
            }))
        }
        v8::ValueViewData::OneByte(latin1) => {
            Some(Cow::Owned(latin1.iter().map(|&b| char::from(b)).collect()))
        }
        v8::ValueViewData::TwoByte(units) => char::decode_utf16(units.iter().copied())
            .collect::<Result<String, _>>()
            .ok()
            .map(Cow::Owned),
    }
}

/// `views.openText(label, body)`: the method itself, not a wrapper around
/// it, so a call costs one crossing and no JavaScript frame. Primitive
/// string arguments reach the host directly, read in place; anything else
/// (a String object, a number, a missing argument) is encoded as the JSON
/// path encodes it (getters and `toJSON` run here, in the program's turn,
/// before the host is held) and checked by the same dispatcher. A refusal
/// is thrown as a `GgError`. Never a fast call: it may run program code
/// and throw.
#[op2(nofast, reentrant)]
pub fn op_gg_open_text(
    scope: &mut v8::PinScope,
    state: Rc<RefCell<OpState>>,
    label: v8::Local<v8::Value>,
    body: v8::Local<v8::Value>,
) {
    const NAME: &str = "views.openText";
    // The views pin the strings' contents while the host reads them, and
    // are gone before anything else touches the engine.
    let typed = match (
        v8::Local::<v8::String>::try_from(label),
        v8::Local::<v8::String>::try_from(body),
    ) {
        (Ok(label), Ok(body)) => {
            if !may_copy(scope, &state, label) || !may_copy(scope, &state, body) {
                return;
            }
            let (label, body) = (
                v8::ValueView::new(scope, label),
                v8::ValueView::new(scope, body),
            );
            match (exact_text(&label), exact_text(&body)) {
                (Some(label), Some(body)) => Some(typed_call(&state, NAME, |host| {
                    host.open_text(&label, &body)
                })),
                _ => None,
            }
        }
        _ => None,
    };
    let outcome = typed.or_else(|| json_path(scope, &state, NAME, &[label, body]));
    if let Some(Err(refusal)) = outcome {
        throw_refusal(scope, &state, refusal);
    }
}

/// `views.close(labelOrPath)`, bound as [`op_gg_open_text`] is.
#[op2(nofast, reentrant)]
pub fn op_gg_close(
    scope: &mut v8::PinScope,
    state: Rc<RefCell<OpState>>,
    label_or_path: v8::Local<v8::Value>,
) {
    const NAME: &str = "views.close";
    let typed = match v8::Local::<v8::String>::try_from(label_or_path) {
        Ok(name) => {
            if !may_copy(scope, &state, name) {
                return;
            }
            let name = v8::ValueView::new(scope, name);
            exact_text(&name).map(|name| typed_call(&state, NAME, |host| host.close(&name)))
        }
        Err(_) => None,
    };
    let outcome = typed.or_else(|| json_path(scope, &state, NAME, &[label_or_path]));
    if let Some(Err(refusal)) = outcome {
        throw_refusal(scope, &state, refusal);
    }
}

/// A typed call with its arguments read: the host is held only for `call`.
fn typed_call(
    state: &RefCell<OpState>,
    name: &str,
    call: impl FnOnce(&mut Host) -> GgResult<()>,
) -> GgResult<()> {
    let mut state = state.borrow_mut();
    guarded(&mut state, name, |state| host_call(state, name, call))
}

/// A typed op's arguments that are not plain text, sent as `op_gg_call`
/// would send them: encoded by JSON.stringify as an array. The encoding
/// runs program code (getters, `toJSON`), so no borrow is held across it;
/// when it throws, the exception stays pending and the call throws it.
fn json_path(
    scope: &mut v8::PinScope,
    state: &RefCell<OpState>,
    name: &str,
    args: &[v8::Local<v8::Value>],
) -> Option<GgResult<()>> {
    let array = v8::Array::new_with_elements(scope, args);
    let encoded = v8::json::stringify(scope, array.into())?;
    // Its copy and its tree are host memory, held to what the heap has left.
    if !crate::engine::claim_host_bytes(scope, &state.borrow(), encoded.length().saturating_mul(3))
    {
        return None;
    }
    let encoded = encoded.to_rust_string_lossy(scope);
    if encoded.len() > ARGS_ALWAYS_FIT
        && !crate::engine::claim_host_bytes(scope, &state.borrow(), args_cost(&encoded))
    {
        return None;
    }
    let mut state = state.borrow_mut();
    Some(guarded(&mut state, name, |state| json_call(state, name, &encoded)).map(drop))
}

/// Throws a refusal as a `GgError`; out of line, since a call that was made
/// (the common case) never gets here.
#[cold]
#[inline(never)]
fn throw_refusal(scope: &mut v8::PinScope, state: &RefCell<OpState>, refusal: GgError) {
    let class = state
        .borrow()
        .try_borrow::<ModuleClasses>()
        .map(|c| c.gg_error.clone());
    let code = v8::String::new(scope, refusal.code.as_str());
    let message = v8::String::new(scope, &refusal.message);
    let error = match (class, code, message) {
        (Some(class), Some(code), Some(message)) => {
            v8::Local::new(scope, class).new_instance(scope, &[code.into(), message.into()])
        }
        _ => None,
    };
    // Without an error, only an exception from building it (the heap at
    // its limit, the run being ended) can be pending: it is what the call
    // throws.
    if let Some(error) = error {
        scope.throw_exception(error.into());
    }
}

fn reply_json(reply: Value) -> String {
    serde_json::to_string(&reply)
        .unwrap_or_else(|_| r#"[false,"internal","the reply could not be encoded."]"#.to_string())
}

/// Runs one call's handling. A panic there would cross the engine's C
/// frames and abort the whole process: a defect in gg's own call handling
/// ends this agent instead.
fn guarded<T>(
    state: &mut OpState,
    name: &str,
    handle: impl FnOnce(&mut OpState) -> GgResult<T>,
) -> GgResult<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| handle(state))) {
        Ok(outcome) => outcome,
        Err(payload) => Err(defect(state, name, payload)),
    }
}

/// What a panic in gg's handling of the call `name` becomes: the agent's
/// internal error, which ends the run, and the call's refusal.
#[cold]
#[inline(never)]
fn defect(state: &mut OpState, name: &str, payload: Box<dyn std::any::Any + Send>) -> GgError {
    let detail = crate::defect::panic_text(&payload);
    tracing::error!("gg's handling of {name} panicked: {detail}");
    if let Some(host) = state.try_borrow::<SharedHost>().cloned() {
        if let Ok(mut host) = host.try_borrow_mut() {
            host.internal_error = Some(format!("gg failed inside the call {name}"));
        }
    }
    GgError::internal(format!(
        "gg failed inside {name}; this is gg's defect, not your program's. The run ends."
    ))
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
fn host_call<T>(
    state: &mut OpState,
    name: &str,
    call: impl FnOnce(&mut Host) -> GgResult<T>,
) -> GgResult<T> {
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
            host.open_text(&label, &body)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_arguments_cost_counts_tokens_outside_strings() {
        let plain = r#"["a","b,c:[{"]"#;
        assert_eq!(args_cost(plain), plain.len() + 3 * BYTES_PER_ARGS_TOKEN);
        let escaped = r#"["a\"b,",1]"#;
        assert_eq!(args_cost(escaped), escaped.len() + 3 * BYTES_PER_ARGS_TOKEN);
    }
}
