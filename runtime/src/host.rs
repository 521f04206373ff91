//! What the `gg` ops reach: the agent's side of the world, shared between
//! the [`crate::Agent`] and its isolate's `OpState`.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use crate::engine::loader::SharedRegistry;
use crate::operator_log::untrusted;
use gg_module::events::EventLog;
use gg_module::memories::Memories;
use gg_module::views::{read_file_view, DEFAULT_LINE_CAP};
use gg_module::{ConsoleLine, GgError, GgResult, Profile, View, Window, Workspace};

/// The agent's [`Host`] as the ops reach it: held by the agent and put in
/// its isolate's op state, borrowed for the length of one call.
pub type SharedHost = Rc<RefCell<Host>>;

/// The agent's state that ops read and write during a program.
pub struct Host {
    pub profile: Profile,
    pub workspace: Option<Workspace>,
    pub window: Window,
    /// The turn that is running (views opened now arrive after it).
    pub turn: u32,
    /// Views opened by the running program, in order.
    pub pending_views: Vec<View>,
    /// Names closed by the running program that were open in the window.
    pub pending_closes: Vec<String>,
    pub console: ConsoleCapture,
    /// The memories capability, when the profile enables it.
    pub memories: Option<Memories>,
    /// The agent's event stream.
    pub events: EventLog,
    /// A mutation happened this turn: emit `memory_state` when it ends.
    pub memory_state_due: bool,
    /// The agent's loaded code memories (outlives any one isolate).
    pub registry: SharedRegistry,
    /// Memories used this turn whose onUse runs after the program, in order.
    pub on_use_queue: Vec<String>,
    /// Notices for the next turn (onUse failures).
    pub pending_notices: Vec<String>,
    /// Memories other holders wrote since this agent's last look, whose
    /// code loads for it at its next run under scratchpad (every memory is
    /// in every holder's window from the moment it exists).
    pub written_by_others: Vec<String>,
    /// gg's own defect met during the turn: the agent ends as internal_error.
    pub internal_error: Option<String>,
    /// Calls refused during the turn, in order.
    pub refusals: gg_module::events::TurnRefusals,
    /// The tools the agent is offered (empty without any).
    pub tools: crate::tools::offered::OfferedTools,
    /// The agent's id, for the events its tool calls emit.
    pub agent_id: String,
    /// The running program's tool calls still waiting for an answer
    /// (`files.read_text_file`), at most [`crate::tools::MAX_IN_FLIGHT`].
    pub tool_calls_in_flight: Vec<String>,
    /// Set while the isolate running this agent's code is being stopped
    /// (its time or heap limit): a long host call checks it and gives up,
    /// so a program cannot outlast its limit inside one call. The engine's
    /// own signal once the agent has an isolate.
    pub program_stop: Arc<AtomicBool>,
}

/// Called with each console line a program prints, as it prints it (cut
/// to the output limit as the acknowledgement's copy is).
pub type ConsoleListener = Box<dyn FnMut(&ConsoleLine)>;

/// Console output of the running program, bounded by the output limit.
#[derive(Default)]
pub struct ConsoleCapture {
    pub lines: Vec<ConsoleLine>,
    pub chars: usize,
    pub limit: usize,
    pub dropped_chars: usize,
    /// Who hears each kept line live; kept across turns.
    pub listener: Option<ConsoleListener>,
}

impl ConsoleCapture {
    pub fn reset(&mut self, limit: usize) {
        *self = ConsoleCapture {
            limit,
            listener: self.listener.take(),
            ..Default::default()
        };
    }

    /// Keeps `line` and hands it to the listener.
    fn keep(&mut self, line: ConsoleLine) {
        if let Some(listener) = &mut self.listener {
            listener(&line);
        }
        self.lines.push(line);
    }

    pub fn push(&mut self, level: &str, text: String) {
        let len = text.chars().count();
        if self.chars + len > self.limit {
            let room = self.limit - self.chars;
            if room > 0 {
                self.keep(ConsoleLine {
                    level: level.into(),
                    text: text.chars().take(room).collect(),
                });
                self.chars += room;
            }
            self.dropped_chars += len - room;
            return;
        }
        self.chars += len;
        self.keep(ConsoleLine {
            level: level.into(),
            text,
        });
    }
}

/// The longest label a text view may have, in characters: a label is a
/// name, shown in the view's heading, while the text goes in the body
/// (which `programs.outputChars` bounds).
pub const MAX_LABEL_CHARS: usize = 200;

