//! The PostgreSQL memory store backend: every store in shared tables under
//! a `store_id` column, so agents on different hosts bind one store.
//!
//! A mutation locks the store's row in `gg_stores` (`SELECT … FOR UPDATE`)
//! before it reads anything, so mutations of one store are serialized
//! across hosts: the decision sees the store as it stands, `seq` (the
//! store's head, kept in that row) and the per-slug counters advance
//! gap-free, and totals and peaks move with the write. The transaction is
//! retried whole on a serialization failure or deadlock. A commit announces
//! the new head on the `gg_store` channel (`NOTIFY`), and a holder still
//! pulls by its watermark, so a missed notification never loses a notice
//! and a pull (which locks the holder's row) never hands one out twice.

use std::sync::Arc;

use postgres::Row;

use super::{
    Author, Change, Holder, MemoryBackend, MemoryRecord, Peaks, Plan, RevisionRecord, Totals,
    TxRead, TxView,
};
use crate::durable::pg::{db_error, Exec, Pool, Tx, TxError};
use crate::error::{GgError, GgResult};

/// One memory store in a PostgreSQL database, on the shared connection pool.
pub struct PgStore {
    pool: Arc<Pool>,
    id: String,
}

fn record(r: &Row) -> MemoryRecord {
    MemoryRecord {
        slug: r.get(0),
        description: r.get(1),
        body: r.get(2),
        code: r.get(3),
        on_use: r.get(4),
        chars: r.get::<_, i64>(5) as u64,
        lines: r.get::<_, i64>(6) as u64,
        key: r.get(7),
    }
}

fn revision(r: &Row) -> RevisionRecord {
    RevisionRecord {
        seq: r.get(0),
        slug: r.get(1),
        revision: r.get(2),
        mutation: r.get(3),
        description: r.get(4),
        body: r.get(5),
        agent: r.get(6),
        program: r.get(7),
    }
}

fn totals_of(r: &Row) -> Totals {
    Totals {
        count: r.get::<_, i64>(0) as u64,
        chars: r.get::<_, i64>(1) as u64,
        lines: r.get::<_, i64>(2) as u64,
        index_chars: r.get::<_, i64>(3) as u64,
    }
}

/// A memory's columns and its import key, as [`record`] reads them.
const RECORD_COLUMNS: &str =
    "SELECT m.slug, m.description, m.body, m.code, m.on_use, m.chars, m.lines, k.key
     FROM gg_memories m LEFT JOIN gg_module_keys k ON k.store_id = m.store_id AND k.slug = m.slug";
const GET: &str = "SELECT m.slug, m.description, m.body, m.code, m.on_use, m.chars, m.lines, k.key
     FROM gg_memories m LEFT JOIN gg_module_keys k ON k.store_id = m.store_id AND k.slug = m.slug
     WHERE m.store_id = $1 AND m.slug = $2";
const REVISIONS: &str = "SELECT seq, slug, revision, mutation, description, body, agent, program FROM gg_revisions WHERE store_id = $1 AND seq > $2 ORDER BY seq";

/// Text PostgreSQL can store: it refuses NUL characters, which SQLite
/// keeps; they are refused here with the model's wording rather than as a
/// database error.
fn check_text(what: &str, text: &str) -> GgResult<()> {
    if text.contains('\0') {
        return Err(GgError::invalid(format!(
            "the {what} contains a NUL character (\\u0000), which the memory store cannot hold; remove it."
        )));
    }
    Ok(())
}

impl PgStore {
    /// Opens (creating) store `id` in the database at `url`.
    pub fn open(url: &str, id: &str) -> GgResult<Self> {
        let pool = crate::durable::pg::pool(url)?;
        let mut conn = pool.get()?;
        conn.execute(
            "INSERT INTO gg_stores (store_id) VALUES ($1) ON CONFLICT DO NOTHING",
            &[&id],
        )
        .map_err(|e| db_error("opening the memory store", &e))?;
        drop(conn);
        let store = PgStore {
            pool,
            id: id.to_string(),
        };
        store.assign_missing_keys()?;
        Ok(store)
    }

