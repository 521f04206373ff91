//! The time limit: one watchdog thread per isolate that terminates the
//! running JavaScript when a program outlives its deadline. Arming and
//! disarming are a mutex and a condvar signal, cheap enough for every turn.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use deno_core::v8;

#[derive(Default)]
struct State {
    /// The armed deadline and its generation.
    deadline: Option<(Instant, u64)>,
    generation: u64,
    /// The generation whose deadline passed.
    fired: Option<u64>,
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
        if matches!(state.deadline, Some((_, g)) if g == self.generation) {
            state.deadline = None;
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
        let mut state = self.lock();
        state.generation += 1;
        let generation = state.generation;
        state.deadline = Some((Instant::now() + limit, generation));
        drop(state);
        self.shared.wake.notify_one();
        Armed {
            watchdog: self,
            generation,
        }
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
        match state.deadline {
            None => {
                state = shared.wake.wait(state).unwrap_or_else(|p| p.into_inner());
            }
            Some((deadline, generation)) => {
                let now = Instant::now();
                if now >= deadline {
                    state.deadline = None;
                    state.fired = Some(generation);
                    terminating.store(true, Ordering::SeqCst);
                    handle.terminate_execution();
                } else {
                    state = shared
                        .wake
                        .wait_timeout(state, deadline - now)
                        .unwrap_or_else(|p| p.into_inner())
                        .0;
                }
            }
        }
    }
}
