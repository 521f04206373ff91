//! `gg` subcommands, one file each.

mod bench;
mod console;
mod init;
mod log;
mod mcp;
mod run;
mod scale;
mod session;
mod test;
mod transpile;
mod window;

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::screen::tell;

#[derive(Parser)]
#[command(
    name = "gg",
    version,
    about = "Runs responses-as-code agents: each turn is a TypeScript program run in a sandboxed isolate whose `gg` module is the agent's only way to touch the world."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Write a commented profile, an example program and a session to start from.
    Init(init::InitArgs),
    /// Run one turn: a TypeScript program, against the agent in --state.
    Run(run::RunArgs),
    /// Transpile a TypeScript file to JavaScript (stdout), or print located diagnostics.
    Transpile {
        /// The TypeScript file; `-` reads it from standard input.
        file: PathBuf,
        /// The name diagnostics give a program read from standard input (default: stdin).
        #[arg(long)]
        name: Option<String>,
    },
    /// Print the window the agent's next turn would see.
    Window(window::WindowArgs),
    /// Measure gg beside Deno, Node.js, esbuild and @swc/core: cold start, turn, new instance, op, transpile, memory, search (build with --release; peers from bench/setup).
    Bench(bench::BenchArgs),
    /// Measure the memory store across hosts: mutation throughput and notice
    /// latency, one host vs two, SQLite vs PostgreSQL.
    BenchScale(scale::ScaleArgs),
    /// Scripted sessions: run one and show what the model would see.
    #[command(subcommand)]
    Session(session::SessionCommand),
    /// Run session files as tests (`*.session.json5`), several at once.
    Test(test::TestArgs),
    /// Serve one agent over the Model Context Protocol on stdio.
    Mcp(mcp::McpArgs),
    /// Serve the console for a state folder: memories, stores and agents in the browser.
    Console(console::ConsoleArgs),
    /// Internal: one MCP agent in a confined worker process (started by `gg mcp`).
    #[command(hide = true)]
    McpWorker,
}

/// Exit statuses: 0 ran, 1 the program threw or was stopped, 2 bad usage.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    let service = matches!(
        cli.command,
        Command::Mcp(_) | Command::Console(_) | Command::McpWorker
    );
    log::install(service);
    if !service {
        // A one-shot command piped into `head` ends quietly when the pipe
        // closes, as other command-line tools do (the services keep Rust's
        // default: a closed socket is an error to handle, not an exit).
        // SAFETY: restoring the default disposition of one signal, before
        // any thread is started.
        unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
        crate::process::end_on_stuck_runs();
    }
    match cli.command {
        Command::Init(args) => init::run(args),
        Command::Run(args) => run::run(args),
        Command::Transpile { file, name } => transpile::run(&file, name.as_deref()),
        Command::Window(args) => window::run(args),
        Command::Bench(args) => bench::run(args),
        Command::BenchScale(args) => scale::run(args),
        Command::Session(command) => session::run(command),
        Command::Test(args) => test::run(args),
        Command::Mcp(args) => mcp::run(args),
        Command::Console(args) => console::run(args),
        Command::McpWorker => crate::mcp::worker::serve(),
    }
}

/// Prints `gg: message` to stderr and returns the usage exit status (2):
/// the command line, a profile or another input the operator gave is wrong.
/// A program's source and the name its diagnostics and stacks give it:
/// the file, or standard input for `-` (named `name`, default `stdin`), as
/// a runner an agent framework pipes the model's answer into reads it.
pub(crate) fn read_program(
    path: &std::path::Path,
    name: Option<&str>,
) -> Result<(String, String), String> {
    if path.as_os_str() == "-" {
        let mut source = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut source)
            .map_err(|e| format!("cannot read the program from standard input: {e}"))?;
        return Ok((source, name.unwrap_or("stdin").to_string()));
    }
    let source = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read the program {}: {e}", path.display()))?;
    Ok((
        source,
        name.map(str::to_string)
            .unwrap_or_else(|| path.display().to_string()),
    ))
}

pub(crate) fn usage_error(message: impl std::fmt::Display) -> i32 {
    tell!("gg: {message}");
    2
}

/// Prints `gg: message` to stderr and returns the runtime exit status (1):
/// the input was right but the work failed (a port taken, a server that
/// stopped).
pub(crate) fn runtime_error(message: impl std::fmt::Display) -> i32 {
    tell!("gg: {message}");
    1
}

/// Reads a profile file, or the default profile.
pub(crate) fn load_profile(path: Option<&PathBuf>) -> Result<gg_module::Profile, String> {
    match path {
        None => Ok(gg_module::Profile::default()),
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read the profile {}: {e}", path.display()))?;
            let mut profile = gg_module::Profile::from_json5(&text, &path.display().to_string())
                .map_err(|e| e.to_string())?;
            // A tool server's folder is the profile file's.
            let base = std::path::absolute(path)
                .ok()
                .and_then(|p| p.parent().map(|d| d.to_path_buf()))
                .unwrap_or_default();
            gg_module::tools::anchor_to(&mut profile, &base);
            Ok(profile)
        }
    }
}
