//! One memory store behind one interface ([`MemoryBackend`]) with two
//! backends. The default is an embedded SQLite database per store (WAL,
//! fsync on commit) holding the current set, the append-only revision log,
//! per-slug revision counters, running totals and the run's peaks; every
//! mutation is one `BEGIN IMMEDIATE` transaction, so holders in other
//! threads or processes never lose an update, and what was acknowledged
//! survives a crash. The PostgreSQL backend (`memory_store_pg.rs`) keeps the same
//! promises across hosts.

use std::cell::RefCell;
use std::path::Path;
use std::rc::Rc;

use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};
use serde::Serialize;

use crate::error::{GgError, GgResult};

/// An agent holding the store.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Holder {
    /// The holding agent instance's id.
    pub agent: String,
    /// The scope it holds the store under (`shared`, `read-only`...).
    pub scope: String,
    /// Whether it may write.
    pub writable: bool,
}

/// A memory as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MemoryRecord {
    /// The memory's name: 1-64 letters, digits, `-`, `_`, `.`.
    pub slug: String,
    /// One line saying what it holds (may be empty under keyword-search).
    pub description: String,
    /// The body.
    pub body: String,
    /// The TypeScript module half, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// The onUse script half, if any; never serialized, never shown back.
    #[serde(skip)]
    pub on_use: Option<String>,
    /// Characters in the body.
    pub chars: u64,
    /// Lines in the body.
    pub lines: u64,
}

/// One entry of the revision log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RevisionRecord {
    /// Store-wide order.
    pub seq: i64,
    /// The memory it revised.
    pub slug: String,
    /// Per slug, counting across deletes.
    pub revision: i64,
    /// The call that made it.
    pub mutation: Mutation,
    /// The description as of this revision (the last one, for a delete).
    pub description: String,
    /// The memory's text as of this revision (empty for a delete).
    pub body: String,
    /// The agent instance that made it.
    pub agent: String,
}

/// Running totals of the current set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Totals {
    /// Memories held.
    pub count: u64,
    /// Body characters across them.
    pub chars: u64,
    /// Body lines across them.
    pub lines: u64,
    /// Characters the markdown index would take, line breaks included.
    pub index_chars: u64,
}

/// The most memories, characters and lines the store ever held at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Peaks {
    /// The most memories held at once.
    pub count: u64,
    /// The most body characters held at once.
    pub chars: u64,
    /// The most body lines held at once.
    pub lines: u64,
}

/// What the revision log calls one mutation: the call that made it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Mutation {
    /// A scratchpad `writeMemory`: a new memory.
    Write,
    /// `createMemory`: a new memory.
    Create,
    /// A scratchpad `updateMemory`: a whole new version.
    Update,
    /// `editMemory`: one search/replace.
    Edit,
    /// `deleteMemory`.
    Delete,
}

impl Mutation {
    /// The name the store and the events use (`create`, `edit`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Mutation::Write => "write",
            Mutation::Create => "create",
            Mutation::Update => "update",
            Mutation::Edit => "edit",
            Mutation::Delete => "delete",
        }
    }

    /// The name a native call's reply uses (`created`, `edited`, …).
    pub fn past_tense(self) -> &'static str {
        match self {
            Mutation::Write => "wrote",
            Mutation::Create => "created",
            Mutation::Update => "updated",
            Mutation::Edit => "edited",
            Mutation::Delete => "deleted",
        }
    }

    /// Whether the memory did not exist before this mutation.
    pub fn makes_new(self) -> bool {
        matches!(self, Mutation::Write | Mutation::Create)
    }

    /// Reads a stored name; `None` for one gg never writes.
    pub fn parse(name: &str) -> Option<Mutation> {
        Some(match name {
            "write" => Mutation::Write,
            "create" => Mutation::Create,
            "update" => Mutation::Update,
            "edit" => Mutation::Edit,
            "delete" => Mutation::Delete,
            _ => return None,
        })
    }
}

impl rusqlite::types::ToSql for Mutation {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        Ok(self.as_str().into())
    }
}

impl rusqlite::types::FromSql for Mutation {
    fn column_result(value: rusqlite::types::ValueRef<'_>) -> rusqlite::types::FromSqlResult<Self> {
        let name = value.as_str()?;
        Mutation::parse(name).ok_or_else(|| {
            rusqlite::types::FromSqlError::Other(
                format!("unknown mutation {name:?} in the revision log").into(),
            )
        })
    }
}

