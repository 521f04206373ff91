//! The walls a process that runs one gg agent puts up around itself before
//! it opens the agent (`gg mcp`'s workers do; an embedder's own worker
//! processes can): Landlock for the filesystem, and two seccomp filters for
//! system calls. Linux only; a kernel without Landlock leaves the
//! filesystem open, and says so in the log.
//!
//! - **Landlock**: the workspace read-only and `/dev/urandom`, nothing
//!   else: no state folder (the host keeps the agent's state and answers
//!   the worker's calls on it), and the engine's scripts are compiled into
//!   the binary.
//! - **seccomp, what kills**: starting a process (`fork`, `vfork`, `clone`
//!   without `CLONE_THREAD`, `execve`, `execveat`), reading or writing
//!   another process (`ptrace`, `process_vm_readv`/`writev`), and opening a
//!   socket. None of these has a use in a worker, so one is taken as proof
//!   of an escape: the process is ended at once (`SIGSYS`), and the host
//!   reopens the agent.
//! - **seccomp, what is allowed**: an allow-list of the calls a worker
//!   makes (found by tracing workers through the MCP suite); any other
//!   call fails with `ENOSYS`, as on a kernel that lacks it, which the C
//!   library and Rust's standard library answer with their fallbacks
//!   (`clone3` → `clone`, `statx` → `fstat`).
//!
//! Both filters apply to every thread of the worker; the kernel takes the
//! stricter answer of the two. They are for a process whose agent's state
//! another process keeps (as `gg mcp` serves its workers' state over their
//! channel): a confined process opens no file but its workspace.
//!
//! ```no_run
//! // In the worker process, before it opens its agent:
//! gg_confine::confine(Some(std::path::Path::new("/srv/agents/alice/workspace")))?;
//! // From here on: the workspace can be read, nothing else of the
//! // filesystem can; no process can be started, no socket opened.
//! # Ok::<(), gg_confine::ConfineError>(())
//! ```

