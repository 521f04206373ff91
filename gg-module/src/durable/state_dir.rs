//! gg's own state, under a state folder: never in the workspace.
//!
//! `state.sqlite` (WAL) holds each agent's window, turn counter and program
//! library; the memories stores and event streams live beside it.

use std::path::{Path, PathBuf};

use rusqlite::Connection;

/// Opens (creating if missing) a SQLite database in WAL mode with the
/// durability gg promises: an acknowledged write survives a host crash.
pub fn open_database(path: &Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open(path)?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    switch_to_wal(&conn)?;
    // FULL: every commit is fsynced, so what gg acknowledged is on disk.
    conn.pragma_update(None, "synchronous", "FULL")?;
    Ok(conn)
}

/// Runs a schema's statements (`CREATE TABLE IF NOT EXISTS …`) as one
/// write transaction: a new database is made with one commit, one fsync,
/// rather than one per table, and an existing one is left as it was. The
/// transaction takes the write lock when it begins, through the busy
/// handler, so agents opening one new database at once wait for each other
/// instead of failing on a read lock that cannot be upgraded.
pub fn apply_schema(conn: &Connection, schema: &str) -> rusqlite::Result<()> {
    conn.execute_batch("BEGIN IMMEDIATE")?;
    match conn.execute_batch(schema) {
        Ok(()) => conn.execute_batch("COMMIT"),
        Err(e) => {
            let _ = conn.execute_batch("ROLLBACK");
            Err(e)
        }
    }
}

/// Opens the database at `path` with `schema` applied ([`apply_schema`]),
/// making a missing one whole before it appears under its name: built under
/// a temporary name without waiting on the disk at each step (SQLite syncs
/// the switch to WAL and the first commit one by one: seven fsyncs for a new
/// file), synced once, then moved into place only if no one made it in the
/// meantime, and its folder synced: two fsyncs. A crash leaves either no
/// database, made again next time, or a whole one and nothing beside it
/// (it is renamed into place with `RENAME_NOREPLACE`, or hard-linked where
/// that rename is not offered). Where the folder takes neither, the
/// database is made in place, as [`open_database`] does. The temporary
/// files a crash left beside a missing database (any older than 10
/// minutes) are removed when it is made.
pub fn open_database_with_schema(path: &Path, schema: &str) -> rusqlite::Result<Connection> {
    if !path.exists() {
        if let Err(e) = make_whole(path, schema) {
            tracing::debug!("made {} in place: {e}", path.display());
        }
    }
    let conn = open_database(path)?;
    apply_schema(&conn, schema)?;
    Ok(conn)
}

/// How old a temporary file of [`make_whole`] must be to count as left by a
/// crash rather than by an opener still at work: 10 minutes (making one
/// takes milliseconds).
const ABANDONED_AFTER: std::time::Duration = std::time::Duration::from_secs(600);

/// The new database for [`open_database_with_schema`].
fn make_whole(path: &Path, schema: &str) -> Result<(), Box<dyn std::error::Error>> {
    static MADE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let (Some(folder), Some(name)) = (path.parent(), path.file_name()) else {
        return Err("the database's path names no file".into());
    };
    remove_abandoned(folder, &format!(".{}.new-", name.to_string_lossy()));
    let temporary = folder.join(format!(
        ".{}.new-{}-{}",
        name.to_string_lossy(),
        std::process::id(),
        MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    let made = (|| -> Result<(), Box<dyn std::error::Error>> {
        {
            let conn = Connection::open(&temporary)?;
            // Nothing is acknowledged from this file until it is synced
            // whole below, so SQLite need not sync each step.
            conn.pragma_update(None, "synchronous", "OFF")?;
            conn.pragma_update(None, "journal_mode", "WAL")?;
            apply_schema(&conn, schema)?;
            // Closing the only connection moves the log into the file.
        }
        std::fs::File::open(&temporary)?.sync_all()?;
        put_in_place(&temporary, path).map_err(Into::into)
    })();
    for leftover in ["", "-wal", "-shm"] {
        let mut file = temporary.clone().into_os_string();
        file.push(leftover);
        let _ = std::fs::remove_file(file);
    }
    std::fs::File::open(folder)?.sync_all()?;
    made
}

/// Moves the made database from `temporary` to `path` unless a database
/// is already there (another opener made it first: then `temporary` stays,
/// for the caller to remove). Where the kernel and file system can, one
/// rename that refuses to replace: a crash at any point leaves the
/// temporary name or the real one, never both. Elsewhere a hard link, after
/// which the temporary name is left until it is removed.
fn put_in_place(temporary: &Path, path: &Path) -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::ffi::OsStrExt;
        let (Ok(from), Ok(to)) = (
            std::ffi::CString::new(temporary.as_os_str().as_bytes()),
            std::ffi::CString::new(path.as_os_str().as_bytes()),
        ) else {
            return Err(std::io::ErrorKind::InvalidInput.into());
        };
        // SAFETY: two NUL-terminated paths that outlive the call. The raw
        // system call, not glibc's wrapper, which older glibc lacks.
        let renamed = unsafe {
            libc::syscall(
                libc::SYS_renameat2,
                libc::AT_FDCWD,
                from.as_ptr(),
                libc::AT_FDCWD,
                to.as_ptr(),
                libc::RENAME_NOREPLACE,
            )
        };
        if renamed == 0 {
            return Ok(());
        }
        let error = std::io::Error::last_os_error();
        match error.raw_os_error() {
            Some(libc::EEXIST) => return Ok(()),
            // Not offered by this kernel or file system: linked below.
            Some(libc::EINVAL | libc::ENOSYS | libc::EPERM) => {}
            _ => return Err(error),
        }
    }
    match std::fs::hard_link(temporary, path) {
        Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => Err(e),
        _ => Ok(()),
    }
}

