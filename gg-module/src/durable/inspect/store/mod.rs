//! One memory store, read-only: its totals and peaks, its holders, every
//! memory it ever held (deleted ones included) and each memory's revision
//! history with a diff to the previous revision. The rows come from a
//! [`Source`]: the store's SQLite file (`sqlite.rs`) or its rows in
//! PostgreSQL's shared tables (`pg.rs`); what the console shows is
//! built from them here, once for both.

mod pg;
mod sqlite;

pub(super) use pg::PgStores;

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

use crate::durable::memory_store::{char_count, line_count, Holder, Peaks, Totals};
use crate::error::GgResult;

/// A row type the sources read off one query: its columns, in the order the
/// query's SELECT lists them, name its fields, so each source maps every
/// query with one reader instead of a closure per query.
pub(super) trait Row {
    /// The selected columns, in order.
    type Columns;
    /// The row with the columns' values in its named fields.
    fn new(columns: Self::Columns) -> Self;
}

/// A memory's newest revision, and how many revisions its slug has.
pub(super) struct Latest {
    pub slug: String,
    pub revision: i64,
    pub mutation: String,
    pub description: String,
    pub agent: String,
    pub revisions: u64,
}

impl Row for Latest {
    type Columns = (String, i64, String, String, String, u64);
    fn new((slug, revision, mutation, description, agent, revisions): Self::Columns) -> Self {
        Latest {
            slug,
            revision,
            mutation,
            description,
            agent,
            revisions,
        }
    }
}

/// A memory held now, with its size in characters and lines.
pub(super) struct Current {
    pub slug: String,
    pub description: String,
    pub chars: u64,
    pub lines: u64,
}

impl Row for Current {
    type Columns = (String, String, u64, u64);
    fn new((slug, description, chars, lines): Self::Columns) -> Self {
        Current {
            slug,
            description,
            chars,
            lines,
        }
    }
}

/// A memory's last text before its delete.
pub(super) struct LastText {
    pub slug: String,
    pub body: String,
    pub description: String,
}

impl Row for LastText {
    type Columns = (String, String, String);
    fn new((slug, body, description): Self::Columns) -> Self {
        LastText {
            slug,
            body,
            description,
        }
    }
}

/// One revision as logged; `at_ms` is in ms since the Unix epoch.
pub(super) struct Logged {
    pub seq: i64,
    pub revision: i64,
    pub mutation: String,
    pub description: String,
    pub body: String,
    pub agent: String,
    pub at_ms: i64,
}

impl Row for Logged {
    type Columns = (i64, i64, String, String, String, String, i64);
    fn new((seq, revision, mutation, description, body, agent, at_ms): Self::Columns) -> Self {
        Logged {
            seq,
            revision,
            mutation,
            description,
            body,
            agent,
            at_ms,
        }
    }
}

/// A revision one agent made; `at_ms` is in ms since the Unix epoch.
pub(super) struct Made {
    pub seq: i64,
    pub slug: String,
    pub revision: i64,
    pub mutation: String,
    pub at_ms: i64,
}

impl Row for Made {
    type Columns = (i64, String, i64, String, i64);
    fn new((seq, slug, revision, mutation, at_ms): Self::Columns) -> Self {
        Made {
            seq,
            slug,
            revision,
            mutation,
            at_ms,
        }
    }
}

/// Where one store's rows come from. Every method only reads.
pub(super) trait Source: Send {
    /// Running totals of the current set.
    fn totals(&self) -> GgResult<Totals>;
    /// The most the store ever held at once.
    fn peaks(&self) -> GgResult<Peaks>;
    /// Every agent instance holding the store, in id order.
    fn holders(&self) -> GgResult<Vec<Holder>>;
    /// Entries in the revision log: all of them, or `agent`'s.
    fn revision_count(&self, agent: Option<&str>) -> GgResult<u64>;
    /// Each slug's newest revision.
    fn latest(&self) -> GgResult<Vec<Latest>>;
    /// The memories held now.
    fn current(&self) -> GgResult<Vec<Current>>;
    /// The last text of each of `slugs` before its delete (a slug with
    /// none is left out).
    fn last_texts(&self, slugs: &[String]) -> GgResult<Vec<LastText>>;
    /// The revisions of `slug`, oldest first.
    fn history(&self, slug: &str) -> GgResult<Vec<Logged>>;
    /// Slugs whose name, description or text (now, or in any revision)
    /// contains `needle`, already lower-cased: matched without regard to
    /// ASCII case.
    fn matching(&self, needle: &str) -> GgResult<Vec<String>>;
    /// The newest `limit` revisions `agent` made, oldest first.
    fn made_by(&self, agent: &str, limit: i64) -> GgResult<Vec<Made>>;
    /// (memories ever held, memories held now), when the source can count
    /// them without listing them; `None` has [`StoreReader::summary`]
    /// count them off [`StoreReader::memories`].
    fn held_counts(&self) -> GgResult<Option<(u64, u64)>> {
        Ok(None)
    }
}

/// A memory store opened read-only.
pub struct StoreReader {
    id: String,
    file: String,
    source: Box<dyn Source>,
}

/// A store as the Modules tab and the Memories panel show it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StoreSummary {
    /// The store's id: its file name under `memories/`, or its `store_id`
    /// in PostgreSQL.
    pub id: String,
    /// Where it lives: the database file's path, or the PostgreSQL
    /// database, schema and `store_id`.
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