use std::collections::BTreeMap;
use std::path::Path;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// Why the walls could not be put up; the process should not go on to
/// open its agent.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfineError {
    /// Landlock refused the ruleset.
    #[error("landlock: {0}")]
    Landlock(#[from] landlock::RulesetError),
    /// A seccomp filter could not be built or installed.
    #[error("seccomp: {0}")]
    Seccomp(#[from] seccompiler::Error),
}

impl From<seccompiler::BackendError> for ConfineError {
    fn from(e: seccompiler::BackendError) -> Self {
        ConfineError::Seccomp(seccompiler::Error::Backend(e))
    }
}

/// Gives up everything the agent does not need (see the crate's doc): the
/// filesystem but `workspace` (read-only) and `/dev/urandom`, and every
/// system call but a worker's.
pub fn confine(workspace: Option<&Path>) -> Result<(), ConfineError> {
    use landlock::{
        path_beneath_rules, Access, AccessFs, Ruleset, RulesetAttr, RulesetCreatedAttr,
        RulesetStatus, ABI,
    };
    let abi = ABI::V5;
    let mut ruleset = Ruleset::default()
        .handle_access(AccessFs::from_all(abi))
        .and_then(|r| r.create())?;
    // Randomness for crates that read it as a file rather than by getrandom(2).
    ruleset = ruleset.add_rules(path_beneath_rules(
        ["/dev/urandom"],
        AccessFs::from_read(abi),
    ))?;
    if let Some(workspace) = workspace {
        ruleset = ruleset.add_rules(path_beneath_rules([workspace], AccessFs::from_read(abi)))?;
    }
    let status = ruleset.restrict_self()?;
    if status.ruleset == RulesetStatus::NotEnforced {
        tracing::warn!(
            "this kernel does not enforce Landlock: the MCP worker's filesystem is not confined"
        );
    }
    let arch = TargetArch::try_from(std::env::consts::ARCH)?;
    // The allow-list first: the filter that kills must also cover the calls
    // the allow-list passes (clone with and without CLONE_THREAD).
    apply(allowed_calls(arch)?)?;
    apply(fatal_calls(arch)?)
}

fn apply(filter: SeccompFilter) -> Result<(), ConfineError> {
    let program: BpfProgram = filter.try_into()?;
    Ok(seccompiler::apply_filter_all_threads(&program)?)
}

/// The calls that end the worker: listed → `SIGSYS` to the whole process.
fn fatal_calls(arch: TargetArch) -> Result<SeccompFilter, ConfineError> {
    let mut calls: BTreeMap<i64, Vec<SeccompRule>> = [
        libc::SYS_execve,
        libc::SYS_execveat,
        libc::SYS_fork,
        libc::SYS_vfork,
        libc::SYS_ptrace,
        libc::SYS_process_vm_readv,
        libc::SYS_process_vm_writev,
    ]
    .into_iter()
    .map(|call| (call, Vec::new()))
    .collect();
    // A clone that makes a process rather than a thread.
    let new_process = SeccompCondition::new(
        0,
        SeccompCmpArgLen::Qword,
        SeccompCmpOp::MaskedEq(libc::CLONE_THREAD as u64),
        0,
    )
    .and_then(|c| SeccompRule::new(vec![c]))?;
    calls.insert(libc::SYS_clone, vec![new_process]);
    for call in [
        libc::SYS_socket,
        libc::SYS_socketpair,
        libc::SYS_connect,
        libc::SYS_bind,
        libc::SYS_listen,
        libc::SYS_accept,
        libc::SYS_accept4,
    ] {
        calls.insert(call, Vec::new());
    }
    Ok(SeccompFilter::new(
        calls,
        SeccompAction::Allow,
        SeccompAction::KillProcess,
        arch,
    )?)
}

/// The allow-list: listed → allowed, anything else → `ENOSYS`.
fn allowed_calls(arch: TargetArch) -> Result<SeccompFilter, ConfineError> {
    let mut calls: BTreeMap<i64, Vec<SeccompRule>> = WORKER_CALLS
        .iter()
        .map(|&call| (call, Vec::new()))
        .collect();
    // Whatever the fatal filter judges must reach it rather than fail here.
    calls.insert(libc::SYS_clone, Vec::new());
    // Calls that could reach another process, allowed only on this one:
    // a signal to a thread of this process (what `abort` and the runtime
    // send), never to the server or a sibling worker; limits read, never
    // set on anyone (the CPU budget's hard limit is the server's to set);
    // a thread's name and the few reads of its state, never the
    // parent-death signal or dumpability.
    let rule = |conditions: Vec<SeccompCondition>| SeccompRule::new(conditions);
    // The low 32 bits: every argument compared is an `int` or a pid.
    let equals = |arg: u8, value: u64| {
        SeccompCondition::new(arg, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, value)
    };
    let own = u64::from(std::process::id());
    calls.insert(libc::SYS_tgkill, vec![rule(vec![equals(0, own)?])?]);
    calls.insert(
        libc::SYS_prlimit64,
        vec![
            rule(vec![equals(0, 0)?, equals(2, 0)?])?,
            rule(vec![equals(0, own)?, equals(2, 0)?])?,
        ],
    );
    let prctl_reads = [
        libc::PR_GET_PDEATHSIG,
        libc::PR_GET_DUMPABLE,
        libc::PR_SET_NAME,
        libc::PR_GET_NAME,
        // Only ever more confining: what installing the second filter does.
        libc::PR_SET_NO_NEW_PRIVS,
        // glibc names its malloc arenas' mappings.
        0x5356_4d41,
    ];
    calls.insert(
        libc::SYS_prctl,
        prctl_reads
            .into_iter()
            .map(|option| rule(vec![equals(0, option as u64)?]))
            .collect::<Result<_, _>>()?,
    );
    Ok(SeccompFilter::new(
        calls,
        SeccompAction::Errno(libc::ENOSYS as u32),
        SeccompAction::Allow,
        arch,
    )?)
}

/// The system calls a worker makes: memory, threads and their
/// synchronization, files under its walls (SQLite, the event stream,
/// workspace reads), time, randomness, its pipes to the host, and exiting.
const WORKER_CALLS: &[i64] = &[
    // Memory.
    libc::SYS_brk,
    libc::SYS_mmap,
    libc::SYS_munmap,
    libc::SYS_mremap,
    libc::SYS_mprotect,
    libc::SYS_madvise,
    libc::SYS_mlock,
    libc::SYS_munlock,
    libc::SYS_membarrier,
    // Threads, signals and waiting.
    libc::SYS_futex,
    libc::SYS_set_robust_list,
    libc::SYS_get_robust_list,
    libc::SYS_rseq,
    libc::SYS_set_tid_address,
    libc::SYS_gettid,
    libc::SYS_getpid,
    libc::SYS_getppid,
    libc::SYS_rt_sigaction,
    libc::SYS_rt_sigprocmask,
    libc::SYS_rt_sigreturn,
    libc::SYS_sigaltstack,
    libc::SYS_sched_yield,
    libc::SYS_sched_getaffinity,
    libc::SYS_nanosleep,
    libc::SYS_clock_nanosleep,
    libc::SYS_clock_gettime,
    libc::SYS_clock_getres,
    libc::SYS_gettimeofday,
    libc::SYS_getrlimit,
    libc::SYS_getrusage,
    libc::SYS_exit,
    libc::SYS_exit_group,
    libc::SYS_restart_syscall,
    // Waiting on descriptors (tokio's and the standard library's).
    libc::SYS_epoll_create1,
    libc::SYS_epoll_ctl,
    libc::SYS_epoll_wait,
    libc::SYS_epoll_pwait,
    libc::SYS_epoll_pwait2,
    libc::SYS_eventfd2,
    libc::SYS_poll,
    libc::SYS_ppoll,
    libc::SYS_pipe2,
    // Files.
    libc::SYS_read,
    libc::SYS_write,
    libc::SYS_readv,
    libc::SYS_writev,
    libc::SYS_pread64,
    libc::SYS_pwrite64,
    libc::SYS_preadv,
    libc::SYS_pwritev,
    libc::SYS_lseek,
    libc::SYS_open,
    libc::SYS_openat,
    libc::SYS_close,
    libc::SYS_stat,
    libc::SYS_fstat,
    libc::SYS_lstat,
    libc::SYS_newfstatat,
    libc::SYS_statx,
    libc::SYS_statfs,
    libc::SYS_fstatfs,
    libc::SYS_access,
    libc::SYS_faccessat,
    libc::SYS_faccessat2,
    libc::SYS_readlink,
    libc::SYS_readlinkat,
    libc::SYS_getcwd,
    libc::SYS_getdents64,
    libc::SYS_fcntl,
    libc::SYS_ioctl,
    libc::SYS_flock,
    libc::SYS_fsync,
    libc::SYS_fdatasync,
    libc::SYS_ftruncate,
    libc::SYS_fallocate,
    libc::SYS_unlink,
    libc::SYS_unlinkat,
    libc::SYS_rename,
    libc::SYS_renameat,
    libc::SYS_renameat2,
    libc::SYS_link,
    libc::SYS_linkat,
    libc::SYS_mkdir,
    libc::SYS_mkdirat,
    libc::SYS_fchmod,
    libc::SYS_fchown,
    libc::SYS_umask,
    libc::SYS_dup,
    libc::SYS_dup2,
    libc::SYS_dup3,
    libc::SYS_getrandom,
    libc::SYS_uname,
    libc::SYS_sysinfo,
    libc::SYS_getuid,
    libc::SYS_geteuid,
    libc::SYS_getgid,
    libc::SYS_getegid,
    // Landlock and seccomp themselves, which a library may query.
    libc::SYS_seccomp,
    libc::SYS_landlock_create_ruleset,
];
