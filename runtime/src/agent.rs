//! An agent instance and its turn loop: program → transpile → isolate →
//! `gg` ops → window.

use std::cell::RefCell;
use std::path::PathBuf;
use std::rc::Rc;
use std::time::Duration;

use crate::operator_log::untrusted;

use gg_module::desk::{Desk, DeskView};
use gg_module::events::EventLog;
use gg_module::memories::{self, render, telemetry, Memories, MemoryStore, StoreLocation};
use gg_module::run::{file_safe, MemoryBinding};
use gg_module::state::{AgentRecord, AgentStore, StateDir};
use gg_module::{
    system_prompt, Acknowledgement, ItemBody, Mode, Profile, ProgramLibrary, RunStatus, View,
    Window, Workspace,
};
use gg_transpiler::TranspileError;
use serde_json::Value;

use crate::engine::{Engine, RunEnd};
use crate::host::Host;
use crate::ops::SharedHost;
use crate::turn::{Response, ToolCall, ToolResult, TurnOutcome};

/// How to build an agent instance.
#[derive(Debug, Clone, Default)]
pub struct AgentOptions {
    pub profile: Profile,
    /// The folder `views.openFile` reads under; `None` offers no files.
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
    /// the console's modules files).
    pub store: Option<String>,
}

/// How an instance ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finish {
    /// It signalled it is done; `gate_passed` says whether the run's
    /// agent-stop gate accepted that.
    Done { gate_passed: bool },
    /// Stopped by an execution ceiling.
    Ceiling,
    /// Stopped by an error.
    Error,
    /// Handed itself on through exec or an FSM transition.
    Handoff,
}

/// Why an agent could not go on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AgentError {
    /// Bad configuration or input from the operator (not the model).
    #[error("{0}")]
    Setup(String),
    /// gg's own defect; the agent ends as `internal_error`.
    #[error("internal_error: {0}")]
    Internal(String),
}

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
    /// The profile is persistent: one instance at a time, and a desk.
    persistent: bool,
    /// The desk to re-open at the top of the turn loop.
    pending_desk: Option<Desk>,
    store: Option<AgentStore>,
    ended: Option<String>,
}

impl Agent {
    pub fn new(options: AgentOptions) -> Result<Self, AgentError> {
        let AgentOptions {
            profile,
            workspace,
            state,
            agent_id,
            binding,
            store: store_url,
        } = options;
        let store_url = store_url.filter(|u| gg_module::pg::is_postgres_url(u));
        let id = agent_id.unwrap_or_else(|| "main".to_string());
        let workspace = match workspace {
            Some(root) => Some(Workspace::new(&root).map_err(|e| {
                AgentError::Setup(format!(
                    "the workspace {} cannot be opened: {e}",
                    root.display()
                ))
            })?),
            None => None,
        };
        let state_dir = match state {
            Some(dir) => Some(StateDir::open(&dir).map_err(|e| {
                AgentError::Setup(format!(
                    "the state folder {} cannot be created: {e}",
                    dir.display()
                ))
            })?),
            None => None,
        };
        let store = match (&store_url, &state_dir) {
            (Some(url), _) => Some(AgentStore::open_postgres(url).map_err(|e| {
                AgentError::Setup(format!(
                    "the state database cannot be opened: {}",
                    e.message
                ))
            })?),
            (None, Some(dir)) => Some(AgentStore::open(&dir.state_db()).map_err(|e| {
                AgentError::Setup(format!(
                    "the state database in {} cannot be opened: {}",
                    dir.root().display(),
                    e.message
                ))
            })?),
            (None, None) => None,
        };
        let told = binding.as_ref().and_then(|b| b.told.clone());
        let memories = open_memories(
            &profile,
            state_dir.as_ref(),
            &id,
            binding,
            store_url.as_deref(),
        )?;
        let events = match &state_dir {
            Some(dir) => {
                EventLog::to_file(&dir.events_dir().join(format!("{}.jsonl", file_safe(&id))))
                    .map_err(|e| {
                        AgentError::Setup(format!(
                            "the event stream in {} cannot be opened: {e}",
                            dir.root().display()
                        ))
                    })?
            }
            None => EventLog::default(),
        };
        let record = match &store {
            Some(store) => store.load(&id).map_err(|e| {
                AgentError::Setup(format!("the state of agent {id} cannot be read: {e}"))
            })?,
            None => None,
        };
        let mut reload: Vec<(String, String)> = Vec::new();
        let (window, turn, next_program) = match record {
            Some(r) => {
                reload = r.loaded;
                (r.window, r.turn, r.next_program)
            }
            None => {
                // The window opens: the system prompt, and the pinned block
                // built once, for a holder whose store is already filled.
                let mut window = Window {
                    system_prompt: system_prompt::render(
                        &profile,
                        &memory_sections(&profile, memories.as_ref()),
                    ),
                    pinned: pinned_block(memories.as_ref())?,
                    ..Default::default()
                };
                if let Some(told) = told {
                    window.push(0, ItemBody::Notice { text: told });
                }
                autoload(&profile, workspace.as_ref(), &mut window);
                (window, 0, 1)
            }
        };
        let library = profile
            .programs
            .library
            .then(|| ProgramLibrary::resume(next_program, profile.programs.library_capacity));
        let host = Rc::new(RefCell::new(Host::new(
            profile, workspace, window, memories, events,
        )));
        // The agent's loaded code memories carry over to this process (a
        // loaded module costs no tokens and needs no re-read).
        {
            let host = host.borrow();
            if let Some(m) = &host.memories {
                for (slug, key) in reload {
                    let Ok(Some(record)) = m.record(&slug) else {
                        continue;
                    };
                    let Some(code) = record.code else { continue };
                    if let Ok(compiled) = crate::code_memories::compile_code(&slug, &code) {
                        host.registry.borrow_mut().load_as(
                            &slug,
                            &key,
                            compiled.code,
                            Rc::new(compiled.positions),
                        );
                    }
                }
            }
        }
        Ok(Agent {
            id,
            host,
            engine: None,
            determinism: crate::Determinism::default(),
            library,
            turn,
            anonymous_runs: 0,
            on_use_runs: 0,
            persistent: false,
            pending_desk: None,
            store,
            ended: None,
        })
    }

