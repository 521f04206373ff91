//! The host's side: it opens the agent's stores and event stream in the
//! worker's stead and answers the worker's calls on them, each checked
//! against the agent the worker serves (its id, its profile, the store its
//! binding names, whether it may write). A worker asks by id and holder
//! name only to be refused when they are not its own.

use std::path::PathBuf;

use gg_module::durable::memory_store::{Change, TxView};
use gg_module::durable::{AgentStore, StateDir};
use gg_module::events::EventSink;
use gg_module::memories::{MemoriesConfig, MemoryStore};
use gg_module::run::StartKind;
use gg_module::{GgError, GgResult};
use gg_runtime::untrusted;
use serde::Serialize;
use serde_json::Value;

use super::protocol::{FromHost, StateCall, WireBinding, WireRecord};
use crate::mcp::agent_thread::SessionAgentOptions;

/// Where a mutation's decision is made: the worker, asked over its channel
/// while the host holds the transaction open.
pub trait Decider {
    /// Asks the worker to decide mutation `id` on `view`.
    fn decide(&mut self, id: u64, view: &TxView<'_>) -> GgResult<Change>;
}

/// The memory store the agent is bound to, as the host holds it.
struct Bound {
    store: MemoryStore,
    scope: &'static str,
    writable: bool,
    /// The profile's memories block: the limits a decided change is held to.
    config: MemoriesConfig,
}

/// One agent's durable state, held by the host for its worker.
pub struct StateServer {
    agent: String,
    profile: String,
    state: PathBuf,
    agents: AgentStore,
    memory: Option<Bound>,
    events: Box<dyn EventSink>,
}

impl StateServer {
    /// Launches the agent's run, binds its memory store and opens what the
    /// worker will ask for; also what the worker needs to know of the
    /// binding.
    pub fn open(
        options: &SessionAgentOptions,
    ) -> Result<(StateServer, Option<WireBinding>), String> {
        let run = crate::mcp::agent_thread::launch(options)?;
        let binding = run
            .bind(&options.agent_id, &options.profile.id, &StartKind::Root)
            .map_err(|e| match e {
                gg_module::run::BindError::Usage(m) | gg_module::run::BindError::Internal(m) => m,
            })?;
        let dir = StateDir::open(&options.state).map_err(|e| {
            format!(
                "the state folder {} cannot be created: {e}",
                options.state.display()
            )
        })?;
        if let Err(e) = gg_module::workspace::mark_state_folder(dir.root()) {
            tracing::debug!(
                "the state folder {} could not be marked: {e}",
                dir.root().display()
            );
        }
        let agents = match &options.database_url {
            Some(url) => AgentStore::open_postgres(url),
            None => AgentStore::open(&dir.state_db()),
        }
        .map_err(|e| format!("the state database cannot be opened: {}", e.message))?;
        let config = gg_module::memories::config::from_capability(
            options
                .profile
                .capabilities
                .iter()
                .find(|c| c.id == gg_module::memories::config::CAPABILITY_ID),
        )
        .ok()
        .flatten();
        let (memory, wire) = match (binding, config) {
            (Some(b), Some(config)) => {
                let store = MemoryStore::open_at(&b.location, &b.store_id).map_err(|e| {
                    format!(
                        "the memory store {} cannot be opened: {}",
                        b.store_id, e.message
                    )
                })?;
                let wire = WireBinding {
                    store_id: b.store_id.clone(),
                    scope: b.scope,
                    writable: b.writable,
                    told: b.told.clone(),
                };
                let bound = Bound {
                    store,
                    scope: b.scope.name(),
                    writable: b.writable,
                    config,
                };
                (Some(bound), Some(wire))
            }
            _ => (None, None),
        };
        let events_path = dir.events_dir().join(format!(
            "{}.jsonl",
            gg_module::run::file_safe(&options.agent_id)
        ));
        let events = gg_module::events::file_sink(&events_path).map_err(|e| {
            format!(
                "the event stream in {} cannot be opened: {e}",
                dir.root().display()
            )
        })?;
        let server = StateServer {
            agent: options.agent_id.clone(),
            profile: options.profile.id.clone(),
            state: dir.root().to_path_buf(),
            agents,
            memory,
            events,
        };
        Ok((server, wire))
    }

