//! gg's own state, under a state folder: never in the workspace.
//!
//! `state.sqlite` (WAL) holds each agent's window, turn counter and program
//! library; the memories stores and event streams live beside it.

use std::path::{Path, PathBuf};

use rusqlite::Connection;

/// Opens (creating if missing) a SQLite database in WAL mode with the
/// durability gg promises: an acknowledged write survives a host crash.
pub fn open_database(path: &Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open(path)?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    // FULL: every commit is fsynced, so what gg acknowledged is on disk.
    conn.pragma_update(None, "synchronous", "FULL")?;
    conn.busy_timeout(std::time::Duration::from_secs(10))?;
    Ok(conn)
}

/// The state folder.
#[derive(Debug, Clone)]
pub struct StateDir {
    root: PathBuf,
}

impl StateDir {
    /// Opens `root`, creating it if missing.
    pub fn open(root: impl AsRef<Path>) -> std::io::Result<Self> {
        std::fs::create_dir_all(root.as_ref())?;
        Ok(StateDir {
            root: root.as_ref().to_path_buf(),
        })
    }

    /// The folder's path.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The agent state database, `state.sqlite`.
    pub fn state_db(&self) -> PathBuf {
        self.root.join("state.sqlite")
    }

    /// The folder of event streams, one `<agent>.jsonl` each.
    pub fn events_dir(&self) -> PathBuf {
        self.root.join("events")
    }
}