    /// Starts agent `agent_id`, an instance of `profile_id`, in `run` as
    /// `start`: its memory store is bound by the run's binding table.
    pub fn start(
        run: &gg_module::run::Run,
        agent_id: &str,
        profile_id: &str,
        start: &gg_module::run::StartKind,
        workspace: Option<PathBuf>,
    ) -> Result<Self, AgentError> {
        let profile = run
            .profile(profile_id)
            .cloned()
            .ok_or_else(|| AgentError::Setup(format!("the run has no profile {profile_id:?}.")))?;
        let binding = run.bind(agent_id, profile_id, start).map_err(|e| match e {
            gg_module::run::BindError::Usage(m) => AgentError::Setup(m),
            gg_module::run::BindError::Internal(m) => AgentError::Internal(m),
        })?;
        let persistent = profile.capability("agent-persistence").is_some();
        let mut agent = Agent::new(AgentOptions {
            profile,
            workspace,
            state: Some(run.state().to_path_buf()),
            agent_id: Some(agent_id.to_string()),
            binding,
            store: run.postgres_url().map(str::to_string),
        })?;
        agent.persistent = persistent;
        // A successor opens on the thread it was handed: no desk.
        if persistent && !matches!(start, gg_module::run::StartKind::Successor { .. }) {
            if let Some(store) = &agent.store {
                agent.pending_desk = store.load_desk(profile_id).map_err(|e| {
                    AgentError::Internal(format!("reading the desk of {profile_id} failed: {e}"))
                })?;
            }
        }
        Ok(agent)
    }

    /// Ends the instance. Only an instance that finished its work (and
    /// passed the run's agent-stop gate) records its open views as its
    /// profile's desk, replacing the previous one; a ceiling, an error or a
    /// hand-off leaves the previous record standing. Returns whether a desk
    /// was recorded.
    pub fn finish(&mut self, how: Finish) -> Result<bool, AgentError> {
        let record = matches!(how, Finish::Done { gate_passed: true }) && self.persistent;
        if !record {
            return Ok(false);
        }
        let host = self.host.borrow();
        let desk = Desk::from_window(&host.window);
        let store = self
            .store
            .as_ref()
            .ok_or_else(|| AgentError::Setup("a desk needs a state folder".into()))?;
        store
            .save_desk(&host.profile.id, &desk)
            .map_err(|e| AgentError::Internal(format!("recording the desk failed: {e}")))?;
        Ok(true)
    }

