//! Durable agent records: window, turn counter, program library, programs.

use std::path::Path;

use rusqlite::{params, Connection, OptionalExtension};

use crate::durable::pg::Exec;
use crate::error::{GgError, GgResult};
use crate::window::Window;

/// One agent instance's durable state.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentRecord {
    /// The agent instance's id.
    pub id: String,
    /// The id of the profile it was made from.
    pub profile_id: String,
    /// The last turn that ran (0 before the first).
    pub turn: u32,
    /// The number the program library mints next (`p<n>`).
    pub next_program: u64,
    /// The window its next turn sees.
    pub window: Window,
    /// Loaded code memories, in load order: (slug, key).
    pub loaded: Vec<(String, String)>,
}

/// One program an agent ran, as its state records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredProgram {
    /// The program's id (`p1`, `p2`, …).
    pub id: String,
    /// The turn it ran in.
    pub turn: u32,
    /// Its TypeScript source.
    pub source: String,
    /// Whether it is an opening program (turn 0: the desk's or the
    /// profile's, not the model's).
    pub opening: bool,
}

/// What the durable agent state does, on either backend.
pub trait AgentBackend {
    /// The agent `id`, if it was ever saved.
    fn load(&self, id: &str) -> GgResult<Option<AgentRecord>>;
    /// Saves the agent and `programs` in one transaction.
    fn save(&mut self, record: &AgentRecord, programs: &[StoredProgram]) -> GgResult<()>;
    /// Replaces a profile's desk; an empty desk clears it.
    fn save_desk(&self, profile_id: &str, desk: &crate::desk::Desk) -> GgResult<()>;
    /// The desk a profile's last instance left, if any.
    fn load_desk(&self, profile_id: &str) -> GgResult<Option<crate::desk::Desk>>;
    /// The programs recorded for an agent, in id order (
    /// opening).
    fn programs(&self, agent_id: &str) -> GgResult<Vec<StoredProgram>>;
}

/// Agents' windows, turn counters, program libraries and programs, and
/// persistent profiles' desks: SQLite under the state folder by default,
/// or a PostgreSQL database shared by every host of a run.
pub struct AgentStore {
    inner: Box<dyn AgentBackend>,
}

fn sq(e: rusqlite::Error) -> GgError {
    GgError::io(format!("the state database failed: {e}"))
}

fn window_of(json: &str) -> GgResult<Window> {
    serde_json::from_str(json)
        .map_err(|e| GgError::io(format!("a stored window cannot be read: {e}")))
}

impl AgentStore {
    /// The SQLite state database at `path`.
    pub fn open(path: &Path) -> GgResult<Self> {
        let conn = super::open_database(path).map_err(sq)?;
        conn.execute_batch(super::schema::AGENT_STATE).map_err(sq)?;
        Ok(AgentStore {
            inner: Box::new(SqliteAgents { conn }),
        })
    }

    /// The agent state in the PostgreSQL database at `url`.
    pub fn open_postgres(url: &str) -> GgResult<Self> {
        Ok(AgentStore {
            inner: Box::new(PgAgents {
                pool: crate::durable::pg::pool(url)?,
            }),
        })
    }

    /// The agent `id`, if it was ever saved.
    pub fn load(&self, id: &str) -> GgResult<Option<AgentRecord>> {
        self.inner.load(id)
    }

    /// Saves the agent and the programs of its latest turn in one transaction.
    pub fn save(&mut self, record: &AgentRecord, programs: &[StoredProgram]) -> GgResult<()> {
        self.inner.save(record, programs)
    }

    /// Replaces a profile's desk (an empty desk clears it).
    pub fn save_desk(&self, profile_id: &str, desk: &crate::desk::Desk) -> GgResult<()> {
        self.inner.save_desk(profile_id, desk)
    }

    /// The desk a profile's last instance left, if any.
    pub fn load_desk(&self, profile_id: &str) -> GgResult<Option<crate::desk::Desk>> {
        self.inner.load_desk(profile_id)
    }

    /// The programs recorded for an agent, in id order ( opening).
    pub fn programs(&self, agent_id: &str) -> GgResult<Vec<StoredProgram>> {
        self.inner.programs(agent_id)
    }
}

struct SqliteAgents {
    conn: Connection,
}

