//! Test-only: make a transpile on this thread crash inside the compiler, so
//! callers can prove a compiler defect is reported as gg's own.

use std::cell::Cell;

thread_local! {
    /// Transpiles to let through before the crash; `None`: no crash armed.
    static COUNTDOWN: Cell<Option<u32>> = const { Cell::new(None) };
}

/// The next `transpile` on this thread panics inside the compiler step.
pub fn force_internal_failure() {
    force_internal_failure_after(0);
}

/// The transpile after the next `n` on this thread panics inside the
/// compiler step (so a program can compile and the code it loads crash).
pub fn force_internal_failure_after(n: u32) {
    COUNTDOWN.with(|c| c.set(Some(n)));
}

pub(crate) fn take() -> bool {
    COUNTDOWN.with(|c| match c.get() {
        Some(0) => {
            c.set(None);
            true
        }
        Some(n) => {
            c.set(Some(n - 1));
            false
        }
        None => false,
    })
}

/// Whether a crash is armed on this thread (the transpile cache steps aside).
pub(crate) fn armed() -> bool {
    COUNTDOWN.with(|c| c.get().is_some())
}
