//! One memory store behind one interface ([`MemoryBackend`]) with two
//! backends. The default is an embedded SQLite database per store (WAL,
//! fsync on commit) holding the current set, the append-only revision log,
//! per-slug revision counters, running totals and the run's peaks; every
//! mutation is one `BEGIN IMMEDIATE` transaction, so holders in other
//! threads or processes never lose an update, and what was acknowledged
//! survives a crash. The PostgreSQL backend (`pg.rs`) keeps the same promises across
//! hosts.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::path::Path;
use std::rc::Rc;

use serde::{Deserialize, Serialize};

use crate::error::GgResult;

mod mutation;
mod pg;
mod sqlite;

pub use mutation::Mutation;
pub use pg::PgStore;
pub use sqlite::SqliteStore;
pub(crate) use sqlite::{holders, now_ms, peaks, totals};

/// An agent holding the store.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
    /// The key programs import its code by (`csvTools`): given by the
    /// store the first time the slug holds code, deduplicated against
    /// every key the store ever gave, and kept by the slug for the life of
    /// the store (through deletes), so every holder in every process
    /// imports it by the same name. `None` for a slug that never held code.
    #[serde(skip)]
    pub key: Option<String>,
}

impl MemoryRecord {
    /// The key its code is imported by, when it has code.
    pub fn import_key(&self) -> Option<&str> {
        self.code.as_ref().and(self.key.as_deref())
    }
}

/// One entry of the revision log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
    /// The program that made it (`p3`), when it was made by one.
    pub program: Option<String>,
}

/// Who makes a mutation: the agent instance, and the program it was
/// running. A plain `&str` is an agent outside any program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Author<'a> {
    /// The agent instance's id.
    pub agent: &'a str,
    /// The program's id, when a program makes it.
    pub program: Option<&'a str>,
}

impl<'a> From<&'a str> for Author<'a> {
    fn from(agent: &'a str) -> Self {
        Author {
            agent,
            program: None,
        }
    }
}

impl<'a> From<&'a String> for Author<'a> {
    fn from(agent: &'a String) -> Self {
        Author::from(agent.as_str())
    }
}

/// Running totals of the current set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Peaks {
    /// The most memories held at once.
    pub count: u64,
    /// The most body characters held at once.
    pub chars: u64,
    /// The most body lines held at once.
    pub lines: u64,
}