impl Host {
    pub fn new(
        profile: Profile,
        workspace: Option<Workspace>,
        window: Window,
        memories: Option<Memories>,
        events: EventLog,
    ) -> Self {
        Host {
            profile,
            workspace,
            window,
            turn: 0,
            pending_views: Vec::new(),
            pending_closes: Vec::new(),
            console: ConsoleCapture::default(),
            memories,
            events,
            memory_state_due: false,
            registry: Default::default(),
            on_use_queue: Vec::new(),
            pending_notices: Vec::new(),
            written_by_others: Vec::new(),
            internal_error: None,
            refusals: Default::default(),
            tools: Default::default(),
            agent_id: String::new(),
            tool_calls_in_flight: Vec::new(),
            program_stop: Default::default(),
        }
    }

    /// Queues a memory's onUse to run after the program (once per turn).
    pub fn queue_on_use(&mut self, slug: &str) {
        if !self.on_use_queue.iter().any(|s| s == slug) {
            self.on_use_queue.push(slug.to_string());
        }
    }

    /// Pulls what other holders of the store changed since this agent's
    /// last look and appends it to the window's tail as one notice; every
    /// such pull also re-emits this holder's `memory_state`.
    pub fn pull_notice(&mut self, turn: u32) -> GgResult<Option<String>> {
        let code_mode = self.profile.mode == gg_module::Mode::Code;
        let Some(m) = self.memories.as_mut() else {
            return Ok(None);
        };
        let agent = m.agent.clone();
        let revisions = m.store.pull(&agent)?;
        if !revisions.iter().any(|r| r.agent != agent) {
            return Ok(None);
        }
        let read = m
            .offered()
            .into_iter()
            .find(|c| *c == gg_module::memories::Call::Read)
            .map(|c| {
                if code_mode {
                    format!("memories.{}", c.module_name())
                } else {
                    c.tool_name().to_string()
                }
            });
        let notice =
            gg_module::memories::notice::render(&agent, &revisions, m.strategy(), read.as_deref());
        if code_mode && m.strategy() == gg_module::memories::Strategy::Scratchpad {
            for r in revisions.iter().filter(|r| r.agent != agent) {
                if !self.written_by_others.contains(&r.slug) {
                    self.written_by_others.push(r.slug.clone());
                }
            }
        }
        // What this pull handed over (others' revisions, by seq): the
        // record the exactly-once checks read.
        let pulled = gg_module::events::Event::MemoryPull {
            agent: agent.clone(),
            store: m.store.id().to_string(),
            seqs: revisions
                .iter()
                .filter(|r| r.agent != agent)
                .map(|r| r.seq)
                .collect(),
        };
        self.events.emit(pulled);
        // Another holder's write is not this agent's work: it re-emits its
        // own state instead of the revision.
        self.memory_state_due = true;
        self.flush_memory_state();
        if let Some(text) = &notice {
            self.window
                .push(turn, gg_module::ItemBody::Notice { text: text.clone() });
        }
        Ok(notice)
    }

    /// Emits `memory_state` if the turn changed the store.
    pub fn flush_memory_state(&mut self) {
        if !std::mem::take(&mut self.memory_state_due) {
            return;
        }
        let Some(m) = &self.memories else { return };
        match gg_module::memories::telemetry::memory_state(
            &m.agent, &m.config, &m.store, m.writable,
        ) {
            Ok(event) => self.events.emit(event),
            Err(e) => {
                tracing::warn!(agent = %m.agent, "memory_state failed: {}", untrusted(&e.message))
            }
        }
    }

    pub fn open_file(
        &mut self,
        path: &str,
        offset: Option<usize>,
        limit: Option<usize>,
    ) -> GgResult<()> {
        let workspace = self.workspace.as_ref().ok_or_else(|| {
            GgError::unavailable("this agent has no workspace, so views.openFile has nothing to read; use views.openText for material you compose.")
        })?;
        self.room_for_a_view("views.openFile")?;
        let cap = self.profile.line_cap().unwrap_or(DEFAULT_LINE_CAP);
        let view = read_file_view(
            workspace,
            path,
            offset,
            limit,
            cap,
            self.profile.programs.output_chars,
        )?;
        self.room_for_view_text("views.openFile", view.held_bytes(), None)?;
        self.pending_views.push(view);
        Ok(())
    }

    /// Refuses `call` when the running program already has as many views
    /// open as its profile allows (`programs.views`).
    fn room_for_a_view(&self, call: &str) -> GgResult<()> {
        let most = self.profile.programs.views;
        if self.pending_views.len() < most {
            return Ok(());
        }
        Err(GgError::limit(format!(
            "{call}: this program already has {most} views open, the most one program may open (the profile's programs.views); close some with views.close, or put the material in fewer, fuller views."
        )))
    }

