//! Scopes, linked instances and compaction: many agents, one store.

use gg_module::run::{Run, StartKind};
use gg_runtime::Agent;
use gg_tests::{call_tools, memories_block, run_config};
use serde_json::json;

/// A run with a markdown profile per scope, a spawner that keeps isolated
/// memories and one that keeps none.
fn scope_run(dir: &std::path::Path) -> Run {
    let md = |scope: &str| vec![memories_block("markdown", scope)];
    let config = run_config(
        &[
            ("isolated", "tool-calling", md("isolated")),
            ("shared", "tool-calling", md("shared")),
            ("inherited", "tool-calling", md("inherited")),
            ("read-only", "tool-calling", md("read-only")),
            ("parent", "tool-calling", md("isolated")),
            ("bare", "tool-calling", vec![]),
        ],
        &[],
    );
    Run::launch(config, dir).expect("launch")
}

/// A tool-calling profile whose one capability is memories.
fn tools(
    id: &'static str,
    strategy: &str,
    scope: &str,
) -> (&'static str, &'static str, Vec<String>) {
    (id, "tool-calling", vec![memories_block(strategy, scope)])
}

fn start(run: &Run, id: &str, profile: &str, kind: StartKind) -> Agent {
    Agent::start(run, id, profile, &kind, None).unwrap_or_else(|e| panic!("start {id}: {e}"))
}

/// Starts `id` as a subagent that `spawner` spawned.
fn subagent(run: &Run, id: &str, profile: &str, spawner: &str) -> Agent {
    start(
        run,
        id,
        profile,
        StartKind::Subagent {
            spawner: spawner.into(),
        },
    )
}

/// Starts `id` as the successor of `from`.
fn successor(run: &Run, id: &str, profile: &str, from: &str) -> Agent {
    start(run, id, profile, StartKind::Successor { from: from.into() })
}

/// A run of `profiles` and `roster` in a fresh directory, returned with it
/// so the directory outlives the run.
fn launch(
    profiles: &[(&str, &str, Vec<String>)],
    roster: &[(&str, &str)],
) -> (tempfile::TempDir, Run) {
    let dir = tempfile::tempdir().unwrap();
    let run = Run::launch(run_config(profiles, roster), dir.path()).unwrap();
    (dir, run)
}

/// Two holders, "a" and "b", of the shared markdown store of profile
/// "team": what the notice tests watch one another through.
fn team_of_two() -> (tempfile::TempDir, Run, Agent, Agent) {
    let (dir, run) = launch(&[tools("team", "markdown", "shared")], &[]);
    let a = start(&run, "a", "team", StartKind::Root);
    let b = start(&run, "b", "team", StartKind::Root);
    (dir, run, a, b)
}

fn binding(agent: &Agent) -> (String, bool) {
    agent
        .with_memories(|m| (m.store.id().to_string(), m.writable))
        .expect("has memories")
}

fn create(agent: &mut Agent, name: &str, body: &str) {
    let out = call_tools(
        agent,
        &[(
            "create_memory",
            json!({ "name": name, "description": format!("about {name}"), "body": body }),
        )],
    );
    assert!(!out.tool_results[0].is_error, "{:?}", out.tool_results);
}

