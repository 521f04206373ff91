//! One memory store behind one interface ([`MemoryBackend`]) with two
//! backends. The default is an embedded SQLite database per store (WAL,
//! fsync on commit) holding the current set, the append-only revision log,
//! per-slug revision counters, running totals and the run's peaks; every
//! mutation is one `BEGIN IMMEDIATE` transaction, so holders in other
//! threads or processes never lose an update, and what was acknowledged
//! survives a crash. The PostgreSQL backend (`pg_store.rs`) keeps the same
//! promises across hosts.

use std::cell::RefCell;
use std::path::Path;
use std::rc::Rc;

use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};
use serde::Serialize;

use crate::error::{GgError, GgResult};

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS memories (
    slug TEXT PRIMARY KEY,
    description TEXT NOT NULL,
    body TEXT NOT NULL,
    code TEXT,
    on_use TEXT,
    chars INTEGER NOT NULL,
    lines INTEGER NOT NULL,
    index_chars INTEGER NOT NULL,
    seq INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS revisions (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    slug TEXT NOT NULL,
    revision INTEGER NOT NULL,
    mutation TEXT NOT NULL,
    description TEXT NOT NULL,
    body TEXT NOT NULL,
    agent TEXT NOT NULL,
    at_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS slug_counters (slug TEXT PRIMARY KEY, last INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS stats (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    count INTEGER NOT NULL, chars INTEGER NOT NULL, lines INTEGER NOT NULL, index_chars INTEGER NOT NULL,
    peak_count INTEGER NOT NULL, peak_chars INTEGER NOT NULL, peak_lines INTEGER NOT NULL
);
INSERT OR IGNORE INTO stats VALUES (1, 0, 0, 0, 0, 0, 0, 0);
CREATE TABLE IF NOT EXISTS holders (
    holder TEXT PRIMARY KEY,
    watermark INTEGER NOT NULL,
    scope TEXT NOT NULL,
    writable INTEGER NOT NULL
);
";

/// An agent holding the store.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Holder {
    pub agent: String,
    pub scope: String,
    pub writable: bool,
}

/// A memory as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MemoryRecord {
    pub slug: String,
    pub description: String,
    pub body: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    #[serde(skip)]
    pub on_use: Option<String>,
    pub chars: u64,
    pub lines: u64,
}

/// One entry of the revision log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RevisionRecord {
    /// Store-wide order.
    pub seq: i64,
    pub slug: String,
    /// Per slug, counting across deletes.
    pub revision: i64,
    pub mutation: String,
    pub description: String,
    /// The memory's text as of this revision (empty for a delete).
    pub body: String,
    pub agent: String,
}

/// Running totals of the current set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Totals {
    pub count: u64,
    pub chars: u64,
    pub lines: u64,
    pub index_chars: u64,
}

/// The most memories, characters and lines the store ever held at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Peaks {
    pub count: u64,
    pub chars: u64,
    pub lines: u64,
}

/// What a mutation does, decided by the caller inside the transaction.
#[derive(Debug, Clone)]
pub enum Change {
    Put {
        mutation: &'static str,
        description: String,
        body: String,
        code: Option<String>,
        on_use: Option<String>,
    },
    Delete,
}

pub fn char_count(s: &str) -> u64 {
    s.chars().count() as u64
}

pub fn line_count(s: &str) -> u64 {
    s.lines().count() as u64
}

/// The markdown index line of a memory, without its line break.
pub fn index_line(slug: &str, description: &str) -> String {
    format!("- `{slug}` — {description}")
}

/// What the index line costs: its characters and its line break.
pub fn index_cost(slug: &str, description: &str) -> u64 {
    char_count(&index_line(slug, description)) + 1
}

/// Where a memory store lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreLocation {
    /// An embedded SQLite database file (the default).
    Sqlite(std::path::PathBuf),
    /// A store in a PostgreSQL database, shared by every host using it.
    Postgres { url: String },
    /// A store that lives only as long as this process.
    InMemory,
}