impl AgentBackend for SqliteAgents {
    fn load(&self, id: &str) -> GgResult<Option<AgentRecord>> {
        let row: Option<(AgentRecord, String)> = self
            .conn
            .query_row(
                "SELECT id, profile_id, turn, next_program, window, loaded FROM agents WHERE id = ?1",
                [id],
                |row| {
                    let loaded: String = row.get(5)?;
                    Ok((
                        AgentRecord {
                            id: row.get(0)?,
                            profile_id: row.get(1)?,
                            turn: row.get(2)?,
                            next_program: row.get(3)?,
                            window: Window::default(),
                            loaded: serde_json::from_str(&loaded).unwrap_or_default(),
                        },
                        row.get(4)?,
                    ))
                },
            )
            .optional()
            .map_err(sq)?;
        row.map(|(mut record, window)| {
            record.window = window_of(&window)?;
            Ok(record)
        })
        .transpose()
    }

    fn save(&mut self, record: &AgentRecord, programs: &[StoredProgram]) -> GgResult<()> {
        let tx = self.conn.transaction().map_err(sq)?;
        let window = serde_json::to_string(&record.window).expect("a window always serializes");
        let loaded = serde_json::to_string(&record.loaded).expect("a list serializes");
        tx.execute(
            "INSERT INTO agents (id, profile_id, turn, next_program, window, loaded) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
             ON CONFLICT(id) DO UPDATE SET profile_id = ?2, turn = ?3, next_program = ?4, window = ?5, loaded = ?6",
            params![record.id, record.profile_id, record.turn, record.next_program, window, loaded],
        )
        .map_err(sq)?;
        for program in programs {
            tx.execute(
                "INSERT OR REPLACE INTO programs (agent_id, program_id, turn, source, opening) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![record.id, program.id, program.turn, program.source, program.opening],
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

struct PgAgents {
    pool: std::sync::Arc<crate::durable::pg::Pool>,
}

fn pgerr(what: &str) -> impl Fn(postgres::Error) -> GgError + '_ {
    move |e| crate::durable::pg::db_error(what, &e)
}

impl AgentBackend for PgAgents {
    fn load(&self, id: &str) -> GgResult<Option<AgentRecord>> {
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
        Ok(Some(AgentRecord {
            id: row.get(0),
            profile_id: row.get(1),
            turn: row.get::<_, i64>(2) as u32,
            next_program: row.get::<_, i64>(3) as u64,
            window: window_of(row.get(4))?,
            loaded: serde_json::from_str(&loaded).unwrap_or_default(),
        }))
    }

    fn save(&mut self, record: &AgentRecord, programs: &[StoredProgram]) -> GgResult<()> {
        let window = serde_json::to_string(&record.window).expect("a window always serializes");
        let loaded = serde_json::to_string(&record.loaded).expect("a list serializes");
        let (turn, next) = (record.turn as i64, record.next_program as i64);
        self.pool.transaction("saving an agent's state", |tx| {
            tx.execute(
                "INSERT INTO gg_agents (id, profile_id, turn, next_program, window_json, loaded) VALUES ($1, $2, $3, $4, $5, $6)
                 ON CONFLICT (id) DO UPDATE SET profile_id = $2, turn = $3, next_program = $4, window_json = $5, loaded = $6",
                &[&record.id, &record.profile_id, &turn, &next, &window, &loaded],
            )?;
            for program in programs {
                tx.execute(
                    "INSERT INTO gg_programs (agent_id, program_id, turn, source, opening) VALUES ($1, $2, $3, $4, $5)
                     ON CONFLICT (agent_id, program_id) DO UPDATE SET turn = $3, source = $4, opening = $5",
                    &[&record.id, &program.id, &(program.turn as i64), &program.source, &program.opening],
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::window::ItemBody;

    #[test]
    fn saves_and_reloads_an_agent() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = AgentStore::open(&dir.path().join("s.sqlite")).unwrap();
        assert!(store.load("main").unwrap().is_none());
        let mut window = Window {
            system_prompt: "sys".into(),
            ..Default::default()
        };
        window.push(1, ItemBody::Notice { text: "n".into() });
        let program = StoredProgram {
            id: "p1".into(),
            turn: 1,
            source: "1".into(),
            opening: false,
        };
        let record = AgentRecord {
            id: "main".into(),
            profile_id: "agent".into(),
            turn: 1,
            next_program: 2,
            window,
            loaded: vec![("csv-tools".into(), "csvTools".into())],
        };
        store.save(&record, std::slice::from_ref(&program)).unwrap();
        drop(store);
        let store = AgentStore::open(&dir.path().join("s.sqlite")).unwrap();
        assert_eq!(store.load("main").unwrap().unwrap(), record);
        assert_eq!(store.programs("main").unwrap(), vec![program]);
    }
}
