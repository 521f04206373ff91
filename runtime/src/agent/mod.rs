//! An agent instance and its turn loop: program → transpile → isolate →
//! `gg` ops → window.
//!
//! One file a concern: `open` opens the agent (state folder,
//! workspace, memory store by the binding table, window); `turn` runs a
//! code-mode turn and `tool_calls` a tool-calling one; `on_use` runs the
//! hooks a turn's memory uses queued; `desk` records and restores a
//! persistent profile's desk; `persist` saves the agent's record and the
//! console's files. This file holds the agent's state and its accessors.

mod async_guard;
mod code;
mod desk;
mod handle;
mod interrupted;
mod on_use;
mod open;
mod persist;
pub use handle::AgentHandle;
pub use persist::write_modules_files;
mod tool_calls;
mod turn;

use std::path::PathBuf;

use gg_module::desk::Desk;
use gg_module::durable::AgentStore;
use gg_module::memories::{telemetry, Memories};
use gg_module::run::MemoryBinding;
use gg_module::{ItemBody, Mode, Profile, ProgramLibrary, View, Window};
use serde_json::Value;

use crate::bridge::GgBridge;
use crate::engine::Engine;
use crate::host::ConsoleListener;
use crate::host::SharedHost;
use open::{autoload, pinned_block};

/// How to build an agent instance: [`AgentOptions::new`] with the profile,
/// then a method per option that differs from its default. New options
/// come with defaults, so code that builds options keeps building.
///
/// ```
/// # fn main() -> Result<(), gg_runtime::AgentError> {
/// let state = tempfile::tempdir().unwrap();
/// let options = gg_runtime::AgentOptions::new(gg_runtime::Profile::default())
///     .state(state.path().to_path_buf())
///     .agent_id("alice".to_string());
/// let agent = gg_runtime::Agent::new(options)?;
/// assert_eq!(agent.id(), "alice");
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct AgentOptions {
    /// The profile the agent runs under (mode, capabilities, limits).
    pub profile: Profile,
    /// The folder `views.openFile` reads under; `None` offers no files.
    /// The state folder is never read through it, however a path reaches
    /// it (and no folder marked as another state folder is either); a
    /// workspace at or inside the state folder is refused at launch.
    pub workspace: Option<PathBuf>,
    /// Where the agent's window and program library persist; `None` keeps
    /// everything in memory.
    pub state: Option<PathBuf>,
    /// The agent's id within the state folder.
    pub agent_id: Option<String>,
    /// The memory store a run bound this instance to; `None` gives an
    /// agent with memories a store of its own.
    pub binding: Option<MemoryBinding>,
    /// A `postgres://` URL: the agent's state (window, program library,
    /// desks) and its own memory store live in that database instead of
    /// SQLite files under `state` (which still holds event streams and
    /// the console's modules files). `None`: SQLite.
    pub database_url: Option<String>,
    /// The embedder's own tools, offered beside the profile's upstream
    /// servers: each appears as a function of the module
    /// `gg/tools/<server>` and as the native tool `<server>__<name>`.
    pub host_tools: Vec<crate::tools::HostTool>,
    /// The embedder's decisions at the host boundary (a tool call, a
    /// deadline); by default the profile's rules alone.
    pub policy: PolicySlot,
}

/// The embedder's [`HostPolicy`](crate::HostPolicy) as options hold it:
/// [`ProfileRules`](crate::ProfileRules) unless one was set.
#[derive(Clone)]
pub struct PolicySlot(pub std::sync::Arc<dyn crate::policy::HostPolicy>);

impl Default for PolicySlot {
    fn default() -> Self {
        PolicySlot(std::sync::Arc::new(crate::policy::ProfileRules))
    }
}

impl std::fmt::Debug for PolicySlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HostPolicy")
    }
}

impl AgentOptions {
    /// Options for an agent of `profile`: in memory (no state folder), no
    /// workspace, a memory store of its own, no host tools.
    pub fn new(profile: Profile) -> Self {
        AgentOptions {
            profile,
            ..Default::default()
        }
    }

    /// The profile the agent runs under.
    pub fn profile(mut self, profile: Profile) -> Self {
        self.profile = profile;
        self
    }

    /// The folder `views.openFile` reads under (`None`: no files).
    pub fn workspace(mut self, dir: impl Into<Option<PathBuf>>) -> Self {
        self.workspace = dir.into();
        self
    }