/// What one memory store backend does. The SQLite backend keeps each store
/// in a file of its own; the PostgreSQL one keeps every store in shared
/// tables under a `store_id` column. Both promise the same: a mutation is
/// one transaction that sees the store as it stands, revision numbers are
/// gap-free per slug, and a pull hands each revision to a holder once.
pub trait MemoryBackend {
    fn head(&self) -> GgResult<i64>;
    fn get(&self, slug: &str) -> GgResult<Option<MemoryRecord>>;
    /// The current set, in slug order.
    fn list(&self) -> GgResult<Vec<MemoryRecord>>;
    fn totals(&self) -> GgResult<Totals>;
    fn peaks(&self) -> GgResult<Peaks>;
    fn revisions_since(&self, seq: i64) -> GgResult<Vec<RevisionRecord>>;
    fn join(&self, holder: &str, scope: &str, writable: bool) -> GgResult<()>;
    fn holders(&self) -> GgResult<Vec<Holder>>;
    fn pull(&mut self, holder: &str) -> GgResult<Vec<RevisionRecord>>;
    /// `decide` may run more than once when the backend retries a
    /// transaction that lost a race; only the last run's answer counts.
    fn mutate(
        &mut self,
        agent: &str,
        slug: &str,
        decide: &mut dyn FnMut(&TxView<'_>) -> GgResult<Change>,
    ) -> GgResult<RevisionRecord>;
}

/// What a mutation may read inside its transaction.
pub trait TxRead {
    fn get(&self, slug: &str) -> GgResult<Option<MemoryRecord>>;
    /// The `n` largest memories by body characters.
    fn largest(&self, n: usize) -> GgResult<Vec<(String, u64)>>;
    /// The `n` longest index lines.
    fn longest_index_lines(&self, n: usize) -> GgResult<Vec<(String, u64)>>;
}

/// The view of the store a mutation decides on, inside its transaction.
pub struct TxView<'a> {
    read: &'a dyn TxRead,
    pub totals: Totals,
}

impl<'a> TxView<'a> {
    pub fn new(read: &'a dyn TxRead, totals: Totals) -> Self {
        TxView { read, totals }
    }

    pub fn get(&self, slug: &str) -> GgResult<Option<MemoryRecord>> {
        self.read.get(slug)
    }

    /// The `n` largest memories by body characters.
    pub fn largest(&self, n: usize) -> GgResult<Vec<(String, u64)>> {
        self.read.largest(n)
    }

    /// The `n` longest index lines.
    pub fn longest_index_lines(&self, n: usize) -> GgResult<Vec<(String, u64)>> {
        self.read.longest_index_lines(n)
    }
}

/// A stored row: description, body, code, onUse, chars, lines, index chars.
pub type Row = (
    String,
    String,
    Option<String>,
    Option<String>,
    u64,
    u64,
    u64,
);

/// What a decided change writes, worked out the same way by every backend.
pub struct Plan {
    pub mutation: String,
    /// The revision's description and body.
    pub description: String,
    pub body: String,
    /// The row to store (`None` deletes it): description, body, code, onUse,
    /// chars, lines, index chars.
    pub row: Option<Row>,
    /// (count, chars, lines, index chars) before and after, for the totals.
    pub old: [u64; 4],
    pub new: [u64; 4],
}

impl Plan {
    pub fn new(slug: &str, change: Change, before: Option<&MemoryRecord>) -> Plan {
        let old = match before {
            Some(m) => [1, m.chars, m.lines, index_cost(&m.slug, &m.description)],
            None => [0; 4],
        };
        match change {
            Change::Put {
                mutation,
                description,
                body,
                code,
                on_use,
            } => {
                let (chars, lines, index) = (
                    char_count(&body),
                    line_count(&body),
                    index_cost(slug, &description),
                );
                Plan {
                    mutation: mutation.to_string(),
                    row: Some((
                        description.clone(),
                        body.clone(),
                        code,
                        on_use,
                        chars,
                        lines,
                        index,
                    )),
                    description,
                    body,
                    old,
                    new: [1, chars, lines, index],
                }
            }
            Change::Delete => Plan {
                mutation: "delete".to_string(),
                description: before.map(|m| m.description.clone()).unwrap_or_default(),
                body: String::new(),
                row: None,
                old,
                new: [0; 4],
            },
        }
    }
}

