//! The SQLite backend: one database file per store (WAL, fsync on commit);
//! every mutation is one `BEGIN IMMEDIATE` transaction.

use std::path::Path;

use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};

use super::{
    Author, Change, Holder, MemoryBackend, MemoryRecord, Peaks, Plan, RevisionRecord, Totals,
    TxRead, TxView,
};
use crate::error::{GgError, GgResult};

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

/// A memory's columns and its import key, as [`row_to_record`] reads them.
const RECORD_COLUMNS: &str =
    "SELECT m.slug, m.description, m.body, m.code, m.on_use, m.chars, m.lines, k.key
     FROM memories m LEFT JOIN module_keys k ON k.slug = m.slug";

fn get(conn: &Connection, slug: &str) -> GgResult<Option<MemoryRecord>> {
    conn.prepare_cached(&format!("{RECORD_COLUMNS} WHERE m.slug = ?1"))
        .map_err(db)?
        .query_row([slug], row_to_record)
        .optional()
        .map_err(db)
}

fn row_to_record(r: &rusqlite::Row<'_>) -> rusqlite::Result<MemoryRecord> {
    let (slug, description, body, code, on_use, chars, lines, key) = r.try_into()?;
    Ok(MemoryRecord {
        slug,
        description,
        body,
        code,
        on_use,
        chars,
        lines,
        key,
    })
}

/// The import key of `slug`, given now if the slug never had one: the
/// slug's camelCase, deduplicated against every key this store gave.
fn assign_key(conn: &Connection, slug: &str) -> GgResult<()> {
    let held: Option<String> = conn
        .query_row("SELECT key FROM module_keys WHERE slug = ?1", [slug], |r| {
            r.get(0)
        })
        .optional()
        .map_err(db)?;
    if held.is_some() {
        return Ok(());
    }
    let taken: std::collections::HashSet<String> = conn
        .prepare_cached("SELECT key FROM module_keys")
        .map_err(db)?
        .query_map([], |r| r.get(0))
        .map_err(db)?
        .collect::<Result<_, _>>()
        .map_err(db)?;
    let key = gg_transpiler::module_key_avoiding(slug, |k| taken.contains(k));
    conn.execute(
        "INSERT INTO module_keys (slug, key) VALUES (?1, ?2)",
        params![slug, key],
    )
    .map_err(db)?;
    Ok(())
}

