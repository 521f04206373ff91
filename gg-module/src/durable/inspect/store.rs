//! One memory store, read-only: its totals and peaks, its holders, every
//! memory it ever held (deleted ones included) and each memory's revision
//! history with a diff to the previous revision.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension};
use serde::Serialize;

use crate::durable::memory_store::{self, char_count, line_count, Holder, Peaks, Totals};
use crate::error::{GgError, GgResult};

fn db(e: rusqlite::Error) -> GgError {
    GgError::io(format!("reading the memory store failed: {e}"))
}

/// A memory store opened read-only.
pub struct StoreReader {
    id: String,
    path: PathBuf,
    conn: Connection,
}

/// A store as the Modules tab and the Memories panel show it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StoreSummary {
    /// The store's id: its file name under `memories/`.
    pub id: String,
    /// The database file's path.
    pub file: String,
    /// Running totals of the current set.
    pub totals: Totals,
    /// The most the store ever held at once.
    pub peaks: Peaks,
    /// Every agent instance holding the store.
    pub holders: Vec<Holder>,
    /// Entries in the revision log.
    pub revisions: u64,
    /// Distinct memories ever held, deleted ones included.
    pub ever_held: u64,
    /// Memories held once and deleted since.
    pub deleted: u64,
}

/// A memory the store holds or once held.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MemoryEver {
    /// The memory's name.
    pub slug: String,
    /// The description now, or as of its last text before the delete.
    pub description: String,
    /// Characters of the body now, or as of its last revision before the delete.
    pub chars: u64,
    /// Lines of the body, now or as of its last revision before the delete.
    pub lines: u64,
    /// Whether the store no longer holds it.
    pub deleted: bool,
    /// Entries in its revision history.
    pub revisions: u64,
    /// Its newest revision number (0 if the log has none).
    pub last_revision: i64,
    /// The newest revision's mutation (`create`, `edit`, `delete`...).
    pub last_mutation: String,
    /// The agent instance that made the newest revision.
    pub last_agent: String,
}

/// One revision of one memory.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RevisionView {
    /// Store-wide order.
    pub seq: i64,
    /// Per slug, counting across deletes.
    pub revision: i64,
    /// `write`, `create`, `update`, `edit` or `delete`.
    pub mutation: String,
    /// The description as of this revision.
    pub description: String,
    /// The memory's text as of this revision (empty after a delete).
    pub text: String,
    /// Characters of `text`.
    pub chars: u64,
    /// The agent instance that made it.
    pub agent: String,
    /// When it was made, in ms since the Unix epoch.
    pub at_ms: i64,
    /// A unified diff of the text from the previous revision (from nothing
    /// for the first).
    pub diff: String,
}

impl StoreReader {
    /// Opens the store database at `path` read-only; refuses a file that is
    /// not a gg memory store.
    pub fn open(path: &Path) -> GgResult<Self> {
        let conn = super::open_read_only(path).map_err(db)?;
        // The file's name is the store's id (`memories/<id>.sqlite`); the
        // `meta` row is not, since a fork's copy carries its original's.
        let id = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        conn.query_row("SELECT COUNT(*) FROM stats", [], |r| r.get::<_, i64>(0))
            .map_err(|e| {
                GgError::io(format!("{} is not a gg memory store: {e}", path.display()))
            })?;
        Ok(StoreReader {
            id,
            path: path.to_path_buf(),
            conn,
        })
    }

    /// The store's id: its file name, without `.sqlite`.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Running totals of the current set.
    pub fn totals(&self) -> GgResult<Totals> {
        memory_store::totals(&self.conn)
    }

    /// The most the store ever held at once.
    pub fn peaks(&self) -> GgResult<Peaks> {
        memory_store::peaks(&self.conn)
    }

    /// Every agent instance holding the store, in id order.
    pub fn holders(&self) -> GgResult<Vec<Holder>> {
        memory_store::holders(&self.conn)
    }

    /// Revisions the agent made in this store.
    pub fn revisions_by(&self, agent: &str) -> GgResult<u64> {
        self.conn
            .query_row(
                "SELECT COUNT(*) FROM revisions WHERE agent = ?1",
                [agent],
                |r| r.get(0),
            )
            .map_err(db)
    }