/// One memory store, on whichever backend holds it.
pub struct MemoryStore {
    id: String,
    backend: Box<dyn MemoryBackend>,
    /// The current set as of revision `head`, for searches and renders.
    cache: RefCell<Option<(i64, Rc<Vec<MemoryRecord>>)>>,
}

impl MemoryStore {
    /// Opens (creating) the SQLite store at `path`.
    pub fn open(path: &Path, id: &str) -> GgResult<Self> {
        Ok(Self::with_backend(
            id,
            Box::new(SqliteStore::open(path, id)?),
        ))
    }

    /// A store that lives only as long as this process.
    pub fn in_memory(id: &str) -> GgResult<Self> {
        Ok(Self::with_backend(
            id,
            Box::new(SqliteStore::in_memory(id)?),
        ))
    }

    /// Opens (creating) store `id` in the PostgreSQL database at `url`.
    pub fn open_postgres(url: &str, id: &str) -> GgResult<Self> {
        Ok(Self::with_backend(
            id,
            Box::new(super::pg_store::PgStore::open(url, id)?),
        ))
    }

    /// Opens (creating) store `id` wherever `location` says.
    pub fn open_at(location: &StoreLocation, id: &str) -> GgResult<Self> {
        match location {
            StoreLocation::Sqlite(path) => Self::open(path, id),
            StoreLocation::Postgres { url } => Self::open_postgres(url, id),
            StoreLocation::InMemory => Self::in_memory(id),
        }
    }

    pub fn with_backend(id: &str, backend: Box<dyn MemoryBackend>) -> Self {
        MemoryStore {
            id: id.to_string(),
            backend,
            cache: RefCell::new(None),
        }
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    /// The newest revision's `seq` (0 for a store never written).
    pub fn head(&self) -> GgResult<i64> {
        self.backend.head()
    }

    pub fn get(&self, slug: &str) -> GgResult<Option<MemoryRecord>> {
        self.backend.get(slug)
    }

    /// The current set, in slug order (cached until the store changes).
    pub fn list(&self) -> GgResult<Rc<Vec<MemoryRecord>>> {
        let head = self.head()?;
        if let Some((at, set)) = &*self.cache.borrow() {
            if *at == head {
                return Ok(set.clone());
            }
        }
        let set = Rc::new(self.backend.list()?);
        *self.cache.borrow_mut() = Some((head, set.clone()));
        Ok(set)
    }

    pub fn totals(&self) -> GgResult<Totals> {
        self.backend.totals()
    }

    pub fn peaks(&self) -> GgResult<Peaks> {
        self.backend.peaks()
    }

    /// The revision log after `seq`, in order.
    pub fn revisions_since(&self, seq: i64) -> GgResult<Vec<RevisionRecord>> {
        self.backend.revisions_since(seq)
    }

    /// Registers `holder`; a holder that joins late starts at the store's
    /// head (no backlog). A returning holder keeps its watermark.
    pub fn join(&self, holder: &str, scope: &str, writable: bool) -> GgResult<()> {
        self.backend.join(holder, scope, writable)
    }

    pub fn holders(&self) -> GgResult<Vec<Holder>> {
        self.backend.holders()
    }

    /// Takes the revisions since `holder`'s watermark and moves the
    /// watermark to the head, atomically: each revision is handed to each
    /// holder exactly once.
    pub fn pull(&mut self, holder: &str) -> GgResult<Vec<RevisionRecord>> {
        self.backend.pull(holder)
    }

    /// Runs one mutation of `slug` atomically: `decide` sees the store as it
    /// stands inside the transaction and returns the change or a refusal. A
    /// refusal writes nothing. `decide` may run again if the backend retries
    /// a transaction that lost a race.
    pub fn mutate(
        &mut self,
        agent: &str,
        slug: &str,
        mut decide: impl FnMut(&TxView<'_>) -> GgResult<Change>,
    ) -> GgResult<RevisionRecord> {
        self.backend.mutate(agent, slug, &mut decide)
    }
}

/// The SQLite backend: one database file per store.
pub struct SqliteStore {
    conn: Connection,
}

struct SqliteTx<'a>(&'a rusqlite::Transaction<'a>);

impl TxRead for SqliteTx<'_> {
    fn get(&self, slug: &str) -> GgResult<Option<MemoryRecord>> {
        get(self.0, slug)
    }

    fn largest(&self, n: usize) -> GgResult<Vec<(String, u64)>> {
        let mut stmt = self
            .0
            .prepare_cached("SELECT slug, chars FROM memories ORDER BY chars DESC, slug LIMIT ?1")
            .map_err(db)?;
        let rows = stmt
            .query_map([n as i64], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(db)?;
        rows.collect::<Result<_, _>>().map_err(db)
    }

    fn longest_index_lines(&self, n: usize) -> GgResult<Vec<(String, u64)>> {
        let mut stmt = self
            .0
            .prepare_cached(
                "SELECT slug, index_chars FROM memories ORDER BY index_chars DESC, slug LIMIT ?1",
            )
            .map_err(db)?;
        let rows = stmt
            .query_map([n as i64], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(db)?;
        rows.collect::<Result<_, _>>().map_err(db)
    }
}

fn db(e: rusqlite::Error) -> GgError {
    GgError::io(format!("the memory store failed: {e}"))
}

fn get(conn: &Connection, slug: &str) -> GgResult<Option<MemoryRecord>> {
    conn.prepare_cached(
        "SELECT slug, description, body, code, on_use, chars, lines FROM memories WHERE slug = ?1",
    )
    .map_err(db)?
    .query_row([slug], row_to_record)
    .optional()
    .map_err(db)
}

fn row_to_record(r: &rusqlite::Row<'_>) -> rusqlite::Result<MemoryRecord> {
    Ok(MemoryRecord {
        slug: r.get(0)?,
        description: r.get(1)?,
        body: r.get(2)?,
        code: r.get(3)?,
        on_use: r.get(4)?,
        chars: r.get(5)?,
        lines: r.get(6)?,
    })
}

pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

impl SqliteStore {
    /// Opens (creating) the store at `path`.
    pub fn open(path: &Path, id: &str) -> GgResult<Self> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| GgError::io(format!("cannot create {}: {e}", parent.display())))?;
        }
        let conn = crate::state::open_database(path).map_err(db)?;
        Self::init(conn, id)
    }

