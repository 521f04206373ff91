//! Which extensions an isolate gets and which of their ops stay callable:
//! deno_web cut down to what gg loads, gg's web layer, the embedder's
//! bridge; every other op, deno_core's own included, is disabled. Their
//! sources are compiled into the binary (deno_core as gg patches it), so
//! making an isolate reads no file.

use std::sync::Arc;

#[cfg(feature = "fault-injection")]
use super::fault;
use super::web::{gg_web, op_gg_now, op_gg_time_origin};
use super::Bridge;

/// The ops of deno_web that the scripts gg loads use (see `js/web.js`).
const WEB_OPS: [&str; 8] = [
    "op_base64_",
    "op_encoding_",
    "op_url_",
    "op_now",
    "op_time_origin",
    "op_defer",
    "op_console_",
    "op_preview_entries",
];

/// The deno_web script gg replaces with its own (`js/message_port.js`):
/// of message ports, gg's scripts use only the not-serializable marker.
const MESSAGE_PORT_SCRIPT: &str = "ext:deno_web/13_message_port.js";

/// deno_web, cut down to what gg loads. Every native function an isolate
/// gets costs a slot in the QuickJS backend's per-thread callback table,
/// held while the isolate lives, and a Rust-side function template: the
/// whole of deno_web (streams, blobs, geometry, CSS, broadcast channels, …)
/// would cost every isolate several times the slots, memory and creation
/// time of what gg loads.
fn web_extension() -> deno_core::Extension {
    let mut web = deno_web::deno_web::init(
        Arc::new(deno_web::BlobStore::default()),
        None,
        false,
        broadcast_channel(),
    );
    let ops: Vec<deno_core::OpDecl> = web
        .ops
        .iter()
        .filter(|op| WEB_OPS.iter().any(|prefix| op.name.starts_with(prefix)))
        .copied()
        .collect();
    web.ops = ops.into();
    let objects: Vec<deno_core::_ops::OpMethodDecl> = web
        .objects
        .iter()
        .filter(|object| object.name.0 == "Console")
        .copied()
        .collect();
    web.objects = objects.into();
    let scripts: Vec<deno_core::ExtensionFileSource> = web
        .lazy_loaded_js_files
        .iter()
        .map(|script| {
            if script.specifier == MESSAGE_PORT_SCRIPT {
                deno_core::ExtensionFileSource::new(
                    MESSAGE_PORT_SCRIPT,
                    deno_core::ascii_str_include!("js/message_port.js"),
                )
            } else {
                script.clone()
            }
        })
        .collect();
    web.lazy_loaded_js_files = scripts.into();
    web
}

/// The broadcast channel deno_web's state holds: one for the process,
/// shared by every isolate. No op of it is enabled (see [`WEB_OPS`]), so
/// nothing is ever sent on it; a channel per isolate would cost each one its
/// 256 empty message slots (about 16 KB).
fn broadcast_channel() -> deno_web::InMemoryBroadcastChannel {
    static SHARED: std::sync::OnceLock<deno_web::InMemoryBroadcastChannel> =
        std::sync::OnceLock::new();
    SHARED
        .get_or_init(deno_web::InMemoryBroadcastChannel::default)
        .clone()
}

/// The ops of deno_core's own table that the scripts gg loads call (its
/// `01_core.js` glue behind timers, microtasks, errors, `structuredClone`,
/// console inspection, and what it calls while it loads). Every other
/// built-in op is disabled: a disabled op throws (or, on a fast call, does
/// nothing), so `op_panic`, `op_print`, `op_serialize`/`op_deserialize`, the
/// resource-table reads and writes, `op_eval_context` and the rest do
/// nothing for anyone who reaches them.
const CORE_OPS: &[&str] = &[
    "op_add_main_module_handler",
    "op_current_user_call_site",
    "op_decode",
    "op_destructure_error",
    "op_dispatch_exception",
    "op_drain_pending_rejections",
    "op_encode",
    "op_encode_binary_string",
    "op_event_loop_has_more_work",
    "op_get_constructor_name",
    "op_get_extras_binding_object",
    "op_get_ext_import_meta_proto",
    "op_get_non_index_property_names",
    "op_get_promise_details",
    "op_get_proxy_details",
    "op_immediate_check",
    "op_lazy_load_esm",
    "op_load_ext_script",
    "op_ref_op",
    "op_run_microtasks",
    "op_set_captured_bootstrap",
    "op_set_format_exception_callback",
    "op_set_handled_promise_rejection_handler",
    "op_str_byte_length",
    "op_structured_clone",
    "op_timer_now",
    "op_timer_schedule",
    "op_timer_track",
    "op_timer_untrack",
    "op_unref_op",
    "op_void_async",
    "op_void_sync",
];

/// Whether an op of any extension stays callable in gg's isolates: gg's own,
/// the deno_web ops its scripts call, the type checks console inspection
/// uses, and [`CORE_OPS`].
fn op_allowed(name: &str) -> bool {
    name.starts_with("op_gg_")
        || name.starts_with("op_is_")
        || WEB_OPS.iter().any(|prefix| name.starts_with(prefix))
        || CORE_OPS.contains(&name)
}

/// gg's web layer, with the op filter that disables every op not
/// [allowed](op_allowed) across all extensions, deno_core's own included
/// (deno_core folds every extension's middleware over every op).
fn web_layer_extension() -> deno_core::Extension {
    let mut web = gg_web::init();
    web.middleware_fn = Some(Box::new(|op: deno_core::OpDecl| match op.name {
        // The clocks performance.now() and timeOrigin read: gg's, which
        // honour a pinned clock.
        "op_now" => op.with_implementation_from(&op_gg_now()),
        "op_time_origin" => op.with_implementation_from(&op_gg_time_origin()),
        name if op_allowed(name) => op,
        _ => op.disable(),
    }));
    web
}

/// An isolate's extensions, in load order: the web layer, then bridge
/// `B`'s.
#[cfg_attr(not(feature = "fault-injection"), allow(unused_mut))]
pub(super) fn extensions<B: Bridge>() -> Vec<deno_core::Extension> {
    let mut list = vec![
        deno_webidl::deno_webidl::init(),
        web_extension(),
        web_layer_extension(),
        B::extension(),
    ];
    #[cfg(feature = "fault-injection")]
    if fault::enabled() {
        list.push(fault::extension());
    }
    list
}

#[cfg(test)]
mod tests {
    /// Every script an isolate loads is in the binary: none is named by a
    /// path on the build machine, which an installed binary (or a confined
    /// worker) could not read.
    #[test]
    #[allow(deprecated)] // matching deno_core's deprecated source variants
    fn every_extension_source_is_compiled_in() {
        use deno_core::ExtensionFileSourceCode as Code;
        let mut seen = 0;
        for extension in super::extensions::<crate::bridge::GgBridge>() {
            for files in [
                &extension.js_files,
                &extension.esm_files,
                &extension.lazy_loaded_esm_files,
                &extension.lazy_loaded_js_files,
            ] {
                for file in files.iter() {
                    seen += 1;
                    assert!(
                        !matches!(file.code, Code::LoadedFromFsDuringSnapshot(_)),
                        "{} is read from the build tree: {:?}",
                        file.specifier,
                        file.code
                    );
                }
            }
        }
        assert!(seen > 10, "the web layer's scripts are there: {seen}");
    }
}
