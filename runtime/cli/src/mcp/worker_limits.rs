//! What a worker process may spend, enforced from outside it: a stopped
//! program is a stopped process.
//!
//! - **Time**: each call must be answered within twice the limit of the
//!   run the worker last started (the run, then as long again to stop) and
//!   a margin; a worker past it is killed and reaped by its host
//!   (`worker::Worker::exchange`). The worker itself ends sooner when a run
//!   does not stop at its limit (its `RunSupervisor`).
//! - **CPU**: the same budget as a soft `RLIMIT_CPU`, renewed by the host
//!   for each call and each run, so a worker spinning where nothing can
//!   interrupt it is ended by the kernel (`SIGXCPU`) even if its host is
//!   busy. CPU time, not wall time: a loaded machine does not shorten it.
//! - **Address space**: `RLIMIT_AS` from the profile's heap limit, so
//!   memory the engine does not count cannot grow without bound.
//! - **Lifetime**: the worker is killed when the host thread that started
//!   it ends (`PR_SET_PDEATHSIG`), so no worker outlives its server, however
//!   the server ends. No core files: a worker's memory holds an agent's data.

use std::os::unix::process::CommandExt;
use std::process::Command;
use std::time::Duration;

use gg_module::Profile;

/// Added to twice a run's limit for the work around it: compiling the
/// program, the store's writes, the acknowledgement. Default: 10 s.
const ANSWER_MARGIN: Duration = Duration::from_secs(10);

/// Address space a worker needs whatever its heap limit: the binary, its
/// threads' stacks, the allocators' reservations, ICU's data. Measured at
/// about 0.6 GiB of virtual memory for a worker that has run programs;
/// default 2 GiB, so a worker is never refused what it needs to start.
const ADDRESS_SPACE_BASE: u64 = 2 << 30;

/// Bytes of address space per MiB of the heap limit: the heap itself and
/// room for the engine's own copies while it works (a string's conversion,
/// a serialization), which are transient.
const ADDRESS_SPACE_PER_HEAP_MIB: u64 = 4 << 20;

/// The limits one agent's worker runs under, from its profile.
#[derive(Debug, Clone, Copy)]
pub struct CallLimits {
    /// The profile's `timeMs`: the budget of a call before its first run
    /// (reading and compiling the program); each run then reports its own
    /// limit (`timeMs` for a program, `onUseTimeMs` for a hook).
    pub time: Duration,
    /// The longest run the profile allows (`timeMs` or `onUseTimeMs`): a
    /// run the worker reports as longer is held to this.
    pub longest_run: Duration,
    /// `RLIMIT_AS` for the worker, in bytes.
    address_space: u64,
}

impl CallLimits {
    /// The limits `profile`'s programs imply.
    pub fn of(profile: &Profile) -> Self {
        let programs = &profile.programs;
        CallLimits {
            time: Duration::from_millis(programs.time_ms),
            longest_run: Duration::from_millis(programs.time_ms.max(programs.on_use_time_ms)),
            address_space: ADDRESS_SPACE_BASE
                .saturating_add(programs.heap_mib.saturating_mul(ADDRESS_SPACE_PER_HEAP_MIB)),
        }
    }

    /// How long a call may go without an answer once a run of `limit`
    /// started (or the call began): the run, as long again for it to stop,
    /// and [`ANSWER_MARGIN`].
    pub fn answer_within(&self, limit: Duration) -> Duration {
        limit.saturating_mul(2).saturating_add(ANSWER_MARGIN)
    }

    /// Lets worker `pid` use [`Self::answer_within`]`(limit)` more CPU time
    /// from now, as its soft `RLIMIT_CPU` (the hard limit stays unlimited,
    /// so the host can renew it). Best effort: a worker that cannot be read
    /// or limited keeps its limit and the host's deadline still holds.
    pub fn hold_cpu(&self, pid: u32, limit: Duration) {
        let Some(used) = cpu_seconds(pid) else { return };
        let budget = self.answer_within(limit).as_secs().max(1) + 1;
        let limit = libc::rlimit {
            rlim_cur: used.saturating_add(budget),
            rlim_max: libc::RLIM_INFINITY,
        };
        // SAFETY: prlimit only reads the struct passed by pointer.
        unsafe {
            libc::prlimit(
                pid as libc::pid_t,
                libc::RLIMIT_CPU,
                &limit,
                std::ptr::null_mut(),
            );
        }
    }
}

/// The CPU time process `pid` has used, in whole seconds rounded up.
fn cpu_seconds(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The fields after the command's name, which may hold spaces and
    // parentheses: utime and stime are the 12th and 13th of them.
    let rest = &stat[stat.rfind(')')? + 2..];
    let mut fields = rest.split(' ').skip(11);
    let utime: u64 = fields.next()?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    // SAFETY: sysconf only reads a configuration value.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    Some((utime + stime).div_ceil(ticks))
}

/// Makes the worker `command` starts die with the thread calling this
/// (which must live as long as the worker may), with no core file and with
/// `limits`' address space.
pub fn bind_to_this_thread(command: &mut Command, limits: &CallLimits) {
    // SAFETY: getpid is async-signal-safe and called before the fork.
    let parent = unsafe { libc::getpid() };
    let address_space = limits.address_space;
    // SAFETY: between fork and exec the closure calls only
    // async-signal-safe functions (prctl, getppid, setrlimit, _exit) and
    // allocates nothing.
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(
                libc::PR_SET_PDEATHSIG,
                libc::SIGKILL as libc::c_ulong,
                0,
                0,
                0,
            ) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
            // The parent may have ended before the signal was asked for.
            if libc::getppid() != parent {
                libc::_exit(1);
            }
            let no_core = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            libc::setrlimit(libc::RLIMIT_CORE, &no_core);
            let space = libc::rlimit {
                rlim_cur: address_space,
                rlim_max: address_space,
            };
            libc::setrlimit(libc::RLIMIT_AS, &space);
            Ok(())
        });
    }
}
