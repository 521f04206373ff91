//! Transpiles remembered by source: an agent that runs the same program
//! again, or reloads a code memory whose revision did not change its code,
//! skips swc. Keyed by the file name and the whole source (compared on a
//! hit, not trusted to a hash), bounded, shared by every thread.

use std::collections::{HashMap, VecDeque};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::{Arc, Mutex, OnceLock};

use crate::Transpiled;

/// How many transpiles are kept (at most 32 768 characters of source each).
pub const CAPACITY: usize = 256;

struct Entry {
    file_name: String,
    source: String,
    transpiled: Arc<Transpiled>,
}

#[derive(Default)]
struct Cache {
    entries: HashMap<u64, Entry>,
    order: VecDeque<u64>,
}

fn cache() -> &'static Mutex<Cache> {
    static CACHE: OnceLock<Mutex<Cache>> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

fn key(source: &str, file_name: &str) -> u64 {
    let mut hasher = DefaultHasher::new();
    file_name.hash(&mut hasher);
    source.hash(&mut hasher);
    hasher.finish()
}

/// The remembered transpile of `source` named `file_name`, if any.
pub fn get(source: &str, file_name: &str) -> Option<Arc<Transpiled>> {
    let cache = cache().lock().unwrap_or_else(|e| e.into_inner());
    let entry = cache.entries.get(&key(source, file_name))?;
    (entry.source == source && entry.file_name == file_name).then(|| entry.transpiled.clone())
}

/// Remembers a successful transpile, forgetting the oldest past [`CAPACITY`].
pub fn put(source: &str, file_name: &str, transpiled: Arc<Transpiled>) {
    let mut cache = cache().lock().unwrap_or_else(|e| e.into_inner());
    let k = key(source, file_name);
    let entry = Entry {
        file_name: file_name.to_string(),
        source: source.to_string(),
        transpiled,
    };
    if cache.entries.insert(k, entry).is_none() {
        cache.order.push_back(k);
    }
    while cache.order.len() > CAPACITY {
        if let Some(oldest) = cache.order.pop_front() {
            cache.entries.remove(&oldest);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_transpile_of_the_same_source_is_remembered_and_others_are_not() {
        let source = "const cacheProbe: number = 41; export default cacheProbe + 1;";
        let first = crate::transpile_cached(source, "probe.ts", "program").unwrap();
        let again = get(source, "probe.ts").expect("remembered");
        assert_eq!(again.code, first.code);
        assert!(
            get(source, "other.ts").is_none(),
            "the name is part of the key"
        );
        assert!(get("export default 0;", "probe.ts").is_none());
    }

    #[test]
    fn the_cache_is_bounded() {
        for i in 0..CAPACITY + 10 {
            let source = format!("export default {i};");
            crate::transpile_cached(&source, "bound.ts", "program").unwrap();
        }
        assert!(get("export default 0;", "bound.ts").is_none());
        assert!(get(&format!("export default {};", CAPACITY + 9), "bound.ts").is_some());
        let len = cache().lock().unwrap().entries.len();
        assert!(len <= CAPACITY, "{len}");
    }
}
