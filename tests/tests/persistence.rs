//! Agent persistence: one running instance per persistent profile, and the
//! desk each instance leaves for the next.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use gg_module::run::{Run, RunConfig, StartKind};
use gg_module::ItemBody;
use gg_runtime::{Agent, Finish, Response};
use gg_tests::{ack, call_tools, memories_block, run_config};
use serde_json::json;

const PERSISTENT: &str = r#"{ id: "agent-persistence", enabled: true }"#;
const READ_FILE: &str = r#"{ id: "read-file", enabled: true, implementation: "default-cap", params: { lineCap: 250 } }"#;

fn persistence_config(max_parallel: usize) -> RunConfig {
    let mut config = run_config(
        &[
            (
                "owner",
                "code",
                vec![
                    PERSISTENT.into(),
                    READ_FILE.into(),
                    memories_block("scratchpad", "shared"),
                ],
            ),
            (
                "tool-owner",
                "tool-calling",
                vec![PERSISTENT.into(), READ_FILE.into()],
            ),
            ("worker", "code", vec![]),
            ("target", "code", vec![PERSISTENT.into()]),
        ],
        &[],
    );
    config.max_parallel = max_parallel;
    config
}

fn persistence_run(dir: &std::path::Path, max_parallel: usize) -> Arc<Run> {
    Arc::new(Run::launch(persistence_config(max_parallel), &dir.join("state")).unwrap())
}

fn workspace(dir: &std::path::Path) -> std::path::PathBuf {
    let ws = dir.join("ws");
    std::fs::create_dir_all(ws.join("src")).unwrap();
    let lines: String = (1..=200).map(|i| format!("line {i}\n")).collect();
    std::fs::write(ws.join("src/main.rs"), lines).unwrap();
    std::fs::write(ws.join("SPEC.md"), "# Spec\nthe spec\n").unwrap();
    ws
}

/// A fresh directory holding the workspace and a run launched on it: where
/// every desk test starts (the directory lives as long as the desk).
struct Desk {
    dir: tempfile::TempDir,
    ws: std::path::PathBuf,
    run: Arc<Run>,
}

impl Desk {
    /// The desk on the four-slot persistence run.
    fn new() -> Self {
        Self::launch(persistence_config(4))
    }

    fn launch(config: RunConfig) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let ws = workspace(dir.path());
        let run = Arc::new(Run::launch(config, &dir.path().join("state")).unwrap());
        Desk { dir, ws, run }
    }

    /// Instance `id` of `profile`, on the workspace.
    fn start(&self, id: &str, profile: &str) -> Agent {
        start(&self.run, id, profile, &self.ws)
    }

    /// Runs `programs` on a first owner instance and finishes it done: the
    /// desk the profile's next instance restores. Whether a desk was recorded.
    fn first_owner_done(&self, programs: &[&str]) -> bool {
        let mut first = self.start("o1", "owner");
        for program in programs {
            run_ok(&mut first, program);
        }
        first.finish(Finish::Done { gate_passed: true }).unwrap()
    }
}

/// Runs `f` on a thread, failing the test if it does not finish in time.
fn within<T: Send + 'static>(what: &str, secs: u64, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(secs))
        .unwrap_or_else(|_| panic!("{what} did not finish: deadlock?"))
}

