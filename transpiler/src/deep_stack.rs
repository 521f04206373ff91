//! The compiler's own stack. swc's parser, transforms and printer recurse
//! once per level of nesting, and 32 768 characters of `[[[[…` or `1+1+1+…`
//! nest that deep: on an ordinary thread's stack that is a stack overflow,
//! which aborts the whole host. Each thread that compiles therefore keeps
//! one stack deep enough for the worst source the guard admits, and every
//! compile on that thread runs on it: the calling thread switches its stack
//! pointer (`psm`), which costs nanoseconds where handing the work to a
//! second thread cost a wake-up of that thread per compile.

use std::cell::RefCell;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

/// Usable size of each thread's compiler stack, in bytes: enough for 32 768
/// levels of nesting in a debug build. It is reserved address space; only
/// the pages a compile touches are ever mapped, and they stay mapped for the
/// thread's next compile.
const STACK_BYTES: usize = 1 << 30;

/// One `mmap`ed stack with an inaccessible guard page below it, so running
/// past its end faults instead of writing over other memory.
struct Stack {
    mapping: *mut libc::c_void,
    mapped_bytes: usize,
    page: usize,
}

impl Stack {
    fn new() -> Option<Stack> {
        // SAFETY: plain anonymous mappings, checked for failure; the guard
        // page stays PROT_NONE.
        unsafe {
            let page = libc::sysconf(libc::_SC_PAGESIZE).max(4096) as usize;
            let mapped_bytes = STACK_BYTES + page;
            let mapping = libc::mmap(
                std::ptr::null_mut(),
                mapped_bytes,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            );
            if mapping == libc::MAP_FAILED {
                return None;
            }
            let stack = Stack {
                mapping,
                mapped_bytes,
                page,
            };
            let usable = (mapping as *mut u8).add(page) as *mut libc::c_void;
            if libc::mprotect(usable, STACK_BYTES, libc::PROT_READ | libc::PROT_WRITE) != 0 {
                return None;
            }
            Some(stack)
        }
    }

    fn run<R>(&self, f: impl FnOnce() -> R) -> R {
        // SAFETY: the area is page-aligned, its size a multiple of the page
        // size, and the callback cannot unwind across the switch: a panic
        // is caught on the new stack and resumed on the old one.
        let outcome = unsafe {
            let base = (self.mapping as *mut u8).add(self.page);
            psm::on_stack(base, STACK_BYTES, move || catch_unwind(AssertUnwindSafe(f)))
        };
        outcome.unwrap_or_else(|payload| resume_unwind(payload))
    }
}

impl Drop for Stack {
    fn drop(&mut self) {
        // SAFETY: the mapping is ours and no compile is running on it.
        unsafe {
            libc::munmap(self.mapping, self.mapped_bytes);
        }
    }
}

thread_local! {
    /// This thread's compiler stack, made on its first compile; `None`
    /// while a compile runs on it.
    static STACK: RefCell<Option<Stack>> = const { RefCell::new(None) };
}

/// Runs `f` on this thread's compiler stack. `None` when no stack could be
/// mapped (the address space is exhausted).
pub(crate) fn run<R>(f: impl FnOnce() -> R) -> Option<R> {
    let stack = STACK
        .with(|slot| slot.borrow_mut().take())
        .or_else(Stack::new)?;
    let result = stack.run(f);
    STACK.with(|slot| *slot.borrow_mut() = Some(stack));
    Some(result)
}
