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

/// A state folder with one shared store two agents wrote, one deleted memory.
fn folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("memories").join("profile.notes.sqlite");
    let mut store = MemoryStore::open(&path, "profile.notes").unwrap();
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
    for (agent, other) in [("ana", "ben"), ("ben", "ana")] {
        let modules = dir.path().join("agents").join(agent).join("modules");
        std::fs::create_dir_all(&modules).unwrap();
        let json = serde_json::json!({
            "store": "profile.notes", "strategy": "markdown", "scope": "shared", "writable": true,
            "holders": [{ "agent": "ana", "scope": "shared", "writable": true },
                        { "agent": "ben", "scope": "shared", "writable": true }],
            "others": [other],
        });
        std::fs::write(modules.join("memories"), json.to_string()).unwrap();
    }
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
    let store = view.store("profile.notes").unwrap();
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
        assert!(view.store(outside).is_none(), "{outside}");
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
    let _ = view.store("profile.notes").unwrap().memories().unwrap();
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
