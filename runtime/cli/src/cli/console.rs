use std::io::Write;
use std::path::PathBuf;

use gg_module::inspect::StateView;

#[derive(clap::Args)]
pub struct ConsoleArgs {
    /// The state folder to show (a session's or `gg run`'s / `gg mcp`'s --state).
    #[arg(long, default_value = ".gg-state")]
    state: PathBuf,
    /// The loopback address to serve on; port 0 picks a free one. The bound
    /// address is printed on stdout as `gg console: http://ADDR/`.
    #[arg(long, default_value = "127.0.0.1:7420")]
    addr: std::net::SocketAddr,
}

pub fn run(args: ConsoleArgs) -> i32 {
    let view = match StateView::open(&args.state) {
        Ok(view) => view,
        Err(e) => return super::usage_error(e),
    };
    let served = crate::console::serve(view, args.addr, |bound| {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "gg console: http://{bound}/");
        let _ = out.flush();
    });
    match served {
        Ok(()) => 0,
        Err(e) => super::usage_error(e),
    }
}
