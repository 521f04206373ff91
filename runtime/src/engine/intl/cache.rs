//! A bounded memo for ICU4X formatters: building one loads and parses locale
//! data, so each is built once per (locale, options); a program can ask for
//! any number of distinct locales and options, so the memo holds at most
//! [`CAPACITY`] entries and forgets the oldest beyond that.

use std::collections::{HashMap, VecDeque};
use std::hash::Hash;

/// Entries kept per cache (per thread).
pub const CAPACITY: usize = 64;

pub struct Bounded<K, V> {
    map: HashMap<K, V>,
    order: VecDeque<K>,
    capacity: usize,
}

impl<K: Hash + Eq + Clone, V> Bounded<K, V> {
    pub fn new() -> Self {
        Self::with_capacity(CAPACITY)
    }

    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            map: HashMap::new(),
            order: VecDeque::new(),
            capacity: capacity.max(1),
        }
    }

    /// The value for `key`, built by `make` when missing (evicting the
    /// oldest entry when full).
    pub fn get_or_insert_with(&mut self, key: K, make: impl FnOnce() -> V) -> &mut V {
        if !self.map.contains_key(&key) {
            while self.map.len() >= self.capacity {
                match self.order.pop_front() {
                    Some(old) => {
                        self.map.remove(&old);
                    }
                    None => break,
                }
            }
            self.order.push_back(key.clone());
            self.map.insert(key.clone(), make());
        }
        self.map.get_mut(&key).expect("inserted above")
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.map.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_never_holds_more_than_its_capacity() {
        let mut cache = Bounded::with_capacity(3);
        for i in 0..100 {
            assert_eq!(*cache.get_or_insert_with(i, || i * 2), i * 2);
            assert!(cache.len() <= 3);
        }
        // The newest entries survive, the oldest were evicted and rebuilt.
        let mut built = false;
        cache.get_or_insert_with(99, || {
            built = true;
            0
        });
        assert!(!built);
        assert_eq!(*cache.get_or_insert_with(0, || 7), 7);
    }

    #[test]
    fn default_capacity_is_the_documented_bound() {
        let mut cache = Bounded::new();
        for i in 0..(CAPACITY * 4) {
            cache.get_or_insert_with(i, || ());
        }
        assert_eq!(cache.len(), CAPACITY);
    }
}
