//! The inspector's PostgreSQL source: the memory stores of a database that
//! agents ran against with `--store postgres://…`, read off gg's shared
//! tables (`gg_stores`, `gg_memories`, `gg_revisions`, `gg_holders`, keyed
//! by `store_id`). Every read is a SELECT on a [`pg::read_only_pool`],
//! whose sessions the server itself keeps read-only; totals, peaks and
//! holders are the memory store backend's own reads, on a handle that
//! creates nothing ([`PgStore::attach`]).

use std::sync::Arc;

use postgres::types::ToSql;
use postgres::Row;

use super::{Current, LastText, Latest, Logged, Made, Source, StoreReader};
use crate::durable::inspect::transcript::StoredAgent;
use crate::durable::memory_store::{Holder, MemoryBackend, Peaks, PgStore, Totals};
use crate::durable::pg::{self, db_error, Exec, Pool};
use crate::durable::StoredProgram;
use crate::error::{GgError, GgResult};

type Params<'a> = &'a [&'a (dyn ToSql + Sync)];

/// Every row of `sql` on a connection borrowed from `pool`.
fn rows(pool: &Arc<Pool>, sql: &str, params: Params<'_>) -> GgResult<Vec<Row>> {
    let mut conn = pool.get()?;
    conn.query(sql, params)
        .map_err(|e| db_error("reading the memory stores", &e))
}

/// A database's memory stores, read-only.
pub(in crate::durable::inspect) struct PgStores {
    pool: Arc<Pool>,
    /// The database and schema (never the URL, which may carry a
    /// password): each store's `file`.
    location: String,
}

impl std::fmt::Debug for PgStores {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgStores")
            .field("location", &self.location)
            .finish()
    }
}

impl PgStores {
    /// Connects to `url` read-only and checks it holds gg's tables, at a
    /// schema this binary reads. A URL that is not a PostgreSQL one, or a
    /// database without gg's tables, is `invalid-argument`; an unreachable
    /// server or a newer schema is `io-error`.
    pub(in crate::durable::inspect) fn open(url: &str) -> GgResult<Self> {
        if !pg::is_postgres_url(url) {
            return Err(GgError::invalid(format!(
                "the store URL {} is not a postgres:// URL",
                pg::redact(url)
            )));
        }
        let pool = pg::read_only_pool(url)?;
        let found = rows(
            &pool,
            "SELECT current_database()::text, current_schema()::text,
                    to_regclass('gg_schema_version') IS NOT NULL AND to_regclass('gg_stores') IS NOT NULL",
            &[],
        )?;
        let (database, schema, tables): (String, Option<String>, bool) =
            (found[0].get(0), found[0].get(1), found[0].get(2));
        // The writers create the URL's schema and tables on first use; the
        // console must not, so a database without them is the wrong one.
        let Some(schema) = schema else {
            return Err(GgError::invalid(format!(
                "the database at {} holds no gg memory stores: the schema its search_path names does not exist (a `gg run --store` with this URL creates it)",
                pg::redact(url)
            )));
        };
        if !tables {
            return Err(GgError::invalid(format!(
                "the database at {} holds no gg memory stores: schema {schema} has no gg tables (a `gg run --store` with this URL creates them)",
                pg::redact(url)
            )));
        }
        let version = rows(
            &pool,
            "SELECT COALESCE(MAX(version), 0) FROM gg_schema_version",
            &[],
        )?;
        pg::check_schema_version(url, version[0].get(0))?;
        Ok(PgStores {
            pool,
            location: format!("postgres {database}/{schema}"),
        })
    }

    /// Every store in the database.
    /// Every agent the database records: (id, profile, turn), in id order.
    /// The database is the run's, shared by its hosts: their agents all.
    pub(in crate::durable::inspect) fn recorded_agents(
        &self,
    ) -> GgResult<Vec<(String, String, u32)>> {
        let found = rows(
            &self.pool,
            "SELECT id, profile_id, turn FROM gg_agents ORDER BY id",
            &[],
        )?;
        Ok(found
            .iter()
            .map(|r| (r.get(0), r.get(1), count(r, 2) as u32))
            .collect())
    }

