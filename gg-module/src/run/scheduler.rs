//! The run-wide scheduler: `maxParallel` running slots every agent waits
//! on, and inside that pool one exclusivity key per persistent profile, so a
//! persistent profile has one running instance at a time however it was
//! dispatched. Waiters for one key are served in arrival order.
//!
//! With a PostgreSQL store the key also lives in the database, so it holds
//! across hosts: a running instance holds `pg_advisory_lock` on the key on
//! a connection of its own, which the database releases when the
//! connection drops (the instance ends, suspends, or its host dies).
//! Waiters queue in PostgreSQL's lock queue, which serves them in arrival
//! order whichever host they wait on. With `maxParallelAcrossHosts` the
//! run's `maxParallel` slots are advisory locks too (slot `i` of `n`),
//! taken by polling with `pg_try_advisory_lock`.

use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use crate::durable::pg::Exec;

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

/// Where keys (and, when the run says so, slots) are also held: a
/// PostgreSQL database shared by the run's hosts.
struct Remote {
    url: String,
    /// `maxParallel` counts across hosts.
    global_slots: bool,
    max_parallel: usize,
}

/// The run's pool of running slots and persistent-profile keys; clones
/// share one pool.
#[derive(Clone)]
pub struct Scheduler {
    shared: Arc<Shared>,
    remote: Option<Arc<Remote>>,
}

/// A running slot (and, for a persistent profile, its key). Dropping it
/// releases both.
pub struct Slot {
    scheduler: Scheduler,
    key: Option<String>,
    held: bool,
    /// The connection holding the key's (and slot's) advisory locks.
    lease: Option<postgres::Client>,
}

const KEY_LOCK: &str =
    "SELECT pg_advisory_lock(hashtextextended(current_schema() || '/profile/' || $1, 0))";
const KEY_UNLOCK: &str =
    "SELECT pg_advisory_unlock(hashtextextended(current_schema() || '/profile/' || $1, 0))";
const SLOT_TRY: &str =
    "SELECT pg_try_advisory_lock(hashtextextended(current_schema() || '/slot/' || ($1::BIGINT)::TEXT, 0))";

fn fatal(e: crate::GgError) -> ! {
    panic!(
        "gg: the run's shared scheduler cannot reach its database: {}",
        e.message
    )
}

/// A suspended instance: it holds neither slot nor key until it resumes.
pub struct Suspended {
    scheduler: Scheduler,
    key: Option<String>,
}

impl Scheduler {
    /// A scheduler of `max_parallel` slots, held in this process only.
    pub fn new(max_parallel: usize) -> Self {
        Scheduler {
            shared: Arc::new(Shared {
                state: Mutex::new(State {
                    free: max_parallel,
                    ..Default::default()
                }),
                changed: Condvar::new(),
            }),
            remote: None,
        }
    }

    /// A scheduler whose keys (and, with `global_slots`, slots) are also
    /// held in the PostgreSQL database at `url`, for every host of the run.
    pub fn with_postgres(max_parallel: usize, url: &str, global_slots: bool) -> Self {
        let mut s = Self::new(max_parallel);
        s.remote = Some(Arc::new(Remote {
            url: url.to_string(),
            global_slots,
            max_parallel,
        }));
        s
    }

    /// Takes the database's side of a key and/or slot on a connection of
    /// its own; blocks in PostgreSQL's lock queue for the key, and polls
    /// for a global slot.
    fn lease(&self, key: Option<&str>) -> crate::GgResult<Option<postgres::Client>> {
        let Some(remote) = &self.remote else {
            return Ok(None);
        };
        if key.is_none() && !remote.global_slots {
            return Ok(None);
        }
        let what = |e: postgres::Error| {
            crate::durable::pg::db_error("taking a persistent-profile key", &e)
        };
        let mut client = crate::durable::pg::connect(&remote.url)?;
        if let Some(k) = key {
            Exec::execute(&mut client, KEY_LOCK, &[&k]).map_err(what)?;
        }
        if remote.global_slots {
            'wait: loop {
                for i in 0..remote.max_parallel as i64 {
                    let got: bool = Exec::query_one(&mut client, SLOT_TRY, &[&i])
                        .map_err(what)?
                        .get(0);
                    if got {
                        break 'wait;
                    }
                }
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
        }
        Ok(Some(client))
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
        let lease = if self.remote.is_some() {
            // This host's queue for the key first (arrival order here),
            // then the database's (arrival order across hosts), then a slot.
            if key.is_some() {
                self.take(key.clone(), false);
            }
            let lease = self.lease(key.as_deref()).unwrap_or_else(|e| {
                self.give_back(key.as_deref(), false);
                fatal(e)
            });
            self.take(None, true);
            lease
        } else {
            self.take(key.clone(), true);
            None
        };
        Slot {
            scheduler: self.clone(),
            key,
            held: true,
            lease,
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
    /// The persistent profile's key the slot holds, if any.
    pub fn key(&self) -> Option<&str> {
        self.key.as_deref()
    }

    /// Suspends (blocking on subagents or an issue): releases the slot and
    /// the key until [`Suspended::resume`].
    pub fn suspend(mut self) -> Suspended {
        self.held = false;
        if let Some(lease) = self.lease.take() {
            crate::durable::pg::close(lease);
        }
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
                self.swap_remote(Some(k));
            }
        } else if self.key.is_some() {
            self.swap_remote(None);
        }
        if self.key.as_deref() != new_key {
            self.scheduler.give_back(self.key.as_deref(), false);
        }
        self.key = new_key.map(str::to_string);
    }
}

impl Slot {
    /// The database's side of a succession: lock the new key on the
    /// instance's connection, then unlock the old one.
    fn swap_remote(&mut self, new_key: Option<&str>) {
        if self.scheduler.remote.is_none() {
            return;
        }
        if self.lease.is_none() {
            if let Some(k) = new_key {
                self.lease = self.scheduler.lease(Some(k)).unwrap_or_else(|e| fatal(e));
            }
            return;
        }
        let lease = self.lease.as_mut().expect("checked");
        let what = |e: postgres::Error| {
            crate::durable::pg::db_error("swapping a persistent-profile key", &e)
        };
        let result = (|| -> crate::GgResult<()> {
            if let Some(k) = new_key {
                Exec::execute(lease, KEY_LOCK, &[&k]).map_err(what)?;
            }
            if let Some(old) = self.key.as_deref() {
                Exec::execute(lease, KEY_UNLOCK, &[&old]).map_err(what)?;
            }
            Ok(())
        })();
        if let Err(e) = result {
            fatal(e);
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        if let Some(lease) = self.lease.take() {
            crate::durable::pg::close(lease);
        }
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
