//! Where the operator's log goes: standard error, one line an event.
//!
//! `GG_LOG` sets the level (`error`, `warn`, `info` — the default —,
//! `debug`, `trace` or `off`). The services (`gg mcp`, `gg console`) stamp
//! each line with the time; one-shot commands do not.

use tracing_subscriber::filter::LevelFilter;

/// Installs the subscriber for this process; `timestamps` for services.
pub(crate) fn install(timestamps: bool) {
    let level = match std::env::var("GG_LOG") {
        Ok(text) => match text.trim().parse::<LevelFilter>() {
            Ok(level) => level,
            Err(_) => {
                eprintln!(
                    "gg: GG_LOG={text:?} is not a log level; use error, warn, info, debug, trace or off. Logging at info."
                );
                LevelFilter::INFO
            }
        },
        Err(_) => LevelFilter::INFO,
    };
    let builder = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_max_level(level)
        .with_target(false)
        .with_ansi(false);
    // A second install (never in the binary) keeps the first.
    let _ = if timestamps {
        builder.try_init()
    } else {
        builder.without_time().try_init()
    };
}
