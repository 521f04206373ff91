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
    std::process::exit(cli::main());
}
