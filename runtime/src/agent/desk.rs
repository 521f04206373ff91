//! The desk of a persistent profile: recorded when an instance finishes,
//! re-opened at the top of the next instance's turn loop.

use std::rc::Rc;

use gg_module::desk::{Desk, DeskView};
use gg_module::events::Event;
use gg_module::{Acknowledgement, ItemBody, Mode, RunStatus, View};

use crate::operator_log::untrusted;

use super::{Agent, AgentError, Finish};

impl Agent {
    /// Ends the instance. Only an instance that finished its work (and
    /// passed the run's agent-stop gate) records its open views as its
    /// profile's desk, replacing the previous one; a ceiling, an error or a
    /// hand-off leaves the previous record standing. Returns whether a desk
    /// was recorded.
    pub fn finish(&mut self, how: Finish) -> Result<bool, AgentError> {
        let record = matches!(how, Finish::Done { gate_passed: true }) && self.persistent;
        if !record {
            return Ok(false);
        }
        let host = self.host.borrow();
        let desk = Desk::from_window(&host.window);
        let store = self
            .store
            .as_ref()
            .ok_or_else(|| AgentError::Setup("a desk needs a state folder".into()))?;
        store
            .save_desk(&host.profile.id, &desk)
            .map_err(|e| AgentError::Internal(format!("recording the desk failed: {e}")))?;
        Ok(true)
    }

    /// Re-opens the desk the profile's previous instance left, at the top
    /// of this instance's turn loop: file views re-read from the workspace
    /// as it stands now, then text views, then documentation views rendered
    /// for this instance's scope.
    /// Then the documentation of code a new agent found loaded.
    pub(super) fn restore_desk(&mut self) -> Result<(), AgentError> {
        let restored = self.reopen_desk();
        self.open_store_documentation();
        restored
    }

