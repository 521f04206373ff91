//! The process's own resources, which a library leaves to its embedder:
//! how many files it may hold open, and when freed memory goes back to the
//! system.

/// Raises this process's soft limit on open files to its hard limit, as Go
/// programs do at start: every agent with a state folder holds its store's
/// database, its write-ahead log and its event stream open, and the common
/// default of 1 024 would stop a host at about 340 live agents with an
/// error from deep inside SQLite. Nothing gg does uses `select`, so a high
/// descriptor number is no harm. Left as it is when it cannot be read or
/// raised.
pub fn raise_open_file_limit() {
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

/// Gives the C heap's free pages back to the system, after an isolate was
/// let go ([`gg_runtime::Agent::park`]). QuickJS allocates with the C
/// allocator, whose free lists would otherwise keep a dropped isolate's
/// pages resident for the next one; a parked agent's process, or a host
/// whose sessions went idle together, would not shrink. Does nothing off glibc.
pub fn return_freed_heap() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only walks the allocator's own free lists.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Ends a one-shot command (`gg run`, `gg test`, …) whose program did not
/// stop at its time limit when told to: native code that never checks for
/// termination holds the thread, and waiting would hang the command past
/// every limit. The turn was never acknowledged, so the agent's state is as
/// it was before it, as after a crash.
struct EndStuckCommand;

impl gg_runtime::RunSupervisor for EndStuckCommand {
    fn wedged(&self, limit: std::time::Duration, overrun: std::time::Duration) {
        tracing::error!(
            limit_ms = limit.as_millis() as u64,
            "a program ran past its time limit of {} ms and did not stop within {} ms of being told to; gg ends here. Its turn was not acknowledged: the agent's state is as it was before it.",
            limit.as_millis(),
            overrun.as_millis()
        );
        // The log line is written (stderr is unbuffered); nothing else is
        // run on the way out while the stuck thread holds the agent.
        // SAFETY: ends the process at once.
        unsafe { libc::_exit(1) };
    }
}

/// Makes a stuck program end this one-shot command (see [`EndStuckCommand`]).
pub fn end_on_stuck_runs() {
    gg_runtime::supervise_runs(EndStuckCommand);
}