    /// Gives keys to memories holding code that have none: a store an
    /// older gg wrote. The oldest memory first, so it keeps the plain
    /// camelCase.
    fn assign_missing_keys(&self) -> GgResult<()> {
        const MISSING: &str = "SELECT m.slug FROM gg_memories m
             WHERE m.store_id = $1 AND m.code IS NOT NULL
               AND NOT EXISTS (SELECT 1 FROM gg_module_keys k WHERE k.store_id = m.store_id AND k.slug = m.slug)
             ORDER BY (SELECT MIN(seq) FROM gg_revisions r WHERE r.store_id = m.store_id AND r.slug = m.slug), m.slug COLLATE \"C\"";
        if self
            .query("reading the memory store", MISSING, &[&self.id])?
            .is_empty()
        {
            return Ok(());
        }
        let id = self.id.clone();
        self.pool
            .transaction("giving code memories their keys", |tx| {
                tx.execute(
                    "SELECT 1 FROM gg_stores WHERE store_id = $1 FOR UPDATE",
                    &[&id],
                )?;
                let missing: Vec<String> = tx
                    .query(MISSING, &[&id])?
                    .iter()
                    .map(|r| r.get(0))
                    .collect();
                for slug in missing {
                    assign_key(tx, &id, &slug)?;
                }
                Ok(())
            })
    }

    /// Store `id` on `pool`, creating nothing: for readers such as the
    /// console's inspector, whose pool may be read-only. A store the
    /// database does not hold reads as empty.
    pub fn attach(pool: Arc<Pool>, id: &str) -> Self {
        PgStore {
            pool,
            id: id.to_string(),
        }
    }

    /// The store's holders that `filter` (more of the `WHERE` clause, or
    /// nothing) admits, in id order.
    fn holders_where(&self, filter: &str) -> GgResult<Vec<Holder>> {
        let rows = self.query(
            "reading the memory store's holders",
            &format!(
                "SELECT holder, scope, writable FROM gg_holders WHERE store_id = $1 {filter} ORDER BY holder COLLATE \"C\""
            ),
            &[&self.id],
        )?;
        Ok(rows
            .iter()
            .map(|r| Holder {
                agent: r.get(0),
                scope: r.get(1),
                writable: r.get(2),
            })
            .collect())
    }

    fn query(
        &self,
        what: &str,
        sql: &str,
        params: &[&(dyn postgres::types::ToSql + Sync)],
    ) -> GgResult<Vec<Row>> {
        let mut conn = self.pool.get()?;
        conn.query(sql, params).map_err(|e| db_error(what, &e))
    }

    /// Copies store `from` into a new store `to` (an isolated fork's
    /// independent copy): the set, the revision log, counters, totals and
    /// peaks; no holders.
    pub fn copy(url: &str, from: &str, to: &str) -> GgResult<()> {
        let pool = crate::durable::pg::pool(url)?;
        pool.transaction("copying a memory store", |tx| {
            tx.execute("SELECT 1 FROM gg_stores WHERE store_id = $1 FOR UPDATE", &[&from])?;
            for table in ["gg_memories", "gg_revisions", "gg_slug_counters", "gg_holders", "gg_module_keys"] {
                tx.execute(&format!("DELETE FROM {table} WHERE store_id = $1"), &[&to])?;
            }
            tx.execute("DELETE FROM gg_stores WHERE store_id = $1", &[&to])?;
            tx.execute(
                "INSERT INTO gg_stores (store_id, head, count, chars, lines, index_chars, peak_count, peak_chars, peak_lines)
                 SELECT $2, head, count, chars, lines, index_chars, peak_count, peak_chars, peak_lines FROM gg_stores WHERE store_id = $1",
                &[&from, &to],
            )?;
            tx.execute(
                "INSERT INTO gg_memories (store_id, slug, description, body, code, on_use, chars, lines, index_chars, seq)
                 SELECT $2, slug, description, body, code, on_use, chars, lines, index_chars, seq FROM gg_memories WHERE store_id = $1",
                &[&from, &to],
            )?;
            tx.execute(
                "INSERT INTO gg_revisions (store_id, seq, slug, revision, mutation, description, body, agent, at_ms, program)
                 SELECT $2, seq, slug, revision, mutation, description, body, agent, at_ms, program FROM gg_revisions WHERE store_id = $1",
                &[&from, &to],
            )?;
            tx.execute(
                "INSERT INTO gg_slug_counters (store_id, slug, last) SELECT $2, slug, last FROM gg_slug_counters WHERE store_id = $1",
                &[&from, &to],
            )?;
            tx.execute(
                "INSERT INTO gg_module_keys (store_id, slug, key) SELECT $2, slug, key FROM gg_module_keys WHERE store_id = $1",
                &[&from, &to],
            )?;
            Ok(())
        })
    }
}

