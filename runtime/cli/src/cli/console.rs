use std::io::Write;
use std::path::PathBuf;

use gg_module::durable::inspect::StateView;
use gg_module::ErrorCode;

#[derive(clap::Args)]
pub struct ConsoleArgs {
    /// The state folder to show (a session's or `gg run`'s / `gg mcp`'s --state).
    #[arg(long, default_value = ".gg-state")]
    state: PathBuf,
    /// The loopback address to serve on; port 0 picks a free one. The bound
    /// address is printed on stdout as `gg console: http://ADDR/`.
    #[arg(long, default_value = "127.0.0.1:7420", value_name = "HOST:PORT")]
    addr: String,
    /// Where the memories live, as for `gg run --store`: a `postgres://`
    /// URL, read read-only (default: SQLite files under the state folder).
    #[arg(long)]
    store: Option<String>,
    #[command(flatten)]
    access: crate::http_guard::AccessArgs,
}

pub fn run(args: ConsoleArgs) -> i32 {
    let view = match StateView::open(&args.state) {
        Ok(view) => view,
        Err(e) => return super::usage_error(e),
    };
    let view = match args.store {
        None => view,
        Some(url) => match view.with_postgres(&url) {
            Ok(view) => view,
            // A URL that is not one, or names a database without gg's
            // tables, is the operator's to fix; an unreachable server is not.
            Err(e) if e.code == ErrorCode::InvalidArgument => {
                return super::usage_error(format!("--store: {}", e.message))
            }
            Err(e) => return super::runtime_error(format!("--store: {}", e.message)),
        },
    };
    let addr = match crate::http_guard::loopback_addr(&args.addr, "--addr") {
        Ok(addr) => addr,
        Err(e) => return super::usage_error(e),
    };
    let access = match args.access.resolve() {
        Ok(access) => access,
        Err(e) => return super::usage_error(e),
    };
    let served = crate::console::serve(view, addr, &access, |bound| {
        let mut out = crate::screen::stdout();
        let _ = writeln!(out, "gg console: http://{bound}/");
        let _ = out.flush();
    });
    match served {
        Ok(()) => 0,
        Err(e) => super::runtime_error(e),
    }
}
