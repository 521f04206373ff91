//! `gg`: the command line over [`gg_runtime`]. It owns what an embedder of
//! the library does not need: argument parsing and the operator's log
//! (`cli`), scripted sessions and `gg test` (`session`), the MCP server and
//! its confined worker processes (`mcp`), the console (`console`), the
//! checks in front of both HTTP servers (`http_guard`) and the benchmarks
//! (`cli::bench`).

mod cli;
mod console;
mod http_guard;
mod mcp;
mod session;

fn main() {
    let status = cli::main();
    // The upstream tool servers this process started get their MCP
    // shutdown (stdin closed, then SIGTERM, then a kill) before it exits.
    gg_runtime::shutdown_tool_servers(std::time::Duration::from_secs(2));
    std::process::exit(status);
}