    /// Refuses `call` when the text of the views the running program has
    /// open, without the one at `replacing` and with `adding` bytes more,
    /// would pass a quarter of its heap limit: the host keeps that text
    /// outside the heap and prints it escaped (up to six bytes a
    /// character), so views × `outputChars` alone could hold more than the
    /// heap the profile gives (256 views of 64 K characters are 16–64 MB).
    fn room_for_view_text(
        &self,
        call: &str,
        adding: usize,
        replacing: Option<usize>,
    ) -> GgResult<()> {
        let budget = (self.profile.programs.heap_mib as usize).saturating_mul(1 << 20) / 4;
        let held: usize = self
            .pending_views
            .iter()
            .enumerate()
            .filter(|(at, _)| Some(*at) != replacing)
            .map(|(_, v)| v.held_bytes())
            .sum();
        if held.saturating_add(adding) <= budget {
            return Ok(());
        }
        Err(GgError::limit(format!(
            "{call}: the views this program has open hold {held} bytes of text, and this one would add {adding}, past the {budget} bytes its views may hold (a quarter of the profile's programs.heapMib); close some with views.close, or show less."
        )))
    }

    pub fn open_text(&mut self, label: &str, body: &str) -> GgResult<()> {
        if label.trim().is_empty() {
            return Err(GgError::invalid("views.openText needs a non-empty label: it is how the view is closed or superseded later."));
        }
        // Text of at most n bytes has at most n characters: only longer
        // text is counted.
        if label.len() > MAX_LABEL_CHARS {
            let label_chars = label.chars().count();
            if label_chars > MAX_LABEL_CHARS {
                return Err(GgError::invalid(format!(
                    "views.openText: a label is at most {MAX_LABEL_CHARS} characters, and this one is {label_chars}; give the view a short name (it is how the view is closed or superseded later) and put the text in its body."
                )));
            }
        }
        let limit = self.profile.programs.output_chars;
        if body.len() > limit {
            let chars = body.chars().count();
            if chars > limit {
                return Err(GgError::limit(format!(
                    "views.openText: the body of {:?} is {chars} characters, over the {limit}-character limit of one view (the profile's programs.outputChars); open it as several views of at most {limit} characters each, or show less.",
                    gg_module::Quoted(label)
                )));
            }
        }
        // A label reopened within the same program supersedes the earlier
        // one (and takes no more room) and moves to the end; only a new
        // label is counted. The superseded view's buffers are reused, so a
        // loop reopening one label allocates nothing.
        let same_label = |v: &View| matches!(v, View::Text { label: l, .. } if l == label);
        let superseded = self.pending_views.iter().position(same_label);
        self.room_for_view_text("views.openText", label.len() + body.len(), superseded)?;
        match superseded {
            Some(at) => {
                self.pending_views[at..].rotate_left(1);
                if let Some(View::Text { body: kept, .. }) = self.pending_views.last_mut() {
                    kept.clear();
                    kept.push_str(body);
                }
            }
            None => {
                self.room_for_a_view("views.openText")?;
                self.pending_views.push(View::Text {
                    label: label.to_string(),
                    body: body.to_string(),
                });
            }
        }
        Ok(())
    }

    /// Unloads `slug`'s module; the documentation views of its key close
    /// when the turn's views arrive (they describe a module no later
    /// program can import).
    pub fn unload_code(&mut self, slug: &str) {
        let Some(key) = self.registry.borrow_mut().unload(slug) else {
            return;
        };
        let of_key = |v: &View| matches!(v, View::Documentation { key: k, .. } if *k == key);
        self.pending_views.retain(|v| !of_key(v));
        let names: Vec<String> = self
            .window
            .open_views()
            .filter(|v| of_key(v))
            .filter_map(|v| v.close_name().map(|n| n.into_owned()))
            .collect();
        for name in names {
            if !self.pending_closes.contains(&name) {
                self.pending_closes.push(name);
            }
        }
    }

    pub fn close(&mut self, name: &str) -> GgResult<()> {
        let wanted = name.trim_start_matches("./").to_string();
        let before = self.pending_views.len();
        self.pending_views
            .retain(|v| v.close_name().as_deref() != Some(wanted.as_str()));
        let closed_pending = before != self.pending_views.len();
        let open_in_window = self
            .window
            .open_views()
            .any(|v| v.close_name().as_deref() == Some(wanted.as_str()))
            && !self.pending_closes.contains(&wanted);
        if open_in_window {
            self.pending_closes.push(wanted);
            return Ok(());
        }
        if closed_pending {
            return Ok(());
        }
        // Let the window phrase the refusal (it lists what is open).
        Err(self.window.no_open_view(name, &self.pending_closes))
    }
}

/// Cuts `text` to its first `limit` characters; the length it had when it
/// was longer.
pub fn cap_chars(text: &mut String, limit: usize) -> Option<usize> {
    let (cut_at, _) = text.char_indices().nth(limit)?;
    let total = limit + text[cut_at..].chars().count();
    text.truncate(cut_at);
    Some(total)
}
