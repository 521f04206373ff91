//! The web layer every isolate has, whoever embeds it: deno_web's globals
//! cut down to what gg loads (`js/web.js`), `Intl` backed by ICU4X
//! (`js/intl.js`, [`super::intl`]), and the ops behind them: captured
//! console output, the clocks (which honour a pinned clock), randomness,
//! and the tick that lets the watchdog stop a promise chain.

use std::rc::Rc;

use deno_core::{op2, v8, OpState};

use super::host_memory;

/// Where an isolate's console lines go: the embedder's capture, found in
/// the op state once the isolate is bound to its agent.
pub trait ConsoleSink {
    /// One line the program printed at `level` (`log`, `info`, `debug`,
    /// `warn` or `error`).
    fn line(&self, level: &'static str, text: &str);
}

/// The sink in an isolate's op state.
pub(super) type SharedConsoleSink = Rc<dyn ConsoleSink>;

const LEVELS: [&str; 5] = ["log", "info", "debug", "warn", "error"];

/// One console line. Its text is copied out of the heap in at most what the
/// heap has left (see `host_memory`): the console's strings were cut to fit
/// before it was formatted, and the embedder cuts what it keeps anyway.
#[op2(fast)]
fn op_gg_console(
    scope: &mut v8::PinScope,
    state: &mut OpState,
    #[smi] level: u32,
    text: v8::Local<v8::String>,
) {
    // A warm isolate not yet bound to an agent has nowhere to print.
    let Some(sink) = state.try_borrow::<SharedConsoleSink>().cloned() else {
        return;
    };
    let max_bytes = host_memory::room(scope).max(host_memory::ALWAYS);
    let stopped = host_memory::stop_flag(state);
    let text = super::json_string::text(scope, text, max_bytes, &stopped);
    sink.line(LEVELS.get(level as usize).copied().unwrap_or("log"), &text);
}

/// The bytes the program's heap may still grow by: what the web layer's
/// console cuts its strings to (see `host_memory`).
#[op2(fast)]
fn op_gg_heap_room(scope: &mut v8::PinScope) -> f64 {
    host_memory::room(scope) as f64
}

/// Whether the web layer may build `bytes` outside the heap for the
/// program: false when they do not fit in what the heap has left, and the
/// turn then ends at its heap ceiling (see `host_memory`).
#[op2(fast)]
fn op_gg_room_for(scope: &mut v8::PinScope, state: &mut OpState, bytes: f64) -> bool {
    let bytes = if bytes.is_finite() && bytes > 0.0 {
        bytes.min(usize::MAX as f64) as usize
    } else {
        0
    };
    if host_memory::fits(scope, bytes) {
        return true;
    }
    host_memory::hit_ceiling(state);
    false
}

/// The instant a pinned clock (`--clock`) shows, in the isolate's op state:
/// `performance.timeOrigin` reads it and `performance.now()` stays at 0, as
/// `Date.now()` stays at it, so a run reads no real time through any clock.
#[derive(Debug, Clone, Copy)]
pub(super) struct PinnedClock {
    /// Milliseconds since the Unix epoch.
    pub epoch_ms: i64,
}

/// Seconds and nanoseconds, as deno_web's performance glue reads them.
fn expose_time(duration: std::time::Duration, out: &mut [u8]) {
    if out.len() >= 8 {
        out[0..4].copy_from_slice(&(duration.as_secs() as u32).to_ne_bytes());
        out[4..8].copy_from_slice(&duration.subsec_nanos().to_ne_bytes());
    }
}

/// Stands in for deno_web's `op_now` (see [`super::extensions`]): the time
/// since the isolate began, or 0 under a pinned clock.
#[op2(fast)]
pub(super) fn op_gg_now(state: &mut OpState, #[buffer] buf: &mut [u8]) {
    let elapsed = if state.has::<PinnedClock>() {
        std::time::Duration::ZERO
    } else {
        state
            .try_borrow::<deno_web::StartTime>()
            .map(|start| start.elapsed())
            .unwrap_or_default()
    };
    expose_time(elapsed, buf);
}

/// Stands in for deno_web's `op_time_origin`: the wall-clock moment the
/// isolate began, or the pinned instant.
#[op2(fast)]
pub(super) fn op_gg_time_origin(state: &mut OpState, #[buffer] buf: &mut [u8]) {
    let origin = match state.try_borrow::<PinnedClock>() {
        Some(clock) => std::time::Duration::from_millis(clock.epoch_ms.max(0) as u64),
        None => {
            let since_start = state
                .try_borrow::<deno_web::StartTime>()
                .map(|start| start.elapsed())
                .unwrap_or_default();
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default()
                .saturating_sub(since_start)
        }
    };
    expose_time(origin, buf);
}

/// Does nothing: called by `Promise.prototype.then`, so that a job of a
/// promise chain crosses into the host, where a pending termination stops
/// it (QuickJS checks for one only every few thousand JavaScript steps, and
/// a chain of promise jobs can run between the checks forever).
#[op2(fast)]
fn op_gg_tick() {}

/// The timers a program has pending now, kept by the isolate's timer glue
/// (`js/web.js`) in the op state, where the host can read them even after
/// the watchdog stopped the program.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PendingTimers {
    /// `setTimeout`s not yet fired or cleared.
    pub timeouts: u32,
    /// `setInterval`s not yet cleared.
    pub intervals: u32,
}

#[op2(fast)]
fn op_gg_timers(state: &mut OpState, timeouts: u32, intervals: u32) {
    state.put(PendingTimers {
        timeouts,
        intervals,
    });
}

/// Fills `bytes` from the operating system's randomness
/// (`crypto.getRandomValues` when no seed is pinned); false when there is
/// none, and the caller throws (fail closed rather than hand out zeros).
#[op2(fast)]
fn op_gg_random_fill(#[buffer] bytes: &mut [u8]) -> bool {
    getrandom::fill(bytes).is_ok()
}

deno_core::extension!(
    gg_web,
    deps = [deno_web],
    ops = [
        op_gg_console,
        op_gg_heap_room,
        op_gg_room_for,
        op_gg_random_fill,
        op_gg_tick,
        op_gg_timers,
        op_gg_now,
        op_gg_time_origin,
        super::intl::op_gg_intl_format_decimal,
        super::intl::op_gg_intl_plural,
        super::intl::op_gg_intl_locale,
        super::intl::op_gg_intl_datetime_format,
        super::intl::op_gg_intl_datetime_format_range,
        super::intl::op_gg_intl_time_zone,
        super::intl::op_gg_intl_compare,
        super::intl::op_gg_intl_segment,
        super::intl::op_gg_intl_change_case,
        super::intl::op_gg_intl_display_name,
        super::intl::op_gg_intl_relative_time,
    ],
    esm_entry_point = "ext:gg_web/globals.js",
    esm = [dir "src/engine/js", "globals.js", "web.js", "intl.js"],
);
