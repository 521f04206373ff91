//! Reading a state folder from outside, for the console: engine-free and
//! read-only. Every SQLite database is opened with `SQLITE_OPEN_READ_ONLY`
//! (WAL readers never block the agents writing), the JSON files are only
//! read, and nothing here creates a folder or writes a byte of gg's data
//! (a WAL reader may leave SQLite's own empty `-wal`/`-shm` coordination
//! files beside a store, as any reader of a WAL database does). When the
//! agents kept their memories in PostgreSQL (`--store postgres://…`), the
//! stores are read from there instead ([`StateView::with_postgres`]) over
//! read-only sessions, with SELECTs only. Memories and agents can be
//! searched and paged ([`StateView::find_memories`],
//! [`StateView::find_agents`]), and an agent's transcript read off its
//! window, programs and event stream ([`StateView::transcript`]).

mod agents;
pub(crate) mod event_stream;
mod find;
#[doc(hidden)]
pub mod long_lived;
mod store;
mod transcript;

pub use agents::{AgentSummary, Instance, ProfileRow};
pub use find::{FoundMemory, Page, Query, MAX_PAGE};
pub use store::{MadeRevision, MemoryEver, RevisionView, StoreReader, StoreSummary};
pub use transcript::{Transcript, TurnView, MAX_EVENTS};

use std::fmt;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rusqlite::{Connection, OpenFlags};

use crate::error::GgResult;

/// Why a folder cannot be shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OpenError {
    /// Nothing at the path.
    Missing(PathBuf),
    /// Something that is not a folder.
    NotAFolder(PathBuf),
    /// A folder with none of gg's files in it.
    NotGg(PathBuf),
}

impl fmt::Display for OpenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpenError::Missing(p) => write!(
                f,
                "no state folder at {0}; run a session or `gg run` with --state {0} first",
                p.display()
            ),
            OpenError::NotAFolder(p) => write!(
                f,
                "{} is not a folder; --state takes a gg state folder",
                p.display()
            ),
            OpenError::NotGg(p) => write!(
                f,
                "{} is not a gg state folder: it has none of state.sqlite, memories/*.sqlite or events/*.jsonl",
                p.display()
            ),
        }
    }
}

impl std::error::Error for OpenError {}

/// A state folder, read-only.
#[derive(Debug, Clone)]
pub struct StateView {
    root: PathBuf,
    /// The database the memory stores are read from instead of the
    /// folder's `memories/`, if the agents kept them in PostgreSQL.
    postgres: Option<Arc<store::PgStores>>,
}

/// Opens a SQLite database read-only (the console never writes).
pub(crate) fn open_read_only(path: &Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    Ok(conn)
}

fn files_with_ext(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == ext))
        .collect();
    files.sort();
    files
}

impl StateView {
    /// Opens `root` if it is a gg state folder: one with `state.sqlite`, a
    /// memory store under `memories/` or an event stream under `events/`.
    pub fn open(root: impl AsRef<Path>) -> Result<Self, OpenError> {
        let root = root.as_ref().to_path_buf();
        if !root.exists() {
            return Err(OpenError::Missing(root));
        }
        if !root.is_dir() {
            return Err(OpenError::NotAFolder(root));
        }
        let view = StateView {
            root,
            postgres: None,
        };
        let gg = view.root.join("state.sqlite").is_file()
            || !files_with_ext(&view.root.join("memories"), "sqlite").is_empty()
            || !files_with_ext(&view.root.join("events"), "jsonl").is_empty();
        if !gg {
            return Err(OpenError::NotGg(view.root));
        }
        Ok(view)
    }

    /// Reads the memory stores from the PostgreSQL database at `url` (the
    /// `--store` the agents ran with) instead of the folder's `memories/`;
    /// the agents and profiles are still the folder's. Connects at once:
    /// a URL that is not a PostgreSQL one or a database without gg's
    /// tables is `invalid-argument`, an unreachable server or a schema
    /// newer than this binary `io-error`.
    pub fn with_postgres(mut self, url: &str) -> GgResult<Self> {
        self.postgres = Some(Arc::new(store::PgStores::open(url)?));
        Ok(self)
    }

    /// The state folder's path.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Every memory store, in id order: the folder's, or the database's.
    pub fn stores(&self) -> GgResult<Vec<StoreReader>> {
        let mut stores: Vec<StoreReader> = match &self.postgres {
            Some(db) => db.stores()?,
            None => files_with_ext(&self.root.join("memories"), "sqlite")
                .iter()
                .filter_map(|p| StoreReader::open(p).ok())
                .collect(),
        };
        stores.sort_by(|a, b| a.id().cmp(b.id()));
        Ok(stores)
    }

    /// The store with id `id`, if the folder (or the database) holds it.
    pub fn store(&self, id: &str) -> GgResult<Option<StoreReader>> {
        if let Some(db) = &self.postgres {
            return db.store(id);
        }
        // Ids are file names under memories/: nothing that could leave it.
        if id.is_empty() || id.starts_with('.') || id.contains(['/', '\\']) {
            return Ok(None);
        }
        let direct = self.root.join("memories").join(format!("{id}.sqlite"));
        if direct.is_file() {
            if let Ok(s) = StoreReader::open(&direct) {
                if s.id() == id {
                    return Ok(Some(s));
                }
            }
        }
        Ok(self.stores()?.into_iter().find(|s| s.id() == id))
    }

    /// A number that changes whenever anything the console shows may have:
    /// the names, sizes and modification times of the state database, the
    /// stores (and their WAL files), the event streams and the modules
    /// files; with PostgreSQL, also each store's head and holders.
    pub fn fingerprint(&self) -> u64 {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        if let Some(db) = &self.postgres {
            db.changes().map_err(|e| e.message).hash(&mut hasher);
        }
        let mut paths = vec![
            self.root.join("state.sqlite"),
            self.root.join("state.sqlite-wal"),
        ];
        for dir in ["memories", "events"] {
            if let Ok(entries) = std::fs::read_dir(self.root.join(dir)) {
                paths.extend(entries.flatten().map(|e| e.path()));
            }
        }
        if let Ok(entries) = std::fs::read_dir(self.root.join("agents")) {
            paths.extend(
                entries
                    .flatten()
                    .map(|e| e.path().join("modules").join("memories")),
            );
        }
        paths.sort();
        for path in paths {
            // SQLite's coordination files: the shared-memory index never
            // matters, and an empty WAL (which a read-only reader leaves
            // behind) is the same as none.
            let ext = path.extension().map(|e| e.to_string_lossy().into_owned());
            if ext.as_deref() == Some("sqlite-shm") {
                continue;
            }
            if let Ok(meta) = std::fs::metadata(&path) {
                if ext.as_deref() == Some("sqlite-wal") && meta.len() == 0 {
                    continue;
                }
                path.hash(&mut hasher);
                meta.len().hash(&mut hasher);
                if let Ok(modified) = meta.modified() {
                    modified.hash(&mut hasher);
                }
            }
        }
        hasher.finish()
    }
}

#[cfg(test)]
mod tests;
