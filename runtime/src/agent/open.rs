//! Opening an agent: its state folder, workspace, memory store (by the
//! run binding table), window and program library.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use gg_module::durable::{AgentStore, StateDir};
use gg_module::events::EventLog;
use gg_module::memories::{self, render, Memories, MemoryStore, StoreLocation};
use gg_module::run::{file_safe, MemoryBinding};
use gg_module::{system_prompt, ItemBody, Mode, Profile, ProgramLibrary, Window, Workspace};

use crate::host::Host;
use crate::operator_log::untrusted;

use super::persist::write_modules_file;
use super::{Agent, AgentError, AgentOptions, HostedState, RunInTurn};

impl Agent {
    /// Opens an agent: its state folder (reopening what a previous instance
    /// left there), workspace, memory store, window and program library.
    pub fn new(options: AgentOptions) -> Result<Self, AgentError> {
        Self::open(options, None)
    }

    /// Opens an agent whose durable state another process keeps for it
    /// (`hosted`): nothing under `options.state` is opened or written, and
    /// the path serves only to keep the state folder out of the workspace.
    /// Its memory store is the one `options.binding` names, reached through
    /// `hosted.memories`.
    pub fn new_hosted(options: AgentOptions, hosted: HostedState) -> Result<Self, AgentError> {
        Self::open(options, Some(hosted))
    }

