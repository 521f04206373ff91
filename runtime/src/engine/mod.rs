//! One agent instance's JavaScript isolate: a deno_core `JsRuntime` with
//! gg's web layer and a [`Bridge`]'s extension, a module loader that
//! reaches nothing but `gg` and loaded code memories, and the time and heap
//! limits every program runs under. The isolate is reused across the
//! agent's turns. The engine knows nothing of agents or memories: what the
//! `gg` module does is the bridge's.

mod errors;
mod extensions;
mod failure;
#[cfg(feature = "fault-injection")]
pub mod fault;
mod host_memory;
pub(crate) use host_memory::claim as claim_host_bytes;
mod intl;
mod json_string;
pub mod loader;
pub mod pool;
mod probes;
pub mod registry;
mod url_params;
mod watchdog;
mod web;
mod web_names;

use std::any::TypeId;
use std::cell::Cell;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use deno_core::{v8, JsRuntime, ModuleSpecifier, PollEventLoopOptions, RuntimeOptions};
use gg_transpiler::PositionMap;

pub use errors::{Frame, ThrownError};
pub use failure::EngineError;
use loader::{GgLoader, SharedRegistry, GG_SPECIFIER, GG_TOOLS_SPECIFIER};
pub use probes::{
    lazy_function_reads, lazy_primordials, live_module_handles, live_native_slots,
    set_lazy_function_reads, set_lazy_primordials, LazyFunctionReads, LazyPrimordials,
};
use watchdog::Watchdog;
pub use watchdog::{stop_grace, supervise_runs, RunSupervisor, WaitClock};
pub use web::{ConsoleSink, PendingTimers};
use web::{PinnedClock, SharedConsoleSink};

/// What an embedder puts over the web layer: the extension that carries its
/// ops and leaves the API the `gg` module exports, and the state those ops
/// reach. gg's own is `crate::bridge::GgBridge`.
pub trait Bridge: 'static {
    /// The agent-side state the bridge's ops find in the op state (as
    /// `Rc<Self::Host>`), shared with the agent; it also takes the
    /// isolate's console lines.
    type Host: ConsoleSink + 'static;

    /// The bridge's extension, loaded after the web layer. Its entry point
    /// leaves the API under `Symbol.for("gg.internal.api")` on the global
    /// object, where the `gg` module takes it from.
    fn extension() -> deno_core::Extension;

    /// The source of the module programs import as `gg`: it takes the API
    /// the extension left and removes it from the global object.
    const MODULE_SOURCE: &'static str;

    /// The source of the module programs import as `gg/tools`: it takes
    /// what the extension left for it; by default, nothing.
    const TOOLS_MODULE_SOURCE: &'static str = "export {};";
}

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

/// A deno_core runtime with the web layer and bridge `B`, before gg's
/// bootstrap.
fn new_runtime<B: Bridge>(
    loader: Rc<GgLoader>,
    heap_limit: usize,
) -> Result<JsRuntime, EngineError> {
    let create_params = v8::CreateParams::default().heap_limits(0, heap_limit);
    JsRuntime::try_new(RuntimeOptions {
        module_loader: Some(loader),
        extensions: extensions::extensions::<B>(),
        create_params: Some(create_params),
        ..Default::default()
    })
    .map_err(EngineError::Create)
}

