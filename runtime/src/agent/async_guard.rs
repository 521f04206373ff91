//! The blocking calls' guard against being made from async code: an
//! agent's isolate runs its own event loop on the calling thread, which
//! tokio forbids on a thread that is driving another runtime's tasks (it
//! panics). Such a call is refused as the embedder's mistake, with the way
//! out, before it has touched the agent.

use std::cell::OnceCell;

use super::AgentError;

thread_local! {
    /// A runtime that runs nothing, blocked on to ask tokio whether this
    /// thread may block: made on a thread's first call from inside a tokio
    /// context.
    static PROBE: OnceCell<Option<tokio::runtime::Runtime>> = const { OnceCell::new() };
}

/// `Err` when `call` is made on a thread that is driving a tokio runtime
/// (inside an `async` function or a `block_on`). A thread outside any
/// runtime, and tokio's blocking threads (`spawn_blocking`), may block and
/// pass; they pay nothing, or one empty `block_on`.
pub(super) fn refuse_inside_async(call: &str) -> Result<(), AgentError> {
    if tokio::runtime::Handle::try_current().is_err() {
        return Ok(());
    }
    let may_block = PROBE.with(|probe| {
        let Some(runtime) =
            probe.get_or_init(|| tokio::runtime::Builder::new_current_thread().build().ok())
        else {
            return true;
        };
        // tokio answers only by panicking; its message goes to the panic
        // hook once, and the call is refused in words.
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| runtime.block_on(async {})))
            .is_ok()
    });
    if may_block {
        return Ok(());
    }
    Err(AgentError::Setup(format!(
        "{call} blocks its thread while the agent's program runs, and was called from async code \
         (a thread driving a tokio runtime), where blocking is not allowed. From async code, use \
         gg_runtime::AgentHandle (an agent on a thread of its own, with an async turn), or call it \
         inside tokio::task::spawn_blocking."
    )))
}
