//! Durable agent records: window, turn counter, program library, programs,
//! and the turn in flight.
//!
//! A window is stored as a header (system prompt, pinned block) and one
//! row per thread item, so a turn writes only what it appended and the
//! few items it changed: the cost of a save does not grow with the
//! agent's age. A compaction rewrites the rows once.

mod pg;
mod sqlite;

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{GgError, GgResult};
use crate::window::{Item, Window, WindowWrite};

pub(crate) use pg::pg_window;
pub(crate) use sqlite::{sqlite_programs, sqlite_window};

/// One agent instance's durable state, as loaded.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentRecord {
    /// The agent instance's id.
    pub id: String,
    /// The id of the profile it was made from.
    pub profile_id: String,
    /// The last turn that ran (0 before the first).
    pub turn: u32,
    /// The number the program library mints next (`p<n>`).
    pub next_program: u64,
    /// The window its next turn sees.
    pub window: Window,
    /// Loaded code memories, in load order: (slug, key).
    pub loaded: Vec<(String, String)>,
    /// A turn that began and never ended: the process stopped while it
    /// ran.
    pub in_flight: Option<TurnInFlight>,
}

impl AgentRecord {
    /// What saving this record writes.
    pub fn as_save(&self) -> AgentSave<'_> {
        AgentSave {
            id: &self.id,
            profile_id: &self.profile_id,
            turn: self.turn,
            next_program: self.next_program,
            window: &self.window,
            loaded: &self.loaded,
            in_flight: self.in_flight.as_ref(),
        }
    }
}

/// What one save writes: the agent's counters, its window's unstored part
/// ([`Window::unstored`]) and its turn in flight, borrowed from the live
/// agent (nothing is cloned).
#[derive(Debug, Clone, Copy)]
pub struct AgentSave<'a> {
    /// The agent instance's id.
    pub id: &'a str,
    /// The id of the profile it was made from.
    pub profile_id: &'a str,
    /// The last turn that ended.
    pub turn: u32,
    /// The number the program library mints next.
    pub next_program: u64,
    /// The window; only what its store does not hold yet is written.
    pub window: &'a Window,
    /// Loaded code memories, in load order: (slug, key).
    pub loaded: &'a [(String, String)],
    /// `Some` while a turn runs (recorded before its program starts);
    /// `None` clears it.
    pub in_flight: Option<&'a TurnInFlight>,
}

/// A turn recorded as begun: what a reopened agent reports when its
/// process stopped before the turn ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnInFlight {
    /// The turn's number.
    pub turn: u32,
    /// The program's id (code mode with a program library).
    pub program: Option<String>,
    /// The program's source (code mode).
    pub source: Option<String>,
    /// The agent's memory store's head (last revision seq) when the turn
    /// began: the turn's own mutations are the agent's revisions after it.
    pub store_head: Option<i64>,
    /// When the turn began, in milliseconds since the Unix epoch.
    pub started_ms: i64,
}

/// One program an agent ran, as its state records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredProgram {
    /// The program's id (`p1`, `p2`, …).
    pub id: String,
    /// The turn it ran in.
    pub turn: u32,
    /// Its TypeScript source.
    pub source: String,
    /// Whether it is an opening program (turn 0: the desk's or the
    /// profile's, not the model's).
    pub opening: bool,
}

/// An agent's state as its store's rows hold it: the window's header and
/// item rows already in their stored JSON. A save of these is what a save
/// of the live agent writes, and a load gives them back; they are what
/// travels when the store is in another process than the agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentRows {
    /// The agent instance's id.
    pub id: String,
    /// The id of the profile it was made from.
    pub profile_id: String,
    /// The last turn that ended.
    pub turn: u32,
    /// The number the program library mints next.
    pub next_program: u64,
    /// The window without its thread, as JSON.
    pub header: String,
    /// The thread's rows: on a load every row in order; on a save what the
    /// store does not hold yet.
    pub items: ItemRows,
    /// Loaded code memories, in load order: (slug, key).
    pub loaded: Vec<(String, String)>,
    /// The turn in flight (`None` clears it on a save).
    pub in_flight: Option<TurnInFlight>,
}