/// Removes the files in `folder` named `prefix…` (a temporary database and
/// its `-wal` and `-shm`) last changed longer than [`ABANDONED_AFTER`] ago.
/// Nothing reads them; a crash while a database was being made left them.
fn remove_abandoned(folder: &Path, prefix: &str) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    for entry in entries.flatten() {
        if !entry.file_name().to_string_lossy().starts_with(prefix) {
            continue;
        }
        let abandoned = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|modified| modified.elapsed().ok())
            .is_some_and(|age| age > ABANDONED_AFTER);
        if abandoned {
            tracing::debug!("removing {}, left by a crash", entry.path().display());
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// How long a connection waits for another's lock before "database is
/// locked"; 10 s.
const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// `PRAGMA journal_mode=WAL`, retried while another connection holds the
/// lock it needs. Agents of one state folder that start at the same moment
/// all switch a new database at once, and SQLite answers some of them
/// "database is locked" at once rather than through the busy handler (two
/// readers wanting the same exclusive lock would otherwise wait on each
/// other); once one has switched, the others find WAL already set.
fn switch_to_wal(conn: &Connection) -> rusqlite::Result<()> {
    let start = std::time::Instant::now();
    loop {
        match conn.pragma_update(None, "journal_mode", "WAL") {
            Err(rusqlite::Error::SqliteFailure(e, _))
                if e.code == rusqlite::ErrorCode::DatabaseBusy
                    && start.elapsed() < BUSY_TIMEOUT =>
            {
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
            other => return other,
        }
    }
}

/// The state folder.
#[derive(Debug, Clone)]
pub struct StateDir {
    root: PathBuf,
}

impl StateDir {
    /// Opens `root`, creating it if missing.
    pub fn open(root: impl AsRef<Path>) -> std::io::Result<Self> {
        std::fs::create_dir_all(root.as_ref())?;
        Ok(StateDir {
            root: root.as_ref().to_path_buf(),
        })
    }

    /// The folder's path.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The agent state database, `state.sqlite`.
    pub fn state_db(&self) -> PathBuf {
        self.root.join("state.sqlite")
    }

    /// The folder of event streams, one `<agent>.jsonl` each.
    pub fn events_dir(&self) -> PathBuf {
        self.root.join("events")
    }
}

#[cfg(test)]
mod tests {
    use super::{
        apply_schema, open_database, open_database_with_schema, put_in_place, ABANDONED_AFTER,
    };
    use std::path::{Path, PathBuf};
    use std::sync::{Arc, Barrier};

    /// Runs `open` on `threads` threads released together, each given its
    /// number and the database's path, and answers what each returned.
    fn at_once<T: Send + 'static>(
        path: &Path,
        threads: usize,
        open: impl Fn(usize, &Path) -> T + Send + Sync + 'static,
    ) -> Vec<T> {
        let path: Arc<PathBuf> = Arc::new(path.to_owned());
        let open = Arc::new(open);
        let barrier = Arc::new(Barrier::new(threads));
        let handles: Vec<_> = (0..threads)
            .map(|i| {
                let (path, open, barrier) = (path.clone(), open.clone(), barrier.clone());
                std::thread::spawn(move || {
                    barrier.wait();
                    open(i, &path)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("every opener got the database"))
            .collect()
    }

    /// Agents of one state folder start at the same moment (a host starting
    /// several, a pool handing out instances): every one of them opens the
    /// database, even the first time, when one of them is still switching it
    /// to WAL and creating its tables.
    #[test]
    fn many_connections_open_a_new_database_at_once() {
        for round in 0..20 {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("state.sqlite");
            let threads = 8;
            at_once(&path, threads, move |i, path| {
                let conn = open_database(path)
                    .unwrap_or_else(|e| panic!("round {round}, opener {i}: {e}"));
                conn.execute_batch(
                    "CREATE TABLE IF NOT EXISTS t (v INTEGER); INSERT INTO t VALUES (1);",
                )
                .unwrap_or_else(|e| panic!("round {round}, writer {i}: {e}"));
            });
            let conn = open_database(&path).unwrap();
            let rows: i64 = conn
                .query_row("SELECT count(*) FROM t", [], |r| r.get(0))
                .unwrap();
            assert_eq!(rows, threads as i64);
        }
    }

    /// A new database gets a schema in one commit: every page it writes is
    /// in the write-ahead log once (a commit per table would write the
    /// database's first page again for each), and agents opening it at once
    /// all find it whole.
    #[test]
    fn a_new_database_gets_its_schema_in_one_commit() {
        for schema in [
            crate::durable::schema::AGENT_STATE,
            crate::durable::schema::MEMORY_STORE,
        ] {
            let dir = tempfile::tempdir().unwrap();
            let connections = at_once(&dir.path().join("state.sqlite"), 4, move |_, path| {
                let conn = open_database(path).unwrap();
                apply_schema(&conn, schema).unwrap();
                conn
            });
            let conn = &connections[0];
            let pages: i64 = conn
                .query_row("PRAGMA page_count", [], |r| r.get(0))
                .unwrap();
            let (logged, _checkpointed): (i64, i64) = conn
                .query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| {
                    Ok((r.get(1)?, r.get(2)?))
                })
                .unwrap();
            assert!(pages > 2, "the schema made its tables: {pages} pages");
            assert_eq!(logged, pages, "each page logged once");
            assert_eq!(schema_tables(conn), schema.matches("CREATE TABLE").count());
        }
    }

    /// The tables a schema made: all but SQLite's own and the tests' `t`.
    fn schema_tables(conn: &rusqlite::Connection) -> usize {
        let tables: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 't'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        tables as usize
    }

    /// A database made whole under a temporary name appears once, with its
    /// tables, however many openers race to make it, and nothing of the
    /// temporary files stays behind.
    #[test]
    fn a_database_made_whole_appears_once_with_its_schema() {
        for round in 0..10 {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("state.sqlite");
            let schema = crate::durable::schema::AGENT_STATE;
            let connections = at_once(&path, 6, move |i, path| {
                let conn = open_database_with_schema(path, schema)
                    .unwrap_or_else(|e| panic!("round {round}, opener {i}: {e}"));
                conn.execute_batch(
                    "CREATE TABLE IF NOT EXISTS t (v INTEGER); INSERT INTO t VALUES (1);",
                )
                .unwrap_or_else(|e| panic!("round {round}, writer {i}: {e}"));
                conn
            });
            let conn = &connections[0];
            let mode: String = conn
                .query_row("PRAGMA journal_mode", [], |r| r.get(0))
                .unwrap();
            assert_eq!(mode, "wal");
            assert_eq!(schema_tables(conn), schema.matches("CREATE TABLE").count());
            let rows: i64 = conn
                .query_row("SELECT count(*) FROM t", [], |r| r.get(0))
                .unwrap();
            assert_eq!(rows, 6, "every opener wrote to the one database");
            drop(connections);
            assert_eq!(file_names(dir.path()), ["state.sqlite"], "round {round}");
        }
    }

    /// The temporary files a crash left while a database was being made go
    /// when it is next made; those of an opener still at work stay.
    #[test]
    fn making_a_database_removes_what_a_crash_left_and_nothing_younger() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.sqlite");
        let old = std::time::SystemTime::now() - ABANDONED_AFTER * 2;
        let crashed = [
            ".state.sqlite.new-999999-0",
            ".state.sqlite.new-999999-0-wal",
            ".state.sqlite.new-999999-0-shm",
        ];
        for name in crashed {
            let file = std::fs::File::create(dir.path().join(name)).unwrap();
            file.set_modified(old).unwrap();
        }
        let at_work = ".state.sqlite.new-999998-0";
        std::fs::File::create(dir.path().join(at_work)).unwrap();
        let unrelated = ".other.sqlite.new-999999-0";
        std::fs::File::create(dir.path().join(unrelated))
            .unwrap()
            .set_modified(old)
            .unwrap();

        let conn = open_database_with_schema(&path, crate::durable::schema::AGENT_STATE)
            .expect("the database is made");
        drop(conn);
        assert_eq!(file_names(dir.path()), [unrelated, at_work, "state.sqlite"]);
    }

    /// Putting a made database in place leaves nothing under its temporary
    /// name, so a crash right after it leaves no file behind; a database
    /// another opener put there first is never replaced.
    #[test]
    fn a_made_database_is_moved_into_place_and_never_over_another() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.sqlite");
        let temporary = dir.path().join(".state.sqlite.new-1-0");
        std::fs::write(&temporary, b"made").unwrap();
        put_in_place(&temporary, &path).unwrap();
        if cfg!(target_os = "linux") {
            assert_eq!(file_names(dir.path()), ["state.sqlite"]);
        }
        assert_eq!(std::fs::read(&path).unwrap(), b"made");

        let second = dir.path().join(".state.sqlite.new-2-0");
        std::fs::write(&second, b"late").unwrap();
        put_in_place(&second, &path).expect("losing the race is no error");
        assert_eq!(std::fs::read(&path).unwrap(), b"made");
        assert!(
            second.exists(),
            "the loser's file is its caller's to remove"
        );
    }

    /// The names of the files in `folder`, sorted.
    fn file_names(folder: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(folder)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }
}
