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

/// The deno_web scripts gg replaces with its own stand-ins, each keeping
/// only what the scripts gg loads read from it (see the stand-ins' own
/// comments): deno_web loads each whole for one or two functions, and
/// every isolate paid for classes, converters and regular expressions no
/// program could reach.
fn stand_in(specifier: &str) -> Option<deno_core::FastStaticString> {
    match specifier {
        "ext:deno_web/00_infra.js" => Some(deno_core::ascii_str_include!("js/infra.js")),
        "ext:deno_web/13_message_port.js" => {
            Some(deno_core::ascii_str_include!("js/message_port.js"))
        }
        _ => None,
    }
}

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
        .map(|op| match op.name {
            // Sized against the heap before it builds the pairs.
            "op_url_parse_search_params" => super::url_params::op_url_parse_search_params(),
            _ => *op,
        })
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
        .map(|script| match stand_in(script.specifier) {
            Some(code) => deno_core::ExtensionFileSource::new(script.specifier, code),
            None => script.clone(),
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

    /// What each stand-in script returns (see [`super::stand_in`]).
    const STAND_IN_EXPORTS: [(&str, &[&str]); 2] = [
        ("ext:deno_web/00_infra.js", &["assert", "AssertionError"]),
        (
            "ext:deno_web/13_message_port.js",
            &["markNotSerializable", "MessagePortPrototype"],
        ),
    ];

    /// The names a script reads from the script its `loadExtScript(` at
    /// `at` loads: a destructuring before the call or one property after it.
    fn names_read(text: &str, at: usize, call_end: usize) -> Option<Vec<String>> {
        let before = text[..at].trim_end();
        let before = before.strip_suffix("core.")?.trim_end();
        let destructured = before
            .strip_suffix('=')
            .and_then(|rest| rest.trim_end().strip_suffix('}'));
        if let Some(rest) = destructured {
            let open = rest.rfind('{')?;
            return Some(
                rest[open + 1..]
                    .split(',')
                    .map(|part| part.split(':').next().unwrap_or("").trim().to_owned())
                    .filter(|name| !name.is_empty())
                    .collect(),
            );
        }
        let after = text[call_end..].trim_start().strip_prefix('.')?;
        let name: String = after
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '$')
            .collect();
        (!name.is_empty()).then_some(vec![name])
    }

    /// deno_webidl's and deno_web's own scripts (not gg's stand-ins), by
    /// specifier.
    fn deno_scripts() -> std::collections::HashMap<String, String> {
        let mut sources = std::collections::HashMap::new();
        let originals = [
            deno_webidl::deno_webidl::init(),
            deno_web::deno_web::init(
                std::sync::Arc::new(deno_web::BlobStore::default()),
                None,
                false,
                super::broadcast_channel(),
            ),
        ];
        for extension in &originals {
            for file in extension.lazy_loaded_js_files.iter() {
                let code = file.load().expect("a compiled-in script");
                sources.insert(file.specifier.to_owned(), code.as_str().to_owned());
            }
        }
        sources
    }

    /// The scripts `js/web.js` loads, all in `loadWebLayer`.
    fn web_js_loads() -> Vec<String> {
        let web_js = include_str!("js/web.js");
        let loads: Vec<String> = web_js
            .match_indices("load(\"")
            .map(|(at, _)| {
                let name = &web_js[at + 6..];
                let name = &name[..name.find('"').expect("a closing quote")];
                format!("ext:deno_web/{name}.js")
            })
            .collect();
        assert!(loads.len() >= 10, "web.js's loads are found: {loads:?}");
        loads
    }

    /// One `loadExtScript("…")` call in a script's text.
    struct LoadCall<'a> {
        /// The specifier it loads.
        loaded: &'a str,
        /// Where `loadExtScript(` starts, and where the call's `)` ends.
        at: usize,
        call_end: usize,
        /// Whether it runs while the script loads: its statement starts a
        /// line, as deno_web's formatting puts every top-level statement;
        /// a call in a function body is indented.
        top_level: bool,
    }

    /// Every `loadExtScript` call in `text` (of the script `specifier`).
    fn load_calls<'a>(specifier: &str, text: &'a str) -> Vec<LoadCall<'a>> {
        text.match_indices("loadExtScript(")
            .map(|(at, call)| {
                let args = text[at + call.len()..].trim_start();
                let Some(args) = args.strip_prefix('"') else {
                    panic!("{specifier} loads a script named at run time");
                };
                let loaded = &args[..args.find('"').expect("a closing quote")];
                let call_end = text[at..].find(')').map(|end| at + end + 1).unwrap();
                let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
                let top_level = !text[line_start..].starts_with([' ', '\t']);
                LoadCall {
                    loaded,
                    at,
                    call_end,
                    top_level,
                }
            })
            .collect()
    }

    /// Every script a script gg loads can ask for, even from a function
    /// body long after, was loaded with the web layer (`loadWebLayer` in
    /// `js/web.js`): `loadExtScript` then answers from its cache. Loading
    /// the web layer ends by letting go of what loading a script needs
    /// (`releaseBootstrap`), so a script first loaded later would throw
    /// instead.
    #[test]
    fn every_script_a_loaded_script_can_ask_for_is_loaded_with_the_web_layer() {
        let sources = deno_scripts();
        let text_of = |specifier: &str| -> Option<&str> {
            if super::stand_in(specifier).is_some() {
                return None;
            }
            Some(
                sources
                    .get(specifier)
                    .unwrap_or_else(|| panic!("{specifier} is one of deno_web's scripts")),
            )
        };
        let mut loaded_with_the_web_layer = std::collections::HashSet::new();
        let mut queue = web_js_loads();
        while let Some(specifier) = queue.pop() {
            if !loaded_with_the_web_layer.insert(specifier.clone()) {
                continue;
            }
            let Some(text) = text_of(&specifier) else {
                continue;
            };
            for call in load_calls(&specifier, text) {
                if call.top_level {
                    queue.push(call.loaded.to_owned());
                }
            }
        }
        let mut asked_later = 0;
        for specifier in &loaded_with_the_web_layer {
            let Some(text) = text_of(specifier) else {
                continue;
            };
            for call in load_calls(specifier, text) {
                if !call.top_level {
                    asked_later += 1;
                }
                assert!(
                    loaded_with_the_web_layer.contains(call.loaded),
                    "{specifier} can load {} after the web layer loaded, which never loaded it",
                    call.loaded
                );
            }
        }
        assert!(
            asked_later >= 3,
            "the calls in function bodies are found: {asked_later}"
        );
        assert!(loaded_with_the_web_layer.contains("ext:deno_web/13_message_port.js"));
    }

    /// Every script gg's web layer loads, followed from `js/web.js` through
    /// each `loadExtScript` call in deno_web's own texts, reads from a
    /// stand-in only what the stand-in returns: a deno_web update that made
    /// a loaded script read more fails here, not in a program.
    #[test]
    fn stand_ins_return_everything_the_loaded_scripts_read_from_them() {
        let sources = deno_scripts();
        let mut queue = web_js_loads();
        let mut seen = std::collections::HashSet::new();
        let mut reads_from_stand_ins = 0;
        while let Some(specifier) = queue.pop() {
            if !seen.insert(specifier.clone()) {
                continue;
            }
            let text = sources
                .get(&specifier)
                .unwrap_or_else(|| panic!("{specifier} is one of deno_web's scripts"));
            for LoadCall {
                loaded,
                at,
                call_end,
                ..
            } in load_calls(&specifier, text)
            {
                match STAND_IN_EXPORTS.iter().find(|(name, _)| *name == loaded) {
                    Some((_, exports)) => {
                        let names = names_read(text, at, call_end).unwrap_or_else(|| {
                            panic!("cannot tell what {specifier} reads from {loaded}")
                        });
                        for name in names {
                            assert!(
                                exports.contains(&name.as_str()),
                                "{specifier} reads `{name}` from {loaded}, which gg's stand-in does not return"
                            );
                            reads_from_stand_ins += 1;
                        }
                    }
                    None => queue.push(loaded.to_owned()),
                }
            }
        }
        assert!(
            reads_from_stand_ins >= 3,
            "the reads of the stand-ins are found: {reads_from_stand_ins}"
        );
        for (stand_in, _) in STAND_IN_EXPORTS {
            assert!(
                super::stand_in(stand_in).is_some(),
                "{stand_in} has a stand-in"
            );
            assert!(
                !seen.contains(stand_in),
                "{stand_in}'s original is never followed"
            );
        }
    }
}