/// A window thread's rows, each an item's JSON.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ItemRows {
    /// Every row, in position order (a load, or a save after compaction).
    Whole(Vec<String>),
    /// These rows at their positions (0-based), over what is stored there.
    Changed(Vec<(usize, String)>),
}

impl AgentRows {
    /// The record these rows load as.
    pub fn into_record(self) -> GgResult<AgentRecord> {
        let rows = match self.items {
            ItemRows::Whole(rows) => rows,
            ItemRows::Changed(_) => {
                return Err(GgError::io(
                    "a stored window cannot be read: its rows came as a change, not whole",
                ))
            }
        };
        Ok(AgentRecord {
            window: assemble_window(&self.header, rows)?,
            id: self.id,
            profile_id: self.profile_id,
            turn: self.turn,
            next_program: self.next_program,
            loaded: self.loaded,
            in_flight: self.in_flight,
        })
    }
}

/// What one save writes, as a backend reads it: the counters, the window's
/// header and the item rows to write, each row's JSON made as it is written
/// (a compaction's rows are never all in memory as JSON at once).
pub struct AgentWrite<'a> {
    /// The agent instance's id.
    pub id: &'a str,
    /// The id of the profile it was made from.
    pub profile_id: &'a str,
    /// The last turn that ended.
    pub turn: u32,
    /// The number the program library mints next.
    pub next_program: u64,
    /// The window without its thread, as JSON.
    pub header: std::borrow::Cow<'a, str>,
    items: WriteItems<'a>,
    /// Loaded code memories, in load order: (slug, key).
    pub loaded: &'a [(String, String)],
    /// The turn in flight; `None` clears it.
    pub in_flight: Option<&'a TurnInFlight>,
}

