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
    raise_open_file_limit();
    let status = cli::main();
    // The upstream tool servers this process started get their MCP
    // shutdown (stdin closed, then SIGTERM, then a kill) before it exits.
    gg_runtime::shutdown_tool_servers(std::time::Duration::from_secs(2));
    std::process::exit(status);
}

/// Raises this process's soft limit on open files to its hard limit, as Go
/// programs do at start: every agent with a state folder holds its store's
/// database, its write-ahead log and its event stream open, and the common
/// default of 1 024 would stop a host at about 340 live agents with an
/// error from deep inside SQLite. Nothing gg does uses `select`, so a high
/// descriptor number is no harm. Left as it is when it cannot be read or
/// raised.
fn raise_open_file_limit() {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: both calls only read or write the struct passed by pointer.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 && limit.rlim_cur < limit.rlim_max
        {
            limit.rlim_cur = limit.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
        }
    }
}