    /// Re-opens the desk the profile's previous instance left, at the top
    /// of this instance's turn loop: file views re-read from the workspace
    /// as it stands now, then text views, then documentation views rendered
    /// for this instance's scope.
    fn restore_desk(&mut self) -> Result<(), AgentError> {
        let Some(desk) = self.pending_desk.take() else {
            return Ok(());
        };
        let mode = self.host.borrow().profile.mode;
        let (mut files, mut texts, mut docs, mut skipped) = (0, 0, 0, 0);
        // Paths open before the restore (autoload's) are skipped; a file the
        // desk holds in several regions comes back in each.
        let already_open: Vec<String> = self
            .host
            .borrow()
            .window
            .open_views()
            .filter_map(|v| match v {
                View::File { path, .. } => Some(path.clone()),
                _ => None,
            })
            .collect();
        for view in desk.restore_order() {
            match view {
                DeskView::File {
                    path,
                    offset,
                    limit,
                } => {
                    let mut host = self.host.borrow_mut();
                    if already_open.contains(path) {
                        skipped += 1;
                        continue;
                    }
                    let cap = host
                        .profile
                        .line_cap()
                        .unwrap_or(gg_module::views::DEFAULT_LINE_CAP);
                    let read = match &host.workspace {
                        Some(ws) => gg_module::views::read_file_view(
                            ws,
                            path,
                            Some(*offset),
                            Some(*limit),
                            cap,
                        ),
                        None => Err(gg_module::GgError::unavailable("no workspace")),
                    };
                    let view = match read {
                        Ok(view) => view,
                        Err(e) => {
                            tracing::warn!(agent = %self.id, "desk file {} cannot be read, skipped: {}", untrusted(path), untrusted(&e.message));
                            host.events.emit(serde_json::json!({ "type": "desk_skipped", "agent": self.id, "path": path, "reason": e.message }));
                            skipped += 1;
                            continue;
                        }
                    };
                    files += 1;
                    match mode {
                        Mode::Code => {
                            let id = match &mut self.library {
                                Some(library) => Some(
                                    library
                                        .mint()
                                        .map_err(|e| AgentError::Internal(e.message))?,
                                ),
                                None => None,
                            };
                            let source = format!(
                                "import {{ views }} from \"gg\";\n\nviews.openFile({}, {{ offset: {offset}, limit: {limit} }});",
                                serde_json::to_string(path).expect("a string")
                            );
                            host.window.push(
                                0,
                                ItemBody::Program {
                                    id: id.clone(),
                                    source,
                                },
                            );
                            host.window.push(
                                0,
                                ItemBody::Acknowledgement(Acknowledgement {
                                    program_id: id,
                                    status: RunStatus::Ok,
                                    value: None,
                                    console: Vec::new(),
                                    error: None,
                                    notes: Vec::new(),
                                }),
                            );
                            host.window.open_view(0, view);
                        }
                        Mode::ToolCalling => {
                            let call_id = format!("desk-{files}");
                            host.window.push(
                                0,
                                ItemBody::ToolCall {
                                    call_id: call_id.clone(),
                                    name: "read_file".into(),
                                    arguments: serde_json::json!({ "path": path, "offset": offset, "limit": limit }),
                                },
                            );
                            let View::File {
                                offset, content, ..
                            } = &view
                            else {
                                unreachable!()
                            };
                            let content = gg_module::window::numbered_lines(*offset, content);
                            host.window.push(
                                0,
                                ItemBody::ToolResult {
                                    call_id,
                                    content,
                                    is_error: false,
                                    view: Some(view),
                                },
                            );
                        }
                    }
                }
                // Text and documentation views are opened by programs: only
                // a code-mode profile has those parts of a desk.
                DeskView::Text { label, body } if mode == Mode::Code => {
                    texts += 1;
                    self.host.borrow_mut().window.open_view(
                        0,
                        View::Text {
                            label: label.clone(),
                            body: body.clone(),
                        },
                    );
                }
                DeskView::Documentation { key } if mode == Mode::Code => {
                    let rendered = self.render_documentation(key);
                    match rendered {
                        Some(view) => {
                            docs += 1;
                            self.host.borrow_mut().window.open_view(0, view);
                        }
                        None => skipped += 1,
                    }
                }
                _ => skipped += 1,
            }
        }
        let mechanism = match mode {
            Mode::Code => "opening programs",
            Mode::ToolCalling => "read_file call/result pairs",
        };
        tracing::info!(
            agent = %self.id,
            "desk restored: {files} file views by {mechanism}, {texts} text views, {docs} documentation views ({skipped} skipped)"
        );
        self.host.borrow_mut().events.emit(serde_json::json!({
            "type": "desk_restored", "agent": self.id, "files": files, "texts": texts,
            "documentation": docs, "skipped": skipped, "mechanism": mechanism,
        }));
        self.persist()
    }

