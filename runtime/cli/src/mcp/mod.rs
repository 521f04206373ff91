//! `gg mcp`: one gg agent served over the Model Context Protocol (stdio),
//! with the official Rust SDK (`rmcp`). Tool-calling profiles offer exactly
//! their native calls; code-mode profiles offer one tool, `run_program`.

pub mod agent_thread;
pub mod server;
pub mod worker;

pub use agent_thread::SessionAgentOptions;
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

/// Serves MCP over streamable HTTP on a loopback address; each MCP session
/// gets an agent of its own (`<agent>-1`, `<agent>-2`, …) in the same state
/// folder, so sessions of a shared profile share its memories.
pub fn serve_http(
    options: SessionAgentOptions,
    addr: std::net::SocketAddr,
    isolation: Isolation,
) -> Result<(), String> {
    use rmcp::transport::streamable_http_server::{
        session::local::LocalSessionManager, StreamableHttpServerConfig, StreamableHttpService,
    };
    if !addr.ip().is_loopback() {
        return Err(format!(
            "--http takes a loopback address (127.0.0.1 or ::1), got {addr}"
        ));
    }
    let counter = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let options = std::sync::Arc::new(options);
    let factory = move || {
        let n = counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
        let options = SessionAgentOptions {
            profile: options.profile.clone(),
            state: options.state.clone(),
            agent_id: format!("{}-{n}", options.agent_id),
            workspace: options.workspace.clone(),
            database_url: options.database_url.clone(),
        };
        isolation
            .spawn(options)
            .map(GgServer::new)
            .map_err(std::io::Error::other)
    };
    let runtime = server_runtime()?;
    runtime.block_on(async move {
        let service = StreamableHttpService::new(
            factory,
            LocalSessionManager::default().into(),
            StreamableHttpServerConfig::default(),
        );
        let router = axum::Router::new().nest_service("/mcp", service);
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
        tracing::info!("serving MCP on http://{addr}/mcp");
        axum::serve(listener, router)
            .await
            .map_err(|e| format!("the HTTP server failed: {e}"))
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