#[test]
fn every_cell_of_the_binding_table() {
    for scope in ["isolated", "shared", "inherited", "read-only"] {
        let dir = tempfile::tempdir().unwrap();
        let run = scope_run(dir.path());
        let mut parent = start(&run, "P", "parent", StartKind::Root);
        create(&mut parent, "from-parent", "parent's note");
        let _bare = start(&run, "B", "bare", StartKind::Root);
        let shared = "profile.shared".to_string();
        let own = |id: &str| format!("agent.{id}");
        let expect = |kind: &str, id: &str| -> (String, bool) {
            match (scope, kind) {
                ("shared", _) => (shared.clone(), true),
                (_, "root" | "implementer" | "reviewer" | "subagent-of-bare") => (own(id), true),
                ("isolated", "subagent") => (own(id), true),
                ("inherited", "subagent") => (own("P"), true),
                ("read-only", "subagent") => (own("P"), false),
                ("isolated", "fork") => (own(id), true),
                ("inherited", "fork") => (own("X"), true),
                ("read-only", "fork") => (own("X"), false),
                ("isolated" | "inherited", "successor") => (own("P"), true),
                ("read-only", "successor") => (own("P"), false),
                other => panic!("no expectation for {other:?}"),
            }
        };
        let cases: Vec<(&str, &str, StartKind)> = vec![
            ("root", "X", StartKind::Root),
            ("implementer", "I", StartKind::Implementer),
            ("reviewer", "R", StartKind::Reviewer),
            (
                "subagent",
                "S",
                StartKind::Subagent {
                    spawner: "P".into(),
                },
            ),
            (
                "subagent-of-bare",
                "SB",
                StartKind::Subagent {
                    spawner: "B".into(),
                },
            ),
            ("fork", "F", StartKind::Fork { of: "X".into() }),
            ("successor", "C", StartKind::Successor { from: "P".into() }),
        ];
        let mut agents = Vec::new();
        for (kind, id, start_kind) in cases {
            let agent = start(&run, id, scope, start_kind);
            assert_eq!(
                binding(&agent),
                expect(kind, id),
                "scope {scope}, started as {kind}"
            );
            agents.push(agent);
        }
    }
}

#[test]
fn inheritance_chains_and_write_access_belongs_to_the_holder() {
    let (dir, run) = launch(
        &[
            tools("top", "markdown", "isolated"),
            tools("mid", "markdown", "read-only"),
            tools("leaf", "markdown", "inherited"),
        ],
        &[("top", "mid"), ("mid", "leaf"), ("leaf", "leaf")],
    );
    let _top = start(&run, "top", "top", StartKind::Root);
    let mid = subagent(&run, "mid", "mid", "top");
    assert_eq!(
        binding(&mid),
        ("agent.top".into(), false),
        "read-only: the spawner's, read-only"
    );
    let leaf = subagent(&run, "leaf", "leaf", "mid");
    assert_eq!(
        binding(&leaf),
        ("agent.top".into(), true),
        "the read-only agent's inherited subagent writes the same store"
    );
    let leaf2 = subagent(&run, "leaf2", "leaf", "leaf");
    assert_eq!(
        binding(&leaf2),
        ("agent.top".into(), true),
        "a subagent of a subagent reaches what the top created"
    );
    let file = std::fs::read_to_string(dir.path().join("agents/mid/modules/memories")).unwrap();
    let file: serde_json::Value = serde_json::from_str(&file).unwrap();
    assert_eq!(file["store"], "agent.top");
    assert_eq!(file["writable"], false);
    assert_eq!(
        file["others"],
        json!(["leaf", "leaf2", "top"]),
        "everyone holding the store, kept up to date"
    );
}

#[test]
fn launch_refusals_and_live_disagreements() {
    let dir = tempfile::tempdir().unwrap();
    let config = run_config(
        &[
            tools("a", "markdown", "isolated"),
            tools("b", "keyword-search", "inherited"),
            (
                "c",
                "tool-calling",
                vec![
                    memories_block("markdown", "read-only"),
                    r#"{ id: "compaction", enabled: true, implementation: "memory-compaction" }"#
                        .to_string(),
                ],
            ),
        ],
        &[("a", "b")],
    );
    let problems = Run::launch(config, dir.path())
        .err()
        .expect("refused")
        .join("\n");
    assert!(problems.contains("profile \"b\" inherits its memories from \"a\", but names keyword-search while \"a\" names markdown"), "{problems}");
    assert!(
        problems.contains(
            "profile \"c\" compacts with memory-compaction but declares its memories read-only"
        ),
        "{problems}"
    );

    // Without the roster line only the live spawner settles it: gg's defect.
    let config = run_config(
        &[
            tools("a", "markdown", "isolated"),
            tools("b", "keyword-search", "inherited"),
        ],
        &[],
    );
    let run = Run::launch(config, dir.path()).unwrap();
    let _a = start(&run, "a1", "a", StartKind::Root);
    let err = Agent::start(
        &run,
        "b1",
        "b",
        &StartKind::Subagent {
            spawner: "a1".into(),
        },
        None,
    )
    .err()
    .unwrap();
    assert!(err.to_string().starts_with("internal_error:"), "{err}");
}

