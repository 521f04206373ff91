//! The time limit: one watchdog thread per isolate that terminates the
//! running JavaScript when a program outlives its deadline. Arming and
//! disarming are a mutex and a condvar signal, cheap enough for every turn.
//!
//! Termination is cooperative: the engine stops at its next interrupt check.
//! A run still going a grace period after it was told to stop is native
//! code that never checks (an engine defect); the watchdog then tells the
//! process's [`RunSupervisor`], which alone can free the thread, by ending
//! the process.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use deno_core::v8;

use crate::policy::{DeadlineDecision, DeadlineReached, HostPolicy};

/// What a process that runs isolates hears about their runs, from outside
/// the engine: a supervisor that can act where the engine cannot (gg's MCP
/// worker reports each deadline to its host, and ends itself when a run is
/// stuck). Both methods are called on gg's threads and must return quickly.
pub trait RunSupervisor: Send + Sync {
    /// A run (a program, an onUse hook) starts with `limit` to run in;
    /// called on the isolate's thread.
    fn armed(&self, limit: Duration) {
        let _ = limit;
    }

    /// A run whose `limit` passed was told to stop and is still running
    /// `overrun` later: native code that never checks for termination holds
    /// the isolate's thread, and nothing but ending the process frees it.
    /// Called on the watchdog's thread, once per such run. The default
    /// writes an error to the operator's log.
    fn wedged(&self, limit: Duration, overrun: Duration) {
        tracing::error!(
            limit_ms = limit.as_millis() as u64,
            overrun_ms = overrun.as_millis() as u64,
            "a program did not stop at its time limit when told to: its thread stays busy until the process ends"
        );
    }
}

/// The supervisor used when the embedder set none: logs a stuck run.
struct LogOnly;
impl RunSupervisor for LogOnly {}

static SUPERVISOR: OnceLock<Box<dyn RunSupervisor>> = OnceLock::new();

/// Sets the process's [`RunSupervisor`], once, before its first run; false
/// (and `supervisor` unused) when one was set already.
pub fn supervise_runs(supervisor: impl RunSupervisor + 'static) -> bool {
    SUPERVISOR.set(Box::new(supervisor)).is_ok()
}

fn supervisor() -> &'static dyn RunSupervisor {
    SUPERVISOR.get_or_init(|| Box::new(LogOnly)).as_ref()
}

/// How long a run told to stop may take to stop before it counts as stuck:
/// its own limit, at least 1 s (so a stuck run is reported within
/// 2 × its limit + 1 s of its start).
pub fn stop_grace(limit: Duration) -> Duration {
    limit.max(Duration::from_secs(1))
}

#[derive(Default)]
struct State {
    /// The armed deadline, its run's limit and its generation.
    deadline: Option<(Instant, Duration, u64)>,
    generation: u64,
    /// The generation whose deadline passed.
    fired: Option<u64>,
    /// The generation now running (armed and not yet disarmed).
    running: Option<u64>,
    /// A run told to stop: when it counts as stuck, its limit, generation.
    stopping: Option<(Instant, Duration, u64)>,
    /// What the embedder's policy granted the running run past its limit.
    extended: Duration,
    /// Decisions the running run waits on (a person's approval); a run's
    /// abandoned ones never pause the next.
    waiting: usize,
    /// Whether the isolate's thread is running the program's code (polling
    /// its event loop) rather than idle, waiting for something to happen.
    polling: bool,
    /// Since when the clock has stood still: a decision is pending and the
    /// program is idle. Its deadline moves on by the pause when it ends.
    paused_since: Option<Instant>,
    /// Asked when a deadline passes; `None`: stop.
    policy: Option<Arc<dyn HostPolicy>>,
    shutdown: bool,
}

struct Shared {
    state: Mutex<State>,
    wake: Condvar,
}

pub struct Watchdog {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
    /// Set by anything that terminates the isolate on the host's behalf.
    pub terminating: Arc<AtomicBool>,
}

/// One armed deadline; disarms when dropped.
pub struct Armed<'a> {
    watchdog: &'a Watchdog,
    generation: u64,
}

impl Armed<'_> {
    /// Whether the deadline passed and the isolate was terminated.
    pub fn fired(&self) -> bool {
        self.watchdog.lock().fired == Some(self.generation)
    }
}

impl Drop for Armed<'_> {
    fn drop(&mut self) {
        let mut state = self.watchdog.lock();
        if matches!(state.deadline, Some((_, _, g)) if g == self.generation) {
            state.deadline = None;
        }
        if state.running == Some(self.generation) {
            state.running = None;
        }
    }
}