    pub fn in_memory(id: &str) -> GgResult<Self> {
        Self::init(Connection::open_in_memory().map_err(db)?, id)
    }

    fn init(conn: Connection, id: &str) -> GgResult<Self> {
        conn.execute_batch(SCHEMA).map_err(db)?;
        conn.execute(
            "INSERT OR IGNORE INTO meta (key, value) VALUES ('store_id', ?1)",
            [id],
        )
        .map_err(db)?;
        Ok(SqliteStore { conn })
    }
}

impl MemoryBackend for SqliteStore {
    fn head(&self) -> GgResult<i64> {
        self.conn
            .query_row("SELECT COALESCE(MAX(seq), 0) FROM revisions", [], |r| {
                r.get(0)
            })
            .map_err(db)
    }

    fn get(&self, slug: &str) -> GgResult<Option<MemoryRecord>> {
        get(&self.conn, slug)
    }

    fn list(&self) -> GgResult<Vec<MemoryRecord>> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT slug, description, body, code, on_use, chars, lines FROM memories ORDER BY slug")
            .map_err(db)?;
        let set: Vec<MemoryRecord> = stmt
            .query_map([], row_to_record)
            .map_err(db)?
            .collect::<Result<_, _>>()
            .map_err(db)?;
        Ok(set)
    }

    fn totals(&self) -> GgResult<Totals> {
        totals(&self.conn)
    }

    fn peaks(&self) -> GgResult<Peaks> {
        peaks(&self.conn)
    }

    fn revisions_since(&self, seq: i64) -> GgResult<Vec<RevisionRecord>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT seq, slug, revision, mutation, description, body, agent FROM revisions WHERE seq > ?1 ORDER BY seq",
            )
            .map_err(db)?;
        let rows = stmt.query_map([seq], revision_row).map_err(db)?;
        rows.collect::<Result<_, _>>().map_err(db)
    }

    fn join(&self, holder: &str, scope: &str, writable: bool) -> GgResult<()> {
        self.conn
            .execute(
                "INSERT INTO holders (holder, watermark, scope, writable)
                 VALUES (?1, (SELECT COALESCE(MAX(seq), 0) FROM revisions), ?2, ?3)
                 ON CONFLICT(holder) DO UPDATE SET scope = ?2, writable = ?3",
                params![holder, scope, writable],
            )
            .map_err(db)?;
        Ok(())
    }

    fn holders(&self) -> GgResult<Vec<Holder>> {
        holders(&self.conn)
    }

    fn pull(&mut self, holder: &str) -> GgResult<Vec<RevisionRecord>> {
        // Every turn pulls; most find nothing new. Answer those with a plain
        // read instead of taking the store's write lock.
        let behind: Option<bool> = self
            .conn
            .query_row(
                "SELECT watermark < (SELECT COALESCE(MAX(seq), 0) FROM revisions) FROM holders WHERE holder = ?1",
                [holder],
                |r| r.get(0),
            )
            .optional()
            .map_err(db)?;
        if behind != Some(true) {
            return Ok(Vec::new());
        }
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(db)?;
        let watermark: Option<i64> = tx
            .query_row(
                "SELECT watermark FROM holders WHERE holder = ?1",
                [holder],
                |r| r.get(0),
            )
            .optional()
            .map_err(db)?;
        let Some(watermark) = watermark else {
            return Ok(Vec::new());
        };
        let revisions = {
            let mut stmt = tx
                .prepare_cached(
                    "SELECT seq, slug, revision, mutation, description, body, agent FROM revisions WHERE seq > ?1 ORDER BY seq",
                )
                .map_err(db)?;
            let rows = stmt.query_map([watermark], revision_row).map_err(db)?;
            rows.collect::<Result<Vec<_>, _>>().map_err(db)?
        };
        if let Some(last) = revisions.last() {
            tx.execute(
                "UPDATE holders SET watermark = ?2 WHERE holder = ?1",
                params![holder, last.seq],
            )
            .map_err(db)?;
        }
        tx.commit().map_err(db)?;
        Ok(revisions)
    }

    fn mutate(
        &mut self,
        agent: &str,
        slug: &str,
        decide: &mut dyn FnMut(&TxView<'_>) -> GgResult<Change>,
    ) -> GgResult<RevisionRecord> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(db)?;
        let read = SqliteTx(&tx);
        let view = TxView::new(&read, totals(&tx)?);
        let change = decide(&view)?;
        let before = view.get(slug)?;
        let plan = Plan::new(slug, change, before.as_ref());
        let revision: i64 = tx
            .query_row(
                "INSERT INTO slug_counters (slug, last) VALUES (?1, 1)
                 ON CONFLICT(slug) DO UPDATE SET last = last + 1 RETURNING last",
                [slug],
                |r| r.get(0),
            )
            .map_err(db)?;
        tx.execute(
            "INSERT INTO revisions (slug, revision, mutation, description, body, agent, at_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![slug, revision, plan.mutation, plan.description, plan.body, agent, now_ms()],
        )
        .map_err(db)?;
        let seq = tx.last_insert_rowid();
        match &plan.row {
            Some((description, body, code, on_use, chars, lines, index)) => {
                tx.execute(
                    "INSERT INTO memories (slug, description, body, code, on_use, chars, lines, index_chars, seq)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
                     ON CONFLICT(slug) DO UPDATE SET description = ?2, body = ?3, code = ?4, on_use = ?5,
                        chars = ?6, lines = ?7, index_chars = ?8, seq = ?9",
                    params![slug, description, body, code, on_use, chars, lines, index, seq],
                )
                .map_err(db)?;
            }
            None => {
                tx.execute("DELETE FROM memories WHERE slug = ?1", [slug])
                    .map_err(db)?;
            }
        }
        let [old_count, old_chars, old_lines, old_index] = plan.old;
        let [new_count, new_chars, new_lines, new_index] = plan.new;
        tx.execute(
            "UPDATE stats SET count = count + ?1 - ?2, chars = chars + ?3 - ?4, lines = lines + ?5 - ?6,
                index_chars = index_chars + ?7 - ?8 WHERE id = 1",
            params![new_count, old_count, new_chars, old_chars, new_lines, old_lines, new_index, old_index],
        )
        .map_err(db)?;
        tx.execute(
            "UPDATE stats SET peak_count = MAX(peak_count, count), peak_chars = MAX(peak_chars, chars),
                peak_lines = MAX(peak_lines, lines) WHERE id = 1",
            [],
        )
        .map_err(db)?;
        tx.commit().map_err(db)?;
        Ok(RevisionRecord {
            seq,
            slug: slug.to_string(),
            revision,
            mutation: plan.mutation,
            description: plan.description,
            body: plan.body,
            agent: agent.to_string(),
        })
    }
}

