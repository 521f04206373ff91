use super::*;
use crate::durable::memory_store::{Change, MemoryStore};

fn put(mutation: &'static str, body: &str) -> Change {
    Change::Put {
        mutation: crate::durable::memory_store::Mutation::parse(mutation).expect("a mutation"),
        description: format!("about {body}"),
        body: body.into(),
        code: None,
        on_use: None,
    }
}

/// Two agents write one shared store: a memory created and updated, one
/// created and deleted.
fn fill(store: &mut MemoryStore) {
    store.join("ana", "shared", true).unwrap();
    store.join("ben", "shared", true).unwrap();
    store
        .mutate("ana", "runbook", |_| {
            Ok(put("create", "Roll staging first."))
        })
        .unwrap();
    store
        .mutate("ana", "runbook", |_| {
            Ok(put("update", "Roll staging first.\nThen production."))
        })
        .unwrap();
    store
        .mutate("ana", "scratch", |_| Ok(put("create", "a passing thought")))
        .unwrap();
    store
        .mutate("ben", "scratch", |_| Ok(Change::Delete))
        .unwrap();
}

/// The two agents' modules files: both hold `profile.notes`.
fn shared_modules_files(root: &std::path::Path) {
    for (agent, other) in [("ana", "ben"), ("ben", "ana")] {
        let modules = root.join("agents").join(agent).join("modules");
        std::fs::create_dir_all(&modules).unwrap();
        let json = serde_json::json!({
            "store": "profile.notes", "strategy": "markdown", "scope": "shared", "writable": true,
            "holders": [{ "agent": "ana", "scope": "shared", "writable": true },
                        { "agent": "ben", "scope": "shared", "writable": true }],
            "others": [other],
        });
        std::fs::write(modules.join("memories"), json.to_string()).unwrap();
    }
}

/// A state folder with one shared store two agents wrote, one deleted memory.
fn folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("memories").join("profile.notes.sqlite");
    fill(&mut MemoryStore::open(&path, "profile.notes").unwrap());
    shared_modules_files(dir.path());
    dir
}

#[test]
fn a_missing_or_foreign_folder_is_refused_with_what_was_expected() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope");
    let e = StateView::open(&missing).unwrap_err();
    assert!(e.to_string().starts_with("no state folder at"), "{e}");
    std::fs::write(dir.path().join("file.txt"), "x").unwrap();
    let e = StateView::open(dir.path()).unwrap_err();
    assert!(e.to_string().contains("is not a gg state folder"), "{e}");
    assert!(e.to_string().contains("state.sqlite"), "{e}");
    let e = StateView::open(dir.path().join("file.txt")).unwrap_err();
    assert!(e.to_string().contains("is not a folder"), "{e}");
}

#[test]
fn every_memory_ever_held_with_its_history_and_diffs() {
    let dir = folder();
    let view = StateView::open(dir.path()).unwrap();
    let store = view.store("profile.notes").unwrap().unwrap();
    let summary = store.summary().unwrap();
    assert_eq!((summary.totals.count, summary.peaks.count), (1, 2));
    assert_eq!(
        (summary.ever_held, summary.deleted, summary.revisions),
        (2, 1, 4)
    );
    let memories = store.memories().unwrap();
    let scratch = memories.iter().find(|m| m.slug == "scratch").unwrap();
    assert!(scratch.deleted);
    assert_eq!(scratch.chars, "a passing thought".len() as u64);
    assert_eq!(scratch.last_mutation, "delete");
    let history = store.revisions("runbook").unwrap();
    assert_eq!(history.len(), 2);
    assert_eq!(history[0].text, "Roll staging first.");
    assert!(
        history[1].diff.contains("+Then production."),
        "{}",
        history[1].diff
    );
    assert!(store.revisions("never").unwrap().is_empty());
    for outside in [
        "../profile.notes",
        "memories/../profile.notes",
        ".hidden",
        "",
    ] {
        assert!(view.store(outside).unwrap().is_none(), "{outside}");
    }
}

#[test]
fn profiles_read_sharing_off_the_store_ids() {
    let dir = folder();
    let view = StateView::open(dir.path()).unwrap();
    let agents = view.agents();
    assert_eq!(agents.len(), 2);
    assert_eq!(agents[0].store.as_deref(), Some("profile.notes"));
    assert_eq!(agents[0].revisions, 3);
    // No state.sqlite: the profile is unrecorded, so `shared` cannot match
    // `profile.(unrecorded)` and says so.
    let rows = view.profiles();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].sharing, "share one store");
    assert!(rows[0]
        .divergences
        .iter()
        .any(|d| d.contains("declared shared")));
}