impl Watchdog {
    pub fn new(handle: v8::IsolateHandle) -> Self {
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            wake: Condvar::new(),
        });
        let terminating = Arc::new(AtomicBool::new(false));
        let thread = {
            let shared = shared.clone();
            let terminating = terminating.clone();
            std::thread::Builder::new()
                .name("gg-watchdog".into())
                .spawn(move || watch(shared, handle, terminating))
                .expect("spawning the watchdog thread")
        };
        Watchdog {
            shared,
            thread: Some(thread),
            terminating,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.shared.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Arms a deadline `limit` from now.
    pub fn arm(&self, limit: Duration) -> Armed<'_> {
        supervisor().armed(limit);
        let mut state = self.lock();
        state.generation += 1;
        let generation = state.generation;
        state.deadline = Some((Instant::now() + limit, limit, generation));
        state.running = Some(generation);
        state.stopping = None;
        state.extended = Duration::ZERO;
        state.waiting = 0;
        state.paused_since = None;
        drop(state);
        self.shared.wake.notify_one();
        Armed {
            watchdog: self,
            generation,
        }
    }
}

impl Watchdog {
    /// Asks `policy` whenever a deadline passes (see [`HostPolicy::deadline`]).
    pub fn set_policy(&self, policy: Arc<dyn HostPolicy>) {
        self.lock().policy = Some(policy);
    }

    /// What stops this watchdog's clock while the program waits on a
    /// decision (see [`WaitClock`]).
    pub fn wait_clock(&self) -> WaitClock {
        WaitClock(self.shared.clone())
    }
}

/// Stops an isolate's deadline while its program waits on a decision that
/// takes a person's time (a tool call the embedder's policy asks about):
/// the time limit counts the time a program runs, not the time it waits on
/// its host to decide. The clock stands still only while a decision is
/// pending *and* the program is idle: a program that runs on while its
/// call waits is running. `Send`: the wait is on gg's tool runtime.
#[derive(Clone)]
pub struct WaitClock(Arc<Shared>);

impl State {
    /// Starts or ends a pause as the decisions pending and the program's
    /// running say, moving the deadline on by a pause that ends. True when
    /// a pause ended: the watchdog, asleep with no deadline to keep while
    /// the clock stood still, must be woken to keep the moved one.
    fn update_pause(&mut self, now: Instant) -> bool {
        let paused = self.waiting > 0 && !self.polling;
        match (paused, self.paused_since) {
            (true, None) => self.paused_since = Some(now),
            (false, Some(since)) => {
                self.paused_since = None;
                if let Some((at, limit, generation)) = self.deadline {
                    self.deadline = Some((at + (now - since), limit, generation));
                }
                return true;
            }
            _ => {}
        }
        false
    }
}

/// One pending decision of the run it was made in; the clock runs again
/// when the last is dropped, with the deadline moved on by the pause.
pub struct Waiting {
    shared: Arc<Shared>,
    generation: u64,
}

impl WaitClock {
    /// How long the armed run has before its deadline as it stands now
    /// (moved by pauses and extensions): `None` once it has passed, and a
    /// short while when the clock stands still (the deadline is asked
    /// again after).
    pub fn until_deadline(&self) -> Option<Duration> {
        let state = self.lock();
        let (at, _, _) = state.deadline?;
        if state.paused_since.is_some() {
            return Some(Duration::from_millis(250));
        }
        Some(at.saturating_duration_since(Instant::now()))
    }

    /// A decision is pending until the returned guard is dropped: the
    /// clock stands still while the program is idle meanwhile.
    pub fn pause(&self) -> Waiting {
        let mut state = self.lock();
        let generation = state.generation;
        if state.running == Some(generation) {
            state.waiting += 1;
            state.update_pause(Instant::now());
        }
        Waiting {
            shared: self.0.clone(),
            generation,
        }
    }

    /// The isolate's thread runs the program's code from now until
    /// [`WaitClock::idle`]: the clock runs.
    pub fn running(&self) {
        let mut state = self.lock();
        state.polling = true;
        if state.update_pause(Instant::now()) {
            drop(state);
            self.0.wake.notify_one();
        }
    }

