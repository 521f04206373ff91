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
}

/// A memory loaded now: its key and its current module.
struct Live {
    key: String,
    module: RegisteredModule,
}

/// The agent's code memories, as two views. The live set changes as the
/// agent's calls load and unload memories; each run (a program, an onUse
/// hook) imports from a snapshot of it taken when the run began, under
/// specifiers of that run alone. So a run resolves each key to one module
/// for its whole life, a revision takes effect for the next run, and every
/// run links its modules afresh against the code they import now — a
/// dependent never stays bound to an old version of what it imports, and
/// module state does not outlive the run: what a fresh process on the same
/// state would see.
#[derive(Default)]
pub struct ModuleRegistry {
    /// Slug → the memory loaded now.
    live: HashMap<String, Live>,
    /// Slugs in load order.
    order: Vec<String>,
    /// Runs begun, numbering each run's specifiers.
    runs: u64,
    /// This run's import key → specifier.
    run_keys: HashMap<String, String>,
    /// This run's specifier → module.
    run_modules: HashMap<String, RegisteredModule>,
    /// Keys programs imported since the last `take_imports`.
    imported: Vec<String>,
    /// Modules the host provides for the agent's whole life (its tool
    /// servers' modules), by import key (`tools/files`).
    provided: HashMap<String, RegisteredModule>,
}

impl ModuleRegistry {
    /// Loads (or reloads) a memory's module under the key its store gave
    /// the slug, for runs begun from now on.
    pub fn load(
        &mut self,
        slug: &str,
        key: &str,
        code: String,
        positions: Rc<PositionMap>,
    ) -> LoadedMemory {
        self.order.retain(|s| s != slug);
        self.order.push(slug.to_string());
        self.live.insert(
            slug.to_string(),
            Live {
                key: key.to_string(),
                module: RegisteredModule {
                    code,
                    display: format!("{key}.ts"),
                    positions,
                },
            },
        );
        LoadedMemory {
            slug: slug.to_string(),
            key: key.to_string(),
        }
    }

    /// Forgets a memory's module for runs begun from now on (its code was
    /// cleared or the memory deleted); the key it had, if it was loaded.
    pub fn unload(&mut self, slug: &str) -> Option<String> {
        self.order.retain(|s| s != slug);
        self.live.remove(slug).map(|live| live.key)
    }

    /// Provides a host-made module under `key` for every run from now on.
    /// It is JavaScript gg wrote, with no author's positions to map.
    pub fn provide(&mut self, key: &str, code: String) {
        self.provided.insert(
            key.to_string(),
            RegisteredModule {
                code,
                display: format!("gg/{key}.js"),
                positions: Rc::new(PositionMap::default()),
            },
        );
    }

    /// The keys of the host-made modules, sorted.
    pub fn provided_keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = self.provided.keys().cloned().collect();
        keys.sort();
        keys
    }

    /// The compiled module `slug` is loaded as now, if it is loaded.
    pub fn loaded_code(&self, slug: &str) -> Option<&str> {
        self.live.get(slug).map(|l| l.module.code.as_str())
    }

    /// Slugs loaded now, in load order.
    pub fn loaded_slugs(&self) -> Vec<String> {
        self.order.clone()
    }

    /// Begins a run: it imports the live set as it stands now.
    pub fn begin_run(&mut self) {
        self.runs += 1;
        self.run_keys.clear();
        self.run_modules.clear();
        for live in self.live.values() {
            let specifier = format!("gg:memory/{}@{}.js", live.key, self.runs);
            self.run_keys.insert(live.key.clone(), specifier.clone());
            self.run_modules.insert(specifier, live.module.clone());
        }
        // Host-made modules too get specifiers of the run alone: an
        // isolate links every run's graph afresh, and a module instantiated
        // by an earlier run is never linked again.
        for (key, module) in &self.provided {
            let specifier = format!("gg:{key}@{}.js", self.runs);
            self.run_keys.insert(key.clone(), specifier.clone());
            self.run_modules.insert(specifier, module.clone());
        }
    }

    /// (slug, key) of every loaded memory, in load order.
    pub fn loaded_in_order(&self) -> Vec<(String, String)> {
        self.order
            .iter()
            .filter_map(|s| self.live.get(s).map(|l| (s.clone(), l.key.clone())))
            .collect()
    }

    pub fn slug_of_key(&self, key: &str) -> Option<&str> {
        self.live
            .iter()
            .find(|(_, l)| l.key == key)
            .map(|(slug, _)| slug.as_str())
    }

    /// Resolves an import key to this run's specifier, noting the use.
    pub fn resolve_key(&mut self, key: &str) -> Option<String> {
        let specifier = self.run_keys.get(key).cloned()?;
        self.imported.push(key.to_string());
        Some(specifier)
    }

    /// The code of every module this run can import.
    pub fn run_codes(&self) -> impl Iterator<Item = &str> {
        self.run_modules.values().map(|m| m.code.as_str())
    }

    /// A module of this run.
    pub fn module(&self, specifier: &str) -> Option<&RegisteredModule> {
        self.run_modules.get(specifier)
    }

    /// The code memories' keys this run can import, sorted.
    pub fn keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = self
            .run_keys
            .keys()
            .filter(|k| !self.provided.contains_key(*k))
            .cloned()
            .collect();
        keys.sort();
        keys
    }

    /// Keys imported since the last call.
    pub fn take_imports(&mut self) -> Vec<String> {
        std::mem::take(&mut self.imported)
    }
}