    /// Agent `id` and its program library, as the database records them.
    pub(in crate::durable::inspect) fn stored_agent(
        &self,
        id: &str,
    ) -> GgResult<Option<StoredAgent>> {
        let found = rows(
            &self.pool,
            "SELECT profile_id, turn, window_json FROM gg_agents WHERE id = $1",
            &[&id],
        )?;
        let Some(r) = found.first() else {
            return Ok(None);
        };
        let programs = rows(
            &self.pool,
            "SELECT program_id, turn, source, opening FROM gg_programs WHERE agent_id = $1
             ORDER BY CAST(substr(program_id, 2) AS BIGINT)",
            &[&id],
        )?
        .iter()
        .map(|p| StoredProgram {
            id: p.get(0),
            turn: count(p, 1) as u32,
            source: p.get(2),
            opening: p.get(3),
        })
        .collect();
        let window = crate::durable::agents::pg_window(&mut self.pool.get()?, id, r.get(2))?;
        Ok(Some(StoredAgent {
            profile: r.get(0),
            turn: count(r, 1) as u32,
            window,
            programs,
        }))
    }

    pub(in crate::durable::inspect) fn stores(&self) -> GgResult<Vec<StoreReader>> {
        let found = rows(&self.pool, "SELECT store_id FROM gg_stores", &[])?;
        Ok(found.iter().map(|r| self.reader(r.get(0))).collect())
    }

    /// The store with id `id`, if the database holds it.
    pub(in crate::durable::inspect) fn store(&self, id: &str) -> GgResult<Option<StoreReader>> {
        let found = rows(
            &self.pool,
            "SELECT store_id FROM gg_stores WHERE store_id = $1",
            &[&id],
        )?;
        Ok(found.first().map(|r| self.reader(r.get(0))))
    }

    fn reader(&self, id: String) -> StoreReader {
        let source = PgSource {
            store: PgStore::attach(self.pool.clone(), &id),
            pool: self.pool.clone(),
            id: id.clone(),
        };
        let file = format!("{} store_id {id}", self.location);
        StoreReader::new(id, file, Box::new(source))
    }

    /// What moves whenever a store changes: each store's head (its `seq`,
    /// which every mutation advances) and its holders. A failed read is
    /// its message, so the console also hears of the database going away
    /// and coming back.
    pub(in crate::durable::inspect) fn changes(
        &self,
    ) -> GgResult<Vec<(String, i64, Option<String>)>> {
        let found = rows(
            &self.pool,
            "SELECT s.store_id, s.head,
                    (SELECT string_agg(h.holder || ' ' || h.scope || ' ' || h.writable::text, ',' ORDER BY h.holder)
                     FROM gg_holders h WHERE h.store_id = s.store_id)
             FROM gg_stores s ORDER BY s.store_id",
            &[],
        )?;
        Ok(found
            .iter()
            .map(|r| (r.get(0), r.get(1), r.get(2)))
            .collect())
    }
}

/// One store's rows in the shared tables.
struct PgSource {
    store: PgStore,
    pool: Arc<Pool>,
    id: String,
}

impl PgSource {
    /// Every row of `sql`, whose `$1` is the store's id and `$2`… `more`.
    fn rows(&self, sql: &str, more: Params<'_>) -> GgResult<Vec<Row>> {
        let mut params: Vec<&(dyn ToSql + Sync)> = vec![&self.id];
        params.extend_from_slice(more);
        rows(&self.pool, sql, &params)
    }

    /// Every row of `sql` (as [`PgSource::rows`] takes it) as a `T`.
    fn read<T: super::Row>(&self, sql: &str, more: Params<'_>) -> GgResult<Vec<T>>
    where
        T::Columns: Columns,
    {
        Ok(self
            .rows(sql, more)?
            .iter()
            .map(|r| T::new(T::Columns::columns(r)))
            .collect())
    }
}

/// A BIGINT count or size as the views carry it.
fn count(r: &Row, i: usize) -> u64 {
    r.get::<_, i64>(i).max(0) as u64
}

/// One column as the inspector reads it: counts and sizes, BIGINT in the
/// tables, come back as `u64`.
trait Column {
    fn column(r: &Row, i: usize) -> Self;
}

impl Column for String {
    fn column(r: &Row, i: usize) -> Self {
        r.get(i)
    }
}

impl Column for i64 {
    fn column(r: &Row, i: usize) -> Self {
        r.get(i)
    }
}

impl Column for u64 {
    fn column(r: &Row, i: usize) -> Self {
        count(r, i)
    }
}

/// A tuple read off a row's columns in order, as rusqlite reads one for
/// the SQLite source, so every query maps its rows with one reader.
trait Columns {
    fn columns(r: &Row) -> Self;
}

macro_rules! columns {
    ($($t:ident $i:tt),+) => {
        impl<$($t: Column),+> Columns for ($($t,)+) {
            fn columns(r: &Row) -> Self {
                ($($t::column(r, $i),)+)
            }
        }
    };
}

columns!(A 0, B 1, C 2);
columns!(A 0, B 1, C 2, D 3);
columns!(A 0, B 1, C 2, D 3, E 4);
columns!(A 0, B 1, C 2, D 3, E 4, F 5);
columns!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);