    /// A documentation key (`csvTools.parseCsv`) rendered for this
    /// instance's scope: the function of a code memory in the store it
    /// binds, or `None` when it binds no such function.
    fn render_documentation(&self, key: &str) -> Option<View> {
        let (module, function) = key.rsplit_once('.')?;
        let host = self.host.borrow();
        let memories = host.memories.as_ref()?;
        let set = memories.store.list().ok()?;
        for record in set.iter() {
            let Some(code) = &record.code else { continue };
            if gg_transpiler::module_key(&record.slug) != module {
                continue;
            }
            let compiled = crate::code_memories::compile_code(&record.slug, code).ok()?;
            let declared = compiled
                .declared
                .into_iter()
                .find(|f| f.exported && f.name == function)?;
            return Some(View::Documentation {
                key: module.to_string(),
                function: declared.name,
                signature: declared.signature,
                doc: declared.doc,
            });
        }
        None
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    /// The last turn that ran.
    pub fn turn_number(&self) -> u32 {
        self.turn
    }

    /// The window the next turn sees.
    pub fn window(&self) -> Window {
        self.host.borrow().window.clone()
    }

    /// The window rendered as the model reads it.
    pub fn render_window(&self) -> String {
        self.host.borrow().window.render()
    }

    pub fn profile(&self) -> Profile {
        self.host.borrow().profile.clone()
    }

    /// The JSON Schemas of the native tools this agent is offered.
    pub fn tool_schemas(&self) -> Vec<Value> {
        crate::tools::schemas(&self.host.borrow())
    }

    /// Runs `f` on the agent's memories, if it has the capability.
    pub fn with_memories<T>(&self, f: impl FnOnce(&Memories) -> T) -> Option<T> {
        self.host.borrow().memories.as_ref().map(f)
    }

    /// The host state behind the agent's ops (benchmarks and tests reach
    /// the memory store through it).
    pub fn memories_handle(&self) -> SharedHost {
        self.host.clone()
    }

    /// Registers a callback for every event the agent emits.
    pub fn on_event(&mut self, callback: Box<dyn FnMut(&Value)>) {
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
            host.window.items.clear();
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
    pub fn drain_events(&mut self) -> Vec<Value> {
        self.host.borrow_mut().events.drain()
    }

    /// Runs one turn.
    ///
    /// A panic in gg's own code during the turn (a defect) ends this agent
    /// as `internal_error`: what the turn stored before it stays stored,
    /// the isolate is dropped, and the process and every other agent go on.
    pub fn turn(&mut self, response: Response) -> Result<TurnOutcome, AgentError> {
        let result =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.turn_inner(response)));
        result.unwrap_or_else(|payload| {
            let detail = crate::defect::panic_text(&payload);
            tracing::error!(agent = %self.id, "gg panicked during a turn: {}", untrusted(&detail));
            self.engine = None;
            let reason = format!("gg failed during the turn ({detail}); this is gg's defect");
            self.ended = Some(reason.clone());
            if let Ok(mut host) = self.host.try_borrow_mut() {
                host.events.emit(serde_json::json!({
                    "type": "internal_error", "blame": "gg", "agent": self.id, "detail": detail,
                }));
            }
            Err(AgentError::Internal(reason))
        })
    }

    fn turn_inner(&mut self, response: Response) -> Result<TurnOutcome, AgentError> {
        #[cfg(feature = "fault-injection")]
        crate::engine::fault::maybe_panic_in_turn();
        if let Some(reason) = &self.ended {
            return Err(AgentError::Internal(format!(
                "the agent has ended: {reason}"
            )));
        }
        // The top of the turn loop: a persistent instance's desk first.
        if let Err(e) = self.restore_desk() {
            if let AgentError::Internal(reason) = &e {
                self.ended = Some(reason.clone());
            }
            return Err(e);
        }
        let mode = self.host.borrow().profile.mode;
        let outcome = match (mode, response) {
            (Mode::Code, Response::Program { source, file }) => self.run_program(source, file),
            (Mode::ToolCalling, Response::ToolCalls(calls)) => Ok(self.run_tool_calls(calls)),
            (Mode::Code, Response::ToolCalls(_)) => Err(AgentError::Setup(
                "this agent runs in code mode: answer the turn with a TypeScript program, not tool calls.".into(),
            )),
            (Mode::ToolCalling, Response::Program { .. }) => Err(AgentError::Setup(
                "this agent runs in tool-calling mode: answer the turn with tool calls, not a program.".into(),
            )),
        };
        if let Err(AgentError::Internal(reason)) = &outcome {
            self.ended = Some(reason.clone());
        }
        if let Ok(TurnOutcome {
            internal_error: Some(reason),
            ..
        }) = &outcome
        {
            self.ended = Some(reason.clone());
        }
        let outcome = outcome?;
        self.persist()?;
        Ok(outcome)
    }

    fn begin_turn(&mut self) -> u32 {
        // Changes other holders made since the model's last look belong in
        // the prompt this response answers.
        let previous = self.turn;
        if let Err(e) = self.host.borrow_mut().pull_notice(previous) {
            tracing::warn!(agent = %self.id, "pulling memory notices failed: {}", untrusted(&e.message));
        }
        self.turn += 1;
        let mut host = self.host.borrow_mut();
        host.turn = self.turn;
        let limit = host.profile.programs.output_chars;
        host.console.reset(limit);
        host.pending_views.clear();
        host.pending_closes.clear();
        host.refusals.clear();
        self.turn
    }