#[test]
fn three_instances_of_a_persistent_profile_run_one_after_another_inside_the_pool() {
    let dir = tempfile::tempdir().unwrap();
    let run = persistence_run(dir.path(), 4);
    let log: Arc<Mutex<Vec<(String, Instant, Instant)>>> = Arc::default();
    let peak = Arc::new(Mutex::new((0usize, 0usize)));
    let mut threads = Vec::new();
    for (i, profile) in ["owner", "worker", "owner", "worker", "owner", "worker"]
        .into_iter()
        .enumerate()
    {
        let (run, log, peak) = (run.clone(), log.clone(), peak.clone());
        threads.push(std::thread::spawn(move || {
            let slot = run.scheduler().acquire(run.key_for(profile));
            {
                let mut p = peak.lock().unwrap();
                p.0 += 1;
                p.1 = p.1.max(p.0);
            }
            let start = Instant::now();
            let mut agent = Agent::start(
                &run,
                &format!("{profile}-{i}"),
                profile,
                &StartKind::Implementer,
                None,
            )
            .unwrap();
            run_ok(&mut agent, "export default 1;");
            std::thread::sleep(Duration::from_millis(80));
            log.lock()
                .unwrap()
                .push((profile.to_string(), start, Instant::now()));
            peak.lock().unwrap().0 -= 1;
            drop(slot);
        }));
    }
    within("the pool", 60, move || {
        threads.into_iter().for_each(|t| t.join().unwrap())
    });
    let log = log.lock().unwrap();
    let mut owners: Vec<_> = log.iter().filter(|(p, ..)| p == "owner").collect();
    owners.sort_by_key(|(_, s, _)| *s);
    assert_eq!(owners.len(), 3);
    for pair in owners.windows(2) {
        assert!(pair[0].2 <= pair[1].1, "owner instances overlapped");
    }
    let workers_alongside = log
        .iter()
        .filter(|(p, s, e)| p == "worker" && owners.iter().any(|(_, os, oe)| s < oe && os < e))
        .count();
    assert!(
        workers_alongside > 0,
        "other profiles run alongside the persistent instance"
    );
    assert!(peak.lock().unwrap().1 <= 4, "maxParallel holds");
    assert_eq!(run.scheduler().free_slots(), 4);
}

fn run_ok(agent: &mut Agent, program: &str) {
    let out = agent.turn(Response::program(program)).unwrap();
    assert_eq!(
        ack(&out).status,
        gg_module::RunStatus::Ok,
        "{:?}",
        ack(&out)
    );
}

#[test]
fn suspension_frees_the_key_and_a_self_wait_on_a_child_completes() {
    let dir = tempfile::tempdir().unwrap();
    let run = persistence_run(dir.path(), 2);
    let r = run.clone();
    within(
        "a persistent agent waiting on a child of its own profile",
        20,
        move || {
            let parent = r.scheduler().acquire(r.key_for("owner"));
            assert!(r.scheduler().key_held("owner"));
            // The parent blocks on its child: it suspends, releasing slot and key.
            let suspended = parent.suspend();
            assert!(!r.scheduler().key_held("owner"));
            let r2 = r.clone();
            let child = std::thread::spawn(move || {
                let _slot = r2.scheduler().acquire(r2.key_for("owner"));
                "child done"
            });
            assert_eq!(child.join().unwrap(), "child done");
            let resumed = suspended.resume();
            assert!(r.scheduler().key_held("owner"));
            drop(resumed);
        },
    );
    assert_eq!(run.scheduler().free_slots(), 2);
}

#[test]
fn a_succession_swaps_the_key_without_releasing_the_slot_and_blocks_while_the_target_is_held() {
    let dir = tempfile::tempdir().unwrap();
    let run = persistence_run(dir.path(), 3);
    let held = run.scheduler().acquire(run.key_for("target"));
    let r = run.clone();
    let (tx, rx) = std::sync::mpsc::channel();
    let successor = std::thread::spawn(move || {
        let mut slot = r.scheduler().acquire(r.key_for("owner"));
        tx.send(r.scheduler().free_slots()).unwrap();
        slot.succeed(r.key_for("target"));
        tx.send(r.scheduler().free_slots()).unwrap();
        assert!(!r.scheduler().key_held("owner"), "the old key is released");
        drop(slot);
    });
    let free_before = rx.recv_timeout(Duration::from_secs(10)).unwrap();
    assert_eq!(free_before, 1);
    std::thread::sleep(Duration::from_millis(100));
    assert!(
        rx.try_recv().is_err(),
        "the succession blocks while the target profile is held"
    );
    assert_eq!(
        run.scheduler().free_slots(),
        1,
        "and keeps its running slot meanwhile"
    );
    assert!(run.scheduler().key_held("owner"));
    drop(held);
    assert_eq!(
        rx.recv_timeout(Duration::from_secs(10)).unwrap(),
        2,
        "the target's holder gave its slot back; the successor kept its own"
    );
    successor.join().unwrap();
    assert_eq!(run.scheduler().free_slots(), 3);
}

fn start(run: &Run, id: &str, profile: &str, ws: &std::path::Path) -> Agent {
    Agent::start(
        run,
        id,
        profile,
        &StartKind::Implementer,
        Some(ws.to_path_buf()),
    )
    .unwrap()
}

