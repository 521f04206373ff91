//! One agent instance's JavaScript isolate: a deno_core `JsRuntime` with the
//! `gg` host extension, a module loader that reaches nothing but `gg` and
//! loaded code memories, and the time and heap limits every program runs
//! under. The isolate is reused across the agent's turns.

mod errors;
#[cfg(feature = "fault-injection")]
pub mod fault;
pub mod loader;
pub mod pool;
pub mod registry;
mod watchdog;

use std::cell::Cell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use deno_core::{v8, JsRuntime, ModuleSpecifier, PollEventLoopOptions, RuntimeOptions};
use gg_transpiler::PositionMap;

pub use errors::{Frame, ThrownError};
use loader::{GgLoader, SharedRegistry, GG_SPECIFIER};
use watchdog::Watchdog;

use crate::bridge::ops::{gg_host, SharedHost};

/// Whether this build carries the test-only injected engine fault (the
/// `fault-injection` feature; see `fault`).
pub const INJECTED_FAULT_BUILT: bool = cfg!(feature = "fault-injection");

/// Gives every isolate this process makes from now on the injected engine
/// fault. Returns false, doing nothing, in a build without the
/// `fault-injection` feature ([`INJECTED_FAULT_BUILT`]).
pub fn enable_injected_fault() -> bool {
    #[cfg(feature = "fault-injection")]
    fault::enable();
    INJECTED_FAULT_BUILT
}

/// Why a program was stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ceiling {
    /// Ran past its wall-clock limit.
    Time(Duration),
    /// Tried to grow the heap past the limit (bytes).
    Heap(usize),
}

impl Ceiling {
    pub fn describe(&self) -> String {
        match self {
            Ceiling::Time(limit) => format!(
                "the program ran past its time limit of {} ms and was stopped. Look for a loop that never ends, or split the work over several turns.",
                limit.as_millis()
            ),
            Ceiling::Heap(bytes) => format!(
                "the program tried to use more than its heap limit of {} MiB and was stopped. Work on the data in smaller pieces.",
                bytes / (1024 * 1024)
            ),
        }
    }
}

/// Heap a program may use past its limit while its termination unwinds
/// (bytes): 16 MiB, or a quarter of the limit when that is more.
const UNWIND_ALLOWANCE: usize = 16 << 20;

/// The ops of deno_web that the scripts gg loads use (see `js/web.js`).
const WEB_OPS: [&str; 9] = [
    "op_base64_",
    "op_encoding_",
    "op_url_",
    "op_now",
    "op_time_origin",
    "op_defer",
    "op_console_",
    "op_preview_entries",
    "op_message_port_",
];