    fn run_program(
        &mut self,
        source: String,
        file: Option<String>,
    ) -> Result<TurnOutcome, AgentError> {
        let turn = self.begin_turn();
        let program_id = match &mut self.library {
            Some(library) => Some(
                library
                    .mint()
                    .map_err(|e| AgentError::Internal(e.message))?,
            ),
            None => None,
        };
        let name = match (&file, &program_id) {
            (Some(file), _) => file.clone(),
            (None, Some(id)) => format!("{id}.ts"),
            (None, None) => "program.ts".to_string(),
        };
        let (time_limit, heap_limit) = {
            let host = self.host.borrow();
            (
                Duration::from_millis(host.profile.programs.time_ms),
                heap_limit_of(&host.profile),
            )
        };

        let mut ack = Acknowledgement {
            program_id: program_id.clone(),
            status: RunStatus::Ok,
            value: None,
            console: Vec::new(),
            error: None,
            notes: Vec::new(),
        };
        let mut error_location = None;
        match gg_transpiler::transpile_named(&source, &name, "program") {
            Err(TranspileError::Internal(detail)) => {
                tracing::error!(agent = %self.id, "internal compiler failure: {}", untrusted(&detail));
                ack.status = RunStatus::CompileError;
                ack.error = Some("io-error: gg's TypeScript compiler failed on this program; this is gg's defect, not the program's.".into());
            }
            Err(e) => {
                ack.status = RunStatus::CompileError;
                error_location = e
                    .diagnostics()
                    .first()
                    .map(|d| format!("{}:{}", name, d.location()));
                ack.error = Some(e.to_string());
            }
            Ok(transpiled) => {
                self.anonymous_runs += 1;
                let specifier = match &program_id {
                    Some(id) => format!("gg:program/{id}.ts"),
                    None => format!("gg:program/run-{}.ts", self.anonymous_runs),
                };
                let engine = self.engine(heap_limit)?;
                let end = engine.run_module(
                    &specifier,
                    &name,
                    transpiled.code,
                    Rc::new(transpiled.positions),
                    time_limit,
                );
                // A program stopped at a limit may leave the isolate mid-way
                // (an evaluation that will never settle, garbage its module
                // still reaches), and one that threw may leave work queued
                // that would run into the next program (a microtask that
                // re-queues itself and throws): the next program gets a
                // fresh isolate.
                let replace = matches!(end, RunEnd::Ceiling(_) | RunEnd::Threw(_));
                let cancelled = engine.cancelled_timers();
                if cancelled > 0 && !replace {
                    ack.notes.push(format!(
                        "{cancelled} timer{} still pending when the program ended {} cancelled; to let a timer fire, await it (`await new Promise((r) => setTimeout(r, ms))`).",
                        if cancelled == 1 { "" } else { "s" },
                        if cancelled == 1 { "was" } else { "were" },
                    ));
                }
                match end {
                    RunEnd::Finished { value } => ack.value = value,
                    RunEnd::Threw(thrown) => {
                        ack.status = RunStatus::Threw;
                        error_location = thrown.location();
                        ack.error = Some(thrown.render());
                    }
                    RunEnd::Ceiling(ceiling) => {
                        ack.status = RunStatus::Ceiling;
                        ack.error = Some(ceiling.describe());
                    }
                }
                if replace {
                    self.engine = None;
                }
            }
        }

        {
            let mut host = self.host.borrow_mut();
            let limit = host.profile.programs.output_chars;
            let advice = [
                (
                    "value",
                    " Export less, or show it in parts with views.openText.",
                ),
                ("error", ""),
            ];
            for ((what, then), text) in advice.into_iter().zip([&mut ack.value, &mut ack.error]) {
                if let Some(total) = text.as_mut().and_then(|t| crate::host::cap_chars(t, limit)) {
                    ack.notes.push(format!(
                        "the {what} was {total} characters; the first {limit} are shown (the profile's programs.outputChars).{then}"
                    ));
                }
            }
            ack.console = std::mem::take(&mut host.console.lines);
            if host.console.dropped_chars > 0 {
                ack.notes.push(format!(
                    "console output reached the {}-character limit; {} further characters were dropped.",
                    host.console.limit, host.console.dropped_chars
                ));
            }
        }
        // The turn's program has ended: the onUse hooks of the memories it
        // used run now, so the views they open arrive next turn.
        self.run_on_use_hooks(heap_limit)?;

        let mut host = self.host.borrow_mut();
        host.window.push(
            turn,
            ItemBody::Program {
                id: program_id,
                source,
            },
        );
        host.window
            .push(turn, ItemBody::Acknowledgement(ack.clone()));
        let views = self.arrive(&mut host, turn);
        let internal_error = host.internal_error.take();
        Ok(TurnOutcome {
            turn,
            acknowledgement: Some(ack),
            tool_results: Vec::new(),
            views,
            error_location,
            events: host.events.drain(),
            refusals: std::mem::take(&mut host.refusals),
            internal_error,
        })
    }

