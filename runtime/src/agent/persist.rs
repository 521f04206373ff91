//! Persistence: the agent's record and program library, and the
//! console's `modules/memories` files.

use gg_module::durable::{AgentSave, StateDir, StoredProgram, TurnInFlight};
use gg_module::memories::{Memories, MemoryStore};
use gg_module::run::file_safe;
use gg_module::window::WindowWrite;
use gg_module::ItemBody;

use super::{Agent, AgentError};

impl Agent {
    /// Stores what changed since the last save: the counters, the window
    /// items appended or changed, the programs among them, and the turn in
    /// flight (`None` ends it). The work is what the turn added, not the
    /// agent's age.
    pub(super) fn persist(&mut self) -> Result<(), AgentError> {
        self.save(None, &[])
    }

    /// Records turn `in_flight` as begun, with its program, before the
    /// program runs: a process that dies mid-turn leaves a reopened agent
    /// the story of that turn, and the program id is never minted again.
    pub(super) fn persist_begun(
        &mut self,
        in_flight: &TurnInFlight,
        program: Option<StoredProgram>,
    ) -> Result<(), AgentError> {
        self.save(Some(in_flight), program.as_slice())
    }

    fn save(
        &mut self,
        in_flight: Option<&TurnInFlight>,
        begun: &[StoredProgram],
    ) -> Result<(), AgentError> {
        let Some(store) = &mut self.store else {
            return Ok(());
        };
        let mut host = self.host.borrow_mut();
        let loaded = host.registry.borrow().loaded_in_order();
        let mut programs: Vec<StoredProgram> = begun.to_vec();
        if let WindowWrite::Changed(changed) = host.window.unstored() {
            programs.extend(
                changed
                    .into_iter()
                    .filter_map(|(_, item)| match &item.body {
                        ItemBody::Program {
                            id: Some(id),
                            source,
                        } => Some(StoredProgram {
                            id: id.clone(),
                            turn: item.turn,
                            source: source.clone(),
                            opening: item.turn == 0,
                        }),
                        _ => None,
                    }),
            );
        }
        let save = AgentSave {
            id: &self.id,
            profile_id: &host.profile.id,
            turn: self.turn,
            next_program: self.library.as_ref().map(|l| l.next_number()).unwrap_or(1),
            window: &host.window,
            loaded: &loaded,
            in_flight,
        };
        store
            .save(&save, &programs)
            .map_err(|e| AgentError::Internal(format!("saving the agent's state failed: {e}")))?;
        host.window.mark_stored();
        Ok(())
    }
}

/// The console's `agents/<id>/modules/memories` files: for every attached
/// holder of the store this agent just joined (a live instance holds it),
/// the store it bound, how, and who else holds it now. An ended holder's
/// file keeps what it said when it last held the store, so a join costs
/// what the live holders do, never every holder the store ever had.
pub(crate) fn write_modules_file(dir: &StateDir, _agent_id: &str, memories: &Memories) {
    write_modules_files(dir.root(), &memories.store, memories.strategy());
}

/// The `agents/<id>/modules/memories` files of `store`'s attached holders
/// under the state folder `state`, for a store bound with `strategy` (what
/// an agent writes as it joins, and a host that keeps an agent's state in
/// its stead).
pub fn write_modules_files(
    state: &std::path::Path,
    store: &MemoryStore,
    strategy: gg_module::memories::Strategy,
) {
    let holders = store.attached_holders().unwrap_or_default();
    for holder in &holders {
        let path = state
            .join("agents")
            .join(file_safe(&holder.agent))
            .join("modules")
            .join("memories");
        let others: Vec<&str> = holders
            .iter()
            .map(|h| h.agent.as_str())
            .filter(|a| *a != holder.agent)
            .collect();
        let json = serde_json::json!({
            "store": store.id(),
            "strategy": strategy.name(),
            "scope": holder.scope,
            "writable": holder.writable,
            "holders": holders,
            "others": others,
        });
        let written = path
            .parent()
            .map(std::fs::create_dir_all)
            .unwrap_or(Ok(()))
            .and_then(|_| {
                std::fs::write(&path, serde_json::to_string_pretty(&json).expect("json"))
            });
        if let Err(e) = written {
            tracing::error!("cannot write {}: {e}", path.display());
        }
    }
}
