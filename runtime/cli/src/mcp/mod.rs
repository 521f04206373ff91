//! `gg mcp`: one gg agent served over the Model Context Protocol (stdio),
//! with the official Rust SDK (`rmcp`). Tool-calling profiles offer exactly
//! their native calls; code-mode profiles offer one tool, `run_program`.

pub mod agent_thread;
mod arguments;
mod hosted;
pub mod server;
mod sessions;
pub mod worker;
mod worker_limits;

pub use agent_thread::{SessionAgentOptions, DEFAULT_PARK_AFTER};
pub use server::GgServer;

/// Where a session's agent runs.
#[derive(Debug, Clone)]
pub enum Isolation {
    /// On a thread of the serving process: the engine is the only wall.
    InProcess,
    /// In a confined worker process of its own (see [`worker`]).
    Workers(worker::WorkerSettings),
}

impl Isolation {
    /// Starts one agent where this says; returns its job channel.
    fn spawn(
        &self,
        options: SessionAgentOptions,
    ) -> Result<std::sync::mpsc::Sender<agent_thread::Job>, String> {
        match self {
            Isolation::InProcess => agent_thread::spawn(options),
            Isolation::Workers(settings) => worker::spawn(options, settings.clone()),
        }
    }
}

/// Serves MCP over stdio until the client hangs up.
pub fn serve_stdio(options: SessionAgentOptions, isolation: Isolation) -> Result<(), String> {
    use rmcp::ServiceExt;
    let jobs = isolation.spawn(options)?;
    let runtime = server_runtime()?;
    runtime.block_on(async move {
        let service = GgServer::new(jobs)
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| format!("the MCP session could not start: {e}"))?;
        service
            .waiting()
            .await
            .map_err(|e| format!("the MCP session ended with an error: {e}"))?;
        Ok(())
    })
}

/// Serves MCP over streamable HTTP on a loopback address, behind the
/// [`http_guard`](crate::http_guard) checks (Host, Origin, the token).
/// Each MCP session gets a new agent of its own (`<agent>-<random>`, never
/// an id an earlier session of this or an earlier process had) in the same
/// state folder, so sessions of a shared profile share its memories, or
/// resumes an earlier one with its token (see [`sessions`]). A
/// session that sends nothing for `idle` ends as if the client had sent
/// DELETE. `ready` is called with the bound address once the server listens.
pub fn serve_http(
    options: SessionAgentOptions,
    addr: std::net::SocketAddr,
    access: &crate::http_guard::Access,
    isolation: Isolation,
    idle: std::time::Duration,
    ready: impl FnOnce(std::net::SocketAddr),
) -> Result<(), String> {
    use rmcp::transport::streamable_http_server::{
        session::local::LocalSessionManager, StreamableHttpServerConfig, StreamableHttpService,
    };
    let agents = sessions::SessionAgents::new(options, isolation);
    let factory = move || Ok(GgServer::for_http_session(agents.clone()));
    let runtime = server_runtime()?;
    runtime.block_on(async move {
        // Host and Origin are checked by the guard in front, the same way
        // for both of gg's servers (and for names an operator allows).
        let config = StreamableHttpServerConfig::default().disable_allowed_hosts();
        let mut sessions = LocalSessionManager::default();
        sessions.session_config.keep_alive = Some(idle);
        let service = StreamableHttpService::new(factory, sessions.into(), config);
        let router = axum::Router::new().nest_service("/mcp", service);
        crate::http_guard::serve(addr, access, router, |bound| {
            tracing::info!("serving MCP on http://{bound}/mcp");
            ready(bound);
        })
        .await
    })
}

/// The protocol side's runtime (the agent has a thread of its own).
fn server_runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the server's runtime: {e}"))
}
