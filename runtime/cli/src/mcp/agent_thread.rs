//! The MCP server's agent lives on a thread of its own (an isolate is not
//! `Send`); the protocol side talks to it over a channel.

use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Duration;

use gg_module::run::{Run, RunConfig, StartKind};
use gg_module::{Mode, Profile, RunStatus};
use serde_json::Value;
use tokio::sync::oneshot;

use gg_runtime::{Agent, Response, ToolCall};

/// What one tool call answers with.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Answer {
    pub text: String,
    pub is_error: bool,
}

/// Where a call's console lines go as the program prints them (a client
/// that set a logging level hears them as log messages while it waits).
pub type LiveConsole = tokio::sync::mpsc::UnboundedSender<gg_module::ConsoleLine>;

pub enum Job {
    /// What the agent offers; the rendered window only when asked (it grows
    /// with the agent's history, and every call needs the rest).
    Describe {
        /// Whether to render the whole window into the description.
        with_window: bool,
        /// Where the description goes.
        reply: oneshot::Sender<Description>,
    },
    Call(CallJob),
}

/// One tool call for the agent to run as its turn.
pub struct CallJob {
    /// The tool's name (`run_program`, or a native tool's).
    pub name: String,
    /// The tool's arguments.
    pub arguments: Value,
    /// Hears the program's console lines live, when a client listens.
    pub console: Option<LiveConsole>,
    /// Where the answer goes.
    pub reply: oneshot::Sender<Result<Answer, String>>,
}

/// What the agent offers, for `tools/list` and the resources.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Description {
    pub mode: Mode,
    /// Native tool schemas (`{ name, description, input_schema }`).
    pub tools: Vec<Value>,
    /// Code mode: the memory calls offered, by module name.
    pub memory_calls: Vec<String>,
    pub system_prompt: String,
    pub pinned: String,
    /// The rendered window, when the request asked for it.
    pub window: Option<String>,
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct SessionAgentOptions {
    pub profile: Profile,
    pub state: PathBuf,
    pub agent_id: String,
    pub workspace: Option<PathBuf>,
    /// `postgres://` URL of a shared store, or `None` for SQLite.
    pub database_url: Option<String>,
    /// Let go of the agent's isolate once it has waited this long for its
    /// next call (see [`next_job`]); `None`: keep it for the session.
    pub park_after: Option<Duration>,
}

/// How long `gg mcp` lets an agent wait for its next call before it lets go
/// of the agent's isolate, by default: a model thinks for seconds between
/// calls, and a session a client has stopped using may stay open for
/// minutes (`--session-idle-secs`). Default: 30 s.
pub const DEFAULT_PARK_AFTER: Duration = Duration::from_secs(30);

/// Waits for the agent's next job; `None` once the channel is closed.
///
/// While the agent holds an isolate and `park_after` is set, a wait longer
/// than that parks the agent ([`Agent::park`]) and gives the freed heap
/// back to the system, then waits on: an idle session costs its window and
/// handles, not an isolate, and its next call takes a fresh one.
pub(crate) fn next_job<T>(
    jobs: &mpsc::Receiver<T>,
    agent: &mut Agent,
    park_after: Option<Duration>,
) -> Option<T> {
    if let Some(after) = park_after.filter(|_| agent.holds_isolate()) {
        match jobs.recv_timeout(after) {
            Ok(job) => return Some(job),
            Err(mpsc::RecvTimeoutError::Disconnected) => return None,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if agent.park() {
                    crate::process::return_freed_heap();
                }
            }
        }
    }
    jobs.recv().ok()
}

/// Starts the agent thread; returns the job channel or why it cannot start.
pub fn spawn(options: SessionAgentOptions) -> Result<mpsc::Sender<Job>, String> {
    let (tx, rx) = mpsc::channel::<Job>();
    let (ready_tx, ready_rx) = mpsc::channel::<Result<(), String>>();
    std::thread::Builder::new()
        .name("gg-mcp-agent".into())
        .spawn(move || {
            let agent = start(&options);
            let mut agent = match agent {
                Ok(agent) => {
                    let _ = ready_tx.send(Ok(()));
                    agent
                }
                Err(e) => {
                    let _ = ready_tx.send(Err(e));
                    return;
                }
            };
            while let Some(job) = next_job(&rx, &mut agent, options.park_after) {
                match job {
                    Job::Describe { with_window, reply } => {
                        let _ = reply.send(describe(&agent, with_window));
                    }
                    Job::Call(job) => {
                        let listener = job.console.map(|live| -> gg_runtime::ConsoleListener {
                            Box::new(move |line| {
                                let _ = live.send(line.clone());
                            })
                        });
                        let answer = call(&mut agent, job.name, job.arguments, listener);
                        let _ = job.reply.send(answer);
                    }
                }
            }
        })
        .map_err(|e| format!("cannot start the agent thread: {e}"))?;
    ready_rx
        .recv()
        .map_err(|_| "the agent thread died while starting".to_string())??;
    Ok(tx)
}