#[test]
fn read_only_holders_get_exactly_the_read_calls() {
    for (strategy, expected) in [
        ("markdown", vec!["read_memory"]),
        ("keyword-search", vec!["read_memory", "search_memories"]),
        ("scratchpad", vec![]),
    ] {
        let (_dir, run) = launch(
            &[
                (
                    "owner",
                    "tool-calling",
                    vec![memories_block(strategy, "isolated")],
                ),
                (
                    "reader",
                    "tool-calling",
                    vec![memories_block(strategy, "read-only")],
                ),
            ],
            &[("owner", "reader")],
        );
        let _owner = start(&run, "owner", "owner", StartKind::Root);
        let mut reader = subagent(&run, "reader", "reader", "owner");
        let names: Vec<String> = reader
            .tool_schemas()
            .iter()
            .map(|s| s["name"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(names, expected, "{strategy}");
        let prompt = reader.window().system_prompt;
        assert!(
            prompt.contains("These memories are another agent's"),
            "{prompt}"
        );
        assert!(!prompt.contains("create_memory"), "{prompt}");
        let out = call_tools(
            &mut reader,
            &[(
                "create_memory",
                json!({ "name": "x", "description": "d", "body": "b" }),
            )],
        );
        let r = &out.tool_results[0];
        assert!(r.is_error);
        if strategy == "scratchpad" {
            assert!(
                r.content.contains("no memory calls") || r.content.contains("read-only"),
                "{}",
                r.content
            );
        } else {
            assert!(
                r.content.starts_with("read-only:") || r.content.starts_with("unavailable:"),
                "{}",
                r.content
            );
            assert!(
                r.content.contains("read_memory"),
                "names the calls it has: {}",
                r.content
            );
        }
    }
}

#[test]
fn an_isolated_fork_is_a_copy_and_a_linked_fork_stays_linked() {
    let (_dir, run) = launch(
        &[
            tools("solo", "markdown", "isolated"),
            tools("team", "markdown", "inherited"),
        ],
        &[],
    );
    let mut original = start(&run, "o", "solo", StartKind::Root);
    create(&mut original, "before", "shared past");
    let mut fork = start(&run, "f", "solo", StartKind::Fork { of: "o".into() });
    assert_eq!(
        gg_tests::stored(&fork).len(),
        1,
        "the copy holds what the original had"
    );
    create(&mut fork, "fork-only", "diverged");
    create(&mut original, "original-only", "diverged too");
    let names = |a: &Agent| {
        gg_tests::stored(a)
            .into_iter()
            .map(|m| m.0)
            .collect::<Vec<_>>()
    };
    assert_eq!(names(&original), ["before", "original-only"]);
    assert_eq!(names(&fork), ["before", "fork-only"]);
    assert!(
        fork.window()
            .items()
            .iter()
            .all(|i| !matches!(i.body, gg_module::ItemBody::Notice { .. })),
        "copies are not linked"
    );

    let mut t = start(&run, "t", "team", StartKind::Root);
    let mut tf = start(&run, "tf", "team", StartKind::Fork { of: "t".into() });
    create(&mut tf, "from-fork", "linked");
    let notice = t
        .refresh()
        .unwrap()
        .expect("the original is told what its fork wrote");
    assert!(
        notice.contains("- added `from-fork` — about from-fork"),
        "{notice}"
    );
    create(&mut t, "from-original", "linked");
    assert!(tf.refresh().unwrap().unwrap().contains("from-original"));
}

#[test]
fn successor_transfers() {
    let (_dir, run) = launch(
        &[
            tools("md", "markdown", "isolated"),
            tools("kw", "keyword-search", "isolated"),
            ("off", "tool-calling", vec![]),
        ],
        &[],
    );
    let mut first = start(&run, "first", "md", StartKind::Root);
    create(&mut first, "carried", "over");
    let same = successor(&run, "second", "md", "first");
    assert_eq!(binding(&same), ("agent.first".into(), true), "transferred");
    let off = successor(&run, "third", "off", "first");
    assert!(off.with_memories(|_| ()).is_none(), "memories off: none");
    let other = successor(&run, "fourth", "kw", "first");
    assert_eq!(
        binding(&other),
        ("agent.fourth".into(), true),
        "another strategy: a fresh instance"
    );
    assert!(gg_tests::stored(&other).is_empty());
    let window = other.render_window();
    assert!(
        window.contains("kept its memories as markdown, and you organize yours as keyword-search"),
        "told why: {window}"
    );
}

#[test]
fn a_notice_keeps_the_previous_request_a_byte_identical_prefix() {
    let (_dir, _run, mut a, mut b) = team_of_two();
    create(&mut b, "warmup", "b's first");
    b.refresh().unwrap();
    let before = b.render_window();
    let pinned_before = b.window().pinned;
    create(
        &mut a,
        "deploy-runbook",
        "how the staging cluster is rolled",
    );
    let notice = b.refresh().unwrap().expect("notice");
    let after = b.render_window();
    assert!(
        after.starts_with(&before),
        "the previous request is a prefix of the next"
    );
    assert!(after[before.len()..].contains(&notice));
    assert_eq!(
        b.window().pinned,
        pinned_before,
        "the pinned index does not change between boundaries"
    );
    assert!(notice.starts_with("Another agent sharing your memories has made changes since your last turn:\n\n- added `deploy-runbook`"));
    assert!(notice.ends_with("Read one with `read_memory` if it bears on what you are doing."));
}

#[test]
fn notices_arrive_exactly_once_a_late_joiner_starts_at_head_and_compaction_sweeps_them() {
    let (_dir, run, mut a, mut b) = team_of_two();
    create(&mut a, "one", "1");
    assert!(
        a.refresh().unwrap().is_none(),
        "never told of its own writes"
    );
    assert!(b.refresh().unwrap().is_some());
    assert!(b.refresh().unwrap().is_none(), "exactly once");
    let mut late = start(&run, "late", "team", StartKind::Root);
    assert!(
        late.refresh().unwrap().is_none(),
        "no backlog for a late joiner"
    );
    assert!(
        late.window().pinned.contains("`one`"),
        "its first window's block shows the filled store"
    );
    create(&mut a, "two", "2");
    assert!(late.refresh().unwrap().unwrap().contains("`two`"));
    b.refresh().unwrap();
    let count = |agent: &Agent| {
        agent
            .window()
            .items()
            .iter()
            .filter(|i| matches!(i.body, gg_module::ItemBody::Notice { .. }))
            .count()
    };
    assert_eq!(count(&b), 2);
    b.compact("what b was doing").unwrap();
    assert_eq!(count(&b), 0, "the boundary sweeps notices");
    assert!(b.refresh().unwrap().is_none(), "and they are not re-issued");
    assert!(
        b.window().pinned.contains("`two`"),
        "what they announced crosses in the rebuilt block"
    );
    // A holder's stream re-emits its own memory_state for others' writes.
    create(&mut a, "three", "3");
    b.refresh().unwrap();
    let events = gg_tests::json(&b.drain_events());
    assert!(events
        .iter()
        .any(|e| e["type"] == "memory_state" && e["agent"] == "b"));
    assert!(
        !events.iter().any(|e| e["type"] == "memory_revision"),
        "a revision is reported once, on the writer's stream"
    );
}

#[test]
fn code_mode_notices_name_the_module_call_and_scratchpad_carries_bodies() {
    let (_dir, run) = launch(
        &[("pad", "code", vec![memories_block("scratchpad", "shared")])],
        &[],
    );
    let mut a = start(&run, "a", "pad", StartKind::Root);
    let mut b = start(&run, "b", "pad", StartKind::Root);
    gg_tests::run(
        &mut a,
        r#"import { memories } from "gg"; memories.writeMemory({ name: "n", description: "d", body: "line one\nline two" });"#,
    );
    let notice = b.refresh().unwrap().unwrap();
    assert!(
        notice.contains("- added `n` — d\n  line one\n  line two"),
        "{notice}"
    );
}

#[test]
fn sixteen_holders_in_threads_lose_nothing_and_hear_everything_once() {
    const AGENTS: usize = 16;
    const PER_AGENT: usize = 625; // 10 000 mutations in all
    let (_dir, run) = launch(&[tools("team", "markdown", "shared")], &[]);
    let run = std::sync::Arc::new(run);
    // Every holder joins before anyone writes: a late joiner would rightly
    // start at the head and not be owed what came before.
    let joined = std::sync::Arc::new(std::sync::Barrier::new(AGENTS));
    let handles: Vec<_> = (0..AGENTS)
        .map(|i| {
            let run = run.clone();
            let joined = joined.clone();
            std::thread::spawn(move || {
                let id = format!("a{i}");
                let mut agent = Agent::start(&run, &id, "team", &StartKind::Root, None).unwrap();
                joined.wait();
                let mut heard: Vec<i64> = Vec::new();
                // 25 calls a turn: each turn pulls what the others wrote.
                for turn in 0..PER_AGENT / 25 {
                    let calls = gg_tests::stress_turn(&id, i, turn);
                    let out = agent.turn(gg_runtime::Response::ToolCalls(calls)).unwrap();
                    for e in gg_tests::json(&out.events)
                        .iter()
                        .filter(|e| e["type"] == "memory_pull")
                    {
                        heard.extend(
                            e["seqs"]
                                .as_array()
                                .unwrap()
                                .iter()
                                .map(|s| s.as_i64().unwrap()),
                        );
                    }
                }
                (id, heard)
            })
        })
        .collect();
    let results: Vec<(String, Vec<i64>)> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    let store = gg_tests::open_store(&run, "profile.team");
    let log = store.revisions_since(0).unwrap();
    // The store equals a serial replay of its revision log.
    gg_tests::assert_store_equals_replay(&store, &log);
    // Every holder heard every other holder's revision exactly once.
    for (id, heard) in &results {
        let mut sorted = heard.clone();
        sorted.sort();
        let before = sorted.len();
        sorted.dedup();
        assert_eq!(before, sorted.len(), "{id} heard a revision twice");
        let others: Vec<i64> = log
            .iter()
            .filter(|r| &r.agent != id)
            .map(|r| r.seq)
            .collect();
        let heard_others: Vec<i64> = sorted
            .iter()
            .copied()
            .filter(|s| others.contains(s))
            .collect();
        // The last pull happens after the holder's last turn; anything others
        // wrote later is still due, never lost: check the prefix it covered.
        assert!(!heard_others.is_empty(), "{id} heard nothing");
        let covered = heard_others.last().copied().unwrap_or(0);
        let due: Vec<i64> = others.iter().copied().filter(|s| *s <= covered).collect();
        assert_eq!(heard_others, due, "{id} missed a revision");
    }
}

#[test]
fn memory_compaction_asks_for_the_strategys_calls() {
    let a = gg_tests::agent_with(gg_tests::memories_profile(
        "scratchpad",
        [0; 6],
        gg_module::Mode::Code,
    ));
    let request = a.memory_compaction_request().unwrap();
    assert!(
        request.contains("memories.writeMemory, memories.updateMemory, memories.deleteMemory"),
        "{request}"
    );
    let b = gg_tests::agent_with(gg_tests::memories_profile(
        "keyword-search",
        [0; 6],
        gg_module::Mode::ToolCalling,
    ));
    assert!(b
        .memory_compaction_request()
        .unwrap()
        .contains("create_memory, edit_memory, delete_memory"));
}

#[test]
fn every_holders_modules_file_names_the_store_and_the_others() {
    let (dir, run, _a, _b) = team_of_two();
    let read = |id: &str| -> serde_json::Value {
        serde_json::from_str(
            &std::fs::read_to_string(dir.path().join(format!("agents/{id}/modules/memories")))
                .unwrap(),
        )
        .unwrap()
    };
    assert_eq!(read("a")["store"], "profile.team");
    assert_eq!(
        read("a")["others"],
        json!(["b"]),
        "the earlier holder's file learns of the later one"
    );
    assert_eq!(read("b")["others"], json!(["a"]));
    assert_eq!(read("b")["scope"], "shared");
    // An ended instance is no longer in it: a later join neither lists it
    // nor rewrites its file, which keeps what it said when it last held
    // the store (a join costs what the live holders do).
    drop(_b);
    let _c = start(&run, "c", "team", StartKind::Root);
    assert_eq!(read("a")["others"], json!(["c"]));
    assert_eq!(read("c")["others"], json!(["a"]));
    assert_eq!(read("b")["others"], json!(["a"]));
}