impl postgres::types::ToSql for Mutation {
    fn to_sql(
        &self,
        ty: &postgres::types::Type,
        out: &mut postgres::types::private::BytesMut,
    ) -> Result<postgres::types::IsNull, Box<dyn std::error::Error + Sync + Send>> {
        self.as_str().to_sql(ty, out)
    }

    fn accepts(ty: &postgres::types::Type) -> bool {
        <&str as postgres::types::ToSql>::accepts(ty)
    }

    postgres::types::to_sql_checked!();
}

impl<'a> postgres::types::FromSql<'a> for Mutation {
    fn from_sql(
        ty: &postgres::types::Type,
        raw: &'a [u8],
    ) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        let name = <&str as postgres::types::FromSql>::from_sql(ty, raw)?;
        Mutation::parse(name)
            .ok_or_else(|| format!("unknown mutation {name:?} in the revision log").into())
    }

    fn accepts(ty: &postgres::types::Type) -> bool {
        <&str as postgres::types::FromSql>::accepts(ty)
    }
}

impl std::fmt::Display for Mutation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a mutation does, decided by the caller inside the transaction.
#[derive(Debug, Clone)]
pub enum Change {
    /// Stores the memory, replacing any version of it.
    Put {
        /// What the revision log calls it (never [`Mutation::Delete`]).
        mutation: Mutation,
        /// The new description.
        description: String,
        /// The new body.
        body: String,
        /// The new code half (`None` clears it).
        code: Option<String>,
        /// The new onUse half (`None` clears it).
        on_use: Option<String>,
    },
    /// Removes the memory.
    Delete,
}

/// Characters in `s`, counted as Unicode scalar values like every gg limit.
pub fn char_count(s: &str) -> u64 {
    s.chars().count() as u64
}

/// Lines in `s`, as `str::lines` counts them.
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
    Postgres {
        /// The connection URL.
        url: String,
    },
    /// A store that lives only as long as this process.
    InMemory,
}

/// What one memory store backend does. The SQLite backend keeps each store
/// in a file of its own; the PostgreSQL one keeps every store in shared
/// tables under a `store_id` column. Both promise the same: a mutation is
/// one transaction that sees the store as it stands, revision numbers are
/// gap-free per slug, and a pull hands each revision to a holder once.
pub trait MemoryBackend {
    /// The newest revision's `seq` (0 for a store never written).
    fn head(&self) -> GgResult<i64>;
    /// The memory named `slug`, if the store holds it.
    fn get(&self, slug: &str) -> GgResult<Option<MemoryRecord>>;
    /// The current set, in slug order.
    fn list(&self) -> GgResult<Vec<MemoryRecord>>;
    /// Running totals of the current set.
    fn totals(&self) -> GgResult<Totals>;
    /// The most the store ever held at once.
    fn peaks(&self) -> GgResult<Peaks>;
    /// The revision log after `seq`, in order.
    fn revisions_since(&self, seq: i64) -> GgResult<Vec<RevisionRecord>>;
    /// Registers `holder` with its watermark at the head; a returning holder
    /// keeps its watermark and has its scope and write access updated.
    fn join(&self, holder: &str, scope: &str, writable: bool) -> GgResult<()>;
    /// Every holder, in id order.
    fn holders(&self) -> GgResult<Vec<Holder>>;
    /// The revisions past `holder`'s watermark, moving the watermark to the
    /// last of them in the same transaction.
    fn pull(&mut self, holder: &str) -> GgResult<Vec<RevisionRecord>>;
    /// Runs one mutation of `slug` by `agent` as one transaction.
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
    /// The memory named `slug`, as the transaction sees it.
    fn get(&self, slug: &str) -> GgResult<Option<MemoryRecord>>;
    /// The `n` largest memories by body characters.
    fn largest(&self, n: usize) -> GgResult<Vec<(String, u64)>>;
    /// The `n` longest index lines.
    fn longest_index_lines(&self, n: usize) -> GgResult<Vec<(String, u64)>>;
}

/// The view of the store a mutation decides on, inside its transaction.
pub struct TxView<'a> {
    read: &'a dyn TxRead,
    /// The store's running totals, before this mutation.
    pub totals: Totals,
}

impl<'a> TxView<'a> {
    /// A view reading through `read`, with the totals as they stand.
    pub fn new(read: &'a dyn TxRead, totals: Totals) -> Self {
        TxView { read, totals }
    }

    /// The memory named `slug`, as the transaction sees it.
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

/// One memory's row as a plan stores it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredRow {
    /// The one-line description.
    pub description: String,
    /// The memory's text.
    pub body: String,
    /// The code half, if any.
    pub code: Option<String>,
    /// The onUse half, if any.
    pub on_use: Option<String>,
    /// Body characters.
    pub chars: u64,
    /// Body lines.
    pub lines: u64,
    /// Characters the memory's markdown index line takes.
    pub index_chars: u64,
}