/// Runs once per isolate, after the extensions: removes deno_core's
/// internals and the engine's glue (`__v8x…` functions and registries, `gc`)
/// from the global object, installs the `Deno` refusal, and hands the web
/// bootstrap's control object to the host. deno_web's globals are loaded
/// later, before the first run that names one ([`Engine::run_module`]).
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
    tokio: tokio::runtime::Runtime,
    watchdog: Watchdog,
    heap_hit: Rc<Cell<bool>>,
    heap_limit: usize,
    /// The bridge this isolate was made with (a pooled isolate serves only
    /// agents of the same bridge).
    bridge: TypeId,
    /// The web bootstrap's control object (timers, seed, clock), taken off
    /// the global object before any program runs.
    web: v8::Global<v8::Value>,
    /// Whether deno_web's globals are loaded (see [`Engine::run_module`]).
    web_loaded: bool,
    /// Whether a program or hook has run here: from then on the realm may
    /// hold what it changed, and deno_web's scripts are never run in it.
    ran_code: bool,
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
    /// when there is one for this heap limit and bridge (see [`pool`]),
    /// else a new one; bound to the agent's host and module registry.
    pub fn new<B: Bridge>(
        host: Rc<B::Host>,
        registry: SharedRegistry,
        heap_limit: usize,
    ) -> Result<Self, EngineError> {
        let mut engine = match pool::take::<B>(heap_limit) {
            Some(engine) => engine,
            None => Engine::warm::<B>(heap_limit)?,
        };
        engine.bind::<B>(host, registry);
        Ok(engine)
    }

    /// Asks `policy` whenever a run of this isolate reaches its deadline.
    pub fn set_policy(&self, policy: Arc<dyn crate::policy::HostPolicy>) {
        self.watchdog.set_policy(policy);
    }

    /// What stops this isolate's deadline while its program waits on a
    /// decision of its host.
    pub fn wait_clock(&self) -> WaitClock {
        self.watchdog.wait_clock()
    }

    /// Set while this isolate is being stopped at its time or heap limit,
    /// and cleared before each run: what long host calls watch.
    pub fn stop_signal(&self) -> Arc<AtomicBool> {
        self.watchdog.terminating.clone()
    }

    /// Binds a warm isolate to the agent it will serve for its whole life.
    fn bind<B: Bridge>(&mut self, host: Rc<B::Host>, registry: SharedRegistry) {
        let state = self.runtime.op_state();
        let mut state = state.borrow_mut();
        state.put::<SharedConsoleSink>(host.clone());
        state.put::<Rc<B::Host>>(host);
        drop(state);
        self.loader.bind(registry);
    }

    /// Creates an isolate and runs gg's bootstrap, bound to no agent yet:
    /// the extensions (gg's web layer with placeholders for deno_web's
    /// globals, which load with the first run that names one; the gg host),
    /// the removal of `Deno` and `__bootstrap`, and the user-facing `gg`
    /// module. It has run no program, so nothing of any agent is in it.
    pub fn warm<B: Bridge>(heap_limit: usize) -> Result<Self, EngineError> {
        let registry: SharedRegistry = Default::default();
        let loader = Rc::new(
            GgLoader::new(registry, B::MODULE_SOURCE).with_tools_source(B::TOOLS_MODULE_SOURCE),
        );
        let mut runtime = new_runtime::<B>(loader.clone(), heap_limit)?;

        // `Atomics.wait` throws instead of blocking the host's thread.
        runtime.v8_isolate().set_allow_atomics_wait(false);
        let handle = runtime.v8_isolate().thread_safe_handle();
        let watchdog = Watchdog::new(handle.clone());
        let heap_hit = Rc::new(Cell::new(false));
        // What an op that would build more than the heap has left ends the
        // turn with (see `host_memory`).
        runtime
            .op_state()
            .borrow_mut()
            .put(host_memory::HeapCeiling {
                heap_hit: heap_hit.clone(),
                terminating: watchdog.terminating.clone(),
                handle: handle.clone(),
            });
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
                .map_err(|e| EngineError::Bootstrap {
                    step: "the injected fault failed to install".into(),
                    thrown: Some(e.to_string()),
                })?;
        }
        let web = runtime
            .execute_script("gg:bootstrap", BOOTSTRAP)
            .map_err(|e| EngineError::Bootstrap {
                step: "bootstrap failed".into(),
                thrown: Some(e.to_string()),
            })?;

        let tokio = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .map_err(EngineError::EventLoop)?;

        let mut engine = Engine {
            runtime,
            loader,
            tokio,
            watchdog,
            heap_hit,
            heap_limit,
            bridge: TypeId::of::<B>(),
            web,
            web_loaded: false,
            ran_code: false,
        };
        // Load `gg` and `gg/tools` now, so the API stashes are off the
        // global object before any program runs.
        for specifier in [GG_SPECIFIER, GG_TOOLS_SPECIFIER] {
            let spec = ModuleSpecifier::parse(specifier).expect("a valid specifier");
            match engine.evaluate(&spec, None, Duration::from_secs(10)) {
                RunEnd::Finished { .. } => {}
                other => {
                    return Err(EngineError::Bootstrap {
                        step: format!("the module {specifier} failed to load"),
                        thrown: Some(format!("{other:?}")),
                    })
                }
            }
        }
        Ok(engine)
    }

    /// Evaluates `code` as the ES module `specifier` within `limit`.
    ///
    /// deno_web's globals are loaded first when the run may reach them
    /// (its code, or a code memory it can import, names one: see
    /// `web_names`) and this isolate has run nothing yet, so that
    /// deno_web's scripts run in the realm the bootstrap left, as if loaded
    /// with it. In an isolate that has run code they are never loaded: the
    /// host gives such a run a fresh isolate first
    /// ([`Engine::needs_fresh_isolate_for`]); without one, the run finds
    /// placeholders that refuse to be read.
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
        if !self.web_loaded && !self.ran_code {
            let prepared = if self.run_may_reach_web(&code) {
                self.load_web()
            } else {
                // The web globals will never load here now: what loading
                // them needs goes.
                self.call_web("releaseBootstrap")
            };
            if let Err(e) = prepared {
                // Never tried again here: a run that needs the web globals
                // gets a fresh isolate instead.
                self.ran_code = true;
                return RunEnd::Threw(ThrownError::plain(format!("internal: {e}")));
            }
        }
        self.ran_code = true;
        self.loader.register_root(specifier, display, positions);
        let end = self.evaluate(&spec, Some(code), limit);
        // The program's positions are needed only while it runs: its
        // errors' stacks are made then.
        self.loader.forget_root(specifier);
        end
    }

    /// Whether a run of `code` needs an isolate other than this one: it may
    /// reach deno_web's globals, which are not loaded here, and code has
    /// run here already, so they cannot be loaded as the bootstrap would
    /// have (see [`Engine::run_module`]). What the run loses with this
    /// isolate is what a fresh process would not have either: what earlier
    /// runs left on `globalThis`.
    pub fn needs_fresh_isolate_for(&self, code: &str) -> bool {
        !self.web_loaded && self.ran_code && self.run_may_reach_web(code)
    }

    /// Whether a run of `code` may reach a web global: `code` itself, or a
    /// module the run can import (its code memories, the host's modules).
    fn run_may_reach_web(&self, code: &str) -> bool {
        web_names::may_reach_web(code) || self.loader.any_importable(web_names::may_reach_web)
    }

    /// Whether deno_web's globals are loaded in this isolate.
    pub fn web_loaded(&self) -> bool {
        self.web_loaded
    }

    /// Loads deno_web's globals (`loadWebLayer` in `js/web.js`). Called
    /// only before any program has run here.
    fn load_web(&mut self) -> Result<(), EngineError> {
        debug_assert!(!self.ran_code);
        self.call_web("loadWebLayer")?;
        self.web_loaded = true;
        Ok(())
    }

    /// Calls `method` of the web bootstrap's control object, without
    /// arguments, outside any program's limits.
    fn call_web(&mut self, method: &str) -> Result<(), EngineError> {
        let _entered = self.enter();
        let _tokio = self.tokio.enter();
        let web = self.web.clone();
        deno_core::scope!(scope, &mut self.runtime);
        v8::tc_scope!(scope, scope);
        let called = call_web_in(scope, &web, method, &[]);
        if called.is_none() || scope.has_caught() {
            let why = scope
                .exception()
                .map(|e| e.to_rust_string_lossy(scope))
                .unwrap_or_else(|| "no exception".into());
            return Err(EngineError::Bootstrap {
                step: format!("the web bootstrap's {method} failed"),
                thrown: Some(why),
            });
        }
        Ok(())
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
        let clock = self.watchdog.wait_clock();
        let web = self.web.clone();
        let heap_hit = self.heap_hit.clone();
        let heap_limit = self.heap_limit;
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
                runtime
                    .with_event_loop_promise(Box::pin(eval), PollEventLoopOptions::default())
                    .await?;
                // The module has evaluated; the program runs on until its
                // event loop is empty (timers, callbacks, microtasks), as
                // `deno run` does, within the same time limit. A rejected
                // evaluation (an uncaught throw) and any unhandled rejection
                // surface here too, not from `eval`.
                runtime
                    .run_event_loop(PollEventLoopOptions::default())
                    .await?;
                // Rendered now, while the time limit still holds: a getter
                // of the exported value is the program's code too.
                let stopped = || terminating.load(Ordering::Relaxed);
                let value = match default_export(runtime, &web, id, heap_limit, &stopped) {
                    Exported::Nothing => None,
                    Exported::Value(value) => Some(value),
                    Exported::OutOfMemory => {
                        heap_hit.set(true);
                        None
                    }
                };
                Ok::<_, deno_core::error::CoreError>(Some(value))
            };
            let mut load = std::pin::pin!(load);
            // Once the isolate is terminated nothing more is polled: the
            // evaluation it cut short will never settle.
            let guarded = std::future::poll_fn(|cx| {
                if terminating.load(Ordering::SeqCst) {
                    return std::task::Poll::Ready(None);
                }
                // The program's code runs only inside this poll: the clock
                // a pending host decision stops runs meanwhile.
                clock.running();
                let polled = std::future::Future::poll(load.as_mut(), cx).map(|r| r.transpose());
                clock.idle();
                polled
            });
            let mut guarded = std::pin::pin!(guarded);
            let mut backstop = backstop;
            loop {
                match tokio::time::timeout(backstop, guarded.as_mut()).await {
                    Ok(ended) => break Ok(ended),
                    // The deadline moved (the program waited on its host, or
                    // the host's policy gave it more time): wait on.
                    Err(elapsed) => match clock.until_deadline() {
                        Some(left) => backstop = left + Duration::from_millis(250),
                        None => break Err(elapsed),
                    },
                }
            }
        });
        let fired = armed.fired();
        drop(armed);
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
                let thrown = errors::from_core_error(error, &self.loader);
                // QuickJS reports an allocation over the heap limit as an
                // `InternalError: out of memory` exception.
                if thrown.message == OUT_OF_MEMORY {
                    self.heap_hit.set(true);
                    return RunEnd::Ceiling(Ceiling::Heap(self.heap_limit));
                }
                RunEnd::Threw(thrown)
            }
            Ok(Some(Ok(value))) => RunEnd::Finished { value },
        }
    }

    /// Pins the seed and the clock for every program this isolate runs.
    pub fn configure(&mut self, determinism: Determinism) -> Result<(), EngineError> {
        {
            let state = self.runtime.op_state();
            let mut state = state.borrow_mut();
            state.try_take::<PinnedClock>();
            if let Some(epoch_ms) = determinism.clock_ms {
                state.put(PinnedClock { epoch_ms });
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
        v8::tc_scope!(scope, scope);
        let configured = call_web_in(scope, &web, "configure", &[seed, clock]);
        if configured.is_none() || scope.has_caught() {
            let why = scope
                .exception()
                .map(|e| e.to_rust_string_lossy(scope))
                .unwrap_or_else(|| "no exception".into());
            return Err(EngineError::Bootstrap {
                step: "the isolate refused its seed and clock".into(),
                thrown: Some(why),
            });
        }
        Ok(())
    }

    /// Starts the pinned seed's sequence again from `seed`; nothing when no
    /// seed is pinned.
    pub fn reseed(&mut self, seed: u64) -> Result<(), EngineError> {
        let _entered = self.enter();
        let _tokio = self.tokio.enter();
        let web = self.web.clone();
        deno_core::scope!(scope, &mut self.runtime);
        let seed: v8::Local<v8::Value> =
            v8::Number::new(scope, (seed % (1u64 << 53)) as f64).into();
        call_web_in(scope, &web, "reseed", &[seed])
            .map(|_| ())
            .ok_or_else(|| EngineError::Bootstrap {
                step: "the isolate refused its seed".into(),
                thrown: None,
            })
    }

    /// The timers the last program had pending when it ended: none when it
    /// ran to its end; what it was still waiting on when it was stopped.
    pub fn pending_timers(&self) -> PendingTimers {
        self.runtime
            .op_state()
            .borrow()
            .try_borrow::<PendingTimers>()
            .copied()
            .unwrap_or_default()
    }
}

/// Calls `method` on the web bootstrap's control object; its result as a
/// count (`None` when it threw or was not a number).
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

/// What rendering a module's default export gave.
enum Exported {
    /// The export is `undefined` (or there is none).
    Nothing,
    /// The rendered value.
    Value(String),
    /// The heap had no room to render it: the turn ends at its ceiling.
    OutOfMemory,
}

/// Renders module `id`'s default export: a string quoted as JSON from
/// outside the heap, anything else with the web bootstrap's `renderValue`
/// (JSON where it is JSON, the JavaScript string form otherwise). Either is
/// at most `heap_limit` bytes (the isolate's heap limit), cut past that.
fn default_export(
    runtime: &mut JsRuntime,
    web: &v8::Global<v8::Value>,
    id: deno_core::ModuleId,
    heap_limit: usize,
    stopped: &dyn Fn() -> bool,
) -> Exported {
    let Ok(namespace) = runtime.get_module_namespace(id) else {
        return Exported::Nothing;
    };
    deno_core::scope!(scope, runtime);
    v8::tc_scope!(scope, scope);
    let namespace = v8::Local::new(scope, namespace);
    let Some(key) = v8::String::new(scope, "default") else {
        return Exported::OutOfMemory;
    };
    let Some(value) = namespace.get(scope, key.into()) else {
        return Exported::Nothing;
    };
    if value.is_undefined() {
        return Exported::Nothing;
    }
    // The rendering is built outside the heap, in at most as many bytes as
    // the heap may hold (so a program can make gg hold its heap limit at
    // most twice over): a longer one is cut, as it would be to the
    // profile's outputChars.
    let max_bytes = heap_limit.max(host_memory::ALWAYS);
    if let Ok(text) = v8::Local::<v8::String>::try_from(value) {
        return Exported::Value(json_string::quote(scope, text, max_bytes, stopped));
    }
    let render = v8::Local::new(scope, web)
        .to_object(scope)
        .and_then(|object| {
            let key = v8::String::new(scope, "renderValue")?;
            let render = object.get(scope, key.into())?;
            Some((object, v8::Local::<v8::Function>::try_from(render).ok()?))
        });
    let Some((object, render)) = render else {
        return Exported::Nothing;
    };
    match render.call(scope, object.into(), &[value]) {
        Some(rendered) => match v8::Local::<v8::String>::try_from(rendered) {
            Ok(rendered) => Exported::Value(json_string::text(scope, rendered, max_bytes, stopped)),
            Err(_) => Exported::Nothing,
        },
        None => match scope.exception() {
            Some(error) if error.to_rust_string_lossy(scope) == OUT_OF_MEMORY => {
                Exported::OutOfMemory
            }
            _ => Exported::Nothing,
        },
    }
}

/// How QuickJS reports an allocation past the heap limit: a catchable
/// `InternalError`, in the program's own code or in gg's.
const OUT_OF_MEMORY: &str = "InternalError: out of memory";

#[cfg(test)]
mod tests {
    use super::*;

    /// A bridge with no ops and no API: the web layer alone.
    struct NoBridge;

    impl ConsoleSink for NoBridge {
        fn line(&self, _level: &'static str, _text: &str) {}
    }

    impl Bridge for NoBridge {
        type Host = NoBridge;
        fn extension() -> deno_core::Extension {
            deno_core::Extension {
                name: "no_bridge",
                ..Default::default()
            }
        }

        const MODULE_SOURCE: &'static str = "export default {};";
    }

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
        let loader = Rc::new(GgLoader::new(registry, NoBridge::MODULE_SOURCE));
        let mut runtime = new_runtime::<NoBridge>(loader, 64 << 20).expect("runtime");
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