    /// The store's totals, peaks, holders and revision counts.
    pub fn summary(&self) -> GgResult<StoreSummary> {
        let memories = self.memories()?;
        let revisions: u64 = self
            .conn
            .query_row("SELECT COUNT(*) FROM revisions", [], |r| r.get(0))
            .map_err(db)?;
        Ok(StoreSummary {
            id: self.id.clone(),
            file: self.path.display().to_string(),
            totals: self.totals()?,
            peaks: self.peaks()?,
            holders: self.holders()?,
            revisions,
            ever_held: memories.len() as u64,
            deleted: memories.iter().filter(|m| m.deleted).count() as u64,
        })
    }

    /// Every memory the store ever held, in slug order: the current ones
    /// with their sizes now, the deleted ones with the size of their last
    /// text before the delete.
    pub fn memories(&self) -> GgResult<Vec<MemoryEver>> {
        let mut ever: BTreeMap<String, MemoryEver> = BTreeMap::new();
        let mut stmt = self
            .conn
            .prepare(
                "SELECT r.slug, r.revision, r.mutation, r.description, r.agent, agg.n
                 FROM revisions r
                 JOIN (SELECT slug, MAX(seq) AS last, COUNT(*) AS n FROM revisions GROUP BY slug) agg
                   ON r.seq = agg.last",
            )
            .map_err(db)?;
        let rows = stmt
            .query_map([], |r| {
                Ok(MemoryEver {
                    slug: r.get(0)?,
                    last_revision: r.get(1)?,
                    last_mutation: r.get(2)?,
                    description: r.get(3)?,
                    last_agent: r.get(4)?,
                    revisions: r.get(5)?,
                    chars: 0,
                    lines: 0,
                    deleted: true,
                })
            })
            .map_err(db)?;
        for row in rows {
            let m = row.map_err(db)?;
            ever.insert(m.slug.clone(), m);
        }
        let mut current = self
            .conn
            .prepare("SELECT slug, description, chars, lines FROM memories")
            .map_err(db)?;
        let rows = current
            .query_map([], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, u64>(2)?,
                    r.get::<_, u64>(3)?,
                ))
            })
            .map_err(db)?;
        for row in rows {
            let (slug, description, chars, lines) = row.map_err(db)?;
            let m = ever.entry(slug.clone()).or_insert_with(|| MemoryEver {
                slug,
                description: String::new(),
                chars: 0,
                lines: 0,
                deleted: false,
                revisions: 0,
                last_revision: 0,
                last_mutation: String::new(),
                last_agent: String::new(),
            });
            m.description = description;
            m.chars = chars;
            m.lines = lines;
            m.deleted = false;
        }
        let mut last_text = self
            .conn
            .prepare(
                "SELECT body, description FROM revisions WHERE slug = ?1 AND mutation != 'delete'
                 ORDER BY seq DESC LIMIT 1",
            )
            .map_err(db)?;
        for m in ever.values_mut().filter(|m| m.deleted) {
            let last: Option<(String, String)> = last_text
                .query_row([&m.slug], |r| Ok((r.get(0)?, r.get(1)?)))
                .optional()
                .map_err(db)?;
            if let Some((body, description)) = last {
                m.chars = char_count(&body);
                m.lines = line_count(&body);
                if m.description.is_empty() {
                    m.description = description;
                }
            }
        }
        Ok(ever.into_values().collect())
    }

    /// The revision history of `slug`, oldest first (empty if the store
    /// never held it).
    pub fn revisions(&self, slug: &str) -> GgResult<Vec<RevisionView>> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT seq, revision, mutation, description, body, agent, at_ms
                 FROM revisions WHERE slug = ?1 ORDER BY seq",
            )
            .map_err(db)?;
        let rows = stmt
            .query_map([slug], |r| {
                Ok(RevisionView {
                    seq: r.get(0)?,
                    revision: r.get(1)?,
                    mutation: r.get(2)?,
                    description: r.get(3)?,
                    text: r.get(4)?,
                    chars: 0,
                    agent: r.get(5)?,
                    at_ms: r.get(6)?,
                    diff: String::new(),
                })
            })
            .map_err(db)?;
        let mut out: Vec<RevisionView> = Vec::new();
        let mut previous = String::new();
        for row in rows {
            let mut rev = row.map_err(db)?;
            rev.chars = char_count(&rev.text);
            rev.diff = diff(&previous, &rev.text, rev.revision);
            previous = rev.text.clone();
            out.push(rev);
        }
        Ok(out)
    }
}

/// A unified diff between two texts of one memory.
fn diff(old: &str, new: &str, revision: i64) -> String {
    let old_name = if revision > 1 {
        format!("revision {}", revision - 1)
    } else {
        "nothing".to_string()
    };
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .missing_newline_hint(false)
        .header(&old_name, &format!("revision {revision}"))
        .to_string()
}