fn revision_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<RevisionRecord> {
    Ok(RevisionRecord {
        seq: r.get(0)?,
        slug: r.get(1)?,
        revision: r.get(2)?,
        mutation: r.get(3)?,
        description: r.get(4)?,
        body: r.get(5)?,
        agent: r.get(6)?,
    })
}

/// A store's peaks, off its database (also read by the console).
pub(crate) fn peaks(conn: &Connection) -> GgResult<Peaks> {
    conn.query_row(
        "SELECT peak_count, peak_chars, peak_lines FROM stats WHERE id = 1",
        [],
        |r| {
            Ok(Peaks {
                count: r.get(0)?,
                chars: r.get(1)?,
                lines: r.get(2)?,
            })
        },
    )
    .map_err(db)
}

/// A store's holders, off its database (also read by the console).
pub(crate) fn holders(conn: &Connection) -> GgResult<Vec<Holder>> {
    let mut stmt = conn
        .prepare_cached("SELECT holder, scope, writable FROM holders ORDER BY holder")
        .map_err(db)?;
    let rows = stmt
        .query_map([], |r| {
            Ok(Holder {
                agent: r.get(0)?,
                scope: r.get(1)?,
                writable: r.get(2)?,
            })
        })
        .map_err(db)?;
    rows.collect::<Result<_, _>>().map_err(db)
}

