//! Durable agent records: window, turn counter, program library, programs.

use std::path::Path;

use rusqlite::{params, Connection, OptionalExtension};

use crate::window::Window;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS agents (
    id TEXT PRIMARY KEY,
    profile_id TEXT NOT NULL,
    turn INTEGER NOT NULL,
    next_program INTEGER NOT NULL,
    window TEXT NOT NULL,
    loaded TEXT NOT NULL DEFAULT '[]'
);
CREATE TABLE IF NOT EXISTS desks (
    profile_id TEXT PRIMARY KEY,
    desk TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS programs (
    agent_id TEXT NOT NULL,
    program_id TEXT NOT NULL,
    turn INTEGER NOT NULL,
    source TEXT NOT NULL,
    opening INTEGER NOT NULL,
    PRIMARY KEY (agent_id, program_id)
);
";

#[derive(Debug, Clone, PartialEq)]
pub struct AgentRecord {
    pub id: String,
    pub profile_id: String,
    /// The last turn that ran (0 before the first).
    pub turn: u32,
    pub next_program: u64,
    pub window: Window,
    /// Loaded code memories, in load order: (slug, key).
    pub loaded: Vec<(String, String)>,
}

pub struct AgentStore {
    conn: Connection,
}

impl AgentStore {
    pub fn open(path: &Path) -> rusqlite::Result<Self> {
        let conn = super::open_database(path)?;
        conn.execute_batch(SCHEMA)?;
        Ok(AgentStore { conn })
    }

    pub fn load(&self, id: &str) -> rusqlite::Result<Option<AgentRecord>> {
        self.conn
            .query_row(
                "SELECT id, profile_id, turn, next_program, window, loaded FROM agents WHERE id = ?1",
                [id],
                |row| {
                    let window: String = row.get(4)?;
                    let loaded: String = row.get(5)?;
                    Ok(AgentRecord {
                        id: row.get(0)?,
                        profile_id: row.get(1)?,
                        turn: row.get(2)?,
                        next_program: row.get(3)?,
                        window: serde_json::from_str(&window).map_err(|e| {
                            rusqlite::Error::FromSqlConversionFailure(
                                4,
                                rusqlite::types::Type::Text,
                                Box::new(e),
                            )
                        })?,
                        loaded: serde_json::from_str(&loaded).unwrap_or_default(),
                    })
                },
            )
            .optional()
    }

    /// Saves the agent and the programs of its latest turn in one transaction.
    pub fn save(
        &mut self,
        record: &AgentRecord,
        programs: &[(String, u32, String, bool)],
    ) -> rusqlite::Result<()> {
        let tx = self.conn.transaction()?;
        let window = serde_json::to_string(&record.window).expect("a window always serializes");
        let loaded = serde_json::to_string(&record.loaded).expect("a list serializes");
        tx.execute(
            "INSERT INTO agents (id, profile_id, turn, next_program, window, loaded) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
             ON CONFLICT(id) DO UPDATE SET profile_id = ?2, turn = ?3, next_program = ?4, window = ?5, loaded = ?6",
            params![record.id, record.profile_id, record.turn, record.next_program, window, loaded],
        )?;
        for (program_id, turn, source, opening) in programs {
            tx.execute(
                "INSERT OR REPLACE INTO programs (agent_id, program_id, turn, source, opening) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![record.id, program_id, turn, source, opening],
            )?;
        }
        tx.commit()
    }

    /// Replaces a profile's desk (an empty desk clears it).
    pub fn save_desk(&self, profile_id: &str, desk: &crate::desk::Desk) -> rusqlite::Result<()> {
        if desk.is_empty() {
            self.conn
                .execute("DELETE FROM desks WHERE profile_id = ?1", [profile_id])?;
        } else {
            let json = serde_json::to_string(desk).expect("a desk serializes");
            self.conn.execute(
                "INSERT INTO desks (profile_id, desk) VALUES (?1, ?2) ON CONFLICT(profile_id) DO UPDATE SET desk = ?2",
                params![profile_id, json],
            )?;
        }
        Ok(())
    }

    /// The desk a profile's last instance left, if any.
    pub fn load_desk(&self, profile_id: &str) -> rusqlite::Result<Option<crate::desk::Desk>> {
        let json: Option<String> = self
            .conn
            .query_row(
                "SELECT desk FROM desks WHERE profile_id = ?1",
                [profile_id],
                |r| r.get(0),
            )
            .optional()?;
        Ok(json.and_then(|j| serde_json::from_str(&j).ok()))
    }

    /// The programs recorded for an agent, in id order: (id, turn, source, opening).
    pub fn programs(&self, agent_id: &str) -> rusqlite::Result<Vec<(String, u32, String, bool)>> {
        let mut stmt = self.conn.prepare(
            "SELECT program_id, turn, source, opening FROM programs WHERE agent_id = ?1
             ORDER BY CAST(substr(program_id, 2) AS INTEGER)",
        )?;
        let rows = stmt.query_map([agent_id], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })?;
        rows.collect()
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
        let record = AgentRecord {
            id: "main".into(),
            profile_id: "agent".into(),
            turn: 1,
            next_program: 2,
            window,
            loaded: vec![("csv-tools".into(), "csvTools".into())],
        };
        store
            .save(&record, &[("p1".into(), 1, "1".into(), false)])
            .unwrap();
        drop(store);
        let store = AgentStore::open(&dir.path().join("s.sqlite")).unwrap();
        assert_eq!(store.load("main").unwrap().unwrap(), record);
        assert_eq!(
            store.programs("main").unwrap(),
            vec![("p1".to_string(), 1, "1".to_string(), false)]
        );
    }
}