#[test]
fn the_desk_is_recorded_on_done_and_only_then() {
    let desk = Desk::new();
    assert!(desk.first_owner_done(&[
        r#"import { views } from "gg"; views.openFile("src/main.rs", { offset: 40, limit: 5 }); views.openText("plan", "step 1");"#,
    ]));

    for (i, how) in [
        Finish::Ceiling,
        Finish::Error,
        Finish::Handoff,
        Finish::Done { gate_passed: false },
    ]
    .into_iter()
    .enumerate()
    {
        let mut other = desk.start(&format!("o-x{i}"), "owner");
        run_ok(
            &mut other,
            r#"import { views } from "gg"; views.close("plan"); views.openText("other", "x");"#,
        );
        assert!(!other.finish(how).unwrap(), "{how:?} records nothing");
    }
    let mut next = desk.start("o2", "owner");
    run_ok(&mut next, "1;");
    let window = next.render_window();
    assert!(
        window.contains("--- view: text plan ---\nstep 1"),
        "the done instance's desk stands: {window}"
    );
    assert!(!window.contains("--- view: text other"));
}

#[test]
fn restore_rereads_files_in_order_with_minted_ids_on_turn_zero() {
    let desk = Desk::new();
    assert!(desk.first_owner_done(&[
        r#"import { memories, views } from "gg";
views.openText("plan", "the plan");
views.openFile("src/main.rs", { offset: 40, limit: 3 });
views.openFile("src/main.rs", { offset: 100, limit: 2 });
memories.writeMemory({ name: "csv-tools", description: "d", body: "b", code: "export function parseCsv(t: string): string[] { return t.split(','); }" });"#,
        // A view the instance closed, and one a compaction would have taken, are not carried.
        r#"import { views } from "gg"; views.openText("scratch", "x"); views.close("scratch");"#,
    ]));
    // The workspace changes while the next instance queues.
    let edited: String = (1..=200)
        .map(|i| {
            if i == 41 {
                "EDITED\n".to_string()
            } else {
                format!("line {i}\n")
            }
        })
        .collect();
    std::fs::write(desk.ws.join("src/main.rs"), edited).unwrap();

    let mut next = desk.start("o2", "owner");
    assert!(
        next.window().is_empty(),
        "restored at the top of the turn loop, not at spawn"
    );
    next.refresh().unwrap();
    let window = next.window();
    let turn0: Vec<&ItemBody> = window
        .items()
        .iter()
        .filter(|i| i.turn == 0)
        .map(|i| &i.body)
        .collect();
    let kinds: Vec<String> = turn0
        .iter()
        .map(|b| match b {
            ItemBody::Program { id, source } => format!(
                "program {}: {}",
                id.as_deref().unwrap_or("-"),
                source.lines().last().unwrap()
            ),
            ItemBody::Acknowledgement(a) => format!("ack {}", a.headline()),
            ItemBody::View { view, .. } => format!(
                "view {}",
                view.documentation_key()
                    .or(view.close_name().map(|n| n.into_owned()))
                    .unwrap()
            ),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "program p1: views.openFile(\"src/main.rs\", { offset: 40, limit: 3 });",
            "ack p1: ok",
            "view src/main.rs",
            "program p2: views.openFile(\"src/main.rs\", { offset: 100, limit: 2 });",
            "ack p2: ok",
            "view src/main.rs",
            "view plan",
            "view csvTools.parseCsv",
        ]
    );
    let rendered = next.render_window();
    assert!(
        rendered.contains("   41  EDITED"),
        "files are re-read as they stand now: {rendered}"
    );
    assert!(
        !rendered.contains("--- view: text scratch"),
        "a closed view is not carried"
    );
    // The library recorded them as opening programs.
    let out = next.turn(Response::program("1;")).unwrap();
    assert_eq!(ack(&out).program_id.as_deref(), Some("p3"));
    // The restored documentation names a module this instance can import.
    let out = next
        .turn(Response::program(
            r#"import { parseCsv } from "csvTools"; export default parseCsv("a,b").length;"#,
        ))
        .unwrap();
    assert_eq!(ack(&out).value.as_deref(), Some("2"), "{:?}", ack(&out));
}

