//! The run-wide scheduler: `maxParallel` running slots every agent waits
//! on, and inside that pool one exclusivity key per persistent profile, so a
//! persistent profile has one running instance at a time however it was
//! dispatched. Waiters for one key are served in arrival order.

use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

#[derive(Default)]
struct State {
    free: usize,
    keys: HashSet<String>,
    /// Waiting tickets → the key they want (if any), in arrival order.
    waiting: BTreeMap<u64, Option<String>>,
    next_ticket: u64,
}

struct Shared {
    state: Mutex<State>,
    changed: Condvar,
}

#[derive(Clone)]
pub struct Scheduler {
    shared: Arc<Shared>,
}

/// A running slot (and, for a persistent profile, its key). Dropping it
/// releases both.
pub struct Slot {
    scheduler: Scheduler,
    key: Option<String>,
    held: bool,
}

/// A suspended instance: it holds neither slot nor key until it resumes.
pub struct Suspended {
    scheduler: Scheduler,
    key: Option<String>,
}

impl Scheduler {
    pub fn new(max_parallel: usize) -> Self {
        Scheduler {
            shared: Arc::new(Shared {
                state: Mutex::new(State {
                    free: max_parallel,
                    ..Default::default()
                }),
                changed: Condvar::new(),
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.shared.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Running slots free right now.
    pub fn free_slots(&self) -> usize {
        self.lock().free
    }

    /// Whether a persistent profile's key is held.
    pub fn key_held(&self, key: &str) -> bool {
        self.lock().keys.contains(key)
    }

    /// Blocks until a slot is free and, with `key`, the key is free and
    /// this waiter is the earliest one for it; then takes both.
    pub fn acquire(&self, key: Option<&str>) -> Slot {
        let key = key.map(str::to_string);
        self.take(key.clone(), true);
        Slot {
            scheduler: self.clone(),
            key,
            held: true,
        }
    }

    fn take(&self, key: Option<String>, want_slot: bool) {
        let mut state = self.lock();
        let ticket = state.next_ticket;
        state.next_ticket += 1;
        state.waiting.insert(ticket, key.clone());
        loop {
            let slot_ok = !want_slot || state.free > 0;
            let key_ok = match &key {
                None => true,
                Some(k) => {
                    !state.keys.contains(k)
                        && state
                            .waiting
                            .iter()
                            .find(|(_, w)| w.as_deref() == Some(k.as_str()))
                            .map(|(t, _)| *t)
                            == Some(ticket)
                }
            };
            if slot_ok && key_ok {
                state.waiting.remove(&ticket);
                if want_slot {
                    state.free -= 1;
                }
                if let Some(k) = key {
                    state.keys.insert(k);
                }
                drop(state);
                // Others may have become eligible (an earlier key waiter left).
                self.shared.changed.notify_all();
                return;
            }
            state = self
                .shared
                .changed
                .wait(state)
                .unwrap_or_else(|p| p.into_inner());
        }
    }

    fn give_back(&self, key: Option<&str>, slot: bool) {
        let mut state = self.lock();
        if slot {
            state.free += 1;
        }
        if let Some(k) = key {
            state.keys.remove(k);
        }
        drop(state);
        self.shared.changed.notify_all();
    }
}

impl Slot {
    pub fn key(&self) -> Option<&str> {
        self.key.as_deref()
    }

    /// Suspends (blocking on subagents or an issue): releases the slot and
    /// the key until [`Suspended::resume`].
    pub fn suspend(mut self) -> Suspended {
        self.held = false;
        self.scheduler.give_back(self.key.as_deref(), true);
        Suspended {
            scheduler: self.scheduler.clone(),
            key: self.key.take(),
        }
    }

    /// A succession into another profile: swaps the key without releasing
    /// the running slot, blocking while the target profile's key is held.
    pub fn succeed(&mut self, new_key: Option<&str>) {
        if let Some(k) = new_key {
            if Some(k) != self.key.as_deref() {
                self.scheduler.take(Some(k.to_string()), false);
            }
        }
        if self.key.as_deref() != new_key {
            self.scheduler.give_back(self.key.as_deref(), false);
        }
        self.key = new_key.map(str::to_string);
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        if self.held {
            self.scheduler.give_back(self.key.as_deref(), true);
        }
    }
}

impl Suspended {
    /// Re-takes a slot and the key, blocking as a fresh instance would.
    pub fn resume(self) -> Slot {
        self.scheduler.acquire(self.key.as_deref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn keys_exclude_and_slots_count() {
        let s = Scheduler::new(2);
        let a = s.acquire(Some("owner"));
        assert_eq!(s.free_slots(), 1);
        let s2 = s.clone();
        let waiter = std::thread::spawn(move || {
            let _b = s2.acquire(Some("owner"));
        });
        std::thread::sleep(Duration::from_millis(50));
        assert!(
            !waiter.is_finished(),
            "the second instance of the profile queues"
        );
        let c = s.acquire(None);
        assert_eq!(s.free_slots(), 0);
        drop(a);
        waiter.join().unwrap();
        drop(c);
        assert_eq!(s.free_slots(), 2);
        assert!(!s.key_held("owner"));
    }
}