#[test]
fn reading_changes_nothing_and_the_fingerprint_follows_writes() {
    let dir = folder();
    let view = StateView::open(dir.path()).unwrap();
    let before = view.fingerprint();
    let _ = view
        .store("profile.notes")
        .unwrap()
        .unwrap()
        .memories()
        .unwrap();
    assert_eq!(view.fingerprint(), before);
    let path = dir.path().join("memories").join("profile.notes.sqlite");
    let mut store = MemoryStore::open(&path, "profile.notes").unwrap();
    store
        .mutate("ana", "new", |_| Ok(put("create", "fresh")))
        .unwrap();
    assert_ne!(view.fingerprint(), before);
}

/// A modules file for `agent` holding `store` under `scope`.
fn modules_file(root: &std::path::Path, agent: &str, store: &str, scope: &str, writable: bool) {
    let dir = root.join("agents").join(agent).join("modules");
    std::fs::create_dir_all(&dir).unwrap();
    let json = serde_json::json!({
        "store": store, "strategy": "markdown", "scope": scope, "writable": writable,
        "holders": [{ "agent": agent, "scope": scope, "writable": writable }], "others": [],
    });
    std::fs::write(dir.join("memories"), json.to_string()).unwrap();
}

#[test]
fn a_scope_resolved_to_something_else_is_named_as_a_divergence() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("events")).unwrap();
    std::fs::write(dir.path().join("events").join("x.jsonl"), "").unwrap();
    // A root declared inherited and one declared read-only: nothing spawned
    // them, so each holds its own, writable store.
    modules_file(dir.path(), "heir", "agent.heir", "inherited", true);
    modules_file(dir.path(), "reader", "agent.reader", "read-only", true);
    // An isolated instance and a linked subagent, as declared.
    modules_file(dir.path(), "owner", "agent.owner", "isolated", true);
    modules_file(dir.path(), "sub", "agent.owner", "read-only", false);
    let view = StateView::open(dir.path()).unwrap();
    let rows = view.profiles();
    let instances: Vec<&Instance> = rows.iter().flat_map(|r| &r.instances).collect();
    let of = |agent: &str| instances.iter().find(|i| i.agent == agent).unwrap();
    assert!(of("heir")
        .divergence
        .as_deref()
        .unwrap()
        .starts_with("declared inherited, resolved to its own store agent.heir"));
    assert!(of("reader")
        .divergence
        .as_deref()
        .unwrap()
        .contains("declared read-only, resolved to its own store agent.reader, writable"));
    assert_eq!(of("owner").divergence, None);
    assert_eq!(of("sub").divergence, None);
    assert_eq!(of("sub").expected, "its spawner's store, read-only");
}

/// The JSON the console serves for `store`, with what differs between two
/// backends by nature (where the store lives, when revisions were made)
/// blanked.
fn served(store: &StoreReader) -> serde_json::Value {
    let mut summary = store.summary().unwrap();
    summary.file.clear();
    let mut runbook = store.revisions("runbook").unwrap();
    runbook.iter_mut().for_each(|r| r.at_ms = 0);
    serde_json::json!({
        "summary": summary,
        "memories": store.memories().unwrap(),
        "runbook": runbook,
        "scratch": store.revisions("scratch").unwrap().len(),
        "found": store.search("PRODUCTION").unwrap(),
        "passing": store.search("passing").unwrap().len(),
        "made": store.made_by("ana", 2).unwrap().iter().map(|r| (r.seq, r.slug.clone(), r.mutation.clone())).collect::<Vec<_>>(),
    })
}