    /// The state folder the agent's window, program library, event stream
    /// and stores persist in (`None`: nothing persists).
    pub fn state(mut self, dir: impl Into<Option<PathBuf>>) -> Self {
        self.state = dir.into();
        self
    }

    /// The agent's id within the state folder.
    pub fn agent_id(mut self, id: impl Into<Option<String>>) -> Self {
        self.agent_id = id.into();
        self
    }

    /// The memory store a run bound this instance to.
    pub fn binding(mut self, binding: impl Into<Option<MemoryBinding>>) -> Self {
        self.binding = binding.into();
        self
    }

    /// A `postgres://` URL to keep the agent's state and own store in
    /// (`None`: SQLite files under the state folder).
    pub fn database_url(mut self, url: impl Into<Option<String>>) -> Self {
        self.database_url = url.into();
        self
    }

    /// The embedder's own tools, offered beside the profile's servers.
    pub fn host_tools(mut self, tools: Vec<crate::tools::HostTool>) -> Self {
        self.host_tools = tools;
        self
    }

    /// The embedder's decisions at the host boundary (see
    /// [`HostPolicy`](crate::HostPolicy)).
    pub fn policy(mut self, policy: std::sync::Arc<dyn crate::policy::HostPolicy>) -> Self {
        self.policy = PolicySlot(policy);
        self
    }

    /// One more of the embedder's own tools.
    pub fn host_tool(mut self, tool: crate::tools::HostTool) -> Self {
        self.host_tools.push(tool);
        self
    }
}

/// An agent's durable state kept by another process for this one (gg's
/// MCP worker keeps nothing of its own: its host holds the files): what
/// [`Agent::new`] would otherwise open under the state folder.
pub struct HostedState {
    /// Its window, turn counter, program library and its profile's desk.
    pub agents: AgentStore,
    /// The memory store its binding names, when its profile has memories.
    pub memories: Option<Box<dyn gg_module::memories::MemoryBackend>>,
    /// Where its event stream is kept.
    pub events: Box<dyn gg_module::events::EventSink>,
}

/// How an instance ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finish {
    /// It signalled it is done; `gate_passed` says whether the run's
    /// agent-stop gate accepted that.
    Done {
        /// Whether the run's agent-stop gate accepted the signal.
        gate_passed: bool,
    },
    /// Stopped by an execution ceiling.
    Ceiling,
    /// Stopped by an error.
    Error,
    /// Handed itself on through exec or an FSM transition.
    Handoff,
}