/// Under markdown a memory's code loads on the read: an instance that has
/// not read it gets no documentation of a module it could not import.
#[test]
fn a_desk_restores_no_documentation_the_instance_cannot_import() {
    let desk = Desk::launch(run_config(
        &[(
            "noter",
            "code",
            vec![PERSISTENT.into(), memories_block("markdown", "shared")],
        )],
        &[],
    ));
    let mut first = desk.start("n1", "noter");
    run_ok(
        &mut first,
        r#"import { memories } from "gg"; memories.createMemory({ name: "tool", description: "d", body: "b", code: "export function t() { return 1; }" }); memories.readMemory("tool");"#,
    );
    run_ok(&mut first, "1;");
    assert!(first.render_window().contains("documentation tool.t"));
    assert!(first.finish(Finish::Done { gate_passed: true }).unwrap());
    drop(first);
    let mut next = desk.start("n2", "noter");
    next.refresh().unwrap();
    let restored = gg_tests::json(&next.drain_events())
        .into_iter()
        .find(|e| e["type"] == "desk_restored")
        .unwrap();
    assert_eq!(restored["documentation"], 0);
    assert!(!next.render_window().contains("documentation tool.t"));
}

#[test]
fn unreadable_files_already_open_paths_and_unbound_documentation_are_skipped() {
    let mut config = run_config(
        &[(
            "owner",
            "code",
            vec![PERSISTENT.into(), memories_block("scratchpad", "isolated")],
        )],
        &[],
    );
    config.profiles[0].capabilities.push(
        serde_json::from_value(
            json!({ "id": "autoload", "enabled": true, "params": { "paths": ["SPEC.md"] } }),
        )
        .unwrap(),
    );
    let desk = Desk::launch(config);
    std::fs::write(desk.ws.join("doomed.txt"), "soon gone\n").unwrap();
    assert!(desk.first_owner_done(&[
        r#"import { memories, views } from "gg";
views.openFile("doomed.txt");
views.openFile("SPEC.md", { offset: 2, limit: 1 });
memories.writeMemory({ name: "tools", description: "d", body: "b", code: "export function helper() { return 1; }" });"#,
    ]));
    std::fs::remove_file(desk.ws.join("doomed.txt")).unwrap();
    // The isolated successor instance binds a store without `tools`: its
    // documentation key renders nothing.
    let mut next = desk.start("o2", "owner");
    next.refresh().unwrap();
    let events = gg_tests::json(&next.drain_events());
    let skipped: Vec<&serde_json::Value> = events
        .iter()
        .filter(|e| e["type"] == "desk_skipped")
        .collect();
    assert_eq!(skipped.len(), 1);
    assert_eq!(skipped[0]["path"], "doomed.txt");
    let restored = events
        .iter()
        .find(|e| e["type"] == "desk_restored")
        .unwrap();
    assert_eq!(
        (
            restored["files"].as_u64(),
            restored["documentation"].as_u64(),
            restored["skipped"].as_u64()
        ),
        (Some(0), Some(0), Some(3))
    );
    let window = next.render_window();
    assert_eq!(
        window.matches("--- view: file SPEC.md").count(),
        1,
        "the autoloaded path is not opened twice"
    );
    assert!(!window.contains("documentation tools.helper"));
}

#[test]
fn tool_calling_profiles_get_read_file_pairs() {
    let desk = Desk::new();
    let mut first = desk.start("t1", "tool-owner");
    // Granted read-file is offered as a native tool, with its schema.
    let schemas = first.tool_schemas();
    assert_eq!(schemas[0]["name"], "read_file", "{schemas:?}");
    assert_eq!(
        schemas[0]["input_schema"]["required"],
        json!(["path"]),
        "{schemas:?}"
    );
    assert!(schemas[0]["description"]
        .as_str()
        .unwrap()
        .contains("at most 250 lines"));
    let out = call_tools(
        &mut first,
        &[(
            "read_file",
            json!({ "path": "src/main.rs", "offset": 10, "limit": 2 }),
        )],
    );
    assert!(!out.tool_results[0].is_error, "{:?}", out.tool_results);
    assert!(first.finish(Finish::Done { gate_passed: true }).unwrap());
    let mut next = desk.start("t2", "tool-owner");
    next.refresh().unwrap();
    let window = next.window();
    let items = window.items();
    match (&items[0].body, &items[1].body) {
        (
            ItemBody::ToolCall {
                call_id,
                name,
                arguments,
            },
            ItemBody::ToolResult {
                call_id: result_id,
                content,
                view,
                ..
            },
        ) => {
            assert_eq!(name, "read_file");
            assert_eq!(call_id, result_id, "a matched pair");
            assert_eq!(
                arguments,
                &json!({ "path": "src/main.rs", "offset": 10, "limit": 2 })
            );
            assert_eq!(content, "   10  line 10\n   11  line 11\n");
            assert!(view.is_some());
        }
        other => panic!("expected a read_file pair, got {other:?}"),
    }
}