/// A store's running totals, off its database (also read by the console).
pub(crate) fn totals(conn: &Connection) -> GgResult<Totals> {
    conn.query_row(
        "SELECT count, chars, lines, index_chars FROM stats WHERE id = 1",
        [],
        |r| {
            Ok(Totals {
                count: r.get(0)?,
                chars: r.get(1)?,
                lines: r.get(2)?,
                index_chars: r.get(3)?,
            })
        },
    )
    .map_err(db)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(body: &str) -> Change {
        Change::Put {
            mutation: "create",
            description: "d".into(),
            body: body.into(),
            code: None,
            on_use: None,
        }
    }

    #[test]
    fn revisions_count_per_slug_across_deletes_and_peaks_never_fall() {
        let mut s = MemoryStore::in_memory("t").unwrap();
        assert_eq!(
            s.mutate("a", "x", |_| Ok(put("one\ntwo")))
                .unwrap()
                .revision,
            1
        );
        assert_eq!(s.mutate("a", "y", |_| Ok(put("abc"))).unwrap().revision, 1);
        assert_eq!(
            s.mutate("a", "x", |_| Ok(Change::Delete)).unwrap().revision,
            2
        );
        assert_eq!(
            s.mutate("a", "x", |_| Ok(put("again"))).unwrap().revision,
            3
        );
        let t = s.totals().unwrap();
        assert_eq!((t.count, t.chars, t.lines), (2, 8, 2));
        assert_eq!(
            s.peaks().unwrap(),
            Peaks {
                count: 2,
                chars: 10,
                lines: 3
            }
        );
        assert_eq!(s.revisions_since(0).unwrap().len(), 4);
        assert_eq!(
            s.list()
                .unwrap()
                .iter()
                .map(|m| m.slug.as_str())
                .collect::<Vec<_>>(),
            ["x", "y"]
        );
    }

    #[test]
    fn a_refusal_writes_nothing() {
        let mut s = MemoryStore::in_memory("t").unwrap();
        let err = s
            .mutate("a", "x", |_| Err(GgError::limit("no")))
            .unwrap_err();
        assert_eq!(err.message, "no");
        assert_eq!(s.head().unwrap(), 0);
        assert_eq!(s.totals().unwrap(), Totals::default());
        // And the slug's counter did not move.
        assert_eq!(s.mutate("a", "x", |_| Ok(put("b"))).unwrap().revision, 1);
    }
}