/// Why an agent could not go on.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AgentError {
    /// Bad configuration or input from the operator (not the model).
    #[error("{0}")]
    Setup(String),
    /// The operator's configuration (the profile, the workspace and state
    /// folders) cannot be used; the error names what to change.
    #[error(transparent)]
    Config(#[from] gg_module::ConfigError),
    /// gg's own defect; the agent ends as `internal_error`.
    #[error("internal_error: {0}")]
    Internal(String),
    /// The engine could not make the agent an isolate, or gg's bootstrap
    /// in it failed: gg's defect too, and the agent ends as
    /// `internal_error`.
    #[error("internal_error: {0}")]
    Engine(#[from] crate::engine::EngineError),
}

/// One agent instance: its isolate, its `gg` host (window, memories,
/// views), its program library and its persisted state. Each
/// [`turn`](Agent::turn) runs one response.
pub struct Agent {
    id: String,
    host: SharedHost,
    engine: Option<Engine>,
    /// The seed and clock every isolate of this agent is pinned to.
    determinism: crate::Determinism,
    library: Option<ProgramLibrary>,
    turn: u32,
    /// Programs run without a library still need distinct module names.
    anonymous_runs: u64,
    /// onUse hooks run so far, for their module names.
    on_use_runs: u64,
    /// Runs (programs and onUse hooks) the current isolate has served.
    runs_in_isolate: u32,
    /// The turn of the latest run and its place among that turn's runs:
    /// under a pinned seed, what the run's seeded sequence starts from.
    run_in_turn: RunInTurn,
    /// The profile is persistent: one instance at a time, and a desk.
    persistent: bool,
    /// The desk to re-open at the top of the turn loop.
    pending_desk: Option<Desk>,
    /// Documentation of the code a new agent found loaded (under
    /// scratchpad, the store's), opened at the top of the turn loop after
    /// the desk.
    opening_documentation: Vec<View>,
    store: Option<AgentStore>,
    /// The embedder's policy, which each isolate's watchdog asks at a
    /// deadline.
    policy: std::sync::Arc<dyn crate::policy::HostPolicy>,
    ended: Option<String>,
}

impl Agent {
    /// The agent's id (within its state folder, when it has one).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The last turn that ran.
    pub fn turn_number(&self) -> u32 {
        self.turn
    }

    /// Hands every console line this agent's programs print to `listener`
    /// as it is printed (cut to the output limit, as the acknowledgement's
    /// copy is), until replaced; `None` stops it. The lines are in the
    /// acknowledgement as well.
    pub fn set_console_listener(&mut self, listener: Option<ConsoleListener>) {
        self.host.borrow_mut().console.listener = listener;
    }

    /// The window the next turn sees (a copy: prefer
    /// [`Agent::window_len`] and [`Agent::render_arrived`] on a hot path).
    pub fn window(&self) -> Window {
        self.host.borrow().window.clone()
    }

    /// How many items the window's thread holds.
    pub fn window_len(&self) -> usize {
        self.host.borrow().window.len()
    }

    /// The views and notices that arrived in the window from item `since`
    /// on, rendered as the model reads them.
    pub fn render_arrived(&self, since: usize) -> String {
        self.host
            .borrow()
            .window
            .render_where(since, |body| {
                matches!(body, ItemBody::View { .. } | ItemBody::Notice { .. })
            })
            .trim_end()
            .to_string()
    }

    /// The system prompt the window opens with (without cloning the rest).
    pub fn system_prompt(&self) -> String {
        self.host.borrow().window.system_prompt.clone()
    }

    /// The pinned block (memories) as the window holds it.
    pub fn pinned(&self) -> String {
        self.host.borrow().window.pinned.clone()
    }

    /// The module names of the memory calls this agent is offered
    /// (`createMemory`, `readMemory`, …); empty without memories.
    pub fn memory_calls(&self) -> Vec<&'static str> {
        self.with_memories(|m| m.offered().iter().map(|c| c.module_name()).collect())
            .unwrap_or_default()
    }

    /// The window rendered as the model reads it.
    pub fn render_window(&self) -> String {
        self.host.borrow().window.render()
    }

    /// The profile the agent runs under.
    pub fn profile(&self) -> Profile {
        self.host.borrow().profile.clone()
    }

    /// The JSON Schemas of the native tools this agent is offered.
    pub fn tool_schemas(&self) -> Vec<Value> {
        crate::bridge::tools::schemas(&self.host.borrow())
    }

    /// Runs `f` on the agent's memories, if it has the capability.
    pub fn with_memories<T>(&self, f: impl FnOnce(&Memories) -> T) -> Option<T> {
        self.host.borrow().memories.as_ref().map(f)
    }

    /// Runs `f` on the agent's memories with write access, if it has the
    /// capability (benchmarks fill a store this way, outside any turn).
    pub fn with_memories_mut<T>(&self, f: impl FnOnce(&mut Memories) -> T) -> Option<T> {
        self.host.borrow_mut().memories.as_mut().map(f)
    }

    /// Registers a callback for every event the agent emits.
    pub fn on_event(&mut self, callback: Box<dyn FnMut(&gg_module::events::Event)>) {
        self.host.borrow_mut().events.set_callback(callback);
    }

    /// A compaction boundary: the pinned block is rebuilt from the store
    /// immediately before the thread is rewritten to `summary`. Views,
    /// notices and the thread go; loaded code memories stay loaded.
    pub fn compact(&mut self, summary: &str) -> Result<(), AgentError> {
        {
            let mut host = self.host.borrow_mut();
            let pinned = pinned_block(host.memories.as_ref())?;
            host.window.pinned = pinned;
            host.window.clear_thread();
            // Autoload re-seeds and re-pins what it locked.
            let profile = host.profile.clone();
            let workspace = host.workspace.clone();
            autoload(&profile, workspace.as_ref(), &mut host.window);
            let turn = self.turn;
            host.window.push(
                turn,
                ItemBody::Summary {
                    text: summary.to_string(),
                },
            );
        }
        self.persist()
    }

    /// What a memory-compaction asks of the agent before its window is
    /// rewritten: record its working state with the memory calls its
    /// strategy offers. `None` when it has no call to do that with.
    pub fn memory_compaction_request(&self) -> Option<String> {
        let host = self.host.borrow();
        let m = host.memories.as_ref()?;
        let code = host.profile.mode == Mode::Code;
        let writes: Vec<String> = m
            .offered()
            .into_iter()
            .filter(|c| c.writes())
            .map(|c| {
                if code {
                    format!("memories.{}", c.module_name())
                } else {
                    c.tool_name().to_string()
                }
            })
            .collect();
        if writes.is_empty() {
            return None;
        }
        Some(format!(
            "Your context window is about to be compacted: everything in it but your memories will be dropped. Before that happens, record your working state — what you are doing, what you have learned, what is next — with {}. Your memories are pinned again after the boundary as your strategy pins them.",
            writes.join(", ")
        ))
    }

    /// Emits the agent's `memory_state` (e.g. when it starts).
    pub fn emit_memory_state(&mut self) -> Result<(), AgentError> {
        let mut host = self.host.borrow_mut();
        let Some(m) = &host.memories else {
            return Ok(());
        };
        let event = telemetry::memory_state(&m.agent, &m.config, &m.store, m.writable)
            .map_err(|e| AgentError::Internal(e.message))?;
        host.events.emit(event);
        Ok(())
    }

    /// Brings the window up to date for the model's next prompt: what
    /// other holders of its memories changed arrives as a notice at the
    /// window's tail. Returns the notice, if there was one.
    pub fn refresh(&mut self) -> Result<Option<String>, AgentError> {
        self.restore_desk()?;
        let turn = self.turn;
        let notice = self
            .host
            .borrow_mut()
            .pull_notice(turn)
            .map_err(|e| AgentError::Internal(e.message))?;
        if notice.is_some() {
            self.persist()?;
        }
        Ok(notice)
    }

    /// Events emitted outside a turn (by [`Agent::refresh`]).
    pub fn drain_events(&mut self) -> Vec<gg_module::events::Event> {
        self.host.borrow_mut().events.drain()
    }

    /// Pins `Math.random`, `crypto` and the clock for every program this
    /// agent runs from now on (`gg run --seed --clock`, session files).
    pub fn set_determinism(&mut self, determinism: crate::Determinism) -> Result<(), AgentError> {
        self.determinism = determinism;
        if let Some(engine) = &mut self.engine {
            engine.configure(determinism)?;
        }
        Ok(())
    }

    /// Warms isolates on this thread, while the host is idle, for agents of
    /// `profile` not yet made: the next `count` such agents' first programs
    /// skip creating one (see `engine::pool`).
    pub fn prewarm(profile: &Profile, count: usize) -> Result<usize, AgentError> {
        async_guard::refuse_inside_async("Agent::prewarm")?;
        Ok(crate::engine::pool::prewarm::<GgBridge>(
            heap_limit_of(profile),
            count,
        )?)
    }

    /// Lets go of the agent's isolate while it waits for its next turn, and
    /// returns whether it held one.
    ///
    /// An idle agent's isolate is most of what the agent costs: about
    /// 1.0 MB resident, 1.35 MB once deno_web's globals are loaded (`gg
    /// bench`, the memory row), against a few KB for
    /// its window, program library and store handles, which stay. The next
    /// run (a program, an onUse hook) takes a fresh isolate, from this
    /// thread's pre-warmed ones ([`Agent::prewarm`]) when there are any,
    /// else by creating one (about 3 ms), and binds it as the first run did:
    /// the loaded code memories, the seed and the clock. What that run sees
    /// is what a fresh process on the same state would see, as after the
    /// isolate every agent changes each 64 runs: only what earlier programs
    /// put on `globalThis` is gone (a pinned seed's draws are each run's
    /// own, whichever isolate it runs in).
    ///
    /// A host of many agents calls this for agents that have been idle a
    /// while (`gg mcp` does after `--park-after` seconds).
    pub fn park(&mut self) -> bool {
        let held = self.engine.take().is_some();
        if held {
            tracing::debug!(agent = %self.id, "isolate let go while the agent is idle");
        }
        held
    }

    /// Ends the agent in a process that exits next: its memory store, event
    /// stream, tool connections and state are closed as dropping the agent
    /// closes them, but its isolate is left for the exit to reclaim rather
    /// than torn down object by object, a sweep of its whole heap (about a
    /// millisecond, a fifteenth of a one-shot `gg run`) that nothing would
    /// see. Its memory and its watchdog thread stay until the process
    /// exits, so a host that goes on drops its agents instead.
    pub fn end_for_exit(mut self) {
        let engine = self.engine.take();
        {
            // The isolate's op state holds the host: what the host owns
            // that a drop closes is closed here, since the host outlives
            // the forgotten isolate.
            let mut host = self.host.borrow_mut();
            drop(host.memories.take());
            drop(std::mem::take(&mut host.events));
            drop(std::mem::take(&mut host.tools));
        }
        std::mem::forget(engine);
    }

    /// Whether the agent's isolate has deno_web's globals (`console`, `URL`,
    /// timers, `crypto`, …) loaded: an isolate loads them before the first
    /// run whose code, or a code memory it can import, names one, and a
    /// run that needs them in an isolate that has run code without them
    /// gets a fresh isolate. False when the agent holds no isolate.
    pub fn holds_web_globals(&self) -> bool {
        self.engine.as_ref().is_some_and(Engine::web_loaded)
    }

    /// Whether the agent holds an isolate now: false before its first run
    /// and after [`Agent::park`].
    pub fn holds_isolate(&self) -> bool {
        self.engine.is_some()
    }

    /// The agent's isolate for the run [`Agent::begin_code_run`] began:
    /// under a pinned seed, its sequence starts from that run's own seed,
    /// so a run draws the same numbers in a fresh isolate as in one that
    /// served earlier runs, and no two runs draw the same ones.
    ///
    /// A run of `code` that may reach the web globals in an isolate that
    /// has run code without them gets a fresh isolate (see
    /// [`Engine::needs_fresh_isolate_for`]).
    fn engine_for_run(&mut self, heap_limit: usize, code: &str) -> Result<&mut Engine, AgentError> {
        if self
            .engine
            .as_ref()
            .is_some_and(|engine| engine.needs_fresh_isolate_for(code))
        {
            tracing::debug!(agent = %self.id, "a fresh isolate for a run that uses the web globals");
            self.engine = None;
        }
        let seed = self
            .determinism
            .seed
            .map(|seed| self.run_in_turn.seed(seed));
        let engine = self.engine(heap_limit)?;
        if let Some(seed) = seed {
            engine.reseed(seed)?;
        }
        Ok(engine)
    }

    fn engine(&mut self, heap_limit: usize) -> Result<&mut Engine, AgentError> {
        if self.engine.is_none() {
            self.runs_in_isolate = 0;
            let mut engine = Engine::new::<GgBridge>(
                self.host.clone(),
                self.host.borrow().registry.clone(),
                heap_limit,
            )?;
            engine.set_policy(self.policy.clone());
            {
                let mut host = self.host.borrow_mut();
                host.program_stop = engine.stop_signal();
                host.tools.gate.clock = Some(engine.wait_clock());
            }
            if self.determinism != crate::Determinism::default() {
                engine.configure(self.determinism)?;
            }
            self.engine = Some(engine);
        }
        Ok(self.engine.as_mut().expect("just created"))
    }
}

/// Which run of the agent's history a run is: its turn, and its place
/// among that turn's runs (the program first, then its onUse hooks).
/// Persisted state decides both, so a fresh process on the same state
/// numbers a run as a long-lived one does.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct RunInTurn {
    turn: u32,
    index: u32,
}

impl RunInTurn {
    /// The next run's place, in turn `turn`.
    fn next(self, turn: u32) -> Self {
        let index = if self.turn == turn { self.index + 1 } else { 0 };
        RunInTurn { turn, index }
    }

    /// This run's seed under the pinned `seed` (splitmix64 over both).
    fn seed(self, seed: u64) -> u64 {
        fn splitmix64(mut z: u64) -> u64 {
            z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }
        splitmix64(seed ^ splitmix64((u64::from(self.turn) << 32) | u64::from(self.index)))
    }
}

/// The isolate heap limit a profile's programs run under, in bytes.
fn heap_limit_of(profile: &Profile) -> usize {
    (profile.programs.heap_mib as usize) * 1024 * 1024
}