#[test]
// The SKIPPED line is the test's own output, as in the other PostgreSQL
// tests; the library itself never prints.
#[allow(clippy::print_stderr)]
fn a_postgres_database_reads_as_the_folders_own_stores_do() {
    use crate::durable::pg;
    let Some(base) = std::env::var("GG_TEST_POSTGRES_URL")
        .ok()
        .filter(|u| !u.is_empty())
    else {
        eprintln!("SKIPPED a_postgres_database_reads_as_…: GG_TEST_POSTGRES_URL is not set (scripts/test sets it)");
        return;
    };
    // The hosts' folder keeps the modules files and event streams; the
    // memories are in the database.
    let dir = tempfile::tempdir().unwrap();
    shared_modules_files(dir.path());
    std::fs::create_dir_all(dir.path().join("events")).unwrap();
    std::fs::write(dir.path().join("events").join("ana.jsonl"), "").unwrap();
    let view = StateView::open(dir.path()).unwrap();

    let e = view.clone().with_postgres("sqlite").unwrap_err();
    assert_eq!(e.code, crate::ErrorCode::InvalidArgument, "{e}");
    let e = view
        .clone()
        .with_postgres("postgres://gg@127.0.0.1:1/none")
        .unwrap_err();
    assert_eq!(e.code, crate::ErrorCode::IoError, "{e}");
    assert!(e.message.contains("unreachable"), "{e}");
    // A schema no writer has used: the inspector creates nothing there.
    let url = pg::fresh_schema(&base, "gg_inspect").unwrap();
    let e = view.clone().with_postgres(&url).unwrap_err();
    assert_eq!(e.code, crate::ErrorCode::InvalidArgument, "{e}");
    assert!(e.message.contains("holds no gg memory stores"), "{e}");

    fill(&mut MemoryStore::open_postgres(&url, "profile.notes").unwrap());
    let pg_view = view.with_postgres(&url).unwrap();
    let sqlite = folder();
    let sqlite_view = StateView::open(sqlite.path()).unwrap();
    let ids = |v: &StateView| -> Vec<String> {
        v.stores()
            .unwrap()
            .iter()
            .map(|s| s.id().to_string())
            .collect()
    };
    assert_eq!(ids(&pg_view), ids(&sqlite_view));
    let store = pg_view.store("profile.notes").unwrap().unwrap();
    assert_eq!(
        served(&store),
        served(&sqlite_view.store("profile.notes").unwrap().unwrap())
    );
    assert!(store
        .summary()
        .unwrap()
        .file
        .contains("store_id profile.notes"));
    assert!(pg_view.store("nope").unwrap().is_none());
    assert_eq!(pg_view.agents()[0].revisions, 3);

    // Reading moves nothing; a write on any host moves the fingerprint.
    let before = pg_view.fingerprint();
    let _ = served(&store);
    assert_eq!(pg_view.fingerprint(), before);
    MemoryStore::open_postgres(&url, "profile.notes")
        .unwrap()
        .mutate("ben", "new", |_| Ok(put("create", "fresh")))
        .unwrap();
    assert_ne!(pg_view.fingerprint(), before);

    // The inspector's sessions refuse writes on the server's side too.
    let mut conn = pg::read_only_pool(&url).unwrap().get().unwrap();
    let e = pg::Exec::execute(&mut conn, "DELETE FROM gg_revisions", &[]).unwrap_err();
    assert_eq!(
        e.code(),
        Some(&postgres::error::SqlState::READ_ONLY_SQL_TRANSACTION),
        "{e}"
    );
}

#[test]
fn memories_are_found_by_text_now_or_in_any_revision_and_paged() {
    let dir = folder();
    let view = StateView::open(dir.path()).unwrap();
    let find = |text: &str, within: Option<&str>, offset, limit| {
        view.find_memories(&Query {
            text: text.into(),
            within: within.map(str::to_string),
            offset,
            limit,
        })
        .unwrap()
    };
    let all = find("", None, 0, 50).unwrap();
    assert_eq!(all.total, 2);
    assert_eq!(all.items[0].store, "profile.notes");
    // A deleted memory's last text, and an edited one's text now, ignoring case.
    let passing = find("PASSING", Some("profile.notes"), 0, 50).unwrap();
    assert_eq!(passing.items.len(), 1);
    assert_eq!(passing.items[0].memory.slug, "scratch");
    assert!(passing.items[0].memory.deleted);
    assert_eq!(
        find("then production", None, 0, 50).unwrap().items[0]
            .memory
            .slug,
        "runbook"
    );
    assert_eq!(find("nowhere", None, 0, 50).unwrap().total, 0);
    assert!(find("", Some("agent.nobody"), 0, 50).is_none());
    let second = find("", None, 1, 1).unwrap();
    assert_eq!((second.total, second.items.len()), (2, 1));
    assert_eq!(second.items[0].memory.slug, "scratch");
    assert_eq!(find("", None, 0, 100_000).unwrap().limit, MAX_PAGE);
}

#[test]
fn agents_are_filtered_by_id_or_profile_and_paged() {
    let dir = folder();
    let view = StateView::open(dir.path()).unwrap();
    let query = |text: &str| Query {
        text: text.into(),
        limit: 10,
        ..Query::default()
    };
    assert_eq!(view.find_agents(&query("")).total, 2);
    let ben = view.find_agents(&query("BE"));
    assert_eq!(ben.items.len(), 1);
    assert_eq!(ben.items[0].id, "ben");
    let none = view.find_agents(&Query {
        within: Some("notes".into()),
        ..query("")
    });
    assert_eq!(none.total, 0, "no state.sqlite: no profile recorded");
}

