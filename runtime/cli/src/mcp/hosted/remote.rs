//! The worker's side: its agent's stores and event stream as calls to the
//! host over the worker's channel ([`StateLink`]), behind the same traits
//! the files are opened behind in-process.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};

use gg_module::desk::Desk;
use gg_module::durable::memory_store::{
    Author, Change, Holder, Peaks, RevisionRecord, Totals, TxRead, TxView,
};
use gg_module::durable::{AgentBackend, AgentRows, AgentWrite, StoredProgram};
use gg_module::events::EventSink;
use gg_module::memories::{MemoryBackend, MemoryRecord};
use gg_module::{GgError, GgResult};
use serde::de::DeserializeOwned;

use super::protocol::{FromHost, StateCall, ToHost, WireRecord};

/// Writes one message to the host; false when the channel is closed.
pub type SendToHost = Box<dyn Fn(&ToHost) -> bool + Send + Sync>;

/// The worker's end of the state channel: each call is written to the
/// host and waits for its answer, which the thread reading the worker's
/// input hands over ([`StateLink::deliver`]).
pub struct StateLink {
    next: AtomicU64,
    /// The calls waiting for the host; `None` once the host's channel has
    /// closed (every waiting call then fails).
    waiting: Mutex<Option<HashMap<u64, mpsc::Sender<FromHost>>>>,
    send: SendToHost,
}

fn host_gone() -> GgError {
    GgError::io("the host that keeps this agent's state stopped answering.")
}

impl StateLink {
    pub fn new(send: SendToHost) -> Arc<Self> {
        Arc::new(StateLink {
            next: AtomicU64::new(1),
            waiting: Mutex::new(Some(HashMap::new())),
            send,
        })
    }

    /// Hands what the host sent for call `id` to the call.
    pub fn deliver(&self, id: u64, message: FromHost) {
        let waiting = self.waiting.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(tx) = waiting.as_ref().and_then(|w| w.get(&id)) {
            let _ = tx.send(message);
        }
    }

    /// The host's channel closed: every call waiting, and every later one,
    /// fails.
    pub fn close(&self) {
        *self.waiting.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }

    fn open(&self, call: StateCall) -> GgResult<(u64, mpsc::Receiver<FromHost>)> {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = mpsc::channel();
        match self
            .waiting
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_mut()
        {
            Some(waiting) => waiting.insert(id, tx),
            None => return Err(host_gone()),
        };
        if !(self.send)(&ToHost::Call { id, call }) {
            self.forget(id);
            return Err(host_gone());
        }
        Ok((id, rx))
    }

    fn forget(&self, id: u64) {
        if let Some(waiting) = self
            .waiting
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_mut()
        {
            waiting.remove(&id);
        }
    }

    /// Makes `call` and decodes its answer as `T`.
    pub fn ask<T: DeserializeOwned>(&self, call: StateCall) -> GgResult<T> {
        let (id, rx) = self.open(call)?;
        let answer = rx.recv();
        self.forget(id);
        match answer {
            Ok(FromHost::Answer(Ok(value))) => serde_json::from_value(value).map_err(|e| {
                GgError::internal(format!("the host's answer was not understood: {e}"))
            }),
            Ok(FromHost::Answer(Err(e))) => Err(e),
            Ok(FromHost::Decide { .. }) => Err(GgError::internal(
                "the host asked to decide a mutation that was not asked for",
            )),
            Err(_) => Err(host_gone()),
        }
    }

    /// Makes a mutation: the host opens its transaction and asks for the
    /// decision (perhaps more than once, when it retries), which `decide`
    /// makes here, reading through the host's transaction.
    fn mutate(
        &self,
        call: StateCall,
        decide: &mut dyn FnMut(&TxView<'_>) -> GgResult<Change>,
    ) -> GgResult<RevisionRecord> {
        let (id, rx) = self.open(call)?;
        let result = loop {
            match rx.recv() {
                Ok(FromHost::Decide { totals }) => {
                    let read = InTransaction { link: self };
                    let change = decide(&TxView::new(&read, totals));
                    if !(self.send)(&ToHost::Decided { id, change }) {
                        break Err(host_gone());
                    }
                }
                Ok(FromHost::Answer(Ok(value))) => {
                    break serde_json::from_value::<RevisionRecord>(value).map_err(|e| {
                        GgError::internal(format!("the host's answer was not understood: {e}"))
                    })
                }
                Ok(FromHost::Answer(Err(e))) => break Err(e),
                Err(_) => break Err(host_gone()),
            }
        };
        self.forget(id);
        result
    }
}

/// Reads inside the host's transaction, while a mutation is decided.
struct InTransaction<'a> {
    link: &'a StateLink,
}

