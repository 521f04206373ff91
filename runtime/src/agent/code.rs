//! Before each run (a program, an onUse hook): the agent's loaded code
//! memories as its store holds them now. Another holder may have revised
//! or deleted one since this agent loaded it; the run imports the store's
//! current code, as a fresh process on the same state would.

use std::rc::Rc;

use crate::operator_log::untrusted;

use super::Agent;

/// Runs one isolate serves before the agent's next run gets a fresh one.
/// Every run compiles its program, and its imported code memories, as
/// modules of its own, and an isolate never frees a module: without a
/// bound a days-long agent's isolate would grow by every run it ever
/// served. Nothing a run can observe lives from one run to the next but
/// `globalThis`, which a fresh process would not have kept either.
/// Default: 64 (a fresh isolate costs a few milliseconds, once per 64
/// runs; 64 runs of a module holding a 2 000-row table keep about 30 MB).
const RUNS_PER_ISOLATE: u32 = 64;

impl Agent {
    /// Loads the code of every memory in the store, for a new agent under
    /// scratchpad: every memory is in its window from the start (its pinned
    /// block), so its code is importable as a write would have made it,
    /// documentation included (opened at the top of the turn loop, with the
    /// desk).
    pub(super) fn load_store_code(&mut self) {
        let host = &mut *self.host.borrow_mut();
        let records = match &host.memories {
            Some(m) if m.strategy() == gg_module::memories::Strategy::Scratchpad => {
                m.store.list().unwrap_or_default()
            }
            _ => return,
        };
        for record in records.iter() {
            if let Some((key, compiled)) = crate::bridge::code_memories::compile_record(record) {
                crate::bridge::code_memories::load(host, &record.slug, &key, compiled);
            }
        }
        self.opening_documentation = std::mem::take(&mut host.pending_views);
    }

    /// Opens the documentation [`Self::load_store_code`] set aside, but for
    /// functions whose view is already open (a desk restored it).
    pub(super) fn open_store_documentation(&mut self) {
        let views = std::mem::take(&mut self.opening_documentation);
        let mut host = self.host.borrow_mut();
        for view in views {
            let name = view.close_name().map(|n| n.into_owned());
            let open = host
                .window
                .open_views()
                .any(|v| v.close_name().map(|n| n.into_owned()) == name);
            if !open {
                host.window.open_view(0, view);
            }
        }
    }

    /// Unloads every code memory: a fork and a succession start with
    /// nothing loaded.
    pub(super) fn unload_all_code(&mut self) {
        let mut host = self.host.borrow_mut();
        let slugs = host.registry.borrow().loaded_slugs();
        for slug in slugs {
            host.unload_code(&slug);
        }
        host.pending_views.clear();
        host.pending_closes.clear();
        drop(host);
        self.opening_documentation.clear();
    }

    /// Brings the live set of loaded code memories up to the store's
    /// current code, then begins a run on it.
    pub(super) fn begin_code_run(&mut self) {
        self.run_in_turn = self.run_in_turn.next(self.turn);
        self.runs_in_isolate += 1;
        if self.runs_in_isolate > RUNS_PER_ISOLATE {
            self.engine = None;
        }
        let mut host = self.host.borrow_mut();
        let mut gone = Vec::new();
        if let Some(m) = &host.memories {
            let mut registry = host.registry.borrow_mut();
            for slug in registry.loaded_slugs() {
                let code = match m.record(&slug) {
                    Ok(Some(record)) => record.import_key().map(str::to_string).zip(record.code),
                    Ok(None) => None,
                    // The store cannot be read now: the run keeps what it
                    // had loaded.
                    Err(e) => {
                        tracing::warn!(agent = %self.id, "reading a loaded code memory failed: {}", untrusted(&e.message));
                        continue;
                    }
                };
                let compiled = code.and_then(|(key, code)| {
                    let compiled = crate::bridge::code_memories::compile_code(&slug, &code).ok()?;
                    Some((key, compiled))
                });
                match compiled {
                    None => gone.push(slug),
                    Some((key, compiled))
                        if registry.loaded_code(&slug) != Some(compiled.code.as_str()) =>
                    {
                        registry.load(&slug, &key, compiled.code, Rc::new(compiled.positions));
                    }
                    Some(_) => {}
                }
            }
        }
        // Deleted by another holder, or its code cleared: unloaded, its
        // documentation closed.
        for slug in gone {
            host.unload_code(&slug);
        }
        // Under scratchpad what another holder wrote loads here too, with
        // its documentation, as this agent's own write would.
        for slug in std::mem::take(&mut host.written_by_others) {
            let record = host
                .memories
                .as_ref()
                .and_then(|m| m.record(&slug).ok().flatten());
            match record.and_then(|record| crate::bridge::code_memories::compile_record(&record)) {
                Some((key, compiled)) => {
                    crate::bridge::code_memories::load(&mut host, &slug, &key, compiled)
                }
                None => host.unload_code(&slug),
            }
        }
        host.registry.borrow_mut().begin_run();
    }
}
