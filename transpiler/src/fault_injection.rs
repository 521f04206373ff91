//! Test-only: make the next transpile on this thread crash inside the
//! compiler, so callers can prove a compiler defect is reported as gg's own.

use std::cell::Cell;

thread_local! {
    static CRASH_NEXT: Cell<bool> = const { Cell::new(false) };
}

/// The next `transpile` on this thread panics inside the compiler step.
pub fn force_internal_failure() {
    CRASH_NEXT.with(|c| c.set(true));
}

pub(crate) fn take() -> bool {
    CRASH_NEXT.with(|c| c.replace(false))
}
