//! Where the operator's log goes: standard error, one line an event.
//!
//! Each event is one line, escaped as text a program chose is
//! ([`crate::screen::log_lines`]).
//!
//! `GG_LOG` sets gg's level (`error`, `warn`, `info` — the default —,
//! `debug`, `trace` or `off`); the libraries under gg (the MCP SDK, the
//! HTTP server) log their warnings and errors only, unless `GG_LOG` asks
//! for `debug` or `trace`. The services (`gg mcp`, `gg console`) stamp each
//! line with the time; one-shot commands do not.

use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// Installs the subscriber for this process; `timestamps` for services.
pub(crate) fn install(timestamps: bool) {
    let level = match std::env::var("GG_LOG") {
        Ok(text) => match text.trim().parse::<LevelFilter>() {
            Ok(level) => level,
            Err(_) => {
                crate::screen::tell!(
                    "gg: GG_LOG={text:?} is not a log level; use error, warn, info, debug, trace or off. Logging at info."
                );
                LevelFilter::INFO
            }
        },
        Err(_) => LevelFilter::INFO,
    };
    let others = if level >= LevelFilter::DEBUG {
        level
    } else {
        level.min(LevelFilter::WARN)
    };
    let filter = Targets::new()
        .with_target("gg_runtime", level)
        .with_target("gg_module", level)
        .with_target("gg", level)
        .with_default(others);
    // A log line that cannot be written (standard error closed, as when a
    // supervisor stopped reading it) is dropped: the fmt layer would
    // otherwise report it with `eprintln!`, which panics on a closed pipe.
    let layer = tracing_subscriber::fmt::layer()
        .with_writer(crate::screen::log_lines)
        .with_target(false)
        .with_ansi(false)
        .log_internal_errors(false);
    // A second install (never in the binary) keeps the first.
    let _ = if timestamps {
        tracing_subscriber::registry()
            .with(layer)
            .with(filter)
            .try_init()
    } else {
        tracing_subscriber::registry()
            .with(layer.without_time())
            .with(filter)
            .try_init()
    };
}