/// Gives keys to memories holding code that have none: a store an older gg
/// wrote. The oldest memory first, so it keeps the plain camelCase.
fn assign_missing_keys(conn: &mut Connection) -> GgResult<()> {
    let missing = |conn: &Connection| -> GgResult<Vec<String>> {
        conn.prepare(
            "SELECT m.slug FROM memories m
             WHERE m.code IS NOT NULL AND m.slug NOT IN (SELECT slug FROM module_keys)
             ORDER BY (SELECT MIN(seq) FROM revisions r WHERE r.slug = m.slug), m.slug",
        )
        .map_err(db)?
        .query_map([], |r| r.get(0))
        .map_err(db)?
        .collect::<Result<_, _>>()
        .map_err(db)
    };
    if missing(conn)?.is_empty() {
        return Ok(());
    }
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(db)?;
    for slug in missing(&tx)? {
        assign_key(&tx, &slug)?;
    }
    tx.commit().map_err(db)
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
        let conn =
            crate::durable::open_database_with_schema(path, crate::durable::schema::MEMORY_STORE)
                .map_err(db)?;
        Self::init(conn, id)
    }

    /// A store in an in-memory database, gone with this process.
    pub fn in_memory(id: &str) -> GgResult<Self> {
        let conn = Connection::open_in_memory().map_err(db)?;
        crate::durable::apply_schema(&conn, crate::durable::schema::MEMORY_STORE).map_err(db)?;
        Self::init(conn, id)
    }

    /// The store on `conn`, whose schema is applied.
    fn init(mut conn: Connection, id: &str) -> GgResult<Self> {
        // Columns a store made by an older gg lacks.
        for (table, column, migration) in [
            (
                "holders",
                "attached",
                crate::durable::schema::MEMORY_STORE_ATTACHED,
            ),
            (
                "revisions",
                "program",
                crate::durable::schema::MEMORY_STORE_PROGRAM,
            ),
        ] {
            let present: bool = conn
                .query_row(
                    "SELECT COUNT(*) > 0 FROM pragma_table_info(?1) WHERE name = ?2",
                    [table, column],
                    |r| r.get(0),
                )
                .map_err(db)?;
            if !present {
                conn.execute_batch(migration).map_err(db)?;
            }
        }
        conn.execute(
            "INSERT OR IGNORE INTO meta (key, value) VALUES ('store_id', ?1)",
            [id],
        )
        .map_err(db)?;
        assign_missing_keys(&mut conn)?;
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
            .prepare_cached(&format!("{RECORD_COLUMNS} ORDER BY m.slug"))
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
                "SELECT seq, slug, revision, mutation, description, body, agent, program FROM revisions WHERE seq > ?1 ORDER BY seq",
            )
            .map_err(db)?;
        let rows = stmt.query_map([seq], revision_row).map_err(db)?;
        rows.collect::<Result<_, _>>().map_err(db)
    }

    fn join(&self, holder: &str, scope: &str, writable: bool) -> GgResult<()> {
        self.conn
            .execute(
                "INSERT INTO holders (holder, watermark, scope, writable, attached)
                 VALUES (?1, (SELECT COALESCE(MAX(seq), 0) FROM revisions), ?2, ?3, 1)
                 ON CONFLICT(holder) DO UPDATE SET scope = ?2, writable = ?3, attached = 1",
                params![holder, scope, writable],
            )
            .map_err(db)?;
        Ok(())
    }

    fn leave(&self, holder: &str) -> GgResult<()> {
        self.conn
            .execute(
                "UPDATE holders SET attached = 0 WHERE holder = ?1",
                [holder],
            )
            .map_err(db)?;
        Ok(())
    }

    fn holders(&self) -> GgResult<Vec<Holder>> {
        holders(&self.conn)
    }

    fn attached_holders(&self) -> GgResult<Vec<Holder>> {
        holders_where(&self.conn, "WHERE attached = 1")
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
                    "SELECT seq, slug, revision, mutation, description, body, agent, program FROM revisions WHERE seq > ?1 ORDER BY seq",
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
        author: Author<'_>,
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
            "INSERT INTO revisions (slug, revision, mutation, description, body, agent, at_ms, program) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![slug, revision, plan.mutation, plan.description, plan.body, author.agent, now_ms(), author.program],
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
                if row.code.is_some() {
                    assign_key(&tx, slug)?;
                }
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
            agent: author.agent.to_string(),
            program: author.program.map(str::to_string),
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
        program: r.get(7)?,
    })
}

/// The `stats` row's `columns`, in order: the totals and peaks both live
/// in that one row.
fn stats_row<T>(conn: &Connection, columns: &str) -> GgResult<T>
where
    T: for<'a> TryFrom<&'a rusqlite::Row<'a>, Error = rusqlite::Error>,
{
    conn.query_row(
        &format!("SELECT {columns} FROM stats WHERE id = 1"),
        [],
        |r| r.try_into(),
    )
    .map_err(db)
}

/// A store's peaks, off its database (also read by the console).
pub(crate) fn peaks(conn: &Connection) -> GgResult<Peaks> {
    let (count, chars, lines) = stats_row(conn, "peak_count, peak_chars, peak_lines")?;
    Ok(Peaks {
        count,
        chars,
        lines,
    })
}

/// A store's holders, off its database (also read by the console).
pub(crate) fn holders(conn: &Connection) -> GgResult<Vec<Holder>> {
    holders_where(conn, "")
}

/// The holders `filter` (a `WHERE` clause, or nothing) admits, in id order.
fn holders_where(conn: &Connection, filter: &str) -> GgResult<Vec<Holder>> {
    let mut stmt = conn
        .prepare_cached(&format!(
            "SELECT holder, scope, writable FROM holders {filter} ORDER BY holder"
        ))
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
    let (count, chars, lines, index_chars) = stats_row(conn, "count, chars, lines, index_chars")?;
    Ok(Totals {
        count,
        chars,
        lines,
        index_chars,
    })
}