/// The import key of `slug` in store `id`, given now if the slug never had
/// one: the slug's camelCase, deduplicated against every key the store gave.
/// The caller holds the store's row lock, so two hosts never give one key.
fn assign_key(tx: &mut Tx<'_>, id: &str, slug: &str) -> Result<(), TxError> {
    let held = tx.query(
        "SELECT 1 FROM gg_module_keys WHERE store_id = $1 AND slug = $2",
        &[&id, &slug],
    )?;
    if !held.is_empty() {
        return Ok(());
    }
    let taken: std::collections::HashSet<String> = tx
        .query("SELECT key FROM gg_module_keys WHERE store_id = $1", &[&id])?
        .iter()
        .map(|r| r.get(0))
        .collect();
    let key = gg_transpiler::module_key_avoiding(slug, |k| taken.contains(k));
    tx.execute(
        "INSERT INTO gg_module_keys (store_id, slug, key) VALUES ($1, $2, $3)",
        &[&id, &slug, &key],
    )?;
    Ok(())
}

struct PgTx<'a, 'b> {
    tx: std::cell::RefCell<&'a mut Tx<'b>>,
    id: &'a str,
}

impl PgTx<'_, '_> {
    fn pairs(&self, sql: &str, n: usize) -> GgResult<Vec<(String, u64)>> {
        let rows = self
            .tx
            .borrow_mut()
            .query(sql, &[&self.id, &(n as i64)])
            .map_err(|e| db_error("reading the memory store", &e))?;
        Ok(rows
            .iter()
            .map(|r| (r.get(0), r.get::<_, i64>(1) as u64))
            .collect())
    }
}

impl TxRead for PgTx<'_, '_> {
    fn get(&self, slug: &str) -> GgResult<Option<MemoryRecord>> {
        let rows = self
            .tx
            .borrow_mut()
            .query(GET, &[&self.id, &slug])
            .map_err(|e| db_error("reading the memory store", &e))?;
        Ok(rows.first().map(record))
    }

    fn largest(&self, n: usize) -> GgResult<Vec<(String, u64)>> {
        self.pairs(
            "SELECT slug, chars FROM gg_memories WHERE store_id = $1 ORDER BY chars DESC, slug LIMIT $2",
            n,
        )
    }

    fn longest_index_lines(&self, n: usize) -> GgResult<Vec<(String, u64)>> {
        self.pairs(
            "SELECT slug, index_chars FROM gg_memories WHERE store_id = $1 ORDER BY index_chars DESC, slug LIMIT $2",
            n,
        )
    }
}

impl MemoryBackend for PgStore {
    fn head(&self) -> GgResult<i64> {
        let rows = self.query(
            "reading the memory store",
            "SELECT head FROM gg_stores WHERE store_id = $1",
            &[&self.id],
        )?;
        Ok(rows.first().map(|r| r.get(0)).unwrap_or(0))
    }

    fn get(&self, slug: &str) -> GgResult<Option<MemoryRecord>> {
        let rows = self.query("reading the memory store", GET, &[&self.id, &slug])?;
        Ok(rows.first().map(record))
    }

    fn list(&self) -> GgResult<Vec<MemoryRecord>> {
        let rows = self.query(
            "reading the memory store",
            &format!("{RECORD_COLUMNS} WHERE m.store_id = $1 ORDER BY m.slug COLLATE \"C\""),
            &[&self.id],
        )?;
        Ok(rows.iter().map(record).collect())
    }

