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

deno_core::extension!(
    gg_fault,
    ops = [
        op_gg_fault_read_file,
        op_gg_fault_env,
        op_gg_fault_write_stderr,
        op_gg_fault_abort
    ],
);

pub(super) fn extension() -> deno_core::Extension {
    gg_fault::init()
}
