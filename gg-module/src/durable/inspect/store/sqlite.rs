//! The inspector's SQLite source: one store's database file under
//! `memories/`, opened `SQLITE_OPEN_READ_ONLY`.

use std::path::Path;

use rusqlite::{Connection, OptionalExtension};

use super::{Current, LastText, Latest, Logged, Made, Row, Source};
use crate::durable::memory_store::{self, Holder, Peaks, Totals};
use crate::error::{GgError, GgResult};

fn db(e: rusqlite::Error) -> GgError {
    GgError::io(format!("reading the memory store failed: {e}"))
}

/// One store's database file, opened read-only.
pub(in crate::durable::inspect) struct SqliteSource {
    conn: Connection,
}

impl SqliteSource {
    /// Opens the store database at `path` read-only; refuses a file that
    /// is not a gg memory store.
    pub(in crate::durable::inspect) fn open(path: &Path) -> GgResult<Self> {
        let conn = crate::durable::inspect::open_read_only(path).map_err(db)?;
        conn.query_row("SELECT COUNT(*) FROM stats", [], |r| r.get::<_, i64>(0))
            .map_err(|e| {
                GgError::io(format!("{} is not a gg memory store: {e}", path.display()))
            })?;
        Ok(SqliteSource { conn })
    }

    /// Every row of `sql`, mapped by `row`.
    fn rows<T>(
        &self,
        sql: &str,
        params: impl rusqlite::Params,
        row: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> GgResult<Vec<T>> {
        let mut stmt = self.conn.prepare(sql).map_err(db)?;
        let rows = stmt.query_map(params, row).map_err(db)?;
        rows.collect::<rusqlite::Result<Vec<T>>>().map_err(db)
    }

    /// Every row of `sql` as a `T`, its columns read in order.
    fn read<T: Row>(&self, sql: &str, params: impl rusqlite::Params) -> GgResult<Vec<T>>
    where
        T::Columns: for<'a> TryFrom<&'a rusqlite::Row<'a>, Error = rusqlite::Error>,
    {
        self.rows(sql, params, |r| Ok(T::new(r.try_into()?)))
    }
}

impl Source for SqliteSource {
    fn totals(&self) -> GgResult<Totals> {
        memory_store::totals(&self.conn)
    }

    fn peaks(&self) -> GgResult<Peaks> {
        memory_store::peaks(&self.conn)
    }

    fn holders(&self) -> GgResult<Vec<Holder>> {
        memory_store::holders(&self.conn)
    }

    fn revision_count(&self, agent: Option<&str>) -> GgResult<u64> {
        self.conn
            .query_row(
                "SELECT COUNT(*) FROM revisions WHERE ?1 IS NULL OR agent = ?1",
                [agent],
                |r| r.get(0),
            )
            .map_err(db)
    }

    fn latest(&self) -> GgResult<Vec<Latest>> {
        self.read(
            "SELECT r.slug, r.revision, r.mutation, r.description, r.agent, agg.n
             FROM revisions r
             JOIN (SELECT slug, MAX(seq) AS last, COUNT(*) AS n FROM revisions GROUP BY slug) agg
               ON r.seq = agg.last",
            [],
        )
    }

    fn current(&self) -> GgResult<Vec<Current>> {
        self.read("SELECT slug, description, chars, lines FROM memories", [])
    }

    fn last_texts(&self, slugs: &[String]) -> GgResult<Vec<LastText>> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT slug, body, description FROM revisions WHERE slug = ?1 AND mutation != 'delete'
                 ORDER BY seq DESC LIMIT 1",
            )
            .map_err(db)?;
        let mut out = Vec::new();
        for slug in slugs {
            let last = stmt
                .query_row([slug], |r| r.try_into())
                .optional()
                .map_err(db)?;
            out.extend(last.map(LastText::new));
        }
        Ok(out)
    }

    fn history(&self, slug: &str) -> GgResult<Vec<Logged>> {
        self.read(
            "SELECT seq, revision, mutation, description, body, agent, at_ms
             FROM revisions WHERE slug = ?1 ORDER BY seq",
            [slug],
        )
    }

    fn matching(&self, needle: &str) -> GgResult<Vec<String>> {
        // SQLite's lower() folds ASCII only, as the needle was folded.
        self.rows(
            "SELECT slug FROM memories
             WHERE instr(lower(slug), ?1) OR instr(lower(description), ?1) OR instr(lower(body), ?1)
             UNION
             SELECT slug FROM revisions
             WHERE instr(lower(slug), ?1) OR instr(lower(description), ?1) OR instr(lower(body), ?1)",
            [needle],
            |r| r.get(0),
        )
    }

    fn held_counts(&self) -> GgResult<Option<(u64, u64)>> {
        // The store keeps one revision counter per slug it ever wrote,
        // written in the same transaction as the slug's first revision.
        self.conn
            .query_row(
                "SELECT (SELECT COUNT(*) FROM slug_counters), (SELECT COUNT(*) FROM memories)",
                [],
                |r| Ok(Some((r.get(0)?, r.get(1)?))),
            )
            .map_err(db)
    }

    fn made_by(&self, agent: &str, limit: i64) -> GgResult<Vec<Made>> {
        self.read(
            "SELECT seq, slug, revision, mutation, at_ms FROM
               (SELECT * FROM revisions WHERE agent = ?1 ORDER BY seq DESC LIMIT ?2)
             ORDER BY seq",
            rusqlite::params![agent, limit],
        )
    }
}
