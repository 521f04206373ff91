//! The agent state in PostgreSQL, shared by every host of a run.

use std::sync::Arc;

use super::{
    assemble_window, AgentBackend, AgentRows, AgentWrite, ItemRows, StoredProgram, TurnInFlight,
};
use crate::durable::pg::{Exec, Pool, Tx, TxError};
use crate::error::{GgError, GgResult};
use crate::window::Window;

pub(super) struct PgAgents {
    pub(super) pool: Arc<Pool>,
}

fn pgerr(what: &str) -> impl Fn(postgres::Error) -> GgError + '_ {
    move |e| crate::durable::pg::db_error(what, &e)
}

impl AgentBackend for PgAgents {
    fn load(&self, id: &str) -> GgResult<Option<AgentRows>> {
        let mut conn = self.pool.get()?;
        let rows = conn
            .query(
                "SELECT id, profile_id, turn, next_program, window_json, loaded FROM gg_agents WHERE id = $1",
                &[&id],
            )
            .map_err(pgerr("reading an agent's state"))?;
        let Some(row) = rows.first() else {
            return Ok(None);
        };
        let loaded: String = row.get(5);
        let in_flight = conn
            .query(
                "SELECT turn, program_id, source, store_head, started_ms FROM gg_turns_in_flight WHERE agent_id = $1",
                &[&id],
            )
            .map_err(pgerr("reading an agent's turn in flight"))?
            .first()
            .map(|r| TurnInFlight {
                turn: r.get::<_, i64>(0) as u32,
                program: r.get(1),
                source: r.get(2),
                store_head: r.get(3),
                started_ms: r.get(4),
            });
        Ok(Some(AgentRows {
            id: row.get(0),
            profile_id: row.get(1),
            turn: row.get::<_, i64>(2) as u32,
            next_program: row.get::<_, i64>(3) as u64,
            header: row.get(4),
            items: ItemRows::Whole(item_rows(&mut conn, id)?),
            loaded: serde_json::from_str(&loaded).unwrap_or_default(),
            in_flight,
        }))
    }

    fn save(&mut self, save: &AgentWrite<'_>, programs: &[StoredProgram]) -> GgResult<()> {
        let header: &str = &save.header;
        let loaded = serde_json::to_string(save.loaded).expect("a list serializes");
        let (turn, next) = (save.turn as i64, save.next_program as i64);
        self.pool.transaction("saving an agent's state", |tx| {
            tx.execute(
                "INSERT INTO gg_agents (id, profile_id, turn, next_program, window_json, loaded) VALUES ($1, $2, $3, $4, $5, $6)
                 ON CONFLICT (id) DO UPDATE SET profile_id = $2, turn = $3, next_program = $4, window_json = $5, loaded = $6",
                &[&save.id, &save.profile_id, &turn, &next, &header, &loaded],
            )?;
            write_items(tx, save)?;
            match save.in_flight {
                Some(t) => tx.execute(
                    "INSERT INTO gg_turns_in_flight (agent_id, turn, program_id, source, store_head, started_ms) VALUES ($1, $2, $3, $4, $5, $6)
                     ON CONFLICT (agent_id) DO UPDATE SET turn = $2, program_id = $3, source = $4, store_head = $5, started_ms = $6",
                    &[&save.id, &(t.turn as i64), &t.program, &t.source, &t.store_head, &t.started_ms],
                )?,
                None => tx.execute("DELETE FROM gg_turns_in_flight WHERE agent_id = $1", &[&save.id])?,
            };
            for program in programs {
                tx.execute(
                    "INSERT INTO gg_programs (agent_id, program_id, turn, source, opening) VALUES ($1, $2, $3, $4, $5)
                     ON CONFLICT (agent_id, program_id) DO UPDATE SET turn = $3, source = $4, opening = $5",
                    &[&save.id, &program.id, &(program.turn as i64), &program.source, &program.opening],
                )?;
            }
            Ok(())
        })
    }

    fn save_desk(&self, profile_id: &str, desk: &crate::desk::Desk) -> GgResult<()> {
        let mut conn = self.pool.get()?;
        if desk.is_empty() {
            conn.execute("DELETE FROM gg_desks WHERE profile_id = $1", &[&profile_id])
                .map_err(pgerr("clearing a desk"))?;
        } else {
            let json = serde_json::to_string(desk).expect("a desk serializes");
            conn.execute(
                "INSERT INTO gg_desks (profile_id, desk) VALUES ($1, $2) ON CONFLICT (profile_id) DO UPDATE SET desk = $2",
                &[&profile_id, &json],
            )
            .map_err(pgerr("recording a desk"))?;
        }
        Ok(())
    }

    fn load_desk(&self, profile_id: &str) -> GgResult<Option<crate::desk::Desk>> {
        let mut conn = self.pool.get()?;
        let rows = conn
            .query(
                "SELECT desk FROM gg_desks WHERE profile_id = $1",
                &[&profile_id],
            )
            .map_err(pgerr("reading a desk"))?;
        Ok(rows
            .first()
            .and_then(|r| serde_json::from_str(r.get::<_, &str>(0)).ok()))
    }

    fn programs(&self, agent_id: &str) -> GgResult<Vec<StoredProgram>> {
        let mut conn = self.pool.get()?;
        let rows = conn
            .query(
                "SELECT program_id, turn, source, opening FROM gg_programs WHERE agent_id = $1
                 ORDER BY NULLIF(regexp_replace(substr(program_id, 2), '[^0-9]', '', 'g'), '')::BIGINT, program_id",
                &[&agent_id],
            )
            .map_err(pgerr("reading an agent's programs"))?;
        Ok(rows
            .iter()
            .map(|r| StoredProgram {
                id: r.get(0),
                turn: r.get::<_, i64>(1) as u32,
                source: r.get(2),
                opening: r.get(3),
            })
            .collect())
    }
}

/// Writes what the window's store does not hold yet (see the SQLite twin).
fn write_items(tx: &mut Tx<'_>, save: &AgentWrite<'_>) -> Result<(), TxError> {
    if save.replaces_all() {
        tx.execute(
            "DELETE FROM gg_window_items WHERE agent_id = $1",
            &[&save.id],
        )?;
    }
    save.each_row(|position, item| {
        tx.execute(
            "INSERT INTO gg_window_items (agent_id, position, item) VALUES ($1, $2, $3)
             ON CONFLICT (agent_id, position) DO UPDATE SET item = $3",
            &[&save.id, &(position as i64), &item],
        )?;
        Ok(())
    })
}

/// Agent `agent_id`'s window item rows, in position order.
fn item_rows(conn: &mut impl Exec, agent_id: &str) -> GgResult<Vec<String>> {
    Ok(conn
        .query(
            "SELECT item FROM gg_window_items WHERE agent_id = $1 ORDER BY position",
            &[&agent_id],
        )
        .map_err(pgerr("reading an agent's window"))?
        .iter()
        .map(|r| r.get::<_, String>(0))
        .collect())
}

/// Agent `agent_id`'s window, whose `gg_agents` row holds `header` (the
/// agent store's read, and the console's).
pub(crate) fn pg_window(conn: &mut impl Exec, agent_id: &str, header: &str) -> GgResult<Window> {
    assemble_window(header, item_rows(conn, agent_id)?)
}