    fn reopen_desk(&mut self) -> Result<(), AgentError> {
        let Some(desk) = self.pending_desk.take() else {
            return Ok(());
        };
        let mode = self.host.borrow().profile.mode;
        let (mut files, mut texts, mut docs, mut skipped) = (0, 0, 0, 0);
        // Paths open before the restore (autoload's) are skipped; a file the
        // desk holds in several regions comes back in each.
        let already_open: Vec<String> = self
            .host
            .borrow()
            .window
            .open_views()
            .filter_map(|v| match v {
                View::File { path, .. } => Some(path.clone()),
                _ => None,
            })
            .collect();
        for view in desk.restore_order() {
            match view {
                DeskView::File {
                    path,
                    offset,
                    limit,
                } => {
                    let mut host = self.host.borrow_mut();
                    if already_open.contains(path) {
                        skipped += 1;
                        continue;
                    }
                    let cap = host
                        .profile
                        .line_cap()
                        .unwrap_or(gg_module::views::DEFAULT_LINE_CAP);
                    let read = match &host.workspace {
                        Some(ws) => gg_module::views::read_file_view(
                            ws,
                            path,
                            Some(*offset),
                            Some(*limit),
                            cap,
                            host.profile.programs.output_chars,
                        ),
                        None => Err(gg_module::GgError::unavailable("no workspace")),
                    };
                    let view = match read {
                        Ok(view) => view,
                        Err(e) => {
                            tracing::warn!(agent = %self.id, "desk file {} cannot be read, skipped: {}", untrusted(path), untrusted(&e.message));
                            host.events.emit(Event::DeskSkipped {
                                agent: self.id.clone(),
                                path: path.to_string(),
                                reason: e.message,
                            });
                            skipped += 1;
                            continue;
                        }
                    };
                    files += 1;
                    match mode {
                        Mode::Code => {
                            let id = match &mut self.library {
                                Some(library) => Some(
                                    library
                                        .mint()
                                        .map_err(|e| AgentError::Internal(e.message))?,
                                ),
                                None => None,
                            };
                            let source = format!(
                                "import {{ views }} from \"gg\";\n\nviews.openFile({}, {{ offset: {offset}, limit: {limit} }});",
                                serde_json::to_string(path).expect("a string")
                            );
                            host.window.push(
                                0,
                                ItemBody::Program {
                                    id: id.clone(),
                                    source,
                                },
                            );
                            host.window.push(
                                0,
                                ItemBody::Acknowledgement(Acknowledgement {
                                    program_id: id,
                                    status: RunStatus::Ok,
                                    value: None,
                                    console: Vec::new(),
                                    error: None,
                                    notes: Vec::new(),
                                }),
                            );
                            host.window.open_view(0, view);
                        }
                        Mode::ToolCalling => {
                            let call_id = format!("desk-{files}");
                            host.window.push(
                                0,
                                ItemBody::ToolCall {
                                    call_id: call_id.clone(),
                                    name: "read_file".into(),
                                    arguments: serde_json::json!({ "path": path, "offset": offset, "limit": limit }),
                                },
                            );
                            let content =
                                gg_module::window::file_view_text(&view).expect("a file view");
                            host.window.push(
                                0,
                                ItemBody::ToolResult {
                                    call_id,
                                    content,
                                    is_error: false,
                                    view: Some(view),
                                },
                            );
                        }
                    }
                }
                // Text and documentation views are opened by programs: only
                // a code-mode profile has those parts of a desk.
                DeskView::Text { label, body } if mode == Mode::Code => {
                    texts += 1;
                    self.host.borrow_mut().window.open_view(
                        0,
                        View::Text {
                            label: label.clone(),
                            body: body.clone(),
                        },
                    );
                }
                DeskView::Documentation { key } if mode == Mode::Code => {
                    let rendered = self.render_documentation(key);
                    match rendered {
                        Some(view) => {
                            docs += 1;
                            self.host.borrow_mut().window.open_view(0, view);
                        }
                        None => skipped += 1,
                    }
                }
                _ => skipped += 1,
            }
        }
        let mechanism = match mode {
            Mode::Code => "opening programs",
            Mode::ToolCalling => "read_file call/result pairs",
        };
        tracing::info!(
            agent = %self.id,
            "desk restored: {files} file views by {mechanism}, {texts} text views, {docs} documentation views ({skipped} skipped)"
        );
        self.host.borrow_mut().events.emit(Event::DeskRestored {
            agent: self.id.clone(),
            files,
            texts,
            documentation: docs,
            skipped,
            mechanism: mechanism.to_string(),
        });
        self.persist()
    }

    /// A documentation key (`csvTools.parseCsv`) rendered for this
    /// instance's scope: the function of a code memory in the store it
    /// binds that it can import — one it has loaded, or under scratchpad
    /// any (every memory is in its window, so its code loads here) — or
    /// `None`: documentation of a module the instance cannot import would
    /// only lead to a failing import.
    pub(super) fn render_documentation(&self, key: &str) -> Option<View> {
        let (module, function) = key.rsplit_once('.')?;
        let host = self.host.borrow();
        let memories = host.memories.as_ref()?;
        let loaded = host
            .registry
            .borrow()
            .slug_of_key(module)
            .map(str::to_string);
        let scratchpad = memories.strategy() == gg_module::memories::Strategy::Scratchpad;
        let set = memories.store.list().ok()?;
        for record in set.iter() {
            let Some(code) = &record.code else { continue };
            let importable = match &loaded {
                Some(slug) => *slug == record.slug,
                None => scratchpad && record.import_key() == Some(module),
            };
            if !importable {
                continue;
            }
            let compiled = crate::bridge::code_memories::compile_code(&record.slug, code).ok()?;
            if loaded.is_none() {
                host.registry.borrow_mut().load(
                    &record.slug,
                    module,
                    compiled.code.clone(),
                    Rc::new(compiled.positions.clone()),
                );
            }
            let declared = compiled
                .declared()
                .iter()
                .find(|f| f.exported && f.name == function)?
                .clone();
            return Some(View::Documentation {
                key: module.to_string(),
                slug: record.slug.clone(),
                function: declared.name,
                signature: declared.signature,
                doc: declared.doc,
            });
        }
        None
    }
}