impl TxRead for InTransaction<'_> {
    fn get(&self, slug: &str) -> GgResult<Option<MemoryRecord>> {
        let record: Option<WireRecord> = self.link.ask(StateCall::TxGet {
            slug: slug.to_string(),
        })?;
        Ok(record.map(MemoryRecord::from))
    }

    fn largest(&self, n: usize) -> GgResult<Vec<(String, u64)>> {
        self.link.ask(StateCall::TxLargest { n })
    }

    fn longest_index_lines(&self, n: usize) -> GgResult<Vec<(String, u64)>> {
        self.link.ask(StateCall::TxLongestIndexLines { n })
    }
}

/// The agent's window, counters, programs and desk, kept by the host.
pub struct RemoteAgents(pub Arc<StateLink>);

impl AgentBackend for RemoteAgents {
    fn load(&self, id: &str) -> GgResult<Option<AgentRows>> {
        self.0.ask(StateCall::LoadAgent { id: id.to_string() })
    }

    fn save(&mut self, write: &AgentWrite<'_>, programs: &[StoredProgram]) -> GgResult<()> {
        self.0.ask(StateCall::SaveAgent {
            rows: Box::new(write.to_rows()),
            programs: programs.to_vec(),
        })
    }

    fn save_desk(&self, profile_id: &str, desk: &Desk) -> GgResult<()> {
        self.0.ask(StateCall::SaveDesk {
            profile: profile_id.to_string(),
            desk: desk.clone(),
        })
    }

    fn load_desk(&self, profile_id: &str) -> GgResult<Option<Desk>> {
        self.0.ask(StateCall::LoadDesk {
            profile: profile_id.to_string(),
        })
    }

    fn programs(&self, agent_id: &str) -> GgResult<Vec<StoredProgram>> {
        self.0.ask(StateCall::Programs {
            id: agent_id.to_string(),
        })
    }
}

/// The agent's bound memory store, kept by the host.
pub struct RemoteMemory(pub Arc<StateLink>);

fn records(records: Vec<WireRecord>) -> Vec<MemoryRecord> {
    records.into_iter().map(MemoryRecord::from).collect()
}

impl MemoryBackend for RemoteMemory {
    fn head(&self) -> GgResult<i64> {
        self.0.ask(StateCall::Head)
    }

    fn get(&self, slug: &str) -> GgResult<Option<MemoryRecord>> {
        let record: Option<WireRecord> = self.0.ask(StateCall::Get {
            slug: slug.to_string(),
        })?;
        Ok(record.map(MemoryRecord::from))
    }

    fn list(&self) -> GgResult<Vec<MemoryRecord>> {
        self.0.ask(StateCall::List).map(records)
    }

    fn totals(&self) -> GgResult<Totals> {
        self.0.ask(StateCall::Totals)
    }

    fn peaks(&self) -> GgResult<Peaks> {
        self.0.ask(StateCall::Peaks)
    }

    fn revisions_since(&self, seq: i64) -> GgResult<Vec<RevisionRecord>> {
        self.0.ask(StateCall::RevisionsSince { seq })
    }

    fn join(&self, holder: &str, scope: &str, writable: bool) -> GgResult<()> {
        self.0.ask(StateCall::Join {
            holder: holder.to_string(),
            scope: scope.to_string(),
            writable,
        })
    }

    fn leave(&self, holder: &str) -> GgResult<()> {
        self.0.ask(StateCall::Leave {
            holder: holder.to_string(),
        })
    }

    fn holders(&self) -> GgResult<Vec<Holder>> {
        self.0.ask(StateCall::Holders)
    }

    fn attached_holders(&self) -> GgResult<Vec<Holder>> {
        self.0.ask(StateCall::AttachedHolders)
    }

    fn pull(&mut self, holder: &str) -> GgResult<Vec<RevisionRecord>> {
        self.0.ask(StateCall::Pull {
            holder: holder.to_string(),
        })
    }

    fn mutate(
        &mut self,
        author: Author<'_>,
        slug: &str,
        decide: &mut dyn FnMut(&TxView<'_>) -> GgResult<Change>,
    ) -> GgResult<RevisionRecord> {
        self.0.mutate(
            StateCall::Mutate {
                agent: author.agent.to_string(),
                program: author.program.map(str::to_string),
                slug: slug.to_string(),
            },
            decide,
        )
    }
}

/// The agent's event stream, kept by the host: lines go one way, in order
/// with every other call, so a read after them sees them.
pub struct RemoteEvents(pub Arc<StateLink>);

impl EventSink for RemoteEvents {
    fn append(&mut self, line: &[u8]) {
        let line = String::from_utf8_lossy(line).into_owned();
        if !(self.0.send)(&ToHost::Event { line }) {
            tracing::warn!("an event could not be handed to the host");
        }
    }

    fn checkpoint(&mut self) {
        (self.0.send)(&ToHost::EventsCheckpoint);
    }

    fn revisions_after_last_turn(&self) -> std::io::Result<Vec<i64>> {
        self.0
            .ask(StateCall::RevisionsAfterLastTurn)
            .map_err(|e| std::io::Error::other(e.message))
    }
}
