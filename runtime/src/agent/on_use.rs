//! onUse hooks: the scripts a memory runs when it is used, after the
//! turn, on the agent's own grants and isolate.

use std::rc::Rc;
use std::time::Duration;

use gg_module::events::Event;

use crate::engine::RunEnd;
use crate::operator_log::untrusted;

use super::{Agent, AgentError};

impl Agent {
    /// Runs the onUse hooks queued this turn (and any their own uses queue),
    /// each memory's at most once, on the agent's own grants and isolate,
    /// under the onUse time limit. A failure becomes an operator log line
    /// and a short notice; the hook's source is never shown.
    pub(super) fn run_on_use_hooks(&mut self, heap_limit: usize) -> Result<(), AgentError> {
        let mut ran: Vec<String> = Vec::new();
        loop {
            let next = {
                let mut host = self.host.borrow_mut();
                // Imports of memory modules are uses too.
                let imported = host.registry.borrow_mut().take_imports();
                for key in imported {
                    let slug = host.registry.borrow().slug_of_key(&key).map(str::to_string);
                    if let Some(slug) = slug {
                        host.queue_on_use(&slug);
                    }
                }
                host.on_use_queue.retain(|slug| !ran.contains(slug));
                if host.on_use_queue.is_empty() {
                    None
                } else {
                    Some(host.on_use_queue.remove(0))
                }
            };
            let Some(slug) = next else { return Ok(()) };
            ran.push(slug.clone());
            let (source, limit) = {
                let host = self.host.borrow();
                let record = host
                    .memories
                    .as_ref()
                    .and_then(|m| m.record(&slug).ok().flatten());
                (
                    record.and_then(|r| r.on_use),
                    Duration::from_millis(host.profile.programs.on_use_time_ms),
                )
            };
            let Some(source) = source else { continue };
            let compiled = match crate::bridge::code_memories::compile_on_use(&slug, &source) {
                Ok(compiled) => compiled,
                Err(crate::bridge::code_memories::CompileFailure::Refused(e)) => {
                    self.host.borrow_mut().pending_notices.push(format!(
                        "The onUse hook of `{slug}` did not run: {}",
                        e.message
                    ));
                    continue;
                }
                Err(crate::bridge::code_memories::CompileFailure::Internal(detail)) => {
                    let mut host = self.host.borrow_mut();
                    let _ =
                        crate::bridge::code_memories::compiler_defect(&mut host, "onUse", detail);
                    continue;
                }
            };
            let module = crate::bridge::code_memories::on_use_module(&compiled);
            self.on_use_runs += 1;
            self.begin_code_run();
            let specifier = format!("gg:onuse/{}/{}.js", self.turn, self.on_use_runs);
            let engine = self.engine_for_run(heap_limit, &module)?;
            let end = engine.run_module(
                &specifier,
                "onUse.ts",
                module,
                Rc::new(compiled.positions),
                limit,
            );
            let mut host = self.host.borrow_mut();
            // A hook's console output is the operator's, not the model's.
            for line in std::mem::take(&mut host.console.lines) {
                tracing::info!(agent = %self.id, memory = %slug, level = %line.level, "onUse printed: {}", untrusted(&line.text));
            }
            let failure = match end {
                RunEnd::Finished { .. } => None,
                RunEnd::Threw(thrown) => Some(format!(
                    "it threw {}{}",
                    thrown.message,
                    thrown
                        .frames
                        .first()
                        .map(|f| format!(" at line {}", f.line))
                        .unwrap_or_default()
                )),
                RunEnd::Ceiling(ceiling) => {
                    drop(host);
                    self.engine = None;
                    host = self.host.borrow_mut();
                    Some(match ceiling {
                        crate::engine::Ceiling::Time(t) => {
                            format!("it ran past its {} ms limit and was stopped", t.as_millis())
                        }
                        crate::engine::Ceiling::Heap(_) => {
                            "it ran out of heap and was stopped".to_string()
                        }
                    })
                }
            };
            if let Some(failure) = failure {
                tracing::warn!(agent = %self.id, memory = %slug, "onUse failed: {}", untrusted(&failure));
                host.events.emit(Event::OnUseFailed {
                    agent: self.id.clone(),
                    memory: slug.to_string(),
                    detail: failure.to_string(),
                });
                host.pending_notices.push(format!("The onUse hook of `{slug}` failed: {failure}. Views it would have opened may be missing."));
            }
        }
    }
}