/// What the agent offers now. Side-effect free: notices are pulled by the
/// next call, whose result carries them.
pub(crate) fn describe(agent: &Agent, with_window: bool) -> Description {
    Description {
        mode: agent.profile().mode,
        tools: agent.tool_schemas(),
        memory_calls: agent.memory_calls().into_iter().map(String::from).collect(),
        system_prompt: agent.system_prompt(),
        pinned: agent.pinned(),
        window: with_window.then(|| agent.render_window()),
    }
}

pub(crate) fn start(options: &SessionAgentOptions) -> Result<Agent, String> {
    start_with_host_tools(options, Vec::new())
}

/// [`start`], with tools offered as host functions (a worker's relayed
/// tools, whose servers run in the host process).
pub(crate) fn start_with_host_tools(
    options: &SessionAgentOptions,
    host_tools: Vec<gg_runtime::HostTool>,
) -> Result<Agent, String> {
    let run = launch(options)?;
    Agent::start_with_host_tools(
        &run,
        &options.agent_id,
        &options.profile.id,
        &StartKind::Root,
        options.workspace.clone(),
        host_tools,
    )
    .map_err(|e| e.to_string())
}

/// The run a session's agent is the root of: its one profile, on the
/// session's state folder or database.
pub(crate) fn launch(options: &SessionAgentOptions) -> Result<Run, String> {
    let config = RunConfig {
        profiles: vec![options.profile.clone()],
        max_parallel: 16,
        roster: Vec::new(),
        store: options.database_url.clone(),
        max_parallel_across_hosts: false,
    };
    Run::launch(config, &options.state)
        .map_err(|p| format!("the profile cannot launch:\n  - {}", p.join("\n  - ")))
}

/// [`start_with_host_tools`] in a worker, whose host launched the run,
/// bound the agent's memory store (`binding`) and keeps its state: every
/// read and write of it goes through `link`.
pub(crate) fn start_hosted(
    options: &SessionAgentOptions,
    host_tools: Vec<gg_runtime::HostTool>,
    binding: Option<super::hosted::protocol::WireBinding>,
    link: &std::sync::Arc<super::hosted::remote::StateLink>,
) -> Result<Agent, String> {
    use super::hosted::remote::{RemoteAgents, RemoteEvents, RemoteMemory};
    let hosted = gg_runtime::HostedState {
        agents: gg_module::durable::AgentStore::with_backend(Box::new(RemoteAgents(link.clone()))),
        memories: binding
            .as_ref()
            .map(|_| -> Box<dyn gg_module::memories::MemoryBackend> {
                Box::new(RemoteMemory(link.clone()))
            }),
        events: Box::new(RemoteEvents(link.clone())),
    };
    let binding = binding.map(|b| gg_module::run::MemoryBinding {
        store_id: b.store_id,
        // The store is the host's; where it lives is not the worker's to know.
        location: gg_module::memories::StoreLocation::InMemory,
        scope: b.scope,
        writable: b.writable,
        told: b.told,
    });
    let agent_options = gg_runtime::AgentOptions::new(options.profile.clone())
        .workspace(options.workspace.clone())
        .state(options.state.clone())
        .agent_id(options.agent_id.clone())
        .binding(binding)
        .host_tools(host_tools);
    Agent::start_hosted(agent_options, hosted).map_err(|e| e.to_string())
}

/// Runs one tool call as the agent's turn; `console` hears the program's
/// lines as it prints them (and is let go when the turn ends).
pub(crate) fn call(
    agent: &mut Agent,
    name: String,
    arguments: Value,
    console: Option<gg_runtime::ConsoleListener>,
) -> Result<Answer, String> {
    agent.set_console_listener(console);
    let answer = turn_answer(agent, name, arguments);
    agent.set_console_listener(None);
    answer
}

fn turn_answer(agent: &mut Agent, name: String, arguments: Value) -> Result<Answer, String> {
    let mode = agent.profile().mode;
    let before = agent.window_len();
    agent.refresh().map_err(|e| e.to_string())?;
    let outcome = match mode {
        Mode::Code => {
            let program = arguments
                .get("program")
                .and_then(Value::as_str)
                .ok_or("run_program needs `program`, a TypeScript string")?;
            agent
                .turn(Response::program(program))
                .map_err(|e| e.to_string())?
        }
        Mode::ToolCalling => agent
            .turn(Response::ToolCalls(vec![ToolCall {
                id: "mcp".into(),
                name,
                arguments,
            }]))
            .map_err(|e| e.to_string())?,
    };
    let (mut text, is_error) = match (&outcome.acknowledgement, outcome.tool_results.first()) {
        (Some(ack), _) => (ack.render(), ack.status != RunStatus::Ok),
        (None, Some(result)) => (result.content.clone(), result.is_error),
        (None, None) => (String::new(), false),
    };
    let arrived = agent.render_arrived(before);
    if !arrived.is_empty() {
        text.push_str("\n\n");
        text.push_str(&arrived);
    }
    Ok(Answer { text, is_error })
}