    fn totals(&self) -> GgResult<Totals> {
        let rows = self.query(
            "reading the memory store",
            "SELECT count, chars, lines, index_chars FROM gg_stores WHERE store_id = $1",
            &[&self.id],
        )?;
        Ok(rows.first().map(totals_of).unwrap_or_default())
    }

    fn peaks(&self) -> GgResult<Peaks> {
        let rows = self.query(
            "reading the memory store",
            "SELECT peak_count, peak_chars, peak_lines FROM gg_stores WHERE store_id = $1",
            &[&self.id],
        )?;
        Ok(rows
            .first()
            .map(|r| Peaks {
                count: r.get::<_, i64>(0) as u64,
                chars: r.get::<_, i64>(1) as u64,
                lines: r.get::<_, i64>(2) as u64,
            })
            .unwrap_or_default())
    }

    fn revisions_since(&self, seq: i64) -> GgResult<Vec<RevisionRecord>> {
        let rows = self.query("reading the revision log", REVISIONS, &[&self.id, &seq])?;
        Ok(rows.iter().map(revision).collect())
    }

    fn join(&self, holder: &str, scope: &str, writable: bool) -> GgResult<()> {
        let mut conn = self.pool.get()?;
        conn.execute(
            "INSERT INTO gg_holders (store_id, holder, watermark, scope, writable, attached)
             VALUES ($1, $2, (SELECT head FROM gg_stores WHERE store_id = $1), $3, $4, true)
             ON CONFLICT (store_id, holder) DO UPDATE SET scope = $3, writable = $4, attached = true",
            &[&self.id, &holder, &scope, &writable],
        )
        .map_err(|e| db_error("joining the memory store", &e))?;
        Ok(())
    }

    fn leave(&self, holder: &str) -> GgResult<()> {
        let mut conn = self.pool.get()?;
        conn.execute(
            "UPDATE gg_holders SET attached = false WHERE store_id = $1 AND holder = $2",
            &[&self.id, &holder],
        )
        .map_err(|e| db_error("leaving the memory store", &e))?;
        Ok(())
    }

    fn holders(&self) -> GgResult<Vec<Holder>> {
        self.holders_where("")
    }

    fn attached_holders(&self) -> GgResult<Vec<Holder>> {
        self.holders_where("AND attached")
    }

    fn pull(&mut self, holder: &str) -> GgResult<Vec<RevisionRecord>> {
        // Most pulls find nothing new: a plain read answers those.
        let rows = self.query(
            "pulling memory notices",
            "SELECT h.watermark < s.head FROM gg_holders h JOIN gg_stores s USING (store_id)
             WHERE h.store_id = $1 AND h.holder = $2",
            &[&self.id, &holder],
        )?;
        if rows.first().map(|r| r.get::<_, bool>(0)) != Some(true) {
            return Ok(Vec::new());
        }
        let id = self.id.clone();
        self.pool.transaction("pulling memory notices", |tx| {
            let rows = tx.query(
                "SELECT watermark FROM gg_holders WHERE store_id = $1 AND holder = $2 FOR UPDATE",
                &[&id, &holder],
            )?;
            let Some(watermark) = rows.first().map(|r| r.get::<_, i64>(0)) else {
                return Ok(Vec::new());
            };
            let revisions: Vec<RevisionRecord> = tx
                .query(REVISIONS, &[&id, &watermark])?
                .iter()
                .map(revision)
                .collect();
            if let Some(last) = revisions.last() {
                tx.execute(
                    "UPDATE gg_holders SET watermark = $3 WHERE store_id = $1 AND holder = $2",
                    &[&id, &holder, &last.seq],
                )?;
            }
            Ok(revisions)
        })
    }