/// deno_web, cut down to what gg loads. Every native function an isolate
/// gets costs a slot in the QuickJS backend's per-thread callback table,
/// which is never freed and is full after about 32 768 (see README,
/// *Known limit of the backend*): the whole of deno_web (streams, blobs,
/// geometry, CSS, broadcast channels, …) would let a thread make only about
/// 55 isolates in its life; without what gg never loads, several times more.
fn web_extension() -> deno_core::Extension {
    let mut web = deno_web::deno_web::init(
        Arc::new(deno_web::BlobStore::default()),
        None,
        false,
        deno_web::InMemoryBroadcastChannel::default(),
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
    web
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

/// gg's host extension, with the op filter that disables every op not
/// [allowed](op_allowed) across all extensions, deno_core's own included.
fn host_extension() -> deno_core::Extension {
    let mut host = gg_host::init();
    host.middleware_fn = Some(Box::new(|op: deno_core::OpDecl| match op.name {
        // The clocks performance.now() and timeOrigin read: gg's, which
        // honour a pinned clock.
        "op_now" => op.with_implementation_from(&crate::bridge::ops::op_gg_now()),
        "op_time_origin" => op.with_implementation_from(&crate::bridge::ops::op_gg_time_origin()),
        name if op_allowed(name) => op,
        _ => op.disable(),
    }));
    host
}

/// The source text of an extension file deno_core names by path, read once
/// per process: deno_core 0.413 records extension sources by their path on
/// the build machine and reads them on every isolate's creation. Reading
/// them once makes creation cheaper and lets a confined worker process
/// (which may not read those paths) make isolates.
fn source_text(path: &'static str) -> Option<Arc<str>> {
    static SOURCES: std::sync::OnceLock<std::sync::Mutex<HashMap<&'static str, Arc<str>>>> =
        std::sync::OnceLock::new();
    let sources = SOURCES.get_or_init(Default::default);
    let mut sources = sources.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(text) = sources.get(path) {
        return Some(text.clone());
    }
    let text: Arc<str> = std::fs::read_to_string(path).ok()?.into();
    sources.insert(path, text.clone());
    Some(text)
}

/// `extension` with every source deno_core would read from disk replaced
/// by its text, read once per process (see [`source_text`]).
#[allow(deprecated)] // matching deno_core's deprecated source variants
fn sources_in_memory(mut extension: deno_core::Extension) -> deno_core::Extension {
    use deno_core::ExtensionFileSourceCode as Code;
    for files in [
        &mut extension.js_files,
        &mut extension.esm_files,
        &mut extension.lazy_loaded_esm_files,
        &mut extension.lazy_loaded_js_files,
    ] {
        let converted: Vec<deno_core::ExtensionFileSource> = files
            .iter()
            .map(|file| {
                let mut file = file.clone();
                if let Code::LoadedFromFsDuringSnapshot(path) = file.code {
                    if let Some(text) = source_text(path) {
                        file.code = Code::Computed(text);
                    }
                }
                file
            })
            .collect();
        *files = converted.into();
    }
    extension
}

/// gg's extensions, in load order.
#[cfg_attr(not(feature = "fault-injection"), allow(unused_mut))]
fn extensions() -> Vec<deno_core::Extension> {
    let mut list = vec![
        deno_webidl::deno_webidl::init(),
        web_extension(),
        host_extension(),
    ];
    #[cfg(feature = "fault-injection")]
    if fault::enabled() {
        list.push(fault::extension());
    }
    list.into_iter().map(sources_in_memory).collect()
}

/// Reads every extension source into memory now, so isolates made later
/// need no file outside what the process is given (a confined worker calls
/// this before it gives up its file access).
pub fn preload_sources() {
    drop(extensions());
}

/// A deno_core runtime with gg's extensions, before gg's bootstrap.
fn new_runtime(loader: Rc<GgLoader>, heap_limit: usize) -> Result<JsRuntime, String> {
    let create_params = v8::CreateParams::default().heap_limits(0, heap_limit);
    JsRuntime::try_new(RuntimeOptions {
        module_loader: Some(loader),
        extensions: extensions(),
        create_params: Some(create_params),
        ..Default::default()
    })
    .map_err(|e| format!("cannot create a JavaScript isolate: {e}"))
}

/// Runs once per isolate, after the extensions: removes deno_core's
/// internals and the engine's glue (`__v8x…` functions and registries, `gc`)
/// from the global object, installs the `Deno` refusal, and hands the web
/// bootstrap's control object to the host.
const BOOTSTRAP: &str = r#"
delete globalThis.Deno;
delete globalThis.__bootstrap;
for (const key of Reflect.ownKeys(globalThis)) {
  if (typeof key === "string" && (key.startsWith("__v8x") || key === "gc")) {
    delete globalThis[key];
  }
}
(() => {
  const key = Symbol.for("gg.internal.web");
  const web = globalThis[key];
  delete globalThis[key];
  web.refuseDeno();
  web.setTimeOrigin();
  return web;
})()
"#;

/// An entered isolate; exits it when dropped.
struct Entered {
    isolate: *const v8::Isolate,
}

impl Drop for Entered {
    fn drop(&mut self) {
        // SAFETY: balanced with the `enter` that made this guard.
        unsafe { (*self.isolate).exit() };
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        // The runtime's teardown runs JavaScript-side cleanup: do it with
        // this isolate current. Disposal removes it from the thread's stack.
        let isolate: *const v8::Isolate = &**self.runtime.v8_isolate();
        // SAFETY: the isolate is alive until the runtime field drops after this.
        unsafe { (*isolate).enter() };
    }
}

/// How one module's evaluation ended.
#[derive(Debug, Clone)]
pub enum RunEnd {
    /// Evaluated; the rendered default export, if it has one.
    Finished {
        value: Option<String>,
    },
    Threw(ThrownError),
    Ceiling(Ceiling),
}

pub struct Engine {
    runtime: JsRuntime,
    loader: Rc<GgLoader>,
    registry: SharedRegistry,
    tokio: tokio::runtime::Runtime,
    watchdog: Watchdog,
    heap_hit: Rc<Cell<bool>>,
    heap_limit: usize,
    /// Position maps of every module this isolate compiled from TypeScript,
    /// with the name errors should show for it.
    positions: HashMap<String, (String, Rc<PositionMap>)>,
    /// The web bootstrap's control object (timers, seed, clock), taken off
    /// the global object before any program runs.
    web: v8::Global<v8::Value>,
    /// Timers the last evaluation left pending, cancelled when it ended.
    cancelled_timers: u32,
}

/// What a run may pin so that a recorded session replays byte for byte.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Determinism {
    /// Seeds `Math.random`, `crypto.getRandomValues` and `crypto.randomUUID`.
    pub seed: Option<u64>,
    /// Pins `Date.now()` and `new Date()` to this instant (ms since the epoch).
    pub clock_ms: Option<i64>,
}

impl Engine {
    /// An isolate for one agent: a pre-warmed one from this thread's pool
    /// when there is one for this heap limit (see [`pool`]), else a new one;
    /// bound to the agent's host and module registry.
    pub fn new(
        host: SharedHost,
        registry: SharedRegistry,
        heap_limit: usize,
    ) -> Result<Self, String> {
        let mut engine = match pool::take(heap_limit) {
            Some(engine) => engine,
            None => Engine::warm(heap_limit)?,
        };
        engine.bind(host, registry);
        Ok(engine)
    }

    /// Binds a warm isolate to the agent it will serve for its whole life.
    fn bind(&mut self, host: SharedHost, registry: SharedRegistry) {
        self.runtime.op_state().borrow_mut().put::<SharedHost>(host);
        self.loader.bind(registry.clone());
        self.registry = registry;
    }

    /// Creates an isolate and runs gg's bootstrap, bound to no agent yet:
    /// the extensions (deno_web's globals, the gg host), the removal of
    /// `Deno` and `__bootstrap`, and the user-facing `gg` module. It has run
    /// no program, so nothing of any agent is in it.
    pub fn warm(heap_limit: usize) -> Result<Self, String> {
        let registry: SharedRegistry = Default::default();
        let loader = Rc::new(GgLoader::new(registry.clone()));
        let mut runtime = new_runtime(loader.clone(), heap_limit)?;

        // `Atomics.wait` throws instead of blocking the host's thread.
        runtime.v8_isolate().set_allow_atomics_wait(false);
        let handle = runtime.v8_isolate().thread_safe_handle();
        let watchdog = Watchdog::new(handle.clone());
        let heap_hit = Rc::new(Cell::new(false));
        {
            let heap_hit = heap_hit.clone();
            let terminating = watchdog.terminating.clone();
            // One fixed allowance past the limit, never more: enough for the
            // termination to unwind (the isolate is replaced after a heap
            // ceiling anyway), and a ceiling rather than a limit that
            // doubles each time a native loop such as `Array.prototype.fill`
            // keeps allocating before the termination can take effect.
            let ceiling = heap_limit.saturating_add(UNWIND_ALLOWANCE.max(heap_limit / 4));
            runtime.add_near_heap_limit_callback(move |current, _initial| {
                heap_hit.set(true);
                terminating.store(true, Ordering::SeqCst);
                handle.terminate_execution();
                current.max(ceiling)
            });
        }

        #[cfg(feature = "fault-injection")]
        if fault::enabled() {
            runtime
                .execute_script("gg:fault", fault::GLOBAL)
                .map_err(|e| format!("the injected fault failed to install: {e}"))?;
        }
        let web = runtime
            .execute_script("gg:bootstrap", BOOTSTRAP)
            .map_err(|e| format!("bootstrap failed: {e}"))?;

        let tokio = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .map_err(|e| format!("cannot start the isolate's event loop: {e}"))?;

        let mut engine = Engine {
            runtime,
            loader,
            registry,
            tokio,
            watchdog,
            heap_hit,
            heap_limit,
            positions: HashMap::new(),
            web,
            cancelled_timers: 0,
        };
        // Load `gg` now, so the API stash is off the global object before
        // any program runs.
        let spec = ModuleSpecifier::parse(GG_SPECIFIER).expect("a valid specifier");
        match engine.evaluate(&spec, None, Duration::from_secs(10)) {
            RunEnd::Finished { .. } => Ok(engine),
            other => Err(format!("the gg module failed to load: {other:?}")),
        }
    }

    /// Evaluates `code` as the ES module `specifier` within `limit`.
    pub fn run_module(
        &mut self,
        specifier: &str,
        display: &str,
        code: String,
        positions: Rc<PositionMap>,
        limit: Duration,
    ) -> RunEnd {
        let spec = match ModuleSpecifier::parse(specifier) {
            Ok(spec) => spec,
            Err(e) => {
                return RunEnd::Threw(ThrownError::plain(format!(
                    "internal: bad module specifier {specifier}: {e}"
                )))
            }
        };
        self.positions
            .insert(specifier.to_string(), (display.to_string(), positions));
        let end = self.evaluate(&spec, Some(code), limit);
        // The program's positions are needed only while it runs.
        self.positions.remove(specifier);
        end
    }

    /// Makes this isolate the thread's current one until the guard drops.
    /// Several agents' isolates may live on one thread (a session, a test);
    /// the engine keeps per-thread state about the current isolate, so
    /// every use enters its own first.
    fn enter(&mut self) -> Entered {
        let isolate: *const v8::Isolate = &**self.runtime.v8_isolate();
        // SAFETY: the isolate outlives the guard (the guard never leaves
        // the engine method that made it), and enter/exit are balanced.
        unsafe { (*isolate).enter() };
        Entered { isolate }
    }

    fn evaluate(
        &mut self,
        spec: &ModuleSpecifier,
        code: Option<String>,
        limit: Duration,
    ) -> RunEnd {
        let _entered = self.enter();
        self.heap_hit.set(false);
        self.watchdog.terminating.store(false, Ordering::SeqCst);
        let armed = self.watchdog.arm(limit);
        let runtime = &mut self.runtime;
        // A last resort for a program waiting on something that never comes:
        // the event loop is abandoned a little after the deadline.
        let backstop = limit + Duration::from_millis(250);
        let terminating = self.watchdog.terminating.clone();
        let web = self.web.clone();
        let cancelled = Cell::new(0u32);
        let result = self.tokio.block_on(async {
            let load = async {
                let id = match code {
                    Some(code) => runtime.load_side_es_module_from_code(spec, code).await?,
                    None => runtime.load_side_es_module(spec).await?,
                };
                let eval = runtime.mod_evaluate(id);
                if terminating.load(Ordering::SeqCst) {
                    // Stopped during the synchronous part of evaluation.
                    return Ok(None);
                }
                let evaluated = runtime
                    .with_event_loop_promise(Box::pin(eval), PollEventLoopOptions::default())
                    .await;
                // The program has ended: what it left on timers is cancelled
                // (and reported), never awaited. Not after a termination: the
                // isolate is replaced then, and running JavaScript in it again
                // would let the microtasks it was stopped in go on unwatched.
                if !terminating.load(Ordering::SeqCst) {
                    cancelled.set(call_web(runtime, &web, "cancelPending", &[]).unwrap_or(0));
                }
                evaluated?;
                // A rejected evaluation (an uncaught throw) and any unhandled
                // rejection surface from the event loop, not from `eval`.
                runtime
                    .run_event_loop(PollEventLoopOptions::default())
                    .await?;
                // Rendered now, while the time limit still holds: a getter
                // of the exported value is the program's code too.
                let value = default_export(runtime, &web, id);
                Ok::<_, deno_core::error::CoreError>(Some(value))
            };
            let mut load = std::pin::pin!(load);
            // Once the isolate is terminated nothing more is polled: the
            // evaluation it cut short will never settle.
            let guarded = std::future::poll_fn(|cx| {
                if terminating.load(Ordering::SeqCst) {
                    return std::task::Poll::Ready(None);
                }
                std::future::Future::poll(load.as_mut(), cx).map(|r| r.transpose())
            });
            tokio::time::timeout(backstop, guarded).await
        });
        let fired = armed.fired();
        drop(armed);
        self.cancelled_timers = cancelled.get();
        let terminated = self.watchdog.terminating.swap(false, Ordering::SeqCst);
        if terminated {
            self.runtime.v8_isolate().cancel_terminate_execution();
        }
        if self.heap_hit.get() {
            return RunEnd::Ceiling(Ceiling::Heap(self.heap_limit));
        }
        if fired {
            return RunEnd::Ceiling(Ceiling::Time(limit));
        }
        match result {
            Err(_) | Ok(None) => RunEnd::Ceiling(Ceiling::Time(limit)),
            Ok(Some(Err(error))) => {
                let registry = self.registry.borrow();
                let lookup = |specifier: &str| {
                    self.positions.get(specifier).cloned().or_else(|| {
                        registry
                            .module(specifier)
                            .map(|m| (m.display.clone(), m.positions.clone()))
                    })
                };
                let thrown = errors::from_core_error(error, &lookup);
                drop(registry);
                // QuickJS reports an allocation over the heap limit as an
                // `InternalError: out of memory` exception.
                if thrown.message == "InternalError: out of memory" {
                    self.heap_hit.set(true);
                    return RunEnd::Ceiling(Ceiling::Heap(self.heap_limit));
                }
                RunEnd::Threw(thrown)
            }
            Ok(Some(Ok(value))) => RunEnd::Finished { value },
        }
    }

    /// Pins the seed and the clock for every program this isolate runs.
    pub fn configure(&mut self, determinism: Determinism) -> Result<(), String> {
        {
            let state = self.runtime.op_state();
            let mut state = state.borrow_mut();
            state.try_take::<crate::bridge::ops::PinnedClock>();
            if let Some(epoch_ms) = determinism.clock_ms {
                state.put(crate::bridge::ops::PinnedClock { epoch_ms });
            }
        }
        let _entered = self.enter();
        let _tokio = self.tokio.enter();
        let web = self.web.clone();
        deno_core::scope!(scope, &mut self.runtime);
        let seed: v8::Local<v8::Value> = match determinism.seed {
            Some(seed) => v8::Number::new(scope, (seed % (1u64 << 53)) as f64).into(),
            None => v8::null(scope).into(),
        };
        let clock: v8::Local<v8::Value> = match determinism.clock_ms {
            Some(ms) => v8::Number::new(scope, ms as f64).into(),
            None => v8::null(scope).into(),
        };
        call_web_in(scope, &web, "configure", &[seed, clock])
            .map(|_| ())
            .ok_or_else(|| "the isolate refused its seed and clock".to_string())
    }

    /// How many timers the last program left pending (cancelled when it ended).
    pub fn cancelled_timers(&self) -> u32 {
        self.cancelled_timers
    }
}

/// How many native-callback slots the engine holds on this thread for live
/// isolates' functions. Each isolate takes its slots when it is created and
/// gives them back when it is dropped, so this measures the isolates alive
/// on the thread now, never how many it has made. Always 0 on real V8, which
/// has no such table.
pub fn live_native_slots() -> usize {
    #[cfg(feature = "quickjs")]
    {
        v8::quickjs_live_dispatch_entries()
    }
    #[cfg(not(feature = "quickjs"))]
    {
        0
    }
}

/// Calls `method` on the web bootstrap's control object; its result as a
/// count (`None` when it threw or was not a number).
fn call_web(
    runtime: &mut JsRuntime,
    web: &v8::Global<v8::Value>,
    method: &str,
    args: &[v8::Local<v8::Value>],
) -> Option<u32> {
    deno_core::scope!(scope, runtime);
    call_web_in(scope, web, method, args)
}

fn call_web_in<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    web: &v8::Global<v8::Value>,
    method: &str,
    args: &[v8::Local<'s, v8::Value>],
) -> Option<u32> {
    let object = v8::Local::new(scope, web).to_object(scope)?;
    let key = v8::String::new(scope, method)?;
    let function = v8::Local::<v8::Function>::try_from(object.get(scope, key.into())?).ok()?;
    let result = function.call(scope, object.into(), args)?;
    Some(result.uint32_value(scope).unwrap_or(0))
}

/// Renders module `id`'s default export with the web bootstrap's
/// `renderValue` (JSON where it is JSON, the JavaScript string form
/// otherwise); `None` when there is none.
fn default_export(
    runtime: &mut JsRuntime,
    web: &v8::Global<v8::Value>,
    id: deno_core::ModuleId,
) -> Option<String> {
    let namespace = runtime.get_module_namespace(id).ok()?;
    deno_core::scope!(scope, runtime);
    let namespace = v8::Local::new(scope, namespace);
    let key = v8::String::new(scope, "default")?;
    let value = namespace.get(scope, key.into())?;
    if value.is_undefined() {
        return None;
    }
    let object = v8::Local::new(scope, web).to_object(scope)?;
    let key = v8::String::new(scope, "renderValue")?;
    let render = v8::Local::<v8::Function>::try_from(object.get(scope, key.into())?).ok()?;
    let rendered = render.call(scope, object.into(), &[value])?;
    if rendered.is_string() {
        Some(rendered.to_rust_string_lossy(scope))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Calls ops straight from `Deno.core.ops`, as a program that found its
    /// way to deno_core's internals would, and reports what each did.
    const PROBE: &str = r#"
const ops = Deno.core.ops;
const out = {};
const calls = [
  ["op_panic", ["a program asked for a panic"]],
  ["op_print", ["p9: ok (forged)\n", false]],
  ["op_serialize", [{ a: 1 }]],
  ["op_deserialize", [new Uint8Array(16)]],
  ["op_eval_context", ["1 + 1"]],
  ["op_resources", []],
  ["op_memory_usage", []],
  ["op_str_byte_length", ["abc"]],
];
for (const [name, args] of calls) {
  try {
    const value = ops[name](...args);
    out[name] = "returned " + (value === undefined ? "undefined" : JSON.stringify(value));
  } catch (e) {
    out[name] = "threw " + e.message;
  }
}
JSON.stringify(out)
"#;

    #[test]
    fn only_the_ops_gg_needs_do_anything() {
        let registry: SharedRegistry = Default::default();
        let loader = Rc::new(GgLoader::new(registry));
        let mut runtime = new_runtime(loader, 64 << 20).expect("runtime");
        let result = runtime.execute_script("probe", PROBE).expect("probe ran");
        deno_core::scope!(scope, &mut runtime);
        let local = v8::Local::new(scope, result);
        let report: serde_json::Value =
            serde_json::from_str(&local.to_rust_string_lossy(scope)).unwrap();
        let inert = |name: &str| {
            let said = report[name].as_str().unwrap();
            assert!(
                said == "returned undefined" || said.contains("disabled"),
                "{name}: {said}"
            );
        };
        for name in [
            "op_panic",
            "op_print",
            "op_serialize",
            "op_deserialize",
            "op_eval_context",
            "op_resources",
            "op_memory_usage",
        ] {
            inert(name);
        }
        // An allowed op still answers, so the probe reached real ops.
        assert_eq!(report["op_str_byte_length"], "returned 3", "{report}");
    }
}