impl Totals {
    /// What one memory adds to a set's totals.
    fn of_one(chars: u64, lines: u64, index_chars: u64) -> Totals {
        Totals {
            count: 1,
            chars,
            lines,
            index_chars,
        }
    }
}

/// What a decided change writes, worked out the same way by every backend.
pub struct Plan {
    /// What the revision log calls it.
    pub mutation: Mutation,
    /// The revision's description.
    pub description: String,
    /// The revision's body (empty for a delete).
    pub body: String,
    /// The row to store; `None` deletes it.
    pub row: Option<StoredRow>,
    /// What the memory added to the set's totals before the change.
    pub old: Totals,
    /// What it adds after the change.
    pub new: Totals,
}

impl Plan {
    /// Works out what `change` to `slug` writes, given the version `before`
    /// it replaces, if any.
    pub fn new(slug: &str, change: Change, before: Option<&MemoryRecord>) -> Plan {
        let old = match before {
            Some(m) => Totals::of_one(m.chars, m.lines, index_cost(&m.slug, &m.description)),
            None => Totals::default(),
        };
        match change {
            Change::Put {
                mutation,
                description,
                body,
                code,
                on_use,
            } => {
                let (chars, lines, index_chars) = (
                    char_count(&body),
                    line_count(&body),
                    index_cost(slug, &description),
                );
                Plan {
                    mutation,
                    row: Some(StoredRow {
                        description: description.clone(),
                        body: body.clone(),
                        code,
                        on_use,
                        chars,
                        lines,
                        index_chars,
                    }),
                    description,
                    body,
                    old,
                    new: Totals::of_one(chars, lines, index_chars),
                }
            }
            Change::Delete => Plan {
                mutation: Mutation::Delete,
                description: before.map(|m| m.description.clone()).unwrap_or_default(),
                body: String::new(),
                row: None,
                old,
                new: Totals::default(),
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
            Box::new(super::memory_store_pg::PgStore::open(url, id)?),
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

    /// Store `id` on a backend the caller opened.
    pub fn with_backend(id: &str, backend: Box<dyn MemoryBackend>) -> Self {
        MemoryStore {
            id: id.to_string(),
            backend,
            cache: RefCell::new(None),
        }
    }

    /// The store's id, which names it across the run and in the console.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The newest revision's `seq` (0 for a store never written).
    pub fn head(&self) -> GgResult<i64> {
        self.backend.head()
    }

    /// The memory named `slug`, if the store holds it.
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

    /// Running totals of the current set.
    pub fn totals(&self) -> GgResult<Totals> {
        self.backend.totals()
    }

    /// The most the store ever held at once.
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

    /// Every agent holding the store, in id order.
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
        let conn = crate::durable::open_database(path).map_err(db)?;
        Self::init(conn, id)
    }

    /// A store in an in-memory database, gone with this process.
    pub fn in_memory(id: &str) -> GgResult<Self> {
        Self::init(Connection::open_in_memory().map_err(db)?, id)
    }

    fn init(conn: Connection, id: &str) -> GgResult<Self> {
        conn.execute_batch(super::schema::MEMORY_STORE)
            .map_err(db)?;
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
            Some(row) => {
                tx.execute(
                    "INSERT INTO memories (slug, description, body, code, on_use, chars, lines, index_chars, seq)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
                     ON CONFLICT(slug) DO UPDATE SET description = ?2, body = ?3, code = ?4, on_use = ?5,
                        chars = ?6, lines = ?7, index_chars = ?8, seq = ?9",
                    params![
                        slug,
                        row.description,
                        row.body,
                        row.code,
                        row.on_use,
                        row.chars,
                        row.lines,
                        row.index_chars,
                        seq
                    ],
                )
                .map_err(db)?;
            }
            None => {
                tx.execute("DELETE FROM memories WHERE slug = ?1", [slug])
                    .map_err(db)?;
            }
        }
        let (new, old) = (plan.new, plan.old);
        tx.execute(
            "UPDATE stats SET count = count + ?1 - ?2, chars = chars + ?3 - ?4, lines = lines + ?5 - ?6,
                index_chars = index_chars + ?7 - ?8 WHERE id = 1",
            params![
                new.count,
                old.count,
                new.chars,
                old.chars,
                new.lines,
                old.lines,
                new.index_chars,
                old.index_chars
            ],
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
            mutation: Mutation::Create,
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