    fn mutate(
        &mut self,
        author: Author<'_>,
        slug: &str,
        decide: &mut dyn FnMut(&TxView<'_>) -> GgResult<Change>,
    ) -> GgResult<RevisionRecord> {
        let id = self.id.clone();
        self.pool.transaction("writing the memory store", |tx| {
            // The store's row lock: one mutation of this store at a time,
            // on every host.
            let row = tx.query_one(
                "SELECT count, chars, lines, index_chars, head FROM gg_stores WHERE store_id = $1 FOR UPDATE",
                &[&id],
            )?;
            let totals = totals_of(&row);
            let head: i64 = row.get(4);
            let (change, before) = {
                let read = PgTx {
                    tx: std::cell::RefCell::new(&mut *tx),
                    id: &id,
                };
                let view = TxView::new(&read, totals);
                let change = decide(&view)?;
                (change, view.get(slug)?)
            };
            let plan = Plan::new(slug, change, before.as_ref());
            for (what, text) in [("description", &plan.description), ("body", &plan.body)] {
                check_text(what, text)?;
            }
            if let Some(row) = &plan.row {
                for text in [&row.code, &row.on_use].into_iter().flatten() {
                    check_text("code", text)?;
                }
            }
            let seq = head + 1;
            let revision: i64 = tx
                .query_one(
                    "INSERT INTO gg_slug_counters (store_id, slug, last) VALUES ($1, $2, 1)
                     ON CONFLICT (store_id, slug) DO UPDATE SET last = gg_slug_counters.last + 1 RETURNING last",
                    &[&id, &slug],
                )?
                .get(0);
            tx.execute(
                "INSERT INTO gg_revisions (store_id, seq, slug, revision, mutation, description, body, agent, at_ms, program)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
                &[&id, &seq, &slug, &revision, &plan.mutation, &plan.description, &plan.body, &author.agent, &super::now_ms(), &author.program],
            )?;
            match &plan.row {
                Some(row) => {
                    let (chars, lines, index) = (row.chars as i64, row.lines as i64, row.index_chars as i64);
                    let (description, body, code, on_use) = (&row.description, &row.body, &row.code, &row.on_use);
                    tx.execute(
                        "INSERT INTO gg_memories (store_id, slug, description, body, code, on_use, chars, lines, index_chars, seq)
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
                         ON CONFLICT (store_id, slug) DO UPDATE SET description = $3, body = $4, code = $5, on_use = $6,
                            chars = $7, lines = $8, index_chars = $9, seq = $10",
                        &[&id, &slug, description, body, code, on_use, &chars, &lines, &index, &seq],
                    )?;
                    if code.is_some() {
                        assign_key(tx, &id, slug)?;
                    }
                }
                None => {
                    tx.execute(
                        "DELETE FROM gg_memories WHERE store_id = $1 AND slug = $2",
                        &[&id, &slug],
                    )?;
                }
            }
            let (new, old) = (plan.new, plan.old);
            let delta = |new: u64, old: u64| new as i64 - old as i64;
            tx.execute(
                "UPDATE gg_stores SET head = $2, count = count + $3, chars = chars + $4, lines = lines + $5,
                    index_chars = index_chars + $6,
                    peak_count = GREATEST(peak_count, count + $3), peak_chars = GREATEST(peak_chars, chars + $4),
                    peak_lines = GREATEST(peak_lines, lines + $5)
                 WHERE store_id = $1",
                &[
                    &id,
                    &seq,
                    &delta(new.count, old.count),
                    &delta(new.chars, old.chars),
                    &delta(new.lines, old.lines),
                    &delta(new.index_chars, old.index_chars),
                ],
            )?;
            tx.execute(
                "SELECT pg_notify($1, current_schema() || '/' || $2)",
                &[&crate::durable::pg::CHANNEL, &format!("{id}:{seq}")],
            )?;
            Ok(RevisionRecord {
                seq,
                slug: slug.to_string(),
                revision,
                mutation: plan.mutation,
                description: plan.description.clone(),
                body: plan.body.clone(),
                agent: author.agent.to_string(),
                program: author.program.map(str::to_string),
            })
        })
    }
}

impl From<TxError> for GgError {
    fn from(e: TxError) -> Self {
        match e {
            TxError::Gg(e) => e,
            TxError::Db(e) => db_error("the memory store", &e),
        }
    }
}
