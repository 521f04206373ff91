//! `gg mcp`: one gg agent served over the Model Context Protocol (stdio),
//! with the official Rust SDK (`rmcp`). Tool-calling profiles offer exactly
//! their native calls; code-mode profiles offer one tool, `run_program`.

pub mod agent_thread;
pub mod server;

pub use agent_thread::AgentOptions;
pub use server::GgServer;

/// Serves MCP over stdio until the client hangs up.
pub fn serve_stdio(options: AgentOptions) -> Result<(), String> {
    use rmcp::ServiceExt;
    let jobs = agent_thread::spawn(options)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the server's runtime: {e}"))?;
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