    /// The program is idle, waiting for something to happen.
    pub fn idle(&self) {
        let mut state = self.lock();
        state.polling = false;
        state.update_pause(Instant::now());
        drop(state);
        self.0.wake.notify_one();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.0.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        let mut state = self.shared.state.lock().unwrap_or_else(|p| p.into_inner());
        // A later run started meanwhile: this decision was never its.
        if state.generation == self.generation && state.waiting > 0 {
            state.waiting -= 1;
            state.update_pause(Instant::now());
        }
        drop(state);
        self.shared.wake.notify_one();
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.lock().shutdown = true;
        self.shared.wake.notify_one();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn watch(shared: Arc<Shared>, handle: v8::IsolateHandle, terminating: Arc<AtomicBool>) {
    let mut state = shared.state.lock().unwrap_or_else(|p| p.into_inner());
    loop {
        if state.shutdown {
            return;
        }
        let now = Instant::now();
        // A program idle on its host's decision is not running: its
        // deadline moves on when the pause ends.
        let deadline = state.deadline.filter(|_| state.paused_since.is_none());
        if let Some((deadline, limit, generation)) = deadline {
            if now >= deadline {
                if let Some(policy) = state.policy.clone() {
                    let reached = DeadlineReached {
                        limit,
                        extended: state.extended,
                    };
                    // The embedder's code runs without the lock held.
                    drop(state);
                    let decision = policy.deadline(&reached);
                    state = shared.state.lock().unwrap_or_else(|p| p.into_inner());
                    if state.deadline.map(|(_, _, g)| g) != Some(generation) {
                        continue;
                    }
                    if let DeadlineDecision::Extend(more) = decision {
                        state.extended += more;
                        state.deadline = Some((Instant::now() + more, limit, generation));
                        continue;
                    }
                }
                let now = Instant::now();
                state.deadline = None;
                state.fired = Some(generation);
                state.stopping = Some((now + stop_grace(limit), limit, generation));
                terminating.store(true, Ordering::SeqCst);
                handle.terminate_execution();
                continue;
            }
        }
        if let Some((stuck_at, limit, generation)) = state.stopping {
            if state.running != Some(generation) {
                state.stopping = None;
                continue;
            }
            if now >= stuck_at {
                state.stopping = None;
                let overrun = stop_grace(limit);
                drop(state);
                supervisor().wedged(limit, overrun);
                state = shared.state.lock().unwrap_or_else(|p| p.into_inner());
                continue;
            }
        }
        let next = [
            state
                .deadline
                .filter(|_| state.paused_since.is_none())
                .map(|(at, _, _)| at),
            state.stopping.map(|(at, _, _)| at),
        ]
        .into_iter()
        .flatten()
        .min();
        state = match next {
            None => shared.wake.wait(state).unwrap_or_else(|p| p.into_inner()),
            Some(at) => {
                shared
                    .wake
                    .wait_timeout(state, at.saturating_duration_since(now))
                    .unwrap_or_else(|p| p.into_inner())
                    .0
            }
        };
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use deno_core::{JsRuntime, RuntimeOptions};

    use super::Watchdog;

    /// Waits up to `within` for the run to have been stopped.
    fn fires_within(armed: &super::Armed<'_>, within: Duration) -> bool {
        let until = Instant::now() + within;
        while Instant::now() < until {
            if armed.fired() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        armed.fired()
    }

    #[test]
    fn the_clock_stands_still_while_idle_on_a_decision_and_runs_again_after() {
        let mut runtime = JsRuntime::new(RuntimeOptions::default());
        let watchdog = Watchdog::new(runtime.v8_isolate().thread_safe_handle());
        let clock = watchdog.wait_clock();
        let armed = watchdog.arm(Duration::from_millis(200));
        assert!(fires_within(&armed, Duration::from_millis(600)), "plain");
        drop(armed);
        let armed = watchdog.arm(Duration::from_millis(200));
        clock.running();
        let waiting = clock.pause();
        // Running while the decision is pending: the deadline keeps.
        assert!(fires_within(&armed, Duration::from_millis(600)));
        drop(waiting);
        drop(armed);

        let armed = watchdog.arm(Duration::from_millis(200));
        clock.idle();
        let waiting = clock.pause();
        // Idle on the decision, past the deadline: the clock stands still.
        assert!(!fires_within(&armed, Duration::from_millis(400)));
        // Running again, the decision still pending: the clock runs, and
        // the watchdog (asleep with no deadline to keep) keeps the moved
        // one.
        clock.running();
        assert!(fires_within(&armed, Duration::from_millis(600)));
        drop(waiting);
        drop(armed);

        // A decision of an earlier run does not pause this one.
        let earlier = clock.pause();
        let armed = watchdog.arm(Duration::from_millis(200));
        clock.idle();
        assert!(fires_within(&armed, Duration::from_millis(600)));
        drop(earlier);
    }
}
