//! Isolates over a long life: a thread makes and drops isolates without
//! limit or leak, holds hundreds of them at once, and an agent outlives any
//! number of ceilings (each of which replaces its isolate).

use gg_module::{Profile, RunStatus};
use gg_runtime::{Agent, AgentOptions};
use gg_tests::{ack, run, test_store};

fn agent(time_ms: u64) -> Agent {
    let mut profile = Profile::default();
    profile.programs.time_ms = time_ms;
    profile.programs.heap_mib = 64;
    Agent::new(AgentOptions::new(profile).database_url(test_store())).expect("agent")
}

/// The native slots this thread holds once a first agent has run and been
/// dropped: that agent settles the thread's shared entries, which stay.
fn settled_native_slots() -> usize {
    let mut first = agent(1_000);
    run(&mut first, "export default 1;");
    drop(first);
    gg_runtime::probes::live_native_slots()
}

#[test]
fn one_thread_makes_and_drops_a_thousand_isolates() {
    // From the settled baseline on, every isolate gives back what it took.
    let baseline = settled_native_slots();
    let modules_baseline = gg_runtime::probes::live_module_handles();
    for i in 0..1_000 {
        let mut a = agent(1_000);
        let out = run(
            &mut a,
            &format!("const xs: number[] = [{i}, 1]; export default xs[0] + xs[1];"),
        );
        assert_eq!(
            ack(&out).value.as_deref(),
            Some((i + 1).to_string().as_str()),
            "isolate {i}: {:?}",
            ack(&out)
        );
        assert!(
            gg_runtime::probes::live_module_handles() > modules_baseline,
            "a live isolate holds its modules' handles"
        );
        drop(a);
        assert_eq!(
            gg_runtime::probes::live_native_slots(),
            baseline,
            "isolate {i} kept native slots after it was dropped"
        );
        assert_eq!(
            gg_runtime::probes::live_module_handles(),
            modules_baseline,
            "isolate {i} kept module handles after it was dropped"
        );
    }
}

#[test]
fn an_agent_survives_a_thousand_time_ceilings() {
    let mut a = agent(5);
    run(&mut a, "export default 0;");
    let baseline = gg_runtime::probes::live_native_slots();
    assert!(baseline > 0, "one live isolate holds slots");
    for i in 0..1_000 {
        let out = run(&mut a, "while (true) {}");
        assert_eq!(
            ack(&out).status,
            RunStatus::Ceiling,
            "ceiling {i}: {:?}",
            ack(&out)
        );
    }
    let out = run(&mut a, "export default 42;");
    assert_eq!(ack(&out).value.as_deref(), Some("42"), "{:?}", ack(&out));
    // Each ceiling replaced the isolate; the table holds one isolate's worth
    // (give or take the functions one program made).
    let after = gg_runtime::probes::live_native_slots();
    assert!(
        after <= baseline + 8,
        "{after} slots live after 1 000 ceilings, {baseline} before them"
    );
}

#[test]
fn one_thread_holds_hundreds_of_live_agents_and_each_calls_its_own_natives() {
    // Agents are added until their isolates number their native functions
    // past 65 536 (about 150 slots each: some 430 agents), beyond what a
    // 16-bit index can tell apart, so a call reaching another isolate's
    // callback would show in the values.
    const PAST: usize = 65_536;
    const AT_MOST: usize = 2_000;
    let mut agents = Vec::new();
    while gg_runtime::probes::live_native_slots() <= PAST {
        let i = agents.len();
        assert!(
            i < AT_MOST,
            "{i} live agents hold only {} native slots",
            gg_runtime::probes::live_native_slots()
        );
        let mut a = agent(5_000);
        let out = run(&mut a, &format!("export default {i};"));
        assert_eq!(
            ack(&out).value.as_deref(),
            Some(i.to_string().as_str()),
            "agent {i} live on this thread: {:?}",
            ack(&out)
        );
        agents.push(a);
    }
    for (i, a) in agents.iter_mut().enumerate() {
        let out = run(
            a,
            &format!(
                r#"import {{ views }} from "gg";
views.openText("n", "agent {i}");
const url = new URL("https://example.test/agent/{i}?k=" + btoa("{i}"));
export default [url.pathname, atob(url.searchParams.get("k")!), new TextEncoder().encode("{i}").length].join(" ");"#
            ),
        );
        assert_eq!(
            ack(&out).value.as_deref(),
            Some(format!("\"/agent/{i} {i} {}\"", i.to_string().len()).as_str()),
            "agent {i}: {:?}",
            ack(&out)
        );
    }
}

