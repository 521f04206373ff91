//! The PostgreSQL side of gg's storage: one connection pool per database
//! URL per process, ordered embedded migrations (refusing a schema newer
//! than this binary), transactions retried on serialization failures and
//! deadlocks, change notifications (`LISTEN`/`NOTIFY`) and the advisory
//! locks that hold persistent-profile keys across hosts.
//!
//! The driver is the synchronous `postgres` crate (the blocking wrapper of
//! `tokio-postgres`): every store call site in gg is synchronous, so a
//! blocking client fits them. Memory calls, though, arrive from inside the
//! isolate's (current-thread) tokio runtime, where the client's own
//! `block_on` would panic; [`off_runtime`] runs each database round trip on
//! a scoped thread there, and inline everywhere else.

use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::Duration;

use postgres::error::SqlState;
use postgres::fallible_iterator::FallibleIterator;
use postgres::{Client, Config, NoTls};

use crate::error::{GgError, GgResult};

/// Whether `store` names a PostgreSQL database.
pub fn is_postgres_url(store: &str) -> bool {
    store.starts_with("postgres://") || store.starts_with("postgresql://")
}

/// The newest schema this binary knows.
pub const SCHEMA_VERSION: i32 =
    super::schema::POSTGRES_MIGRATIONS[super::schema::POSTGRES_MIGRATIONS.len() - 1].0;

/// Serializes concurrent migrators (any constant: it only meets itself).
const MIGRATION_LOCK: i64 = 0x6767_5f6d_6967;

/// The notification channel every store change is announced on; the
/// payload is the schema, `/`, the store id, `:` and the new head.
pub const CHANNEL: &str = "gg_store";

/// How many connections a pool opens at most, and keeps idle at most.
const POOL_MAX: usize = 24;
const IDLE_MAX: usize = 16;

/// How many times a transaction that met a serialization failure or a
/// deadlock is retried before the error is reported.
const RETRIES: usize = 8;

/// The URL with any password blanked, for messages.
pub fn redact(url: &str) -> String {
    match (url.find("://"), url.find('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let userinfo = &url[scheme + 3..at];
            match userinfo.split_once(':') {
                Some((user, _)) => format!("{}{user}:***{}", &url[..scheme + 3], &url[at..]),
                None => url.to_string(),
            }
        }
        _ => url.to_string(),
    }
}

/// An error with its causes (`error connecting to server: Connection
/// refused`), which the driver's own message leaves out.
pub fn chain(e: &postgres::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

/// An `io-error` saying `what` failed, with the driver's whole cause chain.
pub fn db_error(what: &str, e: &postgres::Error) -> GgError {
    GgError::io(format!("{what} failed: {}", chain(e)))
}

/// A pool of connections to one database.
pub struct Pool {
    url: String,
    config: Config,
    idle: Mutex<(Vec<Client>, usize)>,
    freed: Condvar,
}

/// Runs `f` where the blocking client may block: on a scoped thread when
/// the caller is inside a tokio runtime (the isolate's), inline otherwise.
pub fn off_runtime<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    if tokio::runtime::Handle::try_current().is_err() {
        return f();
    }
    std::thread::scope(|s| match s.spawn(f).join() {
        Ok(r) => r,
        Err(panic) => std::panic::resume_unwind(panic),
    })
}

type Params<'a> = &'a [&'a (dyn postgres::types::ToSql + Sync)];

/// The round trips gg makes, each off the runtime.
pub trait Exec {
    /// The client the round trips run on.
    fn client(&mut self) -> &mut Client;

    /// Runs `sql` and returns every row.
    fn query(
        &mut self,
        sql: &str,
        params: Params<'_>,
    ) -> Result<Vec<postgres::Row>, postgres::Error> {
        let client = self.client();
        off_runtime(move || client.query(sql, params))
    }

    /// Runs `sql` and returns its one row (an error for none or several).
    fn query_one(
        &mut self,
        sql: &str,
        params: Params<'_>,
    ) -> Result<postgres::Row, postgres::Error> {
        let client = self.client();
        off_runtime(move || client.query_one(sql, params))
    }

    /// Runs `sql` and returns how many rows it changed.
    fn execute(&mut self, sql: &str, params: Params<'_>) -> Result<u64, postgres::Error> {
        let client = self.client();
        off_runtime(move || client.execute(sql, params))
    }

    /// Runs several `;`-separated statements, without parameters.
    fn batch_execute(&mut self, sql: &str) -> Result<(), postgres::Error> {
        let client = self.client();
        off_runtime(move || client.batch_execute(sql))
    }
}

impl Exec for Client {
    fn client(&mut self) -> &mut Client {
        self
    }
}

/// A connection borrowed from a pool; it goes back when dropped (unless
/// it broke).
pub struct Conn {
    client: Option<Client>,
    pool: Arc<Pool>,
}

impl Exec for Conn {
    fn client(&mut self) -> &mut Client {
        self.client.as_mut().expect("a live connection")
    }
}

/// An open transaction on a borrowed connection.
pub struct Tx<'a> {
    client: &'a mut Client,
}