    /// Runs the onUse hooks queued this turn (and any their own uses queue),
    /// each memory's at most once, on the agent's own grants and isolate,
    /// under the onUse time limit. A failure becomes an operator log line
    /// and a short notice; the hook's source is never shown.
    fn run_on_use_hooks(&mut self, heap_limit: usize) -> Result<(), AgentError> {
        let mut ran: Vec<String> = Vec::new();
        loop {
            let next = {
                let mut host = self.host.borrow_mut();
                // Imports of memory modules are uses too.
                let imported = host.registry.borrow_mut().take_imports();
                for key in imported {
                    let slug = host.registry.borrow().slug_of_key(&key).map(str::to_string);
                    if let Some(slug) = slug {
                        host.queue_on_use(&slug);
                    }
                }
                host.on_use_queue.retain(|slug| !ran.contains(slug));
                if host.on_use_queue.is_empty() {
                    None
                } else {
                    Some(host.on_use_queue.remove(0))
                }
            };
            let Some(slug) = next else { return Ok(()) };
            ran.push(slug.clone());
            let (source, limit) = {
                let host = self.host.borrow();
                let record = host
                    .memories
                    .as_ref()
                    .and_then(|m| m.record(&slug).ok().flatten());
                (
                    record.and_then(|r| r.on_use),
                    Duration::from_millis(host.profile.programs.on_use_time_ms),
                )
            };
            let Some(source) = source else { continue };
            let compiled = match crate::code_memories::compile_on_use(&slug, &source) {
                Ok(compiled) => compiled,
                Err(crate::code_memories::CompileFailure::Refused(e)) => {
                    self.host.borrow_mut().pending_notices.push(format!(
                        "The onUse hook of `{slug}` did not run: {}",
                        e.message
                    ));
                    continue;
                }
                Err(crate::code_memories::CompileFailure::Internal(detail)) => {
                    let mut host = self.host.borrow_mut();
                    let _ = crate::code_memories::compiler_defect(&mut host, "onUse", detail);
                    continue;
                }
            };
            let module = crate::code_memories::on_use_module(&compiled);
            self.on_use_runs += 1;
            let specifier = format!("gg:onuse/{}/{}.js", self.turn, self.on_use_runs);
            let engine = self.engine(heap_limit)?;
            let end = engine.run_module(
                &specifier,
                "onUse.ts",
                module,
                Rc::new(compiled.positions),
                limit,
            );
            let mut host = self.host.borrow_mut();
            // A hook's console output is the operator's, not the model's.
            for line in std::mem::take(&mut host.console.lines) {
                tracing::info!(agent = %self.id, memory = %slug, level = %line.level, "onUse printed: {}", untrusted(&line.text));
            }
            let failure = match end {
                RunEnd::Finished { .. } => None,
                RunEnd::Threw(thrown) => Some(format!(
                    "it threw {}{}",
                    thrown.message,
                    thrown
                        .frames
                        .first()
                        .map(|f| format!(" at line {}", f.line))
                        .unwrap_or_default()
                )),
                RunEnd::Ceiling(ceiling) => {
                    drop(host);
                    self.engine = None;
                    host = self.host.borrow_mut();
                    Some(match ceiling {
                        crate::engine::Ceiling::Time(t) => {
                            format!("it ran past its {} ms limit and was stopped", t.as_millis())
                        }
                        crate::engine::Ceiling::Heap(_) => {
                            "it ran out of heap and was stopped".to_string()
                        }
                    })
                }
            };
            if let Some(failure) = failure {
                tracing::warn!(agent = %self.id, memory = %slug, "onUse failed: {}", untrusted(&failure));
                host.events.emit(serde_json::json!({ "type": "on_use_failed", "agent": self.id, "memory": slug, "detail": failure }));
                host.pending_notices.push(format!("The onUse hook of `{slug}` failed: {failure}. Views it would have opened may be missing."));
            }
        }
    }

    /// Applies the turn's closes and appends the views it opened, then the
    /// turn's notices.
    fn arrive(&self, host: &mut Host, turn: u32) -> Vec<gg_module::View> {
        host.flush_memory_state();
        if let Err(e) = host.pull_notice(turn) {
            tracing::warn!(agent = %self.id, "pulling memory notices failed: {}", untrusted(&e.message));
        }
        for text in std::mem::take(&mut host.pending_notices) {
            host.window.push(turn, ItemBody::Notice { text });
        }
        for name in std::mem::take(&mut host.pending_closes) {
            let _ = host.window.close(&name);
        }
        let views = std::mem::take(&mut host.pending_views);
        for view in &views {
            host.window.open_view(turn, view.clone());
        }
        views
    }

