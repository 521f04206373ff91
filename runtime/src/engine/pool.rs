//! Pre-warmed isolates, one pool per thread (an isolate never leaves the
//! thread that made it).
//!
//! Creating an isolate with gg's bootstrap is the expensive part of a new
//! agent instance (deno_core's runtime, deno_web's globals, the `gg`
//! module). A host that expects spawns — forks, subagents, review rounds —
//! warms some while it is idle; [`Engine::new`] then takes one and binds it
//! to its agent. A pooled isolate has run no program and is bound to no
//! agent, and an isolate serves one agent for its whole life and is never
//! returned here: nothing of one agent can reach another through the pool.

use std::any::TypeId;
use std::cell::{Cell, RefCell};

use super::{Bridge, Engine};

thread_local! {
    /// Whether this thread's pool was ever filled. Until it is, nothing reads
    /// `WARM`: a thread-local's destructor is registered at its first use and
    /// thread-locals are destroyed in the reverse order, so `WARM`, first
    /// used only once this thread has made an isolate, is destroyed (and its
    /// isolates disposed) while the engine's own per-thread state still
    /// lives. Used earlier, a thread that ended with warm isolates aborted the
    /// process: disposing them needed state already destroyed.
    static POOL_USED: Cell<bool> = const { Cell::new(false) };
    static WARM: RefCell<Vec<Engine>> = const { RefCell::new(Vec::new()) };
}

/// Warms isolates of bridge `B` for `heap_limit` until this thread's pool
/// holds `count` of them. Returns how many were made.
pub fn prewarm<B: Bridge>(heap_limit: usize, count: usize) -> Result<usize, super::EngineError> {
    let mut made = 0;
    while ready::<B>(heap_limit) < count {
        let engine = Engine::warm::<B>(heap_limit)?;
        POOL_USED.set(true);
        WARM.with(|warm| warm.borrow_mut().push(engine));
        made += 1;
    }
    Ok(made)
}

/// Whether `engine` can serve an agent of bridge `B` under `heap_limit`.
fn fits<B: Bridge>(engine: &Engine, heap_limit: usize) -> bool {
    engine.heap_limit == heap_limit && engine.bridge == TypeId::of::<B>()
}

/// How many warm isolates of bridge `B` for `heap_limit` this thread holds.
pub fn ready<B: Bridge>(heap_limit: usize) -> usize {
    if !POOL_USED.get() {
        return 0;
    }
    WARM.with(|warm| {
        warm.borrow()
            .iter()
            .filter(|e| fits::<B>(e, heap_limit))
            .count()
    })
}

/// Takes a warm isolate of bridge `B` for `heap_limit`, if this thread has
/// one.
pub(super) fn take<B: Bridge>(heap_limit: usize) -> Option<Engine> {
    if !POOL_USED.get() {
        return None;
    }
    WARM.with(|warm| {
        let mut warm = warm.borrow_mut();
        let at = warm.iter().position(|e| fits::<B>(e, heap_limit))?;
        Some(warm.swap_remove(at))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bridge::GgBridge;

    /// Drops every warm isolate this thread holds.
    fn clear() {
        let drained: Vec<Engine> = WARM.with(|warm| warm.borrow_mut().drain(..).collect());
        drop(drained);
    }

    #[test]
    fn a_warm_isolate_is_taken_once_and_only_for_its_heap_limit() {
        let mib = 1024 * 1024;
        assert_eq!(prewarm::<GgBridge>(64 * mib, 2).unwrap(), 2);
        assert_eq!(prewarm::<GgBridge>(64 * mib, 2).unwrap(), 0);
        assert_eq!(ready::<GgBridge>(64 * mib), 2);
        assert!(take::<GgBridge>(32 * mib).is_none());
        assert!(take::<GgBridge>(64 * mib).is_some());
        assert_eq!(ready::<GgBridge>(64 * mib), 1);
        clear();
        assert_eq!(ready::<GgBridge>(64 * mib), 0);
    }

    #[test]
    fn a_thread_that_ends_with_warm_isolates_disposes_them() {
        // Before, the pool's destructor ran after the engine's per-thread
        // state was gone, and the process aborted at the thread's end.
        let mib = 1024 * 1024;
        for _ in 0..2 {
            std::thread::spawn(move || {
                // An agent's first look at the pool comes before any isolate.
                assert!(take::<GgBridge>(64 * mib).is_none());
                assert_eq!(prewarm::<GgBridge>(64 * mib, 2).unwrap(), 2);
            })
            .join()
            .expect("the thread ended cleanly");
        }
    }
}
