use std::path::PathBuf;

use crate::mcp;

#[derive(clap::Args)]
pub struct McpArgs {
    /// The agent's profile (JSON5); default: code mode, markdown memories
    /// shared by every agent of the profile, sensible limits.
    #[arg(long)]
    profile: Option<PathBuf>,
    /// The folder the agent's state (and memories) live in.
    #[arg(long, default_value = ".gg-state")]
    state: PathBuf,
    /// The agent's id within the state folder (one MCP session, one agent).
    #[arg(long, default_value = "mcp")]
    agent: String,
    /// The folder views read under (default: the current folder).
    #[arg(long)]
    workspace: Option<PathBuf>,
    /// Serve streamable HTTP on this loopback address (127.0.0.1:8765,
    /// localhost:0 for a free port) at `/mcp` instead of stdio. The bound
    /// address is printed on stdout as `gg mcp: http://ADDR/mcp`.
    #[arg(long, value_name = "HOST:PORT")]
    http: Option<String>,
    #[command(flatten)]
    access: crate::http_guard::AccessArgs,
    /// With --http: end a session that has sent nothing for this many
    /// seconds (a client that went away without DELETE), releasing its
    /// agent's worker, thread and files; its durable state stays.
    #[arg(long, value_name = "SECONDS", default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..))]
    session_idle_secs: u64,
    /// Let go of an agent's isolate once it has waited this many seconds
    /// for its next call; its next call takes a fresh one (a few ms), as a
    /// fresh process on the same state would. 0 keeps every isolate for
    /// its whole session.
    #[arg(long, value_name = "SECONDS", default_value_t = mcp::DEFAULT_PARK_AFTER.as_secs())]
    park_after: u64,
    /// Where state and memories live: a `postgres://` URL shared by every
    /// host of the run (default: SQLite files under the state folder).
    #[arg(long)]
    store: Option<String>,
    /// Run each agent on a thread of this process instead of in a confined
    /// worker process of its own (the default: see README, Security).
    #[arg(long)]
    in_process: bool,
    /// Test-only: give the workers' isolates an injected engine fault
    /// (builds with the fault-injection feature).
    #[arg(long, hide = true)]
    inject_engine_fault: bool,
}

/// The profile `gg mcp` serves when none is given.
pub const DEFAULT_PROFILE: &str = r#"{
  id: "mcp", name: "MCP agent", mode: "code",
  capabilities: [
    { id: "memories", enabled: true, implementation: "markdown",
      params: { scope: "shared", maxCount: 256, maxLenPerMemory: 8192, maxTotalLen: 0,
                maxLenIndex: 8192, maxLenDescription: 256, maxResults: 25 } },
    { id: "read-file", enabled: true, implementation: "default-cap", params: { lineCap: 250 } },
  ],
}"#;

pub fn run(args: McpArgs) -> i32 {
    let profile = match &args.profile {
        Some(_) => super::load_profile(args.profile.as_ref()),
        None => gg_module::Profile::from_json5(DEFAULT_PROFILE, "the default MCP profile")
            .map_err(|e| e.to_string()),
    };
    let profile = match profile {
        Ok(p) => p,
        Err(e) => return super::usage_error(e),
    };
    let workspace = args.workspace.or_else(|| std::env::current_dir().ok());
    // Checked here, before any session: an agent in a worker is opened
    // with its tools taken out (the server holds them), so its own launch
    // never sees a server pointed at the state folder.
    if let Err(e) = std::fs::create_dir_all(&args.state) {
        return super::usage_error(format!(
            "the state folder {} cannot be created: {e}",
            args.state.display()
        ));
    }
    let _ = gg_module::workspace::mark_state_folder(&args.state);
    if let Err(e) =
        gg_runtime::Agent::check_state_layout(&profile, workspace.as_deref(), &args.state)
    {
        return super::usage_error(e);
    }
    let options = mcp::SessionAgentOptions {
        profile,
        state: args.state,
        agent_id: args.agent,
        workspace,
        database_url: args.store,
        park_after: (args.park_after > 0).then(|| std::time::Duration::from_secs(args.park_after)),
    };
    if args.inject_engine_fault && !gg_runtime::probes::INJECTED_FAULT_BUILT {
        return super::usage_error(
            "--inject-engine-fault needs a gg built with the fault-injection feature",
        );
    }
    let isolation = if args.in_process {
        mcp::Isolation::InProcess
    } else {
        match mcp::worker::WorkerSettings::this_executable() {
            Ok(mut settings) => {
                settings.inject_engine_fault = args.inject_engine_fault;
                mcp::Isolation::Workers(settings)
            }
            Err(e) => return super::usage_error(e),
        }
    };
    let served = match &args.http {
        Some(addr) => {
            let addr = match crate::http_guard::loopback_addr(addr, "--http") {
                Ok(addr) => addr,
                Err(e) => return super::usage_error(e),
            };
            let access = match args.access.resolve() {
                Ok(access) => access,
                Err(e) => return super::usage_error(e),
            };
            let idle = std::time::Duration::from_secs(args.session_idle_secs);
            mcp::serve_http(options, addr, &access, isolation, idle, |bound| {
                use std::io::Write;
                let mut out = crate::screen::stdout();
                let _ = writeln!(out, "gg mcp: http://{bound}/mcp");
                let _ = out.flush();
            })
        }
        None => mcp::serve_stdio(options, isolation),
    };
    match served {
        Ok(()) => 0,
        Err(e) => super::runtime_error(e),
    }
}