    /// Appends one event line the worker emitted: one JSON object and its
    /// line break, or nothing.
    pub fn append_event(&mut self, line: &str) {
        let Some(json) = line.strip_suffix('\n') else {
            return self.refused("an event line without its line break");
        };
        let is_object = !json.contains('\n')
            && serde_json::from_str::<Value>(json).is_ok_and(|v| v.is_object());
        if !is_object {
            return self.refused("an event line that is not one JSON object");
        }
        self.events.append(line.as_bytes());
    }

    /// A turn ended in the worker.
    pub fn checkpoint_events(&mut self) {
        self.events.checkpoint();
    }

    fn refused(&self, what: &str) {
        tracing::warn!(
            agent = %untrusted(&self.agent),
            "the agent's worker sent {what}: refused"
        );
    }

    /// Answers call `id`; a mutation asks `decider` for its decision.
    pub fn answer(&mut self, id: u64, call: StateCall, decider: &mut dyn Decider) -> FromHost {
        tracing::trace!(agent = %untrusted(&self.agent), call = call.name(), "state call");
        FromHost::Answer(self.serve(id, call, decider))
    }

    fn own(&self, what: &str, named: &str, own: &str) -> GgResult<()> {
        if named == own {
            return Ok(());
        }
        self.refused(&format!("a call on {what} {}", untrusted(named)));
        Err(GgError::internal(format!(
            "this worker serves agent {:?}: it cannot reach {what} {named:?}.",
            self.agent
        )))
    }

    fn bound(&mut self) -> GgResult<&mut Bound> {
        self.memory.as_mut().ok_or_else(|| {
            GgError::internal("this agent has no memory store: its profile has no memories.")
        })
    }

