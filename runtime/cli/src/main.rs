//! `gg`: the command line over [`gg_runtime`]. It owns what an embedder of
//! the library does not need: argument parsing and the operator's log
//! (`cli`), scripted sessions and `gg test` (`session`), the MCP server and
//! its confined worker processes (`mcp`), the console (`console`), the
//! checks in front of both HTTP servers (`http_guard`), the process's own
//! resources (`process`), what a person reads and how (`screen`) and the
//! benchmarks (`cli::bench`).

// Everything printed goes through `screen`, which escapes what a program
// chose; `clippy.toml` keeps the standard streams' constructors there too.
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod cli;
mod console;
mod http_guard;
mod mcp;
mod process;
mod screen;
mod session;

/// Every Rust allocation of the binary goes to mimalloc, as @swc/core's
/// native module does for the same compiler: the TypeScript compiler builds
/// and frees a syntax tree of many small nodes per program, and glibc's
/// malloc made that a third slower (transpile row, 230 real files: 82 → 113
/// MB/s; creating an isolate 3.0 → 2.9 ms). Its `no_thp` build keeps
/// transparent huge pages off for the process: mimalloc commits its arenas
/// eagerly, and huge pages made a fresh process 8 MB larger. QuickJS keeps
/// the C allocator under its own arenas: with mimalloc there too an idle
/// instance held 6 % more memory; as it is, 2 % more (2.02 MB, 100 live).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    process::raise_open_file_limit();
    let status = cli::main();
    // The upstream tool servers this process started get their MCP
    // shutdown (stdin closed, then SIGTERM, then a kill) before it exits.
    gg_runtime::shutdown_tool_servers(std::time::Duration::from_secs(2));
    std::process::exit(status);
}