impl Exec for Tx<'_> {
    fn client(&mut self) -> &mut Client {
        self.client
    }
}

/// Drops a client where its closing handshake may block.
pub fn close(client: Client) {
    off_runtime(move || drop(client));
}

impl Drop for Conn {
    fn drop(&mut self) {
        let mut idle = self.pool.idle.lock().unwrap_or_else(|p| p.into_inner());
        let spare = match self.client.take() {
            Some(client) if !client.is_closed() && idle.0.len() < IDLE_MAX => {
                idle.0.push(client);
                None
            }
            other => {
                idle.1 -= 1;
                other
            }
        };
        drop(idle);
        self.pool.freed.notify_one();
        if let Some(client) = spare {
            close(client);
        }
    }
}

/// Either a database error (maybe retryable) or gg's own refusal.
#[derive(Debug)]
pub enum TxError {
    /// The database failed; retried when it is a serialization failure or
    /// a deadlock.
    Db(postgres::Error),
    /// gg refused the mutation; never retried.
    Gg(GgError),
}

impl From<postgres::Error> for TxError {
    fn from(e: postgres::Error) -> Self {
        TxError::Db(e)
    }
}

impl From<GgError> for TxError {
    fn from(e: GgError) -> Self {
        TxError::Gg(e)
    }
}

fn retryable(e: &postgres::Error) -> bool {
    matches!(
        e.code(),
        Some(c) if *c == SqlState::T_R_SERIALIZATION_FAILURE || *c == SqlState::T_R_DEADLOCK_DETECTED
    )
}

fn pools() -> &'static Mutex<HashMap<String, Arc<Pool>>> {
    static POOLS: OnceLock<Mutex<HashMap<String, Arc<Pool>>>> = OnceLock::new();
    POOLS.get_or_init(Default::default)
}

/// The process's pool for `url`, opened (and the schema migrated) on first
/// use. An unreachable database or a schema newer than this binary is a
/// clear error.
pub fn pool(url: &str) -> GgResult<Arc<Pool>> {
    let mut pools = pools().lock().unwrap_or_else(|p| p.into_inner());
    if let Some(pool) = pools.get(url) {
        return Ok(pool.clone());
    }
    let pool = Pool::new(url, config(url)?);
    {
        let mut conn = pool.get()?;
        migrate(&mut conn, url)?;
    }
    pools.insert(url.to_string(), pool.clone());
    Ok(pool)
}

/// How gg connects to `url`: a 5 s connect timeout unless the URL sets
/// one; a URL the driver cannot read is an `invalid-argument` error.
fn config(url: &str) -> GgResult<Config> {
    let mut config: Config = url.parse().map_err(|e| {
        GgError::invalid(format!(
            "the store URL {} is not a PostgreSQL URL gg can read: {e}",
            redact(url)
        ))
    })?;
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(Duration::from_secs(5));
    }
    config.application_name("gg");
    Ok(config)
}

/// A pool for reading the database at `url` only (the console's): every
/// session it opens is read-only (`default_transaction_read_only`), so even
/// a stray write would be refused by the server; nothing is created or
/// migrated, and the pool is the caller's own, never handed to writers.
/// It connects once before returning, so an unreachable server is an error
/// here rather than on the first read.
pub fn read_only_pool(url: &str) -> GgResult<Arc<Pool>> {
    let mut config = config(url)?;
    // Appended to the URL's own options (such as its search_path).
    let options = match config.get_options() {
        Some(given) => format!("{given} -c default_transaction_read_only=on"),
        None => "-c default_transaction_read_only=on".to_string(),
    };
    config.options(&options);
    let pool = Pool::new(url, config);
    drop(pool.get()?);
    Ok(pool)
}

/// Refuses a database whose gg schema `version` is newer than this binary.
pub fn check_schema_version(url: &str, version: i32) -> GgResult<()> {
    if version > SCHEMA_VERSION {
        return Err(GgError::io(format!(
            "the database at {} has gg schema version {version}, newer than this gg binary knows (version {SCHEMA_VERSION}); upgrade gg before using this database",
            redact(url)
        )));
    }
    Ok(())
}

/// A fresh connection of its own, outside any pool (for listeners and
/// advisory locks, which live as long as the connection).
pub fn connect(url: &str) -> GgResult<Client> {
    let pool = pool(url)?;
    pool.connect()
}

impl Pool {
    fn new(url: &str, config: Config) -> Arc<Self> {
        Arc::new(Pool {
            url: url.to_string(),
            config,
            idle: Mutex::new((Vec::new(), 0)),
            freed: Condvar::new(),
        })
    }

