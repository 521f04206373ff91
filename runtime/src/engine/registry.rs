//! The agent's loaded code memories, shared by the agent (which loads them)
//! and every isolate it ever runs (whose loader serves them). It outlives
//! any one isolate, so a replaced isolate imports the same modules.

use std::collections::HashMap;
use std::rc::Rc;

use gg_transpiler::PositionMap;

/// A module the isolate can load.
#[derive(Clone)]
pub struct RegisteredModule {
    pub code: String,
    /// The name errors show for it (`csvTools.ts`).
    pub display: String,
    pub positions: Rc<PositionMap>,
}

/// A loaded code memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadedMemory {
    pub slug: String,
    pub key: String,
    pub version: u32,
}

#[derive(Default)]
pub struct ModuleRegistry {
    /// Every module source by specifier (each version of each memory).
    modules: HashMap<String, RegisteredModule>,
    /// Import key → the specifier of its current version.
    keys: HashMap<String, String>,
    /// Slug → what it is loaded as.
    loaded: HashMap<String, LoadedMemory>,
    /// Keys programs imported since the last `take_imports`.
    imported: Vec<String>,
    /// Slugs in load order.
    order: Vec<String>,
}

impl ModuleRegistry {
    /// The key `slug` has or would get: its own if loaded, else its
    /// camelCase deduplicated against keys other memories hold.
    pub fn key_for(&self, slug: &str) -> String {
        if let Some(loaded) = self.loaded.get(slug) {
            return loaded.key.clone();
        }
        gg_transpiler::module_key_avoiding(slug, |k| self.keys.contains_key(k))
    }

    /// Loads (or reloads, as a new version) a memory's module.
    pub fn load(&mut self, slug: &str, code: String, positions: Rc<PositionMap>) -> LoadedMemory {
        let key = self.key_for(slug);
        self.load_as(slug, &key, code, positions)
    }

    /// Loads a memory under a key it already held (a reopened agent).
    pub fn load_as(
        &mut self,
        slug: &str,
        key: &str,
        code: String,
        positions: Rc<PositionMap>,
    ) -> LoadedMemory {
        let key = key.to_string();
        self.order.retain(|s| s != slug);
        self.order.push(slug.to_string());
        let version = self.loaded.get(slug).map(|l| l.version + 1).unwrap_or(1);
        let specifier = format!("gg:memory/{key}@{version}.js");
        self.modules.insert(
            specifier.clone(),
            RegisteredModule {
                code,
                display: format!("{key}.ts"),
                positions,
            },
        );
        self.keys.insert(key.clone(), specifier);
        let loaded = LoadedMemory {
            slug: slug.to_string(),
            key,
            version,
        };
        self.loaded.insert(slug.to_string(), loaded.clone());
        loaded
    }

    /// Forgets a memory's module for later imports (its code was cleared
    /// or the memory deleted).
    pub fn unload(&mut self, slug: &str) {
        self.order.retain(|s| s != slug);
        if let Some(loaded) = self.loaded.remove(slug) {
            self.keys.remove(&loaded.key);
        }
    }

    /// (slug, key) of every loaded memory, in load order.
    pub fn loaded_in_order(&self) -> Vec<(String, String)> {
        self.order
            .iter()
            .filter_map(|s| self.loaded.get(s).map(|l| (l.slug.clone(), l.key.clone())))
            .collect()
    }

    pub fn slug_of_key(&self, key: &str) -> Option<&str> {
        self.loaded
            .values()
            .find(|l| l.key == key)
            .map(|l| l.slug.as_str())
    }

    /// Resolves an import key to its current specifier, noting the use.
    pub fn resolve_key(&mut self, key: &str) -> Option<String> {
        let specifier = self.keys.get(key).cloned()?;
        self.imported.push(key.to_string());
        Some(specifier)
    }

    pub fn module(&self, specifier: &str) -> Option<&RegisteredModule> {
        self.modules.get(specifier)
    }

    /// Loaded keys, sorted.
    pub fn keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = self.keys.keys().cloned().collect();
        keys.sort();
        keys
    }

    /// Keys imported since the last call.
    pub fn take_imports(&mut self) -> Vec<String> {
        std::mem::take(&mut self.imported)
    }
}
