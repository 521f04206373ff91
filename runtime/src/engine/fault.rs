//! A deliberately injected engine fault, for the tests of the worker
//! process's confinement (feature `fault-injection` only, never in a
//! release): when enabled, every isolate gets `globalThis.__ggInjectedFault`,
//! whose functions do what a sandbox escape would let a program do — read
//! any file by path, read the process's environment, abort the process.
//! The worker's walls must hold against it.

use std::sync::atomic::{AtomicBool, Ordering};

use deno_core::op2;

static ENABLED: AtomicBool = AtomicBool::new(false);

thread_local! {
    static PANIC_NEXT_TURN: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Makes the next turn run on this thread panic in gg's own code, before
/// its program runs.
pub fn panic_in_next_turn() {
    PANIC_NEXT_TURN.with(|flag| flag.set(true));
}

/// Panics once if [`panic_in_next_turn`] asked for it on this thread.
pub(crate) fn maybe_panic_in_turn() {
    if PANIC_NEXT_TURN.with(|flag| flag.replace(false)) {
        panic!("injected fault: a defect in gg's turn loop");
    }
}

/// Gives every isolate this process makes from now on the injected fault.
pub fn enable() {
    ENABLED.store(true, Ordering::SeqCst);
}

pub(super) fn enabled() -> bool {
    ENABLED.load(Ordering::SeqCst)
}

/// Runs before gg's bootstrap removes `Deno`: hands the program the ops.
pub(super) const GLOBAL: &str = r#"
{
  const ops = Deno.core.ops;
  globalThis.__ggInjectedFault = Object.freeze({
    readFile: (path) => ops.op_gg_fault_read_file(path),
    env: (name) => ops.op_gg_fault_env(name),
    abort: () => ops.op_gg_fault_abort(),
    writeStderr: (text) => ops.op_gg_fault_write_stderr(text),
    // A gg call whose host side panics, as a defect in gg's own code would.
    panicInCall: () => ops.op_gg_call("fault.panic", "[]"),
    // Native code that never checks for termination, for `ms` milliseconds
    // (forever without it), as an engine loop the watchdog cannot stop.
    spin: (ms) => ops.op_gg_fault_spin(ms ?? -1),
    // A system call an escaped program would make: "fork", "clone"
    // (without CLONE_THREAD), "execve", "socket"; or one that reaches
    // the server: "signal-parent", "limits-of-parent",
    // "clear-parent-death-signal"; its result or errno.
    syscall: (name) => ops.op_gg_fault_syscall(name),
  });
}
"#;

/// Reads any file by path: its text, or `refused: …` with the OS error.
#[op2]
#[string]
fn op_gg_fault_read_file(#[string] path: String) -> String {
    match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) => format!("refused: {e}"),
    }
}

/// Reads the process's environment variable `name` (empty when unset).
#[op2]
#[string]
fn op_gg_fault_env(#[string] name: String) -> String {
    std::env::var(name).unwrap_or_default()
}

/// Writes `text` to the process's standard error as it is, as a library
/// under gg that prints would.
#[op2(fast)]
fn op_gg_fault_write_stderr(#[string] text: &str) {
    use std::io::Write;
    let _ = std::io::stderr().write_all(text.as_bytes());
}

/// Aborts the process, as an engine crash would.
#[op2(fast)]
fn op_gg_fault_abort() {
    std::process::abort();
}

/// Spins on this thread for `ms` milliseconds (forever when negative),
/// checking nothing: a native loop that termination cannot reach.
#[op2(fast)]
fn op_gg_fault_spin(ms: f64) {
    let until = (ms >= 0.0)
        .then(|| std::time::Instant::now() + std::time::Duration::from_secs_f64(ms / 1000.0));
    while until.is_none_or(|until| std::time::Instant::now() < until) {
        std::hint::spin_loop();
    }
}

/// Makes the system call `name` names; its result, or the OS error. A child
/// it makes exits at once.
#[op2]
#[string]
fn op_gg_fault_syscall(#[string] name: String) -> String {
    // SAFETY: test-only; each call is made with valid arguments, and a child
    // process only calls `_exit`.
    let result = unsafe {
        match name.as_str() {
            "fork" => libc::syscall(libc::SYS_fork),
            "clone" => libc::syscall(libc::SYS_clone, libc::SIGCHLD as libc::c_ulong, 0, 0, 0, 0),
            "execve" => {
                let program = c"/bin/true";
                let argv = [program.as_ptr(), std::ptr::null()];
                let envp: [*const libc::c_char; 1] = [std::ptr::null()];
                libc::execve(program.as_ptr(), argv.as_ptr(), envp.as_ptr()) as libc::c_long
            }
            "socket" => libc::socket(libc::AF_INET, libc::SOCK_STREAM, 0) as libc::c_long,
            // Reaching the parent (the server): signal 0 only asks whether
            // a signal could be sent; a read of its limits changes nothing.
            "signal-parent" => {
                let parent = libc::getppid();
                libc::syscall(libc::SYS_tgkill, parent, parent, 0)
            }
            "limits-of-parent" => {
                let mut old: libc::rlimit = std::mem::zeroed();
                libc::syscall(
                    libc::SYS_prlimit64,
                    libc::getppid(),
                    libc::RLIMIT_CPU,
                    std::ptr::null::<libc::rlimit>(),
                    &mut old as *mut libc::rlimit,
                )
            }
            "clear-parent-death-signal" => libc::prctl(libc::PR_SET_PDEATHSIG, 0) as libc::c_long,
            other => return format!("unknown system call {other:?}"),
        }
    };
    let forks = matches!(name.as_str(), "fork" | "clone");
    if result == 0 && forks {
        // The child of a fork or clone.
        unsafe { libc::_exit(0) };
    }
    if result < 0 {
        format!("refused: {}", std::io::Error::last_os_error())
    } else {
        format!("made: {result}")
    }
}

deno_core::extension!(
    gg_fault,
    ops = [
        op_gg_fault_spin,
        op_gg_fault_syscall,
        op_gg_fault_read_file,
        op_gg_fault_env,
        op_gg_fault_write_stderr,
        op_gg_fault_abort
    ],
);

pub(super) fn extension() -> deno_core::Extension {
    gg_fault::init()
}