    /// The database URL the pool connects to, unredacted.
    pub fn url(&self) -> &str {
        &self.url
    }

    fn connect(&self) -> GgResult<Client> {
        let config = &self.config;
        off_runtime(move || config.connect(NoTls)).map_err(|e| {
            GgError::io(format!(
                "the PostgreSQL database at {} is unreachable: {}",
                redact(&self.url),
                chain(&e)
            ))
        })
    }

    /// Borrows a connection, opening one while under the pool's cap and
    /// waiting for one to come back otherwise.
    pub fn get(self: &Arc<Self>) -> GgResult<Conn> {
        let mut idle = self.idle.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if let Some(client) = idle.0.pop() {
                return Ok(Conn {
                    client: Some(client),
                    pool: self.clone(),
                });
            }
            if idle.1 < POOL_MAX {
                idle.1 += 1;
                drop(idle);
                return match self.connect() {
                    Ok(client) => Ok(Conn {
                        client: Some(client),
                        pool: self.clone(),
                    }),
                    Err(e) => {
                        self.idle.lock().unwrap_or_else(|p| p.into_inner()).1 -= 1;
                        Err(e)
                    }
                };
            }
            idle = self.freed.wait(idle).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Runs `f` in a transaction, retrying the whole of it on a
    /// serialization failure or a deadlock. A refusal (`TxError::Gg`) rolls
    /// back and is returned as it is.
    pub fn transaction<T>(
        self: &Arc<Self>,
        what: &str,
        mut f: impl FnMut(&mut Tx<'_>) -> Result<T, TxError>,
    ) -> GgResult<T> {
        let mut conn = self.get()?;
        let mut attempt = 0;
        loop {
            attempt += 1;
            let result = (|| -> Result<T, TxError> {
                conn.batch_execute("BEGIN")?;
                let mut tx = Tx {
                    client: conn.client(),
                };
                match f(&mut tx) {
                    Ok(value) => {
                        tx.batch_execute("COMMIT")?;
                        Ok(value)
                    }
                    Err(e) => {
                        // A broken connection is dropped by the pool; on a
                        // live one the rollback ends the transaction.
                        let _ = tx.batch_execute("ROLLBACK");
                        Err(e)
                    }
                }
            })();
            match result {
                Ok(v) => return Ok(v),
                Err(TxError::Gg(e)) => return Err(e),
                Err(TxError::Db(e)) if retryable(&e) && attempt < RETRIES => {
                    std::thread::sleep(Duration::from_millis(2 * attempt as u64));
                }
                Err(TxError::Db(e)) => {
                    if conn.client().is_closed() {
                        return Err(GgError::io(format!(
                            "{what} failed: the connection to {} broke: {e}",
                            redact(&self.url)
                        )));
                    }
                    return Err(db_error(what, &e));
                }
            }
        }
    }
}

fn migrate(conn: &mut Conn, url: &str) -> GgResult<()> {
    conn.batch_execute("BEGIN")
        .map_err(|e| db_error("migrating the schema", &e))?;
    let mut tx = Tx {
        client: conn.client(),
    };
    let step = |tx: &mut Tx<'_>| -> Result<(), TxError> {
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])?;
        // A URL whose search_path names a schema that does not exist yet
        // (`?options=-csearch_path%3Dmyrun`, one run per schema): create it.
        let current: Option<String> = tx.query_one("SELECT current_schema()", &[])?.get(0);
        if current.is_none() {
            let path: String = tx.query_one("SHOW search_path", &[])?.get(0);
            if let Some(first) = first_schema(&path) {
                let name = if first == "$user" {
                    tx.query_one("SELECT current_user::text", &[])?.get(0)
                } else {
                    first
                };
                tx.batch_execute(&format!(
                    "CREATE SCHEMA IF NOT EXISTS {}",
                    quote_ident(&name)
                ))?;
            }
        }
        tx.batch_execute(
            "CREATE TABLE IF NOT EXISTS gg_schema_version (version INTEGER NOT NULL)",
        )?;
        let current: i32 = tx
            .query_one(
                "SELECT COALESCE(MAX(version), 0) FROM gg_schema_version",
                &[],
            )?
            .get(0);
        check_schema_version(url, current)?;
        for (version, sql) in super::schema::POSTGRES_MIGRATIONS
            .iter()
            .filter(|(v, _)| *v > current)
        {
            tx.batch_execute(sql)?;
            tx.execute(
                "INSERT INTO gg_schema_version (version) VALUES ($1)",
                &[version],
            )?;
        }
        Ok(())
    };
    let result = step(&mut tx);
    if result.is_err() {
        let _ = tx.batch_execute("ROLLBACK");
    }
    match result {
        Ok(()) => tx
            .batch_execute("COMMIT")
            .map_err(|e| db_error("migrating the schema", &e)),
        Err(TxError::Gg(e)) => Err(e),
        Err(TxError::Db(e)) => Err(db_error("migrating the schema", &e)),
    }
}

