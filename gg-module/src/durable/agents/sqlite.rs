//! The agent state in the state folder's `state.sqlite`.

use rusqlite::{params, Connection, OptionalExtension, Transaction};

use super::{
    assemble_window, AgentBackend, AgentRows, AgentWrite, ItemRows, StoredProgram, TurnInFlight,
};
use crate::error::{GgError, GgResult};
use crate::window::Window;

pub(super) struct SqliteAgents {
    pub(super) conn: Connection,
}

pub(super) fn sq(e: rusqlite::Error) -> GgError {
    GgError::io(format!("the state database failed: {e}"))
}

impl AgentBackend for SqliteAgents {
    fn load(&self, id: &str) -> GgResult<Option<AgentRows>> {
        let row = self
            .conn
            .query_row(
                "SELECT id, profile_id, turn, next_program, window, loaded FROM agents WHERE id = ?1",
                [id],
                |row| {
                    let loaded: String = row.get(5)?;
                    Ok(AgentRows {
                        id: row.get(0)?,
                        profile_id: row.get(1)?,
                        turn: row.get(2)?,
                        next_program: row.get(3)?,
                        header: row.get(4)?,
                        items: ItemRows::Whole(Vec::new()),
                        loaded: serde_json::from_str(&loaded).unwrap_or_default(),
                        in_flight: None,
                    })
                },
            )
            .optional()
            .map_err(sq)?;
        let Some(mut rows) = row else {
            return Ok(None);
        };
        rows.items = ItemRows::Whole(item_rows(&self.conn, id).map_err(sq)?);
        rows.in_flight = self
            .conn
            .query_row(
                "SELECT turn, program_id, source, store_head, started_ms FROM turns_in_flight WHERE agent_id = ?1",
                [id],
                |r| {
                    Ok(TurnInFlight {
                        turn: r.get(0)?,
                        program: r.get(1)?,
                        source: r.get(2)?,
                        store_head: r.get(3)?,
                        started_ms: r.get(4)?,
                    })
                },
            )
            .optional()
            .map_err(sq)?;
        Ok(Some(rows))
    }

    fn save(&mut self, save: &AgentWrite<'_>, programs: &[StoredProgram]) -> GgResult<()> {
        let tx = self.conn.transaction().map_err(sq)?;
        let loaded = serde_json::to_string(save.loaded).expect("a list serializes");
        tx.execute(
            "INSERT INTO agents (id, profile_id, turn, next_program, window, loaded) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
             ON CONFLICT(id) DO UPDATE SET profile_id = ?2, turn = ?3, next_program = ?4, window = ?5, loaded = ?6",
            params![save.id, save.profile_id, save.turn, save.next_program, save.header, loaded],
        )
        .map_err(sq)?;
        write_items(&tx, save).map_err(sq)?;
        match save.in_flight {
            Some(t) => tx.execute(
                "INSERT OR REPLACE INTO turns_in_flight (agent_id, turn, program_id, source, store_head, started_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![save.id, t.turn, t.program, t.source, t.store_head, t.started_ms],
            ),
            None => tx.execute("DELETE FROM turns_in_flight WHERE agent_id = ?1", [save.id]),
        }
        .map_err(sq)?;
        for program in programs {
            tx.execute(
                "INSERT OR REPLACE INTO programs (agent_id, program_id, turn, source, opening) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![save.id, program.id, program.turn, program.source, program.opening],
            )
            .map_err(sq)?;
        }
        tx.commit().map_err(sq)
    }

    fn save_desk(&self, profile_id: &str, desk: &crate::desk::Desk) -> GgResult<()> {
        if desk.is_empty() {
            self.conn
                .execute("DELETE FROM desks WHERE profile_id = ?1", [profile_id])
                .map_err(sq)?;
        } else {
            let json = serde_json::to_string(desk).expect("a desk serializes");
            self.conn.execute(
                "INSERT INTO desks (profile_id, desk) VALUES (?1, ?2) ON CONFLICT(profile_id) DO UPDATE SET desk = ?2",
                params![profile_id, json],
            )
            .map_err(sq)?;
        }
        Ok(())
    }

    fn load_desk(&self, profile_id: &str) -> GgResult<Option<crate::desk::Desk>> {
        let json: Option<String> = self
            .conn
            .query_row(
                "SELECT desk FROM desks WHERE profile_id = ?1",
                [profile_id],
                |r| r.get(0),
            )
            .optional()
            .map_err(sq)?;
        Ok(json.and_then(|j| serde_json::from_str(&j).ok()))
    }

    fn programs(&self, agent_id: &str) -> GgResult<Vec<StoredProgram>> {
        sqlite_programs(&self.conn, agent_id).map_err(sq)
    }
}

/// Writes what the window's store does not hold yet: its changed item
/// rows, or every row after a compaction.
fn write_items(tx: &Transaction<'_>, save: &AgentWrite<'_>) -> rusqlite::Result<()> {
    if save.replaces_all() {
        tx.execute("DELETE FROM window_items WHERE agent_id = ?1", [save.id])?;
    }
    let mut insert = tx.prepare_cached(
        "INSERT OR REPLACE INTO window_items (agent_id, position, item) VALUES (?1, ?2, ?3)",
    )?;
    save.each_row(|position, item| {
        insert
            .execute(params![save.id, position as i64, item])
            .map(drop)
    })
}

/// Agent `agent_id`'s window item rows, in position order.
fn item_rows(conn: &Connection, agent_id: &str) -> rusqlite::Result<Vec<String>> {
    let mut stmt =
        conn.prepare_cached("SELECT item FROM window_items WHERE agent_id = ?1 ORDER BY position")?;
    let rows = stmt.query_map([agent_id], |r| r.get::<_, String>(0))?;
    rows.collect()
}

/// Agent `agent_id`'s window in a `state.sqlite`, whose `agents` row holds
/// `header` (the agent store's read, and the console's on a read-only
/// connection).
pub(crate) fn sqlite_window(conn: &Connection, agent_id: &str, header: &str) -> GgResult<Window> {
    match item_rows(conn, agent_id) {
        Ok(rows) => assemble_window(header, rows),
        // A folder an older gg wrote, read without the right to add the
        // table: its windows are whole in their header.
        Err(e) if e.to_string().contains("no such table") => assemble_window(header, Vec::new()),
        Err(e) => Err(sq(e)),
    }
}

/// Agent `agent_id`'s program library in a `state.sqlite`, oldest first
/// (the agent store's read, and the console's on a read-only connection).
pub(crate) fn sqlite_programs(
    conn: &Connection,
    agent_id: &str,
) -> rusqlite::Result<Vec<StoredProgram>> {
    let mut stmt = conn.prepare(
        "SELECT program_id, turn, source, opening FROM programs WHERE agent_id = ?1
         ORDER BY CAST(substr(program_id, 2) AS INTEGER)",
    )?;
    let rows = stmt.query_map([agent_id], |r| {
        Ok(StoredProgram {
            id: r.get(0)?,
            turn: r.get(1)?,
            source: r.get(2)?,
            opening: r.get(3)?,
        })
    })?;
    rows.collect()
}