/// Where a save's item rows come from.
enum WriteItems<'a> {
    /// The live window's unstored part, serialized row by row.
    Window(WindowWrite<'a>),
    /// Rows another process serialized.
    Rows(&'a ItemRows),
}

impl<'a> AgentWrite<'a> {
    /// What saving the live agent `save` writes.
    pub fn of_save(save: &AgentSave<'a>) -> Self {
        AgentWrite {
            id: save.id,
            profile_id: save.profile_id,
            turn: save.turn,
            next_program: save.next_program,
            header: header_json(save.window).into(),
            items: WriteItems::Window(save.window.unstored()),
            loaded: save.loaded,
            in_flight: save.in_flight,
        }
    }

    /// What saving `rows` writes.
    pub fn of_rows(rows: &'a AgentRows) -> Self {
        AgentWrite {
            id: &rows.id,
            profile_id: &rows.profile_id,
            turn: rows.turn,
            next_program: rows.next_program,
            header: rows.header.as_str().into(),
            items: WriteItems::Rows(&rows.items),
            loaded: &rows.loaded,
            in_flight: rows.in_flight.as_ref(),
        }
    }

    /// Whether the rows replace every stored row (after a compaction).
    pub fn replaces_all(&self) -> bool {
        matches!(
            self.items,
            WriteItems::Window(WindowWrite::Whole(_)) | WriteItems::Rows(ItemRows::Whole(_))
        )
    }

    /// Hands `put` each row to write, its position and its JSON, in order;
    /// stops at the first error.
    pub fn each_row<E>(&self, mut put: impl FnMut(usize, &str) -> Result<(), E>) -> Result<(), E> {
        match &self.items {
            WriteItems::Window(WindowWrite::Whole(items)) => items
                .iter()
                .enumerate()
                .try_for_each(|(at, item)| put(at, &item_json(item))),
            WriteItems::Window(WindowWrite::Changed(changed)) => changed
                .iter()
                .try_for_each(|(at, item)| put(*at, &item_json(item))),
            WriteItems::Rows(ItemRows::Whole(rows)) => rows
                .iter()
                .enumerate()
                .try_for_each(|(at, row)| put(at, row)),
            WriteItems::Rows(ItemRows::Changed(changed)) => {
                changed.iter().try_for_each(|(at, row)| put(*at, row))
            }
        }
    }

    /// The rows, all made at once: what travels to another process.
    pub fn to_rows(&self) -> AgentRows {
        let mut rows = Vec::new();
        let _ = self.each_row(|at, row| {
            rows.push((at, row.to_string()));
            Ok::<(), ()>(())
        });
        AgentRows {
            id: self.id.to_string(),
            profile_id: self.profile_id.to_string(),
            turn: self.turn,
            next_program: self.next_program,
            header: self.header.clone().into_owned(),
            items: if self.replaces_all() {
                ItemRows::Whole(rows.into_iter().map(|(_, row)| row).collect())
            } else {
                ItemRows::Changed(rows)
            },
            loaded: self.loaded.to_vec(),
            in_flight: self.in_flight.cloned(),
        }
    }
}

/// What the durable agent state does, on either backend.
pub trait AgentBackend {
    /// The rows of agent `id`, if it was ever saved.
    fn load(&self, id: &str) -> GgResult<Option<AgentRows>>;
    /// Saves what `write` says and `programs` in one transaction.
    fn save(&mut self, write: &AgentWrite<'_>, programs: &[StoredProgram]) -> GgResult<()>;
    /// Replaces a profile's desk; an empty desk clears it.
    fn save_desk(&self, profile_id: &str, desk: &crate::desk::Desk) -> GgResult<()>;
    /// The desk a profile's last instance left, if any.
    fn load_desk(&self, profile_id: &str) -> GgResult<Option<crate::desk::Desk>>;
    /// The programs recorded for an agent, in id order (
    /// opening).
    fn programs(&self, agent_id: &str) -> GgResult<Vec<StoredProgram>>;
}

/// The window's header as stored beside its item rows: everything but
/// the thread.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WindowHeader<'a> {
    system_prompt: &'a str,
    pinned: &'a str,
}

fn header_json(window: &Window) -> String {
    serde_json::to_string(&WindowHeader {
        system_prompt: &window.system_prompt,
        pinned: &window.pinned,
    })
    .expect("a header serializes")
}

fn item_json(item: &Item) -> String {
    serde_json::to_string(item).expect("a window item serializes")
}

/// The window stored as `header` (a window's JSON: older records hold the
/// whole thread there) and `rows` (one item's JSON each, in position
/// order). A window read from rows is marked stored; one read from an
/// older record is not, so the next save writes its rows.
fn assemble_window(header: &str, rows: Vec<String>) -> GgResult<Window> {
    let unreadable =
        |e: serde_json::Error| GgError::io(format!("a stored window cannot be read: {e}"));
    let mut window: Window = serde_json::from_str(header).map_err(unreadable)?;
    if rows.is_empty() {
        return Ok(window);
    }
    let items = rows
        .iter()
        .map(|row| serde_json::from_str::<Item>(row))
        .collect::<Result<Vec<_>, _>>()
        .map_err(unreadable)?;
    window = Window::from_parts(
        std::mem::take(&mut window.system_prompt),
        std::mem::take(&mut window.pinned),
        items,
    );
    window.mark_stored();
    Ok(window)
}

/// Agents' windows, turn counters, program libraries and programs, and
/// persistent profiles' desks: SQLite under the state folder by default,
/// or a PostgreSQL database shared by every host of a run.
pub struct AgentStore {
    inner: Box<dyn AgentBackend>,
}

impl AgentStore {
    /// The SQLite state database at `path`.
    pub fn open(path: &Path) -> GgResult<Self> {
        let conn =
            crate::durable::open_database_with_schema(path, crate::durable::schema::AGENT_STATE)
                .map_err(sqlite::sq)?;
        Ok(AgentStore {
            inner: Box::new(sqlite::SqliteAgents { conn }),
        })
    }

    /// The agent state in the PostgreSQL database at `url`.
    pub fn open_postgres(url: &str) -> GgResult<Self> {
        Ok(AgentStore {
            inner: Box::new(pg::PgAgents {
                pool: crate::durable::pg::pool(url)?,
            }),
        })
    }

    /// A store on a backend the caller made (one in another process).
    pub fn with_backend(backend: Box<dyn AgentBackend>) -> Self {
        AgentStore { inner: backend }
    }

    /// The agent `id`, if it was ever saved.
    pub fn load(&self, id: &str) -> GgResult<Option<AgentRecord>> {
        self.inner.load(id)?.map(AgentRows::into_record).transpose()
    }

    /// Saves the agent and the programs of its latest turn in one
    /// transaction. The caller marks the window stored
    /// ([`Window::mark_stored`]) once this succeeds.
    pub fn save(&mut self, save: &AgentSave<'_>, programs: &[StoredProgram]) -> GgResult<()> {
        self.inner.save(&AgentWrite::of_save(save), programs)
    }

    /// The rows of agent `id`, as stored.
    pub fn load_rows(&self, id: &str) -> GgResult<Option<AgentRows>> {
        self.inner.load(id)
    }

    /// Saves rows another process made ([`AgentWrite::to_rows`]).
    pub fn save_rows(&mut self, rows: &AgentRows, programs: &[StoredProgram]) -> GgResult<()> {
        self.inner.save(&AgentWrite::of_rows(rows), programs)
    }

    /// Replaces a profile's desk (an empty desk clears it).
    pub fn save_desk(&self, profile_id: &str, desk: &crate::desk::Desk) -> GgResult<()> {
        self.inner.save_desk(profile_id, desk)
    }

    /// The desk a profile's last instance left, if any.
    pub fn load_desk(&self, profile_id: &str) -> GgResult<Option<crate::desk::Desk>> {
        self.inner.load_desk(profile_id)
    }

    /// The programs recorded for an agent, in id order ( opening).
    pub fn programs(&self, agent_id: &str) -> GgResult<Vec<StoredProgram>> {
        self.inner.programs(agent_id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::views::View;
    use crate::window::ItemBody;

    fn record(window: Window) -> AgentRecord {
        AgentRecord {
            id: "main".into(),
            profile_id: "agent".into(),
            turn: 1,
            next_program: 2,
            window,
            loaded: vec![("csv-tools".into(), "csvTools".into())],
            in_flight: None,
        }
    }

    fn reopen(dir: &Path) -> AgentRecord {
        let store = AgentStore::open(&dir.join("s.sqlite")).unwrap();
        store.load("main").unwrap().unwrap()
    }

    #[test]
    fn saves_and_reloads_an_agent() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = AgentStore::open(&dir.path().join("s.sqlite")).unwrap();
        assert!(store.load("main").unwrap().is_none());
        let mut window = Window::new("sys".into(), String::new());
        window.push(1, ItemBody::Notice { text: "n".into() });
        let program = StoredProgram {
            id: "p1".into(),
            turn: 1,
            source: "1".into(),
            opening: false,
        };
        let record = record(window);
        store
            .save(&record.as_save(), std::slice::from_ref(&program))
            .unwrap();
        drop(store);
        assert_eq!(reopen(dir.path()), record);
        let store = AgentStore::open(&dir.path().join("s.sqlite")).unwrap();
        assert_eq!(store.programs("main").unwrap(), vec![program]);
    }

    /// Saves that write only what changed (appends, a view closed far
    /// back, a compaction's rewrite) reload as the window stood, and a
    /// turn in flight is recorded and cleared.
    fn saved_in_parts_reloads_whole(open: impl Fn() -> AgentStore) {
        let mut store = open();
        let reopen = || open().load("main").unwrap().unwrap();
        let text = |label: &str, body: &str| View::Text {
            label: label.into(),
            body: body.into(),
        };
        let mut rec = record(Window::new("sys".into(), "pins".into()));
        rec.window.open_view(1, text("status", "first"));
        let save = |store: &mut AgentStore, rec: &mut AgentRecord| {
            store.save(&rec.as_save(), &[]).unwrap();
            rec.window.mark_stored();
        };
        save(&mut store, &mut rec);
        for turn in 2..40 {
            rec.turn = turn;
            rec.window.push(
                turn,
                ItemBody::Notice {
                    text: format!("n{turn}"),
                },
            );
            save(&mut store, &mut rec);
        }
        assert_eq!(reopen(), rec);
        // Superseding the first view changes item 0 and appends one.
        rec.window.open_view(40, text("status", "second"));
        rec.in_flight = Some(TurnInFlight {
            turn: 41,
            program: Some("p41".into()),
            source: Some("1".into()),
            store_head: Some(7),
            started_ms: 1,
        });
        save(&mut store, &mut rec);
        let back = reopen();
        assert_eq!(back, rec);
        assert_eq!(back.window.open_views().count(), 1);
        rec.in_flight = None;
        rec.window.clear_thread();
        rec.window.push(41, ItemBody::Summary { text: "s".into() });
        save(&mut store, &mut rec);
        let back = reopen();
        assert_eq!(back, rec);
        assert_eq!(back.window.len(), 1);
    }

    #[test]
    fn a_window_saved_in_parts_reloads_whole() {
        let dir = tempfile::tempdir().unwrap();
        saved_in_parts_reloads_whole(|| AgentStore::open(&dir.path().join("s.sqlite")).unwrap());
    }

    #[test]
    // Says why it was skipped: a test's output, not the library's.
    #[allow(clippy::print_stderr)]
    fn a_window_saved_in_parts_reloads_whole_on_postgres() {
        let Some(base) = std::env::var("GG_TEST_POSTGRES_URL")
            .ok()
            .filter(|u| !u.is_empty())
        else {
            eprintln!("SKIPPED a_window_saved_in_parts_reloads_whole_on_postgres: GG_TEST_POSTGRES_URL is not set (scripts/test sets it)");
            return;
        };
        let url = crate::durable::pg::fresh_schema(&base, "agents").unwrap();
        saved_in_parts_reloads_whole(|| AgentStore::open_postgres(&url).unwrap());
    }

    /// A state folder an older gg wrote holds the whole window in the
    /// agent's row: it reads as it was, and the next save moves it into
    /// rows.
    #[test]
    fn a_window_stored_whole_by_an_older_gg_reads_and_moves_into_rows() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.sqlite");
        let mut window = Window::new("sys".into(), String::new());
        for turn in 1..=3 {
            window.push(
                turn,
                ItemBody::Notice {
                    text: format!("n{turn}"),
                },
            );
        }
        let mut rec = record(window);
        {
            let mut store = AgentStore::open(&path).unwrap();
            store.save(&rec.as_save(), &[]).unwrap();
        }
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute("DELETE FROM window_items", []).unwrap();
        conn.execute(
            "UPDATE agents SET window = ?1",
            [serde_json::to_string(&rec.window).unwrap()],
        )
        .unwrap();
        let mut back = reopen(dir.path());
        assert_eq!(back, rec);
        back.window.push(4, ItemBody::Notice { text: "n4".into() });
        rec.window.push(4, ItemBody::Notice { text: "n4".into() });
        let mut store = AgentStore::open(&path).unwrap();
        store.save(&back.as_save(), &[]).unwrap();
        assert_eq!(reopen(dir.path()), rec);
        let rows: i64 = conn
            .query_row("SELECT COUNT(*) FROM window_items", [], |r| r.get(0))
            .unwrap();
        assert_eq!(rows, 4);
        let header: String = conn
            .query_row("SELECT window FROM agents", [], |r| r.get(0))
            .unwrap();
        assert!(
            !header.contains("n1"),
            "the header no longer holds the thread: {header}"
        );
    }
}