#[test]
fn a_transcript_groups_the_window_by_turn_and_keeps_compacted_programs() {
    use crate::durable::{AgentRecord, AgentStore, StoredProgram};
    use crate::window::{Acknowledgement, ItemBody, RunStatus, Window};
    let dir = folder();
    let mut window = Window::default();
    let program = |id: &str, source: &str| ItemBody::Program {
        id: Some(id.into()),
        source: source.into(),
    };
    window.push(2, program("p2", "1 + 1"));
    window.push(
        2,
        ItemBody::Acknowledgement(Acknowledgement {
            program_id: Some("p2".into()),
            status: RunStatus::Ok,
            value: Some("2".into()),
            console: Vec::new(),
            error: None,
            notes: Vec::new(),
        }),
    );
    let stored = |id: &str, turn, source: &str| StoredProgram {
        id: id.into(),
        turn,
        source: source.into(),
        opening: false,
    };
    let record = AgentRecord {
        id: "ana".into(),
        profile_id: "notes".into(),
        turn: 2,
        next_program: 3,
        window,
        loaded: Vec::new(),
        in_flight: None,
    };
    let mut agents = AgentStore::open(&dir.path().join("state.sqlite")).unwrap();
    agents
        .save(
            &record.as_save(),
            &[stored("p1", 1, "'dropped'"), stored("p2", 2, "1 + 1")],
        )
        .unwrap();
    drop(agents);
    std::fs::create_dir_all(dir.path().join("events")).unwrap();
    std::fs::write(
        dir.path().join("events").join("ana.jsonl"),
        "{\"type\":\"memory_pull\",\"agent\":\"ana\",\"store\":\"profile.notes\",\"seqs\":[4]}\n",
    )
    .unwrap();
    let view = StateView::open(dir.path()).unwrap();
    let before = view.fingerprint();
    let t = view.transcript("ana").unwrap().unwrap();
    assert_eq!((t.profile.as_str(), t.turn, t.turns.len()), ("notes", 2, 2));
    assert_eq!(t.turns[0].items[0]["compacted"], true);
    assert_eq!(t.turns[0].items[0]["source"], "'dropped'");
    let kinds: Vec<&str> = t.turns[1]
        .items
        .iter()
        .map(|i| i["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["program", "acknowledgement"]);
    assert_eq!(t.turns[1].items[1]["value"], "2");
    assert_eq!((t.events.len(), t.events_total), (1, 1));
    assert_eq!(t.events[0]["type"], "memory_pull");
    let made: Vec<(&str, &str)> = t
        .revisions
        .iter()
        .map(|r| (r.slug.as_str(), r.mutation.as_str()))
        .collect();
    assert_eq!(
        made,
        [
            ("runbook", "create"),
            ("runbook", "update"),
            ("scratch", "create")
        ]
    );
    assert!(t.revisions[0].at_ms > 0);
    assert!(view.transcript("nobody").unwrap().is_none());
    assert_eq!(view.fingerprint(), before, "reading wrote nothing");
}

#[test]
fn a_rotated_stream_is_one_agent_whose_every_event_is_counted() {
    use crate::events::{segment_path, EventLogLimits};
    let dir = tempfile::tempdir().unwrap();
    let shape = long_lived::Shape {
        turns: 60,
        per_turn: 5,
        state_every: 10,
        limits: EventLogLimits {
            segment_bytes: 40_000,
            kept_segments: 2,
        },
    };
    let written = long_lived::write(dir.path(), &shape).unwrap();
    assert_eq!(written.memories, 300);
    assert_eq!(written.events, 60 * 5 + 6 + 60);
    let stream = dir.path().join("events").join("veteran.jsonl");
    assert!(segment_path(&stream, 2).is_file());
    assert!(!segment_path(&stream, 3).exists(), "older segments dropped");

    let view = StateView::open(dir.path()).unwrap();
    let before = view.fingerprint();
    let agents = view.agents();
    let ids: Vec<&str> = agents.iter().map(|a| a.id.as_str()).collect();
    assert_eq!(
        ids,
        ["veteran"],
        "rotated segments and the index are no agents"
    );
    assert_eq!(agents[0].events, written.events);
    assert_eq!(agents[0].turn, Some(60));
    assert_eq!(agents[0].totals.unwrap().count, 300);

    let t = view.transcript("veteran").unwrap().unwrap();
    assert_eq!(t.events_total as u64, written.events);
    assert!(
        t.events.len() < t.events_total,
        "the dropped segments' events are gone"
    );
    let last = t.turns.last().unwrap();
    assert_eq!(last.turn, 60);
    assert_eq!(last.record.as_ref().unwrap()["type"], "turn");
    assert_eq!(last.events.len(), 6, "five revisions and the memory state");
    assert_eq!(view.fingerprint(), before, "reading wrote nothing");
}