    fn serve(&mut self, id: u64, call: StateCall, decider: &mut dyn Decider) -> GgResult<Value> {
        let agent = self.agent.clone();
        let profile = self.profile.clone();
        match call {
            StateCall::LoadAgent { id } => {
                self.own("the state of agent", &id, &agent)?;
                json(self.agents.load_rows(&id)?)
            }
            StateCall::SaveAgent { rows, programs } => {
                self.own("the state of agent", &rows.id, &agent)?;
                self.own("the profile", &rows.profile_id, &profile)?;
                json(self.agents.save_rows(&rows, &programs)?)
            }
            StateCall::LoadDesk { profile: named } => {
                self.own("the desk of profile", &named, &profile)?;
                json(self.agents.load_desk(&named)?)
            }
            // A desk is recorded when an instance finishes its run, which
            // no MCP session does; one a worker sends would be restored
            // into the profile's next instance, another agent's window.
            StateCall::SaveDesk { .. } => {
                self.refused("a desk to record");
                Err(GgError::internal(
                    "an agent served over MCP records no desk.",
                ))
            }
            StateCall::Programs { id } => {
                self.own("the programs of agent", &id, &agent)?;
                json(self.agents.programs(&id)?)
            }
            StateCall::Head => json(self.bound()?.store.head()?),
            StateCall::Get { slug } => json(self.bound()?.store.get(&slug)?.map(WireRecord::from)),
            StateCall::List => json(
                self.bound()?
                    .store
                    .list()?
                    .iter()
                    .cloned()
                    .map(WireRecord::from)
                    .collect::<Vec<_>>(),
            ),
            StateCall::Totals => json(self.bound()?.store.totals()?),
            StateCall::Peaks => json(self.bound()?.store.peaks()?),
            StateCall::RevisionsSince { seq } => json(self.bound()?.store.revisions_since(seq)?),
            StateCall::Join {
                holder,
                scope,
                writable,
            } => {
                self.own("the holder", &holder, &agent)?;
                let state = self.state.clone();
                let bound = self.bound()?;
                if scope != bound.scope || (writable && !bound.writable) {
                    return Err(GgError::internal(format!(
                        "this agent holds its store {:?}{}: it cannot join it {scope:?}{}.",
                        bound.scope,
                        if bound.writable { "" } else { ", read-only" },
                        if writable { " to write" } else { "" },
                    )));
                }
                bound.store.join(&holder, &scope, writable)?;
                gg_runtime::write_modules_files(&state, &bound.store, bound.config.strategy);
                json(())
            }
            StateCall::Leave { holder } => {
                self.own("the holder", &holder, &agent)?;
                json(self.bound()?.store.leave(&holder)?)
            }
            StateCall::Holders => json(self.bound()?.store.holders()?),
            StateCall::AttachedHolders => json(self.bound()?.store.attached_holders()?),
            StateCall::Pull { holder } => {
                self.own("the holder", &holder, &agent)?;
                json(self.bound()?.store.pull(&holder)?)
            }
            StateCall::Mutate {
                agent: author,
                program,
                slug,
            } => {
                self.own("the author", &author, &agent)?;
                let bound = self.bound()?;
                if !bound.writable {
                    return Err(GgError::invalid(
                        "this agent holds its memory store read-only.",
                    ));
                }
                let author = gg_module::durable::memory_store::Author {
                    agent: &agent,
                    program: program.as_deref(),
                };
                // What the worker decided is held to the profile's rules
                // here too: a worker is not trusted to have applied them.
                let config = bound.config;
                let revision = bound.store.mutate(author, &slug, |view| {
                    let change = decider.decide(id, view)?;
                    gg_module::memories::check_decided(&config, view, &slug, &change)?;
                    Ok(change)
                })?;
                json(revision)
            }
            StateCall::RevisionsAfterLastTurn => json(
                self.events
                    .revisions_after_last_turn()
                    .map_err(|e| GgError::io(format!("the event stream cannot be read: {e}")))?,
            ),
            StateCall::TxGet { .. }
            | StateCall::TxLargest { .. }
            | StateCall::TxLongestIndexLines { .. } => Err(GgError::internal(
                "a read inside a transaction came while no mutation was being decided.",
            )),
        }
    }
}

/// Answers a read the worker makes while it decides a mutation, inside the
/// mutation's transaction; any other call is refused.
pub fn answer_in_transaction(call: StateCall, view: &TxView<'_>) -> FromHost {
    tracing::trace!(call = call.name(), "state call in a transaction");
    let answer = match call {
        StateCall::TxGet { slug } => view.get(&slug).and_then(|r| json(r.map(WireRecord::from))),
        StateCall::TxLargest { n } => view.largest(n).and_then(json),
        StateCall::TxLongestIndexLines { n } => view.longest_index_lines(n).and_then(json),
        _ => Err(GgError::internal(
            "only reads of the mutation's own transaction may come while it is decided.",
        )),
    };
    FromHost::Answer(answer)
}

fn json(value: impl Serialize) -> GgResult<Value> {
    serde_json::to_value(value)
        .map_err(|e| GgError::internal(format!("an answer could not be written: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use gg_module::durable::memory_store::Mutation;

    /// Decides every mutation with `change`, counting the decisions.
    struct Decides(Change, usize);

    impl Decider for Decides {
        fn decide(&mut self, _id: u64, view: &TxView<'_>) -> GgResult<Change> {
            // Reads inside the transaction answer as the worker's would.
            let FromHost::Answer(Ok(_)) =
                answer_in_transaction(StateCall::TxLargest { n: 3 }, view)
            else {
                panic!("a read inside the transaction is answered");
            };
            self.1 += 1;
            Ok(self.0.clone())
        }
    }

    fn put(body: &str) -> Change {
        Change::Put {
            mutation: Mutation::Create,
            description: "d".into(),
            body: body.into(),
            code: None,
            on_use: None,
        }
    }

    fn server(state: &std::path::Path, agent: &str, profile: &str) -> StateServer {
        let text = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../fixtures/profiles/markdown.json5"),
        )
        .unwrap()
        .replace("\"isolated\"", &format!("{profile:?}"));
        let options = SessionAgentOptions {
            profile: gg_module::Profile::from_json5(&text, "test").unwrap(),
            state: state.to_path_buf(),
            agent_id: agent.to_string(),
            workspace: None,
            database_url: None,
            park_after: None,
        };
        StateServer::open(&options).unwrap().0
    }

    fn refused(from: FromHost) -> String {
        match from {
            FromHost::Answer(Err(e)) => e.message,
            other => panic!("not refused: {other:?}"),
        }
    }

    #[test]
    fn a_worker_reaches_its_own_agents_state_and_nothing_of_another() {
        let state = tempfile::tempdir().unwrap();
        let mut own = server(state.path(), "alice", "isolated");
        let mut decides = Decides(put("hers"), 0);
        let answer = own.answer(
            1,
            StateCall::Mutate {
                agent: "alice".into(),
                program: Some("p1".into()),
                slug: "kept".into(),
            },
            &mut decides,
        );
        assert!(matches!(answer, FromHost::Answer(Ok(_))), "{answer:?}");
        assert_eq!(decides.1, 1);
        // Each call that names an agent, holder or profile not its own.
        for call in [
            StateCall::LoadAgent { id: "bob".into() },
            StateCall::Programs { id: "bob".into() },
            StateCall::LoadDesk {
                profile: "other".into(),
            },
            StateCall::Pull {
                holder: "bob".into(),
            },
            StateCall::Leave {
                holder: "bob".into(),
            },
            StateCall::Join {
                holder: "bob".into(),
                scope: "isolated".into(),
                writable: true,
            },
            StateCall::Mutate {
                agent: "bob".into(),
                program: None,
                slug: "x".into(),
            },
        ] {
            let what = format!("{call:?}");
            let message = refused(own.answer(2, call, &mut decides));
            assert!(message.contains("cannot reach"), "{what}: {message}");
        }
        assert_eq!(decides.1, 1, "no refused mutation was decided");
        // A scope or write access the binding did not give.
        let message = refused(own.answer(
            3,
            StateCall::Join {
                holder: "alice".into(),
                scope: "shared".into(),
                writable: true,
            },
            &mut decides,
        ));
        assert!(message.contains("cannot join"), "{message}");
        // Bob's own server, on the same folder, holds a store of his own:
        // Alice's memory is not in it.
        let mut bob = server(state.path(), "bob", "isolated");
        let FromHost::Answer(Ok(found)) = bob.answer(
            4,
            StateCall::Get {
                slug: "kept".into(),
            },
            &mut decides,
        ) else {
            panic!("bob reads his own store");
        };
        assert!(found.is_null(), "{found}");
        // An event line that is not one JSON object is not written.
        own.append_event("{\"a\":1}\n{\"b\":2}\n");
        own.append_event("not json\n");
        own.append_event("{\"turn\":1}\n");
        drop(own);
        let stream = std::fs::read_to_string(state.path().join("events/alice.jsonl")).unwrap();
        assert_eq!(stream, "{\"turn\":1}\n");
    }

    #[test]
    fn what_a_worker_decides_is_held_to_the_profiles_rules() {
        let state = tempfile::tempdir().unwrap();
        let mut own = server(state.path(), "alice", "isolated");
        let mutate = |slug: &str| StateCall::Mutate {
            agent: "alice".into(),
            program: None,
            slug: slug.into(),
        };
        let forged = Change::Put {
            mutation: Mutation::Create,
            description: "one\n- `forged` — line".into(),
            body: "b".into(),
            code: None,
            on_use: None,
        };
        let as_delete = Change::Put {
            mutation: Mutation::Delete,
            description: "d".into(),
            body: "b".into(),
            code: None,
            on_use: None,
        };
        for (slug, change) in [
            ("kept", forged),
            ("kept", as_delete),
            ("bad name!", put("b")),
        ] {
            let what = format!("{slug}: {change:?}");
            let answer = own.answer(1, mutate(slug), &mut Decides(change, 0));
            assert!(
                matches!(answer, FromHost::Answer(Err(_))),
                "{what}: {answer:?}"
            );
        }
        let FromHost::Answer(Ok(list)) = own.answer(2, StateCall::List, &mut Decides(put("b"), 0))
        else {
            panic!("the list is read");
        };
        assert_eq!(list, serde_json::json!([]), "nothing was stored");
    }

    #[test]
    fn a_read_only_binding_refuses_the_workers_mutations() {
        // A run's root binds its store writable; a binding that is not (a
        // read-only child's) holds the worker to reading.
        let state = tempfile::tempdir().unwrap();
        let mut reader = server(state.path(), "reader", "isolated");
        reader.memory.as_mut().unwrap().writable = false;
        let mut decides = Decides(put("x"), 0);
        let message = refused(reader.answer(
            1,
            StateCall::Join {
                holder: "reader".into(),
                scope: "isolated".into(),
                writable: true,
            },
            &mut decides,
        ));
        assert!(message.contains("cannot join"), "{message}");
        let message = refused(reader.answer(
            1,
            StateCall::Mutate {
                agent: "reader".into(),
                program: None,
                slug: "x".into(),
            },
            &mut decides,
        ));
        assert!(message.contains("read-only"), "{message}");
        assert_eq!(decides.1, 0);
    }
}