/// What a mutation does, decided by the caller inside the transaction.
#[derive(Debug, Clone, Serialize, Deserialize)]
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
    /// It is attached (a live instance holds the store) until it leaves.
    fn join(&self, holder: &str, scope: &str, writable: bool) -> GgResult<()>;
    /// Marks `holder` detached: its instance has ended. Its watermark stays,
    /// so a later instance of it hears what it missed exactly once.
    fn leave(&self, holder: &str) -> GgResult<()>;
    /// Every holder, in id order.
    fn holders(&self) -> GgResult<Vec<Holder>>;
    /// The holders a live instance holds the store for now, in id order
    /// (an instance of a process that was killed stays attached).
    fn attached_holders(&self) -> GgResult<Vec<Holder>>;
    /// The revisions past `holder`'s watermark, moving the watermark to the
    /// last of them in the same transaction.
    fn pull(&mut self, holder: &str) -> GgResult<Vec<RevisionRecord>>;
    /// Runs one mutation of `slug` by `agent` as one transaction.
    /// `decide` may run more than once when the backend retries a
    /// transaction that lost a race; only the last run's answer counts.
    fn mutate(
        &mut self,
        author: Author<'_>,
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

/// Revisions a cached copy of a store's set catches up on one memory at a
/// time; further behind, it reads the whole set again. Catching up costs
/// one lookup per memory revised, a whole read one row per memory held.
pub const PATCH_AT_MOST: i64 = 64;

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
        Ok(Self::with_backend(id, Box::new(PgStore::open(url, id)?)))
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

    /// The current set, in slug order. It is cached by head; when the store
    /// has moved on by a few revisions, only the memories they revised are
    /// read again (see [`MemoryStore::changed_since`]), so a write does not
    /// cost the next reader the whole set.
    pub fn list(&self) -> GgResult<Rc<Vec<MemoryRecord>>> {
        let head = self.head()?;
        if let Some((at, set)) = &*self.cache.borrow() {
            if *at == head {
                return Ok(set.clone());
            }
        }
        // Taken out, so that the cache holds the set's only handle (unless
        // a caller still holds one) and it is patched in place.
        let cached = self.cache.borrow_mut().take();
        let changed = match &cached {
            Some((at, _)) => self.changed_since(*at, head)?,
            None => None,
        };
        let set = match (cached, changed) {
            (Some((_, set)), Some(slugs)) => {
                let mut set = Rc::try_unwrap(set).unwrap_or_else(|shared| (*shared).clone());
                for slug in &slugs {
                    let now = self.backend.get(slug)?;
                    match (set.binary_search_by(|r| r.slug.as_str().cmp(slug)), now) {
                        (Ok(i), Some(record)) => set[i] = record,
                        (Ok(i), None) => {
                            set.remove(i);
                        }
                        (Err(i), Some(record)) => set.insert(i, record),
                        (Err(_), None) => {}
                    }
                }
                Rc::new(set)
            }
            _ => Rc::new(self.backend.list()?),
        };
        *self.cache.borrow_mut() = Some((head, set.clone()));
        Ok(set)
    }

    /// The slugs revised after revision `seq`, when the store is now at
    /// `head` and that is at most [`PATCH_AT_MOST`] revisions on; `None`
    /// when it is more (or `head` is not after `seq`), and reading the
    /// whole set is the cheaper way to catch up. Revisions after `head`
    /// that land meanwhile may be named too: a reader that patches them in
    /// early reads them again at its next catch-up, which changes nothing.
    pub fn changed_since(&self, seq: i64, head: i64) -> GgResult<Option<BTreeSet<String>>> {
        if head <= seq || head - seq > PATCH_AT_MOST {
            return Ok(None);
        }
        let revisions = self.backend.revisions_since(seq)?;
        Ok(Some(revisions.into_iter().map(|r| r.slug).collect()))
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

    /// Marks `holder` detached: its instance has ended (see
    /// [`MemoryBackend::leave`]).
    pub fn leave(&self, holder: &str) -> GgResult<()> {
        self.backend.leave(holder)
    }

    /// Every agent holding the store, in id order.
    pub fn holders(&self) -> GgResult<Vec<Holder>> {
        self.backend.holders()
    }

    /// The holders a live instance holds the store for now, in id order.
    pub fn attached_holders(&self) -> GgResult<Vec<Holder>> {
        self.backend.attached_holders()
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
    pub fn mutate<'a>(
        &mut self,
        author: impl Into<Author<'a>>,
        slug: &str,
        mut decide: impl FnMut(&TxView<'_>) -> GgResult<Change>,
    ) -> GgResult<RevisionRecord> {
        self.backend.mutate(author.into(), slug, &mut decide)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::GgError;

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

    fn put_code(code: Option<&str>) -> Change {
        Change::Put {
            mutation: Mutation::Create,
            description: "d".into(),
            body: "b".into(),
            code: code.map(str::to_string),
            on_use: None,
        }
    }

    fn key_of(s: &MemoryStore, slug: &str) -> Option<String> {
        s.get(slug).unwrap().and_then(|r| r.key)
    }

    /// Keys are the store's: given on the first write with code,
    /// deduplicated, kept by the slug through deletes and cleared code,
    /// never handed to another slug.
    fn keys_stay_with_their_slug(mut s: MemoryStore) {
        s.mutate("a", "plain", |_| Ok(put_code(None))).unwrap();
        assert_eq!(key_of(&s, "plain"), None, "no code, no key");
        s.mutate("a", "csv-tools", |_| Ok(put_code(Some("export {}"))))
            .unwrap();
        s.mutate("a", "csv_tools", |_| Ok(put_code(Some("export {}"))))
            .unwrap();
        assert_eq!(key_of(&s, "csv-tools").as_deref(), Some("csvTools"));
        assert_eq!(key_of(&s, "csv_tools").as_deref(), Some("csvTools2"));
        s.mutate("a", "csv-tools", |_| Ok(Change::Delete)).unwrap();
        s.mutate("a", "csv.tools", |_| Ok(put_code(Some("export {}"))))
            .unwrap();
        assert_eq!(key_of(&s, "csv.tools").as_deref(), Some("csvTools3"));
        s.mutate("a", "csv_tools", |_| Ok(put_code(None))).unwrap();
        assert_eq!(
            s.get("csv_tools").unwrap().unwrap().import_key(),
            None,
            "cleared code imports by nothing"
        );
        s.mutate("a", "csv-tools", |_| Ok(put_code(Some("export {}"))))
            .unwrap();
        s.mutate("a", "csv_tools", |_| Ok(put_code(Some("export {}"))))
            .unwrap();
        let listed: Vec<(String, Option<String>)> = s
            .list()
            .unwrap()
            .iter()
            .map(|r| (r.slug.clone(), r.import_key().map(str::to_string)))
            .collect();
        assert_eq!(
            listed,
            [
                ("csv-tools".into(), Some("csvTools".into())),
                ("csv.tools".into(), Some("csvTools3".into())),
                ("csv_tools".into(), Some("csvTools2".into())),
                ("plain".into(), None),
            ]
        );
    }

    /// A reader's cached set, caught up revision by revision or read whole
    /// again, is always what a reader with no cache reads, over `steps`
    /// reads. `open` gives a new handle on one store each time it is called.
    fn a_cached_set_is_the_set_read_whole(steps: usize, open: impl Fn() -> MemoryStore) {
        let mut writer = open();
        let reader = open();
        let mut next = crate::test_numbers::numbers(0x9e37_79b9_7f4a_7c15);
        let mut held = Vec::new();
        for step in 0..steps {
            // Mostly a few writes between reads; now and then more than a
            // catch-up takes, or none.
            let writes = match next(10) {
                0 => PATCH_AT_MOST as u64 + 1 + next(20),
                1 => 0,
                _ => 1 + next(5),
            };
            for _ in 0..writes {
                let slug = format!("m{:02}", next(30));
                let change = match next(4) {
                    0 => Change::Delete,
                    1 => put_code(Some("export const x = 1;")),
                    _ => put(&format!("body {}", next(1000))),
                };
                let _ = writer.mutate("a", &slug, |view| match (&change, view.get(&slug)?) {
                    (Change::Delete, None) => Err(crate::error::GgError::not_found("none")),
                    _ => Ok(change.clone()),
                });
            }
            let cached = reader.list().unwrap();
            let whole = open().list().unwrap();
            assert_eq!(*cached, *whole, "step {step}");
            // Sometimes a caller still holds the set when the next read
            // catches up: it keeps what it had.
            if next(3) == 0 {
                held.push((cached.clone(), whole));
            }
        }
        for (cached, whole) in held {
            assert_eq!(*cached, *whole);
        }
    }

    #[test]
    fn a_cached_set_is_the_set_read_whole_on_sqlite() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("memories.sqlite");
        a_cached_set_is_the_set_read_whole(400, || MemoryStore::open(&path, "t").unwrap());
    }

    #[test]
    // Says why it was skipped: a test's output, not the library's.
    #[allow(clippy::print_stderr)]
    fn a_cached_set_is_the_set_read_whole_on_postgres() {
        let Some(base) = std::env::var("GG_TEST_POSTGRES_URL")
            .ok()
            .filter(|u| !u.is_empty())
        else {
            eprintln!("SKIPPED a_cached_set_is_the_set_read_whole_on_postgres: GG_TEST_POSTGRES_URL is not set (scripts/test sets it)");
            return;
        };
        let url = crate::durable::pg::fresh_schema(&base, "cached_set").unwrap();
        a_cached_set_is_the_set_read_whole(120, || MemoryStore::open_postgres(&url, "t").unwrap());
    }

    #[test]
    fn keys_stay_with_their_slug_on_sqlite() {
        keys_stay_with_their_slug(MemoryStore::in_memory("t").unwrap());
    }

    #[test]
    // Says why it was skipped: a test's output, not the library's.
    #[allow(clippy::print_stderr)]
    fn keys_stay_with_their_slug_on_postgres() {
        let Some(base) = std::env::var("GG_TEST_POSTGRES_URL")
            .ok()
            .filter(|u| !u.is_empty())
        else {
            eprintln!("SKIPPED keys_stay_with_their_slug_on_postgres: GG_TEST_POSTGRES_URL is not set (scripts/test sets it)");
            return;
        };
        let url = crate::durable::pg::fresh_schema(&base, "keys").unwrap();
        keys_stay_with_their_slug(MemoryStore::open_postgres(&url, "t").unwrap());
    }

    /// A store an older gg wrote has code but no keys: opening it gives
    /// them, the oldest memory first.
    #[test]
    fn a_store_without_keys_gets_them_oldest_first() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("old.sqlite");
        {
            let mut s = MemoryStore::open(&path, "old").unwrap();
            s.mutate("a", "csv_tools", |_| Ok(put_code(Some("export {}"))))
                .unwrap();
            s.mutate("a", "csv-tools", |_| Ok(put_code(Some("export {}"))))
                .unwrap();
        }
        rusqlite::Connection::open(&path)
            .unwrap()
            .execute("DELETE FROM module_keys", [])
            .unwrap();
        let s = MemoryStore::open(&path, "old").unwrap();
        assert_eq!(key_of(&s, "csv_tools").as_deref(), Some("csvTools"));
        assert_eq!(key_of(&s, "csv-tools").as_deref(), Some("csvTools2"));
    }

    fn names(holders: Vec<Holder>) -> Vec<String> {
        holders.into_iter().map(|h| h.agent).collect()
    }

    #[test]
    fn a_holder_that_leaves_stays_a_holder_but_is_no_longer_attached() {
        let s = MemoryStore::in_memory("t").unwrap();
        s.join("a", "shared", true).unwrap();
        s.join("b", "shared", true).unwrap();
        assert_eq!(names(s.attached_holders().unwrap()), ["a", "b"]);
        s.leave("a").unwrap();
        assert_eq!(names(s.attached_holders().unwrap()), ["b"]);
        assert_eq!(names(s.holders().unwrap()), ["a", "b"]);
        s.join("a", "shared", true).unwrap();
        assert_eq!(names(s.attached_holders().unwrap()), ["a", "b"]);
    }

    #[test]
    fn a_store_made_before_holders_were_attached_opens_and_upgrades() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("old.sqlite");
        {
            let old = crate::durable::schema::MEMORY_STORE
                .replace(",\n    attached INTEGER NOT NULL DEFAULT 0\n", "\n");
            assert_ne!(old, crate::durable::schema::MEMORY_STORE);
            let conn = rusqlite::Connection::open(&path).unwrap();
            conn.execute_batch(&old).unwrap();
            conn.execute(
                "INSERT INTO holders (holder, watermark, scope, writable) VALUES ('old', 0, 'shared', 1)",
                [],
            )
            .unwrap();
        }
        let s = MemoryStore::open(&path, "old").unwrap();
        assert_eq!(names(s.holders().unwrap()), ["old"]);
        assert!(s.attached_holders().unwrap().is_empty());
        s.join("new", "shared", true).unwrap();
        assert_eq!(names(s.attached_holders().unwrap()), ["new"]);
    }
}