impl Source for PgSource {
    fn totals(&self) -> GgResult<Totals> {
        self.store.totals()
    }

    fn peaks(&self) -> GgResult<Peaks> {
        self.store.peaks()
    }

    fn holders(&self) -> GgResult<Vec<Holder>> {
        self.store.holders()
    }

    fn held_counts(&self) -> GgResult<Option<(u64, u64)>> {
        // One revision counter per slug the store ever wrote (see the
        // SQLite twin), and the current rows.
        let found = self.rows(
            "SELECT (SELECT COUNT(*) FROM gg_slug_counters WHERE store_id = $1),
                    (SELECT COUNT(*) FROM gg_memories WHERE store_id = $1)",
            &[],
        )?;
        Ok(Some((count(&found[0], 0), count(&found[0], 1))))
    }

    fn revision_count(&self, agent: Option<&str>) -> GgResult<u64> {
        let found = self.rows(
            "SELECT COUNT(*) FROM gg_revisions WHERE store_id = $1 AND ($2::text IS NULL OR agent = $2)",
            &[&agent],
        )?;
        Ok(count(&found[0], 0))
    }

    fn latest(&self) -> GgResult<Vec<Latest>> {
        self.read(
            "SELECT r.slug, r.revision, r.mutation, r.description, r.agent, agg.n
             FROM gg_revisions r
             JOIN (SELECT slug, MAX(seq) AS last, COUNT(*) AS n FROM gg_revisions
                   WHERE store_id = $1 GROUP BY slug) agg
               ON r.store_id = $1 AND r.seq = agg.last",
            &[],
        )
    }

    fn current(&self) -> GgResult<Vec<Current>> {
        self.read(
            "SELECT slug, description, chars, lines FROM gg_memories WHERE store_id = $1",
            &[],
        )
    }

    fn last_texts(&self, slugs: &[String]) -> GgResult<Vec<LastText>> {
        self.read(
            "SELECT DISTINCT ON (slug) slug, body, description FROM gg_revisions
             WHERE store_id = $1 AND slug = ANY($2) AND mutation <> 'delete'
             ORDER BY slug, seq DESC",
            &[&slugs],
        )
    }

    fn history(&self, slug: &str) -> GgResult<Vec<Logged>> {
        self.read(
            "SELECT seq, revision, mutation, description, body, agent, at_ms
             FROM gg_revisions WHERE store_id = $1 AND slug = $2 ORDER BY seq",
            &[&slug],
        )
    }

    fn matching(&self, needle: &str) -> GgResult<Vec<String>> {
        let found = self.rows(
            "SELECT slug FROM gg_memories WHERE store_id = $1
               AND (strpos(lower(slug), $2) > 0 OR strpos(lower(description), $2) > 0 OR strpos(lower(body), $2) > 0)
             UNION
             SELECT slug FROM gg_revisions WHERE store_id = $1
               AND (strpos(lower(slug), $2) > 0 OR strpos(lower(description), $2) > 0 OR strpos(lower(body), $2) > 0)",
            &[&needle],
        )?;
        Ok(found.iter().map(|r| r.get(0)).collect())
    }

    fn made_by(&self, agent: &str, limit: i64) -> GgResult<Vec<Made>> {
        self.read(
            "SELECT seq, slug, revision, mutation, at_ms FROM
               (SELECT * FROM gg_revisions WHERE store_id = $1 AND agent = $2 ORDER BY seq DESC LIMIT $3) r
             ORDER BY seq",
            &[&agent, &limit],
        )
    }
}