/// A revision as an agent's transcript lists it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MadeRevision {
    /// The store it was made in.
    pub store: String,
    /// Store-wide order.
    pub seq: i64,
    /// The memory's slug.
    pub slug: String,
    /// Per slug, counting across deletes.
    pub revision: i64,
    /// `write`, `create`, `update`, `edit` or `delete`.
    pub mutation: String,
    /// When it was made, in ms since the Unix epoch.
    pub at_ms: i64,
}

impl StoreReader {
    /// Opens the store database at `path` read-only; refuses a file that is
    /// not a gg memory store.
    pub fn open(path: &Path) -> GgResult<Self> {
        // The file's name is the store's id (`memories/<id>.sqlite`); the
        // `meta` row is not, since a fork's copy carries its original's.
        let id = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let source = sqlite::SqliteSource::open(path)?;
        Ok(Self::new(id, path.display().to_string(), Box::new(source)))
    }

    /// A store `id` living at `file`, read off `source`.
    pub(super) fn new(id: String, file: String, source: Box<dyn Source>) -> Self {
        StoreReader { id, file, source }
    }

    /// The store's id: its file name without `.sqlite`, or its `store_id`.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Running totals of the current set.
    pub fn totals(&self) -> GgResult<Totals> {
        self.source.totals()
    }

    /// The most the store ever held at once.
    pub fn peaks(&self) -> GgResult<Peaks> {
        self.source.peaks()
    }

    /// Every agent instance holding the store, in id order.
    pub fn holders(&self) -> GgResult<Vec<Holder>> {
        self.source.holders()
    }

    /// Revisions the agent made in this store.
    pub fn revisions_by(&self, agent: &str) -> GgResult<u64> {
        self.source.revision_count(Some(agent))
    }

    /// The store's totals, peaks, holders and revision counts.
    pub fn summary(&self) -> GgResult<StoreSummary> {
        // Counted, not listed: listing a store of 40 000 memories (every
        // slug's newest revision, every current row) took 130 ms of the
        // console's overview.
        let (ever_held, deleted) = match self.source.held_counts()? {
            Some((ever, now)) => (ever, ever.saturating_sub(now)),
            None => {
                let memories = self.memories()?;
                let deleted = memories.iter().filter(|m| m.deleted).count();
                (memories.len() as u64, deleted as u64)
            }
        };
        Ok(StoreSummary {
            id: self.id.clone(),
            file: self.file.clone(),
            totals: self.totals()?,
            peaks: self.peaks()?,
            holders: self.holders()?,
            revisions: self.source.revision_count(None)?,
            ever_held,
            deleted,
        })
    }

    /// Every memory the store ever held, in slug order: the current ones
    /// with their sizes now, the deleted ones with the size of their last
    /// text before the delete.
    pub fn memories(&self) -> GgResult<Vec<MemoryEver>> {
        // Every slug in the log starts out deleted; the current set then
        // revives the ones still held.
        let mut ever: BTreeMap<String, MemoryEver> = BTreeMap::new();
        for latest in self.source.latest()? {
            let m = MemoryEver {
                slug: latest.slug.clone(),
                description: latest.description,
                chars: 0,
                lines: 0,
                deleted: true,
                revisions: latest.revisions,
                last_revision: latest.revision,
                last_mutation: latest.mutation,
                last_agent: latest.agent,
            };
            ever.insert(latest.slug, m);
        }
        for Current {
            slug,
            description,
            chars,
            lines,
        } in self.source.current()?
        {
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
        let deleted: Vec<String> = ever
            .values()
            .filter(|m| m.deleted)
            .map(|m| m.slug.clone())
            .collect();
        if !deleted.is_empty() {
            for last in self.source.last_texts(&deleted)? {
                if let Some(m) = ever.get_mut(&last.slug) {
                    m.chars = char_count(&last.body);
                    m.lines = line_count(&last.body);
                    if m.description.is_empty() {
                        m.description = last.description;
                    }
                }
            }
        }
        Ok(ever.into_values().collect())
    }

    /// Every memory the store ever held whose slug, description or text
    /// (now or in any revision) contains `query`, ignoring ASCII case; in
    /// slug order. An empty query matches every memory.
    pub fn search(&self, query: &str) -> GgResult<Vec<MemoryEver>> {
        let memories = self.memories()?;
        if query.is_empty() {
            return Ok(memories);
        }
        let hits: std::collections::BTreeSet<String> = self
            .source
            .matching(&query.to_ascii_lowercase())?
            .into_iter()
            .collect();
        Ok(memories
            .into_iter()
            .filter(|m| hits.contains(&m.slug))
            .collect())
    }

    /// The newest `limit` revisions `agent` made in this store, oldest
    /// first: when it wrote what.
    pub fn made_by(&self, agent: &str, limit: usize) -> GgResult<Vec<MadeRevision>> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        Ok(self
            .source
            .made_by(agent, limit)?
            .into_iter()
            .map(|made| MadeRevision {
                store: self.id.clone(),
                seq: made.seq,
                slug: made.slug,
                revision: made.revision,
                mutation: made.mutation,
                at_ms: made.at_ms,
            })
            .collect())
    }

    /// The revision history of `slug`, oldest first (empty if the store
    /// never held it).
    pub fn revisions(&self, slug: &str) -> GgResult<Vec<RevisionView>> {
        let mut out: Vec<RevisionView> = Vec::new();
        let mut previous = String::new();
        for logged in self.source.history(slug)? {
            let diff = diff(&previous, &logged.body, logged.revision);
            previous = logged.body.clone();
            out.push(RevisionView {
                seq: logged.seq,
                revision: logged.revision,
                mutation: logged.mutation,
                description: logged.description,
                chars: char_count(&logged.body),
                text: logged.body,
                agent: logged.agent,
                at_ms: logged.at_ms,
                diff,
            });
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