/// The first schema a `search_path` setting names (`myrun`, `"My Run"`,
/// `"$user", public`), as the name the schema has.
fn first_schema(search_path: &str) -> Option<String> {
    let text = search_path.trim_start();
    if let Some(rest) = text.strip_prefix('"') {
        let mut name = String::new();
        let mut chars = rest.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '"' {
                if chars.peek() == Some(&'"') {
                    chars.next();
                    name.push('"');
                } else {
                    return Some(name);
                }
            } else {
                name.push(c);
            }
        }
        None
    } else {
        // Unquoted, PostgreSQL folds it to lower case.
        let name = text.split(',').next()?.trim();
        (!name.is_empty()).then(|| name.to_lowercase())
    }
}

/// `name` as a quoted SQL identifier.
fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// A fresh schema in the database at `base`, and the URL that puts a
/// connection's `search_path` on it: one run (or one test) per schema in
/// a shared database.
pub fn fresh_schema(base: &str, prefix: &str) -> GgResult<String> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let name = format!(
        "{prefix}_{}_{}_{nanos}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    );
    let config: Config = base
        .parse()
        .map_err(|e| GgError::invalid(format!("{} is not a PostgreSQL URL: {e}", redact(base))))?;
    let mut client = off_runtime(|| config.connect(NoTls)).map_err(|e| {
        GgError::io(format!(
            "the PostgreSQL database at {} is unreachable: {}",
            redact(base),
            chain(&e)
        ))
    })?;
    Exec::batch_execute(&mut client, &format!("CREATE SCHEMA {name}"))
        .map_err(|e| db_error("creating a schema", &e))?;
    close(client);
    let sep = if base.contains('?') { '&' } else { '?' };
    Ok(format!("{base}{sep}options=-csearch_path%3D{name}"))
}

/// Learns of store changes without polling: a connection of its own that
/// `LISTEN`s on [`CHANNEL`].
pub struct Listener {
    client: Client,
    schema: String,
    heads: HashMap<String, i64>,
}

impl Listener {
    /// Opens a connection of its own to `url` and starts listening.
    pub fn new(url: &str) -> GgResult<Self> {
        let mut client = connect(url)?;
        Exec::batch_execute(&mut client, &format!("LISTEN {CHANNEL}"))
            .map_err(|e| db_error("listening for store changes", &e))?;
        let schema: String = Exec::query_one(&mut client, "SELECT current_schema()", &[])
            .map_err(|e| db_error("listening for store changes", &e))?
            .get(0);
        Ok(Listener {
            client,
            schema,
            heads: HashMap::new(),
        })
    }

    /// Blocks until `store` is announced at a head past `after`, or
    /// `timeout` passes; returns the head it learnt of.
    pub fn wait(&mut self, store: &str, after: i64, timeout: Duration) -> GgResult<Option<i64>> {
        let deadline = std::time::Instant::now() + timeout;
        loop {
            if let Some(head) = self.heads.get(store).copied().filter(|h| *h > after) {
                return Ok(Some(head));
            }
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return Ok(None);
            }
            let client = &mut self.client;
            let next = off_runtime(move || {
                let mut notifications = client.notifications();
                let mut iter = notifications.timeout_iter(left);
                iter.next()
            });
            match next {
                Ok(Some(n)) => {
                    let payload = n.payload();
                    let ours = payload
                        .strip_prefix(self.schema.as_str())
                        .and_then(|rest| rest.strip_prefix('/'));
                    if let Some((id, head)) = ours.and_then(|p| p.rsplit_once(':')) {
                        if let Ok(head) = head.parse::<i64>() {
                            let e = self.heads.entry(id.to_string()).or_insert(0);
                            *e = (*e).max(head);
                        }
                    }
                }
                Ok(None) => return Ok(None),
                Err(e) => return Err(db_error("waiting for store changes", &e)),
            }
        }
    }
}

/// The advisory-lock key of a persistent profile (FNV-1a of the name, so
/// every host computes the same one).
pub fn lock_key(name: &str) -> i64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in "gg-profile-key:".bytes().chain(name.bytes()) {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_schema_of_a_search_path() {
        assert_eq!(first_schema("myrun").as_deref(), Some("myrun"));
        assert_eq!(first_schema("MyRun, public").as_deref(), Some("myrun"));
        assert_eq!(
            first_schema("\"My \"\"Run\"\"\", public").as_deref(),
            Some("My \"Run\"")
        );
        assert_eq!(first_schema("\"$user\", public").as_deref(), Some("$user"));
        assert_eq!(first_schema("").as_deref(), None);
        assert_eq!(quote_ident("a\"b"), "\"a\"\"b\"");
    }
}
