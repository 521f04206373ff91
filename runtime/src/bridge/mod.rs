//! The `gg` bridge: everything a program's `gg` calls reach. The ops
//! ([`ops`]) are the whole surface an isolate can call; they dispatch memory
//! calls ([`memory_calls`]), which load and run code memories
//! ([`code_memories`]); native tool calls ([`tools`]) land on the same
//! functions. [`GgBridge`] is what the engine loads over its web layer.

pub(crate) mod code_memories;
pub(crate) mod memory_calls;
pub(crate) mod ops;
pub(crate) mod tool_calls;
pub(crate) mod tools;

use std::cell::RefCell;

use crate::host::Host;

/// gg's bridge: the `gg_host` extension (`op_gg_call` and `js/gg.js`) over
/// the engine's web layer, reaching the agent's [`Host`].
pub(crate) struct GgBridge;

impl crate::engine::Bridge for GgBridge {
    type Host = RefCell<Host>;

    fn extension() -> deno_core::Extension {
        gg_host::init()
    }

    const MODULE_SOURCE: &'static str = GG_MODULE_SOURCE;

    const TOOLS_MODULE_SOURCE: &'static str = TOOLS_MODULE_SOURCE;
}

deno_core::extension!(
    gg_host,
    deps = [gg_web],
    ops = [
        ops::op_gg_call,
        ops::op_gg_open_text,
        ops::op_gg_close,
        ops::op_gg_bind_module,
        tool_calls::op_gg_tool_call,
    ],
    esm_entry_point = "ext:gg_host/gg.js",
    esm = [dir "src/bridge/js", "gg.js"],
);

/// The `gg/tools` module: `call`, which every generated
/// `gg/tools/<server>` module wraps, taken off the global object as `gg`'s
/// API is.
const TOOLS_MODULE_SOURCE: &str = r#"
const key = Symbol.for("gg.internal.tools");
const tools = globalThis[key];
delete globalThis[key];
export const call = tools.call;
"#;

/// The user-facing `gg` module: takes the API the host extension left and
/// removes it from the global object.
const GG_MODULE_SOURCE: &str = r#"
const key = Symbol.for("gg.internal.api");
const api = globalThis[key];
delete globalThis[key];
export const memories = api.memories;
export const views = api.views;
export const GgError = api.GgError;
export default api;
"#;