    fn run_tool_calls(&mut self, calls: Vec<ToolCall>) -> TurnOutcome {
        let turn = self.begin_turn();
        let mut results = Vec::new();
        let names: Vec<String> = calls.iter().map(|c| c.name.clone()).collect();
        let mut host = self.host.borrow_mut();
        for call in calls {
            host.window.push(
                turn,
                ItemBody::ToolCall {
                    call_id: call.id.clone(),
                    name: call.name.clone(),
                    arguments: call.arguments.clone(),
                },
            );
            let (result, view) = match crate::tools::dispatch(&mut host, &call.name, call.arguments)
            {
                Ok((value, view)) => {
                    let content = match value {
                        Value::Null => "ok".to_string(),
                        Value::String(s) => s,
                        v => v.to_string(),
                    };
                    (
                        ToolResult {
                            call_id: call.id,
                            content,
                            is_error: false,
                            error_code: None,
                        },
                        view,
                    )
                }
                Err(e) => (
                    ToolResult {
                        call_id: call.id,
                        content: format!("{}: {}", e.code, e.message),
                        is_error: true,
                        error_code: Some(e.code.as_str().to_string()),
                    },
                    None,
                ),
            };
            host.window.push(
                turn,
                ItemBody::ToolResult {
                    call_id: result.call_id.clone(),
                    content: result.content.clone(),
                    is_error: result.is_error,
                    view,
                },
            );
            results.push(result);
        }
        let views = self.arrive(&mut host, turn);
        let refusals_of: Vec<crate::turn::Refusal> = results
            .iter()
            .zip(&names)
            .filter(|(r, _)| r.is_error)
            .map(|(r, name)| crate::turn::Refusal {
                call: name.clone(),
                code: r.error_code.clone().unwrap_or_default(),
                message: r
                    .content
                    .split_once(": ")
                    .map(|x| x.1)
                    .unwrap_or(&r.content)
                    .to_string(),
            })
            .collect();
        TurnOutcome {
            turn,
            acknowledgement: None,
            tool_results: results,
            views,
            error_location: None,
            events: host.events.drain(),
            refusals: refusals_of,
            internal_error: host.internal_error.take(),
        }
    }

    /// Pins `Math.random`, `crypto` and the clock for every program this
    /// agent runs from now on (`gg run --seed --clock`, session files).
    pub fn set_determinism(&mut self, determinism: crate::Determinism) -> Result<(), AgentError> {
        self.determinism = determinism;
        if let Some(engine) = &mut self.engine {
            engine
                .configure(determinism)
                .map_err(AgentError::Internal)?;
        }
        Ok(())
    }

    /// Warms isolates on this thread, while the host is idle, for agents of
    /// `profile` not yet made: the next `count` such agents' first programs
    /// skip creating one (see [`crate::engine::pool`]).
    pub fn prewarm(profile: &Profile, count: usize) -> Result<usize, AgentError> {
        crate::engine::pool::prewarm(heap_limit_of(profile), count).map_err(AgentError::Internal)
    }

    fn engine(&mut self, heap_limit: usize) -> Result<&mut Engine, AgentError> {
        if self.engine.is_none() {
            let mut engine = Engine::new(
                self.host.clone(),
                self.host.borrow().registry.clone(),
                heap_limit,
            )
            .map_err(AgentError::Internal)?;
            if self.determinism != crate::Determinism::default() {
                engine
                    .configure(self.determinism)
                    .map_err(AgentError::Internal)?;
            }
            self.engine = Some(engine);
        }
        Ok(self.engine.as_mut().expect("just created"))
    }

    fn persist(&mut self) -> Result<(), AgentError> {
        let Some(store) = &mut self.store else {
            return Ok(());
        };
        let host = self.host.borrow();
        let record = AgentRecord {
            id: self.id.clone(),
            profile_id: host.profile.id.clone(),
            turn: self.turn,
            next_program: self.library.as_ref().map(|l| l.next_number()).unwrap_or(1),
            window: host.window.clone(),
            loaded: host.registry.borrow().loaded_in_order(),
        };
        let programs: Vec<(String, u32, String, bool)> = host
            .window
            .items
            .iter()
            .filter(|item| item.turn == self.turn)
            .filter_map(|item| match &item.body {
                ItemBody::Program {
                    id: Some(id),
                    source,
                } => Some((id.clone(), item.turn, source.clone(), item.turn == 0)),
                _ => None,
            })
            .collect();
        store
            .save(&record, &programs)
            .map_err(|e| AgentError::Internal(format!("saving the agent's state failed: {e}")))
    }
}

