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