    fn open(options: AgentOptions, hosted: Option<HostedState>) -> Result<Self, AgentError> {
        let AgentOptions {
            profile,
            workspace,
            state,
            agent_id,
            binding,
            database_url: store_url,
            host_tools,
            policy,
        } = options;
        let policy = policy.0;
        let tools_config = tools_config(&profile)?;
        let store_url = store_url.filter(|u| gg_module::durable::pg::is_postgres_url(u));
        let id = agent_id.unwrap_or_else(|| "main".to_string());
        // A hosted agent's state folder is another process's: its path only
        // keeps the folder out of the workspace, and nothing is opened there.
        let is_hosted = hosted.is_some();
        let (hosted_agents, hosted_memories, hosted_events) = match hosted {
            Some(h) => (Some(h.agents), h.memories, Some(h.events)),
            None => (None, None, None),
        };
        let hosted_state = state.clone().filter(|_| is_hosted);
        let state_dir = match state.filter(|_| !is_hosted) {
            Some(dir) => Some(StateDir::open(&dir).map_err(|e| {
                AgentError::Setup(format!(
                    "the state folder {} cannot be created: {e}",
                    dir.display()
                ))
            })?),
            None => None,
        };
        if let Some(dir) = &state_dir {
            // Marked, so that no workspace shows it to an agent, this run's
            // or another's; a folder this process may not write keeps its
            // own workspaces out by its identity all the same.
            if let Err(e) = gg_module::workspace::mark_state_folder(dir.root()) {
                tracing::debug!(
                    "the state folder {} could not be marked: {e}",
                    dir.root().display()
                );
            }
        }
        let state_root = state_dir
            .as_ref()
            .map(|d| d.root().to_path_buf())
            .or(hosted_state);
        let workspace = match (workspace, &state_root) {
            (Some(root), Some(state)) => Some(Workspace::with_state_folder(&root, state)?),
            (Some(root), None) => Some(Workspace::new(&root).map_err(|e| {
                AgentError::Setup(if e.kind() == std::io::ErrorKind::PermissionDenied {
                    e.to_string()
                } else {
                    format!("the workspace {} cannot be opened: {e}", root.display())
                })
            })?),
            (None, _) => None,
        };
        if let (Some(config), Some(state)) = (&tools_config, &state_root) {
            refuse_servers_reaching_state(&profile, config, state)?;
        }
        let store = match (&store_url, &state_dir) {
            _ if hosted_agents.is_some() => hosted_agents,
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
        // Connected before anything is written, so a server that cannot
        // start refuses the launch by name and leaves no state behind.
        // Each server is this agent's own unless the profile shares it;
        // an agent without a state folder has an id others may use too,
        // so its servers are its alone.
        let owner = crate::tools::hub::ToolOwner {
            agent: state_root.as_ref().map(|_| id.clone()),
            profile: profile.id.clone(),
            state: state_root.clone(),
        };
        let mut offered_tools =
            crate::tools::offered::OfferedTools::open(tools_config.as_ref(), &host_tools, &owner)
                .map_err(|problem| {
                AgentError::Setup(format!(
                    "the profile {:?} cannot launch:\n  - {}",
                    profile.id,
                    problem.to_string().replace('\n', "\n  - ")
                ))
            })?;
        offered_tools.gate.agent = id.clone();
        offered_tools.gate.policy = policy.clone();
        let memories = open_memories(
            &profile,
            state_dir.as_ref(),
            &id,
            binding,
            store_url.as_deref(),
            hosted_memories,
        )?;
        let events = match (&state_dir, hosted_events) {
            (_, Some(sink)) => EventLog::to_sink(sink),
            (Some(dir), None) => {
                EventLog::to_file(&dir.events_dir().join(format!("{}.jsonl", file_safe(&id))))
                    .map_err(|e| {
                        AgentError::Setup(format!(
                            "the event stream in {} cannot be opened: {e}",
                            dir.root().display()
                        ))
                    })?
            }
            (None, None) => EventLog::default(),
        };
        let record = match &store {
            Some(store) => store.load(&id).map_err(|e| {
                AgentError::Setup(format!("the state of agent {id} cannot be read: {e}"))
            })?,
            None => None,
        };
        let mut reload: Vec<(String, String)> = Vec::new();
        let mut interrupted = None;
        let is_new = record.is_none();
        let (window, turn, next_program) = match record {
            Some(r) => {
                reload = r.loaded;
                interrupted = r.in_flight;
                (r.window, r.turn, r.next_program)
            }
            None => {
                // The window opens: the system prompt, and the pinned block
                // built once, for a holder whose store is already filled.
                let mut sections = memory_sections(&profile, memories.as_ref());
                if !offered_tools.is_empty() {
                    sections.push(offered_tools.prompt_section(profile.mode));
                }
                let mut window = Window::new(
                    system_prompt::render(&profile, &sections),
                    pinned_block(memories.as_ref())?,
                );
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
        {
            let mut host = host.borrow_mut();
            host.agent_id = id.clone();
            for (key, code) in offered_tools.modules() {
                host.registry.borrow_mut().provide(&key, code);
            }
            host.tools = offered_tools;
        }
        // The agent's loaded code memories carry over to this process (a
        // loaded module costs no tokens and needs no re-read).
        {
            let host = host.borrow();
            if let Some(m) = &host.memories {
                // The key is the store's, which a folder an older gg wrote
                // may have recorded differently.
                for (slug, _recorded_key) in reload {
                    let Ok(Some(record)) = m.record(&slug) else {
                        continue;
                    };
                    if let Some((key, compiled)) =
                        crate::bridge::code_memories::compile_record(&record)
                    {
                        host.registry.borrow_mut().load(
                            &slug,
                            &key,
                            compiled.code,
                            Rc::new(compiled.positions),
                        );
                    }
                }
            }
        }
        let mut agent = Agent {
            id,
            host,
            engine: None,
            determinism: crate::Determinism::default(),
            library,
            turn,
            anonymous_runs: 0,
            runs_in_isolate: 0,
            run_in_turn: RunInTurn::default(),
            on_use_runs: 0,
            persistent: false,
            pending_desk: None,
            opening_documentation: Vec::new(),
            store,
            policy,
            ended: None,
        };
        if let Some(in_flight) = interrupted {
            agent.report_interrupted(in_flight)?;
        }
        if is_new {
            agent.load_store_code();
        }
        Ok(agent)
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
        Self::start_with_host_tools(run, agent_id, profile_id, start, workspace, Vec::new())
    }

    /// [`Agent::start`], with the embedder's own tools offered beside the
    /// profile's (see [`AgentOptions::host_tools`]).
    pub fn start_with_host_tools(
        run: &gg_module::run::Run,
        agent_id: &str,
        profile_id: &str,
        start: &gg_module::run::StartKind,
        workspace: Option<PathBuf>,
        host_tools: Vec<crate::tools::HostTool>,
    ) -> Result<Self, AgentError> {
        let profile = run
            .profile(profile_id)
            .cloned()
            .ok_or_else(|| AgentError::Setup(format!("the run has no profile {profile_id:?}.")))?;
        let binding = run.bind(agent_id, profile_id, start).map_err(|e| match e {
            gg_module::run::BindError::Usage(m) => AgentError::Setup(m),
            gg_module::run::BindError::Internal(m) => AgentError::Internal(m),
        })?;
        let options = AgentOptions {
            profile,
            workspace,
            state: Some(run.state().to_path_buf()),
            agent_id: Some(agent_id.to_string()),
            binding,
            database_url: run.postgres_url().map(str::to_string),
            host_tools,
            policy: Default::default(),
        };
        let profile = options.profile.clone();
        Self::started(Agent::new(options)?, &profile, start)
    }

    /// [`Agent::start_with_host_tools`] as a run's root, for an agent whose
    /// durable state another process keeps ([`Agent::new_hosted`]): that
    /// process launched the run and bound `options.binding`.
    pub fn start_hosted(options: AgentOptions, hosted: HostedState) -> Result<Self, AgentError> {
        let profile = options.profile.clone();
        let agent = Agent::new_hosted(options, hosted)?;
        Self::started(agent, &profile, &gg_module::run::StartKind::Root)
    }

    /// A started agent: a fork or successor lets go of its code, and a
    /// persistent profile's desk waits for its first turn.
    fn started(
        mut agent: Agent,
        profile: &Profile,
        start: &gg_module::run::StartKind,
    ) -> Result<Self, AgentError> {
        let persistent = profile.capability("agent-persistence").is_some();
        agent.persistent = persistent;
        if matches!(
            start,
            gg_module::run::StartKind::Fork { .. } | gg_module::run::StartKind::Successor { .. }
        ) {
            agent.unload_all_code();
        }
        // A successor opens on the thread it was handed: no desk.
        if persistent && !matches!(start, gg_module::run::StartKind::Successor { .. }) {
            if let Some(store) = &agent.store {
                agent.pending_desk = store.load_desk(&profile.id).map_err(|e| {
                    AgentError::Internal(format!("reading the desk of {} failed: {e}", profile.id))
                })?;
            }
        }
        Ok(agent)
    }
}

impl Agent {
    /// Refuses, before anything is opened, a layout in which an agent of
    /// `profile` could read the state folder `state` (which must exist):
    /// `workspace` at or inside it, or a tool server given a folder that
    /// holds it. [`Agent::new`] applies the same rule; a server that runs
    /// agents elsewhere (in worker processes) checks here at launch.
    pub fn check_state_layout(
        profile: &Profile,
        workspace: Option<&Path>,
        state: &Path,
    ) -> Result<(), AgentError> {
        let config = tools_config(profile)?;
        if let Some(root) = workspace {
            Workspace::with_state_folder(root, state)?;
        }
        if let Some(config) = &config {
            refuse_servers_reaching_state(profile, config, state)?;
        }
        Ok(())
    }
}

/// The launch refusal for servers pointed at a folder that holds `state`.
fn refuse_servers_reaching_state(
    profile: &Profile,
    config: &gg_module::tools::ToolsConfig,
    state: &Path,
) -> Result<(), AgentError> {
    let problems = crate::tools::reach::servers_reaching_state(config, state);
    if problems.is_empty() {
        return Ok(());
    }
    Err(AgentError::Setup(format!(
        "the profile {:?} cannot launch:\n  - {}",
        profile.id,
        problems.join("\n  - ")
    )))
}

/// Validates the profile's memories capability and opens its store: a
/// launch refusal lists every problem at once.
pub(super) fn open_memories(
    profile: &Profile,
    state: Option<&StateDir>,
    agent_id: &str,
    binding: Option<MemoryBinding>,
    postgres: Option<&str>,
    hosted: Option<Box<dyn gg_module::memories::MemoryBackend>>,
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
    let opened = match hosted {
        Some(backend) => Ok(MemoryStore::with_backend(&store_id, backend)),
        None => MemoryStore::open_at(&location, &store_id),
    };
    let store = opened.map_err(|e| {
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

/// The profile's `tools` block, validated with the memories block so that
/// a launch refusal lists every problem of both at once.
fn tools_config(profile: &Profile) -> Result<Option<gg_module::tools::ToolsConfig>, AgentError> {
    let tools = gg_module::tools::ToolsConfig::from_capability(
        profile.capabilities.iter().find(|c| c.id == "tools"),
    );
    let memories = memories::config::from_capability(
        profile
            .capabilities
            .iter()
            .find(|c| c.id == memories::config::CAPABILITY_ID),
    );
    let mut problems = Vec::new();
    if let Err(p) = &memories {
        problems.extend(p.iter().cloned());
    }
    match tools {
        Err(p) => problems.extend(p),
        Ok(config) if problems.is_empty() => return Ok(config),
        Ok(_) => {}
    }
    Err(AgentError::Setup(format!(
        "the profile {:?} cannot launch:\n  - {}",
        profile.id,
        problems.join("\n  - ")
    )))
}

pub(super) fn memory_sections(profile: &Profile, memories: Option<&Memories>) -> Vec<String> {
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

pub(super) fn pinned_block(memories: Option<&Memories>) -> Result<String, AgentError> {
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
pub(super) fn autoload(profile: &Profile, workspace: Option<&Workspace>, window: &mut Window) {
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
        match gg_module::views::read_file_view(workspace, path, None, None, usize::MAX, usize::MAX)
        {
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