/// Validates the profile's memories capability and opens its store: a
/// launch refusal lists every problem at once.
fn open_memories(
    profile: &Profile,
    state: Option<&StateDir>,
    agent_id: &str,
    binding: Option<MemoryBinding>,
    postgres: Option<&str>,
) -> Result<Option<Memories>, AgentError> {
    let config = memories::config::from_capability(
        profile
            .capabilities
            .iter()
            .find(|c| c.id == memories::config::CAPABILITY_ID),
    )
    .map_err(|problems| {
        AgentError::Setup(format!(
            "the profile {:?} cannot launch:\n  - {}",
            profile.id,
            problems.join("\n  - ")
        ))
    })?;
    let Some(config) = config else {
        return Ok(None);
    };
    let (store_id, location, writable) = match binding {
        Some(b) => (b.store_id, b.location, b.writable),
        None => {
            // Outside a run (`gg run`, `gg window`, an embedder's own
            // agent): the binding table's row for a root, so a shared
            // profile's agents share the profile's store here too.
            let root = gg_module::run::resolve(&config, &gg_module::run::StartKind::Root, None)
                .map_err(|d| AgentError::Internal(d.0))?;
            let id = gg_module::run::store_id(&root.source, agent_id, &profile.id);
            let location = match (postgres, state) {
                (Some(url), _) => StoreLocation::Postgres {
                    url: url.to_string(),
                },
                (None, Some(dir)) => {
                    StoreLocation::Sqlite(dir.root().join("memories").join(format!("{id}.sqlite")))
                }
                (None, None) => StoreLocation::InMemory,
            };
            (id, location, root.writable)
        }
    };
    let store = MemoryStore::open_at(&location, &store_id).map_err(|e| {
        AgentError::Setup(format!(
            "the memory store {store_id} cannot be opened: {}",
            e.message
        ))
    })?;
    store
        .join(agent_id, config.scope.name(), writable)
        .map_err(|e| {
            AgentError::Setup(format!(
                "joining the memory store {store_id} failed: {}",
                e.message
            ))
        })?;
    let memories = Memories::new(config, store, agent_id, writable);
    if let Some(dir) = state {
        write_modules_file(dir, agent_id, &memories);
    }
    Ok(Some(memories))
}

/// The console's `agents/<id>/modules/memories` files: for every holder of
/// the store this agent just joined, the store it bound, how, and who else
/// holds it (rewritten for all of them, so a late joiner shows everywhere).
pub(crate) fn write_modules_file(dir: &StateDir, _agent_id: &str, memories: &Memories) {
    let holders = memories.store.holders().unwrap_or_default();
    for holder in &holders {
        let path = dir
            .root()
            .join("agents")
            .join(file_safe(&holder.agent))
            .join("modules")
            .join("memories");
        let others: Vec<&str> = holders
            .iter()
            .map(|h| h.agent.as_str())
            .filter(|a| *a != holder.agent)
            .collect();
        let json = serde_json::json!({
            "store": memories.store.id(),
            "strategy": memories.strategy().name(),
            "scope": holder.scope,
            "writable": holder.writable,
            "holders": holders,
            "others": others,
        });
        let written = path
            .parent()
            .map(std::fs::create_dir_all)
            .unwrap_or(Ok(()))
            .and_then(|_| {
                std::fs::write(&path, serde_json::to_string_pretty(&json).expect("json"))
            });
        if let Err(e) = written {
            tracing::error!("cannot write {}: {e}", path.display());
        }
    }
}

fn memory_sections(profile: &Profile, memories: Option<&Memories>) -> Vec<String> {
    match memories {
        Some(m) => vec![render::system_prompt_section(
            &m.config,
            &m.offered(),
            profile.mode == Mode::Code,
            m.writable,
        )],
        None => Vec::new(),
    }
}

fn pinned_block(memories: Option<&Memories>) -> Result<String, AgentError> {
    match memories {
        Some(m) => {
            let set = m
                .store
                .list()
                .map_err(|e| AgentError::Internal(e.message))?;
            Ok(render::pinned_block(m.strategy(), &set))
        }
        None => Ok(String::new()),
    }
}

/// The `autoload` capability: whole files opened as the window opens
/// (`params.paths`), before anything else can open them.
fn autoload(profile: &Profile, workspace: Option<&Workspace>, window: &mut Window) {
    let Some(cap) = profile.capability("autoload") else {
        return;
    };
    let Some(workspace) = workspace else { return };
    let paths = cap
        .params
        .get("paths")
        .and_then(|p| p.as_array())
        .cloned()
        .unwrap_or_default();
    for path in paths.iter().filter_map(|p| p.as_str()) {
        match gg_module::views::read_file_view(workspace, path, None, None, usize::MAX) {
            Ok(view) => window.push(
                0,
                ItemBody::View {
                    view,
                    open: true,
                    locked: true,
                },
            ),
            Err(e) => tracing::warn!(
                "autoload of {} failed: {}",
                untrusted(path),
                untrusted(&e.message)
            ),
        }
    }
}

/// The isolate heap limit a profile's programs run under, in bytes.
fn heap_limit_of(profile: &Profile) -> usize {
    (profile.programs.heap_mib as usize) * 1024 * 1024
}