/// An agent with a scratchpad store whose state lives in `dir`.
fn scratchpad_agent_in(dir: &std::path::Path) -> Agent {
    Agent::new(
        AgentOptions::new(gg_tests::memories_profile(
            "scratchpad",
            [16, 4096, 16384, 0, 256, 0],
            gg_module::Mode::Code,
        ))
        .state(dir.to_path_buf()),
    )
    .expect("agent")
}

#[test]
fn a_parked_agent_gives_its_isolate_back_and_runs_on_as_a_fresh_process_would() {
    let baseline = settled_native_slots();
    let pinned =
        gg_runtime::Determinism::from_parts(Some(7), Some("2026-01-02T03:04:05Z")).unwrap();
    let open = |dir: &std::path::Path| {
        let mut agent = scratchpad_agent_in(dir);
        agent.set_determinism(pinned).expect("pinned");
        agent
    };
    let value = |agent: &mut Agent, source: &str| {
        let out = run(agent, source);
        let ack = ack(&out);
        assert_eq!(ack.status, RunStatus::Ok, "{ack:?}");
        ack.value.clone().unwrap_or_default()
    };

    const FIRST: &str = r#"import { memories, views } from "gg";
        memories.writeMemory({ name: "shout", description: "d", body: "b",
          code: "export const shout = (s: string) => s.toUpperCase();" });
        views.openText("kept", "still open");
        globalThis.left = "behind";"#;
    let dir = tempfile::tempdir().unwrap();
    let mut live = open(dir.path());
    assert!(!live.holds_isolate(), "no isolate before the first run");
    assert!(!live.park(), "nothing to let go yet");
    value(&mut live, FIRST);
    assert!(live.holds_isolate());
    assert!(gg_runtime::probes::live_native_slots() > baseline);
    let window_before = live.window_len();

    assert!(live.park(), "the isolate is let go");
    assert!(!live.holds_isolate());
    assert_eq!(
        gg_runtime::probes::live_native_slots(),
        baseline,
        "a parked agent holds no native slots"
    );
    assert!(!live.park(), "parking twice lets go of nothing more");
    assert_eq!(live.window_len(), window_before, "the window stays");

    let program = r#"import { shout } from "shout";
        export default [shout("x"), typeof globalThis.left, new Date().toISOString(),
          Math.random(), crypto.randomUUID()];"#;
    let after_park = value(&mut live, program);
    assert!(live.holds_isolate(), "the next run took a fresh isolate");
    assert!(
        after_park.starts_with(r#"["X","undefined","2026-01-02T03:04:05.000Z","#),
        "loaded code, pinned clock, nothing left on globalThis: {after_park}"
    );
    assert!(live.render_window().contains("still open"));
    // The same first turn in another folder, then a fresh process on it
    // for the second.
    let other = tempfile::tempdir().unwrap();
    value(&mut open(other.path()), FIRST);
    assert_eq!(
        value(&mut open(other.path()), program),
        after_park,
        "as a fresh process on the same state sees it"
    );
}

/// The files of a state folder, by path, with the SQLite side files a live
/// connection keeps (`-wal`, `-shm`) among them.
fn folder_files(dir: &std::path::Path) -> Vec<String> {
    fn walk(root: &std::path::Path, dir: &std::path::Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                out.push(path.strip_prefix(root).unwrap().display().to_string());
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

#[test]
fn an_agent_ended_for_exit_closes_its_state_as_a_drop_does() {
    let open = scratchpad_agent_in;
    const WRITE: &str = r#"import { memories, views } from "gg";
        memories.writeMemory({ name: "kept", description: "d", body: "written before the exit" });
        views.openText("open", "a view");"#;
    let dropped = tempfile::tempdir().unwrap();
    let ended = tempfile::tempdir().unwrap();
    for (dir, end_for_exit) in [(dropped.path(), false), (ended.path(), true)] {
        let mut agent = open(dir);
        let out = run(&mut agent, WRITE);
        assert_eq!(ack(&out).status, RunStatus::Ok, "{:?}", ack(&out));
        assert!(agent.holds_isolate());
        if end_for_exit {
            agent.end_for_exit();
        } else {
            drop(agent);
        }
    }
    let files = folder_files(ended.path());
    assert_eq!(
        files,
        folder_files(dropped.path()),
        "the same files as after a drop: every database closed, the stream indexed"
    );
    assert!(
        !files
            .iter()
            .any(|f| f.ends_with("-wal") || f.ends_with("-shm")),
        "{files:?}"
    );
    // A fresh process on the folder finds the memory and the view.
    let again = open(ended.path());
    assert!(
        gg_tests::stored(&again)
            .iter()
            .any(|(name, _, body)| name == "kept" && body == "written before the exit"),
        "{:?}",
        gg_tests::stored(&again)
    );
    assert!(again.render_window().contains("a view"));
}