#[test]
fn finishing_with_nothing_open_clears_the_desk_and_an_exhausted_mint_ends_the_agent() {
    let desk = Desk::new();
    desk.first_owner_done(&[
        r#"import { views } from "gg"; views.openFile("src/main.rs", { offset: 1, limit: 1 });"#,
    ]);
    let mut second = desk.start("o2", "owner");
    run_ok(&mut second, "1;");
    second.compact("dropped everything").unwrap();
    second.finish(Finish::Done { gate_passed: true }).unwrap();
    let mut third = desk.start("o3", "owner");
    run_ok(&mut third, "1;");
    assert!(
        !third.render_window().contains("--- view: file"),
        "the compacted-away view cleared the desk"
    );
    third.turn(Response::program(r#"import { views } from "gg"; views.openFile("src/main.rs", { offset: 1, limit: 1 });"#)).unwrap();
    third.finish(Finish::Done { gate_passed: true }).unwrap();

    let mut config = desk.run.config().clone();
    config.profiles[0].programs.library_capacity = 0;
    let tight = Run::launch(config, &desk.dir.path().join("state")).unwrap();
    let mut starved = start(&tight, "o4", "owner", &desk.ws);
    let err = starved.turn(Response::program("1;")).unwrap_err();
    assert!(
        err.to_string().starts_with("internal_error:") && err.to_string().contains("exhausted"),
        "{err}"
    );
    let again = starved.turn(Response::program("1;")).unwrap_err();
    assert!(again.to_string().contains("ended"), "{again}");
}

#[test]
fn a_desk_restores_no_file_of_the_state_folder_inside_the_workspace() {
    // The layout `gg run` gives by default: the run's state folder inside
    // the workspace.
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path());
    let run = Arc::new(Run::launch(persistence_config(4), &ws.join(".gg-state")).unwrap());
    std::fs::write(ws.join("notes.txt"), "mine\n").unwrap();
    let mut first = start(&run, "o1", "owner", &ws);
    // Its own program cannot open the state folder either.
    let out = first
        .turn(Response::program(
            r#"import { views } from "gg";
try { views.openFile(".gg-state/events/o1.jsonl"); } catch (e) { console.log(e.message); }
views.openFile("notes.txt");"#,
        ))
        .unwrap();
    assert!(
        ack(&out).console[0]
            .text
            .contains("is in gg's state folder"),
        "{:?}",
        ack(&out)
    );
    assert!(first.finish(Finish::Done { gate_passed: true }).unwrap());
    // The recorded path now leads into the state folder.
    std::fs::remove_file(ws.join("notes.txt")).unwrap();
    std::os::unix::fs::symlink(".gg-state/events/o1.jsonl", ws.join("notes.txt")).unwrap();
    let mut next = start(&run, "o2", "owner", &ws);
    next.refresh().unwrap();
    let events = gg_tests::json(&next.drain_events());
    let skipped: Vec<&serde_json::Value> = events
        .iter()
        .filter(|e| e["type"] == "desk_skipped")
        .collect();
    assert_eq!(skipped.len(), 1, "{events:?}");
    assert_eq!(skipped[0]["path"], "notes.txt");
    assert!(
        skipped[0]["reason"]
            .as_str()
            .unwrap()
            .contains("state folder"),
        "{skipped:?}"
    );
    let window = next.render_window();
    assert!(!window.contains("--- view: file notes.txt"), "{window}");
    assert!(!window.contains("\"type\":\"turn\""), "{window}");
}
