//! Memory the host builds for a program outside its heap — ICU4X's copies
//! of its strings and the answers built from them, text decoded for it —
//! is held to the program's heap limit: before an op builds something
//! whose size the program chose, it checks that the bytes fit in what the
//! heap has left ([`room`]). What does not fit ends the turn at its heap
//! ceiling ([`HeapCeiling::hit`]), exactly as the same work done in the
//! heap would have: V8 builds these strings in its heap, and a heap that
//! cannot hold them is its out-of-memory.
//!
//! The check counts the op's own buffers against what the heap has left
//! when the op starts; the heap cannot grow while the op runs, and what the
//! op hands back is allocated in the heap, under its limit. A program can
//! so make the process hold at most its heap limit twice over for an
//! instant (a full heap, and an op's buffers as large as its room), never
//! more.

use std::cell::Cell;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use deno_core::{v8, OpState};

/// Bytes an op may always build whatever the heap holds (256 KiB): small
/// answers never end a turn, and a check this cheap is not worth making.
pub(super) const ALWAYS: usize = 256 << 10;

/// The bytes the isolate's heap may still grow by before its limit.
pub(super) fn room(isolate: &mut v8::Isolate) -> usize {
    #[cfg(feature = "quickjs")]
    {
        v8::quickjs_heap_room(isolate)
    }
    #[cfg(not(feature = "quickjs"))]
    {
        let stats = isolate.get_heap_statistics();
        stats
            .heap_size_limit()
            .saturating_sub(stats.used_heap_size())
    }
}

/// Whether an op may build `bytes` outside the heap now.
pub(super) fn fits(isolate: &mut v8::Isolate, bytes: usize) -> bool {
    bytes <= ALWAYS || bytes <= room(isolate)
}

/// How a host op ends the turn at its heap ceiling, kept in the isolate's
/// op state: what the engine's near-heap-limit callback does when the heap
/// itself is full.
#[derive(Clone)]
pub(super) struct HeapCeiling {
    pub heap_hit: Rc<Cell<bool>>,
    pub terminating: Arc<AtomicBool>,
    pub handle: v8::IsolateHandle,
}

impl HeapCeiling {
    /// Ends the running program at its heap ceiling: it is terminated, and
    /// its turn reports the heap limit as a heap overrun does.
    pub fn hit(&self) {
        self.heap_hit.set(true);
        self.terminating.store(true, Ordering::SeqCst);
        self.handle.terminate_execution();
    }
}

/// Whether the running program is being stopped (at a limit, or by its
/// host): a host loop whose length the program chose asks this every so
/// often and gives up, as the engine's own loops poll their interrupt. A
/// warm isolate not yet made by the engine is never stopped.
pub(super) fn stop_flag(state: &OpState) -> impl Fn() -> bool {
    let terminating = state
        .try_borrow::<HeapCeiling>()
        .map(|ceiling| ceiling.terminating.clone());
    move || {
        terminating
            .as_ref()
            .is_some_and(|flag| flag.load(Ordering::Relaxed))
    }
}

/// Ends the running program at its heap ceiling (see [`HeapCeiling`]); a
/// warm isolate not yet made by the engine has none, and nothing happens.
pub(super) fn hit_ceiling(state: &OpState) {
    if let Some(ceiling) = state.try_borrow::<HeapCeiling>() {
        ceiling.hit();
    }
}

/// Bytes a JavaScript string of `units` UTF-16 code units takes as UTF-8
/// at most.
pub(super) fn utf8_bound(units: usize) -> usize {
    units.saturating_mul(3)
}

/// `text` copied out as UTF-8 when the copy, and `extra` bytes more the op
/// will build from it, fit in what the heap has left; else the turn ends at
/// its heap ceiling and this is None.
pub(super) fn read_text(
    scope: &mut v8::PinScope,
    state: &OpState,
    text: v8::Local<v8::String>,
    extra: usize,
) -> Option<String> {
    let bytes = text.utf8_length(scope);
    if !fits(scope, bytes.saturating_add(extra)) {
        hit_ceiling(state);
        return None;
    }
    Some(text.to_rust_string_lossy(scope))
}

/// `text` copied out as UTF-8 when it is at most `max_units` UTF-16 code
/// units long (a locale tag, a time zone, a code): None, copying nothing,
/// when it is longer, and no such name is.
pub(super) fn read_short(
    scope: &mut v8::PinScope,
    text: v8::Local<v8::String>,
    max_units: usize,
) -> Option<String> {
    (text.length() <= max_units).then(|| text.to_rust_string_lossy(scope))
}

/// Whether the host may build `bytes` for the running program outside its
/// heap; when it may not, the program is ended at its heap ceiling (and
/// the caller builds nothing).
pub(crate) fn claim(isolate: &mut v8::Isolate, state: &OpState, bytes: usize) -> bool {
    if fits(isolate, bytes) {
        return true;
    }
    hit_ceiling(state);
    false
}
