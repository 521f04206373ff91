//! The `gg` command line, end to end: `run`, `transpile`, `session run`
//! and `test`, run as a user would from the repository root.

use std::path::PathBuf;
use std::process::{Command, Output};

use crate::serve;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

fn gg(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gg"))
        .args(args)
        .current_dir(repo())
        .output()
        .expect("run gg")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn the_repositorys_sessions_pass_under_gg_test() {
    let out = gg(&["test", "fixtures/sessions"]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    let last = stdout.lines().last().unwrap();
    assert!(last.ends_with(" passed, 0 failed"), "{stdout}");
    assert!(
        stdout.contains("ok   fixtures/sessions/demo.session.json5"),
        "{stdout}"
    );
}

#[test]
fn a_broken_expectation_fails_with_a_diff_and_exit_1() {
    let out = gg(&["test", "fixtures/failing-sessions/broken.session.json5"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("FAIL fixtures/failing-sessions/broken.session.json5"),
        "{stdout}"
    );
    assert!(
        stdout.contains("broken.session.json5:7: the last program's value is 42, expected 43"),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "broken.session.json5:8: the window differs from the golden file broken.golden.txt"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("-not the real window"),
        "a unified diff: {stdout}"
    );
    assert!(stdout.contains("+--- program p1 ---"), "{stdout}");
    assert_eq!(stdout.lines().last(), Some("0 passed, 1 failed"));
}

#[test]
fn session_file_mistakes_name_the_file_and_line() {
    for (file, message) in [
        ("typo", "fixtures/failing-sessions/typo.session.json5:5: unknown step \"trun\" (did you mean \"turn\"?)"),
        ("unknown_agent", "fixtures/failing-sessions/unknown_agent.session.json5:7: unknown agent \"zed\""),
        ("missing_file", "fixtures/failing-sessions/missing_file.session.json5:5: turn: cannot read the program"),
    ] {
        let path = format!("fixtures/failing-sessions/{file}.session.json5");
        let out = gg(&["session", "run", &path]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{file}: {stderr}");
        assert!(stderr.contains(message), "{file}: {stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "one clear line: {stderr}");
    }
}

#[test]
fn the_demo_sessions_output_matches_its_golden_file() {
    let out = gg(&["session", "run", "fixtures/sessions/demo.session.json5"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let actual = text(&out.stdout);
    assert!(!actual.contains('\u{1b}'), "plain when piped");
    let golden = repo().join("fixtures/golden/demo.txt");
    if std::env::var_os("GG_UPDATE_GOLDEN").is_some() {
        std::fs::write(&golden, &actual).unwrap();
    }
    let expected = std::fs::read_to_string(&golden)
        .expect("fixtures/golden/demo.txt (GG_UPDATE_GOLDEN=1 writes it)");
    if expected != actual {
        let diff = similar::TextDiff::from_lines(&expected, &actual)
            .unified_diff()
            .header("golden", "actual")
            .to_string();
        panic!("the demo's output changed (GG_UPDATE_GOLDEN=1 accepts it):\n{diff}");
    }
}

#[test]
fn session_run_json_prints_one_record_per_step() {
    let out = gg(&[
        "session",
        "run",
        "--json",
        "fixtures/sessions/demo.session.json5",
    ]);
    assert!(out.status.success());
    let records: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records.len(), 14);
    assert_eq!(records[2]["kind"], "turn");
    assert!(records[2]["events"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["type"] == "memory_revision"));
}

/// Runs `gg` with `args`, which must exit with `code`: its standard
/// output and standard error.
fn exits(args: &[&str], code: i32) -> (String, String) {
    let out = gg(args);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(code), "gg {args:?}: {stderr}");
    (stdout, stderr)
}

#[test]
fn gg_run_and_transpile_exit_statuses() {
    let state = tempfile::tempdir().unwrap();
    let state = state.path().to_str().unwrap();
    let (ok, _) = exits(
        &[
            "run",
            "fixtures/programs/types_and_enums.ts",
            "--state",
            state,
        ],
        0,
    );
    assert!(
        ok.starts_with("p1: ok\nvalue: {\"total\":11,\"high\":\"High\"}"),
        "{ok}"
    );
    let (threw, _) = exits(
        &[
            "run",
            "fixtures/programs/runtime_error.ts",
            "--state",
            state,
        ],
        1,
    );
    assert!(threw.starts_with("p2: threw"), "{threw}");
    exits(&["run"], 2);
    let (_, missing) = exits(&["run", "nope.ts"], 2);
    assert!(
        missing.starts_with("gg: cannot read the program nope.ts"),
        "{missing}"
    );
    let (help, _) = exits(&["--help"], 0);
    for sub in ["run", "transpile", "window", "bench", "session", "test"] {
        assert!(help.contains(sub), "--help lists {sub}");
        assert_eq!(gg(&[sub, "--help"]).status.code(), Some(0), "{sub} --help");
    }
    let (js, _) = exits(&["transpile", "fixtures/programs/types_and_enums.ts"], 0);
    assert!(!js.contains("interface Row"));
    let (_, bad) = exits(&["transpile", "fixtures/programs/syntax_error.ts"], 1);
    assert!(
        bad.contains("fixtures/programs/syntax_error.ts:2:22:"),
        "{bad}"
    );
}

/// `gg console --state <state>` and `more`, which must refuse to start
/// (exit 2): its standard error, which says why.
fn console_refusal(state: &std::path::Path, more: &[&str]) -> String {
    let mut args = vec!["console", "--state", state.to_str().unwrap()];
    args.extend_from_slice(more);
    exits(&args, 2).1
}

#[test]
fn gg_console_refuses_a_missing_or_foreign_state_folder_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-state");
    let stderr = console_refusal(&missing, &["--addr", "127.0.0.1:0"]);
    assert!(
        stderr.contains(&format!(
            "gg: no state folder at {0}; run a session or `gg run` with --state {0} first",
            missing.display()
        )),
        "{stderr}"
    );

    std::fs::write(dir.path().join("notes.txt"), "not gg's").unwrap();
    let stderr = console_refusal(dir.path(), &["--addr", "127.0.0.1:0"]);
    assert!(
        stderr.contains("is not a gg state folder: it has none of state.sqlite, memories/*.sqlite or events/*.jsonl"),
        "{stderr}"
    );

    let stderr = console_refusal(&dir.path().join("notes.txt"), &[]);
    assert!(stderr.contains("is not a folder"), "{stderr}");

    // Only loopback: the console shows everything in the folder.
    std::fs::create_dir_all(dir.path().join("events")).unwrap();
    std::fs::write(dir.path().join("events").join("a.jsonl"), "").unwrap();
    let stderr = console_refusal(dir.path(), &["--addr", "0.0.0.0:0"]);
    assert!(stderr.contains("loopback"), "{stderr}");
}

#[test]
fn a_pinned_seed_and_clock_replay_byte_for_byte() {
    // A session that pins them: two runs print the same bytes.
    let session = [
        "session",
        "run",
        "fixtures/sessions/determinism.session.json5",
    ];
    let first = gg(&session);
    let second = gg(&session);
    assert!(first.status.success(), "{}", text(&first.stderr));
    assert_eq!(text(&first.stdout), text(&second.stdout));
    assert!(text(&first.stdout).contains("2026-01-02T03:04:05.000Z 1767323045000"));

    // `gg run --seed --clock`, each time in a fresh state folder.
    let program = "fixtures/programs/web/determinism.ts";
    let run = |seed: &str| {
        let state = tempfile::tempdir().unwrap();
        let out = gg(&[
            "run",
            program,
            "--console-only",
            "--seed",
            seed,
            "--clock",
            "2026-01-02T03:04:05Z",
            "--state",
            state.path().to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    let a = run("42");
    assert_eq!(a, run("42"));
    assert_ne!(a, run("43"));
    assert!(
        a.contains("1767323045000 2026-01-02T03:04:05.000Z 0"),
        "{a}"
    );
    assert!(
        a.contains(
            "1767323045000 0 0 2026-01-02T03:04:05Z 2026-01-02T03:04:05 \
             Fri Jan 02 2026 03:04:05 GMT+0000 (Coordinated Universal Time) January 2, 2026"
        ),
        "every clock reads the pinned instant: {a}"
    );

    // A clock that is not an instant is bad usage, named.
    let out = gg(&[
        "run",
        program,
        "--clock",
        "yesterday",
        "--state",
        "target/tmp/never",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--clock: the clock \"yesterday\" is not an ISO-8601 instant")
    );
}

#[test]
fn gg_test_passes_a_thousand_generated_sessions_two_at_a_time() {
    // Each session starts an agent (a new isolate on one of two threads):
    // over a long suite, a thread makes hundreds of isolates.
    let dir = tempfile::tempdir().unwrap();
    for i in 0..1_000 {
        let session = format!(
            r#"{{
  run: {{ profiles: [{{ id: "p", mode: "code", capabilities: [] }}] }},
  steps: [
    {{ start: {{ agent: "a", profile: "p" }} }},
    {{ turn: {{ agent: "a", program: "const xs: number[] = [1, 2, {i}]; export default xs.length;" }} }},
    {{ expect: {{ agent: "a", status: "ok", value: 3 }} }},
  ],
}}
"#
        );
        std::fs::write(dir.path().join(format!("s{i:04}.session.json5")), session).unwrap();
    }
    let out = gg(&["test", dir.path().to_str().unwrap(), "--jobs", "2"]);
    let stdout = text(&out.stdout);
    assert!(
        out.status.success(),
        "{}\n{}",
        stdout
            .lines()
            .filter(|l| !l.starts_with("ok "))
            .collect::<Vec<_>>()
            .join("\n"),
        text(&out.stderr)
    );
    assert_eq!(
        stdout.lines().last(),
        Some("1000 passed, 0 failed"),
        "{stdout}"
    );
}

/// Runs `gg` with `args` and returns its output and its peak resident
/// memory in KB (from wait4's rusage).
fn gg_with_peak(args: &[&str]) -> (Output, u64) {
    use std::os::unix::process::ExitStatusExt;
    // Reaped by wait4 below, which also gives the child's peak memory.
    #[allow(clippy::zombie_processes)]
    let child = Command::new(env!("CARGO_BIN_EXE_gg"))
        .args(args)
        .current_dir(repo())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run gg");
    let pid = child.id() as libc::pid_t;
    // Read the pipes first so a chatty child cannot block on them.
    let stdout = child.stdout;
    let stderr = child.stderr;
    let read = |pipe: Option<std::process::ChildStdout>| {
        let mut bytes = Vec::new();
        if let Some(mut pipe) = pipe {
            std::io::Read::read_to_end(&mut pipe, &mut bytes).unwrap();
        }
        bytes
    };
    let out_bytes = read(stdout);
    let mut err_bytes = Vec::new();
    if let Some(mut pipe) = stderr {
        std::io::Read::read_to_end(&mut pipe, &mut err_bytes).unwrap();
    }
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid out-parameter; pid is our child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid);
    (
        Output {
            status: std::process::ExitStatus::from_raw(status),
            stdout: out_bytes,
            stderr: err_bytes,
        },
        usage.ru_maxrss as u64,
    )
}

#[test]
fn memory_ceilings_hold_for_arrays_buffers_and_shared_memory() {
    // Each program tries to take far more than its 64 MiB: a native fill
    // loop, ArrayBuffers, typed arrays, SharedArrayBuffers. Each is a heap
    // ceiling, and the process peaks within twice the limit above what a
    // trivial program costs.
    let dir = tempfile::tempdir().unwrap();
    let profile = dir.path().join("small.json5");
    std::fs::write(
        &profile,
        r#"{ id: "small", mode: "code", programs: { heapMib: 64, timeMs: 4000 }, capabilities: [] }"#,
    )
    .unwrap();
    let trivial = dir.path().join("trivial.ts");
    std::fs::write(&trivial, "export default 1;").unwrap();
    let run = |program: &str, state: &str| {
        let state = dir.path().join(state);
        gg_with_peak(&[
            "run",
            program,
            "--profile",
            profile.to_str().unwrap(),
            "--state",
            state.to_str().unwrap(),
        ])
    };
    let (_, baseline_kb) = run(trivial.to_str().unwrap(), "baseline");
    for name in ["array_fill", "arraybuffers", "typed", "sabs"] {
        let program = format!("fixtures/programs/hostile/heap_{name}.ts");
        let (out, peak_kb) = run(&program, name);
        let stdout = text(&out.stdout);
        assert!(
            stdout.contains("stopped at a limit") && stdout.contains("heap limit of 64 MiB"),
            "{name}: {stdout}{}",
            text(&out.stderr)
        );
        let grown_mib = peak_kb.saturating_sub(baseline_kb) / 1024;
        assert!(
            grown_mib <= 128,
            "{name}: peaked {grown_mib} MiB above a trivial program"
        );
        let (next, _) = run(trivial.to_str().unwrap(), name);
        assert!(
            text(&next.stdout).contains(": ok"),
            "{name}: {}",
            text(&next.stdout)
        );
    }
}

#[test]
fn a_program_cannot_forge_lines_in_the_operators_log() {
    // The hook's console line and its error carry newlines, a carriage
    // return and a terminal escape: each reaches standard error as one
    // escaped log line.
    let state = tempfile::tempdir().unwrap();
    let out = gg(&[
        "run",
        "fixtures/programs/hostile/forge_operator_log.ts",
        "--profile",
        "fixtures/profiles/scratchpad-small.json5",
        "--state",
        state.path().to_str().unwrap(),
    ]);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        !stderr.contains('\x1b') && !stderr.contains('\r'),
        "{stderr:?}"
    );
    for line in stderr.lines() {
        assert!(
            !line.trim_start().starts_with("[gg]") && !line.trim_start().starts_with("FORGED"),
            "a forged line: {line:?} in {stderr}"
        );
    }
    assert!(
        stderr.contains(r"onUse printed: fine\n[gg] FORGED-CONSOLE-LINE\r\u{1b}[2J"),
        "{stderr}"
    );
    assert!(stderr.contains(r"boom\nFORGED-ERROR-LINE"), "{stderr}");
}

/// `gg run` of `program` as `agent` of the shared-scope team profile.
fn team_run(program: &str, state: &std::path::Path, agent: &str, store: Option<&str>) -> String {
    let program = format!("fixtures/programs/shared/{program}");
    let mut args = vec![
        "run",
        program.as_str(),
        "--profile",
        "fixtures/profiles/team-shared.json5",
        "--state",
        state.to_str().unwrap(),
        "--agent",
        agent,
    ];
    if let Some(store) = store {
        args.extend(["--store", store]);
    }
    let out = gg(&args);
    assert!(
        out.status.success(),
        "{agent} {program}: {}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stdout)
}

/// The three turns of two agents of one shared profile: bob joins, alice
/// creates a memory, bob reads it and his window carries the notice.
fn shared_profile_turns(
    bob_state: &std::path::Path,
    alice_state: &std::path::Path,
    store: Option<&str>,
) {
    team_run("join.ts", bob_state, "bob", store);
    team_run("create.ts", alice_state, "alice", store);
    let read = team_run("read.ts", bob_state, "bob", store);
    assert!(
        read.starts_with("p2: ok\nvalue: \"Run make deploy.\""),
        "{read}"
    );
    let notice = read
        .find("- added `deploy-runbook` — How to deploy")
        .expect(&read);
    let turn_two = read.find("=== turn 2 ===").expect(&read);
    assert!(
        notice < turn_two,
        "the notice arrives before bob's second turn: {read}"
    );
}

#[test]
fn gg_run_agents_of_a_shared_profile_share_its_store() {
    let state = tempfile::tempdir().unwrap();
    shared_profile_turns(state.path(), state.path(), None);
    let stores: Vec<String> = std::fs::read_dir(state.path().join("memories"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".sqlite"))
        .collect();
    assert_eq!(stores, vec!["profile.team.sqlite".to_string()]);
}

/// Two hosts' state folders (A: bob, B: alice) whose agents of the shared
/// team profile ran [`shared_profile_turns`] against one PostgreSQL
/// database, in a schema of the test's own that gg creates; with the
/// database URL. `None` (the test prints `SKIPPED`) without
/// `GG_TEST_POSTGRES_URL`.
fn two_hosts_in_postgres(test: &str) -> Option<(String, tempfile::TempDir, tempfile::TempDir)> {
    let Some(base) = std::env::var("GG_TEST_POSTGRES_URL")
        .ok()
        .filter(|u| !u.is_empty())
    else {
        eprintln!("SKIPPED {test}: GG_TEST_POSTGRES_URL is not set (scripts/test sets it)");
        return None;
    };
    // A schema nobody has created: gg creates it.
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    let schema = format!("gg_cli_{}_{}_{nanos}", &test[..6], std::process::id());
    let sep = if base.contains('?') { '&' } else { '?' };
    let url = format!("{base}{sep}options=-csearch_path%3D{schema}");
    let (host_a, host_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    shared_profile_turns(host_a.path(), host_b.path(), Some(&url));
    Some((url, host_a, host_b))
}

#[test]
fn gg_run_on_two_hosts_shares_a_profile_store_in_postgres() {
    let Some((url, host_a, _host_b)) =
        two_hosts_in_postgres("gg_run_on_two_hosts_shares_a_profile_store_in_postgres")
    else {
        return;
    };
    // gg window on host A, from the database, shows bob's two turns.
    let window = gg(&[
        "window",
        "--profile",
        "fixtures/profiles/team-shared.json5",
        "--state",
        host_a.path().to_str().unwrap(),
        "--agent",
        "bob",
        "--store",
        &url,
    ]);
    let window = text(&window.stdout);
    assert!(
        window.contains("=== turn 2 ===") && window.contains("deploy-runbook"),
        "{window}"
    );
}

#[test]
fn gg_console_with_store_shows_the_profile_store_two_hosts_share_in_postgres() {
    let Some((url, host_a, _host_b)) = two_hosts_in_postgres(
        "gg_console_with_store_shows_the_profile_store_two_hosts_share_in_postgres",
    ) else {
        return;
    };
    // Host A's folder holds only bob; the store, written by alice on host
    // B, is read from the database.
    let (_server, base) = serve::console(host_a.path(), &["--store", &url]);
    let overview = serve::get_json(&base, "/api/overview");
    let stores = overview["stores"].as_array().unwrap();
    assert_eq!(stores.len(), 1, "{overview}");
    let team = &stores[0];
    assert_eq!(team["id"], "profile.team");
    assert_eq!(team["totals"]["count"], 1);
    assert_eq!(team["peaks"]["count"], 1);
    assert_eq!(team["revisions"], 1);
    let holders = serve::strings(&team["holders"], "agent");
    assert_eq!(holders, ["alice", "bob"]);
    // The run's agents are both hosts': bob, whose folder this is, and
    // alice, who ran on host B and whom the database records with her
    // profile and turn. Bob's store's totals come from the database.
    let agents = overview["agents"].as_array().unwrap();
    let ids = serve::strings(&overview["agents"], "id");
    assert_eq!(ids, ["alice", "bob"], "{overview}");
    assert_eq!(
        (agents[0]["profile"].as_str(), agents[0]["turn"].as_u64()),
        (Some("team"), Some(1)),
        "{overview}"
    );
    assert_eq!(agents[1]["store"], "profile.team");
    assert_eq!(agents[1]["totals"]["count"], 1, "{overview}");
    // Alice's transcript, read from the database on a host she never ran on.
    let alice = serve::get_json(&base, "/api/agents/alice/transcript");
    assert_eq!(alice["turn"], 1, "{alice}");
    assert_eq!(alice["turns"][0]["turn"], 1, "{alice}");
    let items = &alice["turns"][0]["items"];
    assert_eq!(items[0]["type"], "program", "{alice}");
    assert!(
        items[0]["source"]
            .as_str()
            .unwrap()
            .contains("deploy-runbook"),
        "{alice}"
    );
    assert_eq!(items[1]["status"], "ok", "{alice}");

    let memories = serve::get_json(&base, "/api/stores/profile.team/memories");
    let runbook = serve::memory(&memories, "deploy-runbook");
    assert_eq!(runbook["deleted"], false);
    assert_eq!(runbook["description"], "How to deploy");
    assert_eq!(runbook["lastAgent"], "alice");
    let history = serve::get_json(
        &base,
        "/api/stores/profile.team/memories/deploy-runbook/revisions",
    );
    assert_eq!(history[0]["text"], "Run make deploy.", "{history}");
    assert_eq!(history[0]["mutation"], "create");
    assert_eq!(history[0]["agent"], "alice");
    let (status, _) = serve::get(&base, "/api/stores/agent.bob/memories");
    assert_eq!(status, 404);

    // A schema no gg run wrote: refused as the wrong database, and left
    // uncreated.
    let elsewhere = url.replace("%3Dgg_cli_", "%3Dnothing_here_");
    let stderr = console_refusal(
        host_a.path(),
        &["--addr", "127.0.0.1:0", "--store", &elsewhere],
    );
    assert!(stderr.contains("holds no gg memory stores"), "{stderr}");
}

/// Runs gg with `stdin` piped in.
fn gg_with_stdin(args: &[&str], stdin: &str) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_gg"))
        .args(args)
        .current_dir(repo())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run gg");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn a_program_can_come_from_standard_input() {
    let state = tempfile::tempdir().unwrap();
    let state = state.path().to_str().unwrap();
    let out = gg_with_stdin(
        &["run", "-", "--state", state],
        "const n: number = 6 * 7;\nexport default n;\n",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).starts_with("p1: ok\nvalue: 42"),
        "{}",
        text(&out.stdout)
    );
    // Errors name the program `stdin`, or the name given.
    let out = gg_with_stdin(
        &["run", "-", "--state", state],
        "\nthrow new Error(\"boom\");",
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stdout).contains("at stdin:2:"),
        "{}",
        text(&out.stdout)
    );
    let out = gg_with_stdin(
        &["run", "-", "--name", "answer.ts", "--state", state],
        "throw new Error(\"boom\");",
    );
    assert!(
        text(&out.stdout).contains("at answer.ts:1:"),
        "{}",
        text(&out.stdout)
    );
    let out = gg_with_stdin(&["transpile", "-"], "let x: number = ;");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).starts_with("stdin:1:17: "),
        "{}",
        text(&out.stderr)
    );
    // What runs: the type erased in place, every position kept.
    let out = gg_with_stdin(&["transpile", "-"], "export const x: number = 1;");
    assert_eq!(text(&out.stdout).trim(), "export const x         = 1;");
    let out = gg_with_stdin(&["transpile", "-"], "export enum E { A }");
    assert!(
        text(&out.stdout).contains("E[\"A\"] = 0"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn gg_init_writes_a_start_that_gg_test_passes() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("agent");
    let out = gg(&["init", target.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("gg test ."),
        "{}",
        text(&out.stdout)
    );
    let profile = std::fs::read_to_string(target.join("profile.json5")).unwrap();
    assert!(profile.contains("capabilities: ["), "{profile}");
    let test = Command::new(env!("CARGO_BIN_EXE_gg"))
        .args(["test", "."])
        .current_dir(&target)
        .output()
        .unwrap();
    assert!(
        test.status.success(),
        "{}{}",
        text(&test.stdout),
        text(&test.stderr)
    );
    assert_eq!(
        text(&test.stdout).lines().last(),
        Some("1 passed, 0 failed")
    );
    let run = Command::new(env!("CARGO_BIN_EXE_gg"))
        .args([
            "run",
            "hello.ts",
            "--profile",
            "profile.json5",
            "--workspace",
            "workspace",
        ])
        .current_dir(&target)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", text(&run.stdout));
    assert!(
        text(&run.stdout).contains("--- view: file notes.md"),
        "{}",
        text(&run.stdout)
    );
    // A second init into the same folder overwrites nothing.
    let again = gg(&["init", target.to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(2));
    assert!(
        text(&again.stderr).contains("already exist"),
        "{}",
        text(&again.stderr)
    );
}

#[test]
fn gg_tests_summary_is_its_last_line_even_with_failures() {
    let out = gg(&[
        "test",
        "fixtures/failing-sessions",
        "fixtures/sessions/demo.session.json5",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    let last = stdout.lines().last().unwrap();
    assert!(
        last.ends_with(" passed, 4 failed") && last.starts_with("1 passed"),
        "{stdout}"
    );
    assert!(stdout.contains("FAIL fixtures/failing-sessions/broken.session.json5"));
}

/// The first isolate of a fresh process parses the host's scripts where
/// later ones read them from bytecode: it shows functions as they do (the
/// in-process side is `function_text_is_the_programs_own_only`).
#[test]
fn the_first_isolate_of_a_process_shows_functions_as_later_ones_do() {
    let state = tempfile::tempdir().unwrap();
    let out = gg(&[
        "run",
        "fixtures/programs/web/function-text.ts",
        "--console-only",
        "--state",
        state.path().to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let shown: serde_json::Value = serde_json::from_str(text(&out.stdout).trim()).expect("JSON");
    assert_eq!(shown["mine"], true, "{shown}");
    assert_eq!(
        shown["consoleLog"], "function log() {\n    [native code]\n}",
        "{shown}"
    );
    assert_eq!(shown["textEncoder"], true, "{shown}");
    assert_eq!(shown["hostTextShown"], serde_json::json!([]), "{shown}");
}

/// The first character in `text` that a terminal would act on or that
/// reorders what a person reads: any C0 control but newline and tab (ESC,
/// BEL, a carriage return), DEL, a C1 control (U+009B is an 8-bit CSI), a
/// bidirectional embedding, override or isolate.
fn drives_a_terminal(text: &str) -> Option<(usize, char)> {
    text.char_indices().find(|&(_, c)| {
        (c.is_control() && c != '\n' && c != '\t')
            || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    })
}

/// Both streams of `out` are text a terminal shows as it is: valid UTF-8
/// (no lone 8-bit control byte) with nothing in [`drives_a_terminal`].
fn assert_shown_escaped(what: &str, out: &Output) {
    for (stream, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        let text = String::from_utf8(bytes.clone())
            .unwrap_or_else(|e| panic!("{what}: {stream} is not UTF-8: {e}"));
        if let Some((at, c)) = drives_a_terminal(&text) {
            let from = text[..at]
                .char_indices()
                .rev()
                .nth(60)
                .map_or(0, |(i, _)| i);
            panic!(
                "{what}: {stream} holds {c:?} raw, after {:?}",
                &text[from..at]
            );
        }
    }
}

/// The escaped forms of what `fixtures/programs/hostile/terminal_escapes.ts`
/// puts in each text: a window title, a carriage return, an 8-bit CSI, a
/// right-to-left override.
const ESCAPED: [&str; 4] = [
    r"\u{1b}]0;PWNED-TITLE\u{7}\u{1b}]52;c;Zm9yZ2Vk\u{7}\u{1b}]8;;https://evil.example\u{7}link",
    r"\u{1b}[2J\rOVERWRITTEN",
    r"\u{9b}31mC1-CSI",
    r"\u{202e}DESREVER\u{2066}ISOLATE\u{2069}\u{7f}",
];

/// Some line of `text` shows, after `prefix`, every one of [`ESCAPED`].
fn assert_shows_escaped(what: &str, text: &str, prefix: &str) {
    let shown = text
        .lines()
        .filter_map(|line| line.split_once(prefix).map(|(_, after)| after))
        .any(|after| ESCAPED.iter().all(|escaped| after.contains(escaped)));
    assert!(
        shown,
        "{what}: no line with {prefix:?} and {ESCAPED:?} in:\n{text}"
    );
}

#[test]
fn gg_run_and_gg_window_show_a_programs_escape_sequences_escaped() {
    let state = tempfile::tempdir().unwrap();
    let state = state.path().to_str().unwrap();
    let run = |program: &str, agent: &str, more: &[&str]| {
        let mut args = vec![
            "run",
            program,
            "--profile",
            "fixtures/profiles/pad-shared.json5",
            "--state",
            state,
            "--agent",
            agent,
        ];
        args.extend_from_slice(more);
        gg(&args)
    };
    let escapes = "fixtures/programs/hostile/terminal_escapes.ts";
    let throws = "fixtures/programs/hostile/terminal_escapes_throw.ts";

    // The acknowledgement and the next window: console lines, the value
    // (JSON, whose own escapes leave C1 and bidi controls as they are), a
    // view's label and body.
    let out = run(escapes, "a", &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_shown_escaped("gg run", &out);
    let stdout = text(&out.stdout);
    assert_shows_escaped("gg run", &stdout, "[log] console ");
    assert_shows_escaped("gg run", &stdout, "[error] console-error ");
    assert_shows_escaped("gg run", &stdout, "--- view: text label ");
    assert_shows_escaped("gg run", &stdout, "view body ");
    assert!(
        stdout.contains(r#"value: "value \u001b]0;PWNED-TITLE\u0007"#)
            && stdout.contains(r"\u{9b}31mC1-CSI\u{202e}DESREVER"),
        "{stdout}"
    );

    // As a script runner prints: console lines on stdout and stderr.
    let alone = tempfile::tempdir().unwrap();
    let out = gg(&[
        "run",
        escapes,
        "--profile",
        "fixtures/profiles/scratchpad-small.json5",
        "--state",
        alone.path().to_str().unwrap(),
        "--console-only",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_shown_escaped("gg run --console-only", &out);
    assert_shows_escaped("gg run --console-only", &text(&out.stdout), "console ");
    assert_shows_escaped(
        "gg run --console-only",
        &text(&out.stderr),
        "console-error ",
    );

    // A thrown error's message, in the acknowledgement and on stderr.
    let out = run(throws, "a", &[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert_shown_escaped("gg run (threw)", &out);
    assert!(
        text(&out.stdout).contains(
            r"error: Error: thrown \u{1b}]0;PWNED-TITLE\u{7}\u{1b}[2J\rOVERWRITTEN\u{9b}31mC1-CSI\u{202e}DESREVER"
        ),
        "{}",
        text(&out.stdout)
    );
    let out = run(throws, "c", &["--console-only"]);
    assert_shown_escaped("gg run --console-only (threw)", &out);
    assert!(
        text(&out.stderr).contains(r"error: Error: thrown \u{1b}]0;PWNED-TITLE"),
        "{}",
        text(&out.stderr)
    );

    // Another agent of the shared store has the memory pinned: its
    // description and body.
    let window = |json: bool| {
        let mut args = vec![
            "window",
            "--profile",
            "fixtures/profiles/pad-shared.json5",
            "--state",
            state,
            "--agent",
            "b",
        ];
        if json {
            args.push("--json");
        }
        gg(&args)
    };
    let out = window(false);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_shown_escaped("gg window", &out);
    assert_shows_escaped(
        "gg window",
        &text(&out.stdout),
        "### escapes — description ",
    );
    assert_shows_escaped("gg window", &text(&out.stdout), "memory body ");
    // JSON stays JSON, exact: the body as the program wrote it.
    let out = window(true);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert!(
        json.to_string()
            .contains("memory body \\u001b]0;PWNED-TITLE\\u0007"),
        "{json}"
    );
    assert!(text(&out.stdout).contains("\u{9b}31mC1-CSI\u{202e}DESREVER"));
}

#[test]
fn gg_session_run_and_gg_test_show_windows_and_diffs_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let repo = repo();
    std::fs::write(
        dir.path().join("hostile.session.json5"),
        format!(
            r#"{{
  run: {{ profiles: [{profile:?}] }},
  steps: [
    {{ start: {{ agent: "a", profile: "pad" }} }},
    {{ turn: {{ agent: "a", file: {program:?} }} }},
    {{ expect: {{ agent: "a", value: "plain" }} }},
    {{ expect: {{ agent: "a", window: {{ golden: "hostile.golden.txt" }} }} }},
    {{ start: {{ agent: "b", profile: "pad" }} }},
  ],
}}"#,
            profile = repo.join("fixtures/profiles/pad-shared.json5"),
            program = repo.join("fixtures/programs/hostile/terminal_escapes.ts"),
        ),
    )
    .unwrap();
    std::fs::write(dir.path().join("hostile.golden.txt"), "not the window\n").unwrap();
    let session = dir.path().join("hostile.session.json5");
    let session = session.to_str().unwrap();

    let out = gg(&["session", "run", session]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert_shown_escaped("gg session run", &out);
    let stdout = text(&out.stdout);
    // The window after the turn, agent b's pinned memory, the failures.
    assert_shows_escaped("gg session run", &stdout, "[log] console ");
    assert_shows_escaped("gg session run", &stdout, "view body ");
    assert_shows_escaped("gg session run", &stdout, "memory body ");
    // (The diff breaks lines at the carriage return too.)
    let diffed = format!("+view body {}", ESCAPED[0]);
    assert!(stdout.contains(&diffed), "{stdout}");
    assert!(
        stdout.contains(r"the last program's value is") && stdout.contains(r"\u{9b}31mC1-CSI"),
        "{stdout}"
    );

    // JSON lines stay JSON, exact.
    let out = gg(&["session", "run", session, "--json"]);
    let stdout = text(&out.stdout);
    for line in stdout.lines() {
        serde_json::from_str::<serde_json::Value>(line).expect("a JSON line");
    }
    assert!(stdout.contains("\u{202e}DESREVER"), "{stdout}");

    let out = gg(&["test", session]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert_shown_escaped("gg test", &out);
    let stdout = text(&out.stdout);
    assert!(stdout.contains(&diffed), "{stdout}");
    assert!(
        stdout.contains(&format!("+  [log] console {}", ESCAPED[0])),
        "{stdout}"
    );
    assert!(
        stdout.contains(r"\u{9b}31mC1-CSI\u{202e}DESREVER"),
        "{stdout}"
    );
    assert_eq!(
        stdout.lines().last(),
        Some("0 passed, 1 failed"),
        "{stdout}"
    );
}

#[test]
fn gg_transpile_quotes_a_programs_source_escaped_in_its_diagnostics() {
    let dir = tempfile::tempdir().unwrap();
    let hostile = "\x1b]0;PWNED-TITLE\x07\x1b[2J\rOVERWRITTEN\u{9b}31mC1-CSI\u{202e}DESREVER";
    let bad = dir.path().join("bad.ts");
    std::fs::write(&bad, format!("const s = \"{hostile}\" +;\n")).unwrap();
    let out = gg(&["transpile", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert_shown_escaped("gg transpile (diagnostics)", &out);
    // (The parser takes the carriage return for a line break.)
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(r#"1 | const s = "\u{1b}]0;PWNED-TITLE\u{7}\u{1b}[2J"#)
            && stderr.contains(r#"2 | OVERWRITTEN\u{9b}31mC1-CSI\u{202e}DESREVER" +;"#),
        "{stderr}"
    );
    // The same through standard input.
    let out = gg_with_stdin(&["transpile", "-"], &format!("let x = \"{hostile}\" +;"));
    assert_eq!(out.status.code(), Some(1));
    assert_shown_escaped("gg transpile - (diagnostics)", &out);
    // The JavaScript itself, piped to a file or a program, is exact.
    let good = dir.path().join("good.ts");
    std::fs::write(&good, format!("export const s: string = `{hostile}`;\n")).unwrap();
    let out = gg(&["transpile", good.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains(hostile), "{}", text(&out.stdout));
}

/// A program's stack frames, as `Error.prepareStackTrace` hands them over:
/// `getFileName() | getScriptNameOrSourceURL() | toString()`, one a line.
const SITES: &str = r#"(Error as any).prepareStackTrace = (_e: Error, sites: any[]) =>
  sites.map((s) => [s.getFileName(), s.getScriptNameOrSourceURL(), String(s)].join(" | ")).join("\n");
"#;

#[test]
fn stack_frames_name_programs_memories_and_hooks_never_a_host_path_or_specifier() {
    let dir = tempfile::Builder::new()
        .prefix("host-secret-")
        .tempdir()
        .unwrap();
    let state = dir.path().join("state");
    let state = state.to_str().unwrap();
    let folder = dir
        .path()
        .file_name()
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    let program = |name: &str, source: String| {
        let path = dir.path().join(name);
        std::fs::write(&path, source).unwrap();
        path.to_str().unwrap().to_string()
    };
    let run = |path: &str| {
        gg(&[
            "run",
            path,
            "--profile",
            "fixtures/profiles/scratchpad-small.json5",
            "--state",
            state,
        ])
    };
    let hook = format!(
        "{SITES}function hooked() {{ return new Error(\"h\").stack; }}\nconsole.log(\"hook frames: \" + hooked());"
    );
    let save = program(
        "save.ts",
        format!(
            "import {{ memories }} from \"gg\";\nmemories.writeMemory({{ name: \"rowTools\", description: \"d\", body: \"b\", code: {code:?}, onUse: {hook:?} }});\n",
            code = "export function pick(i: number): number {\n  if (i > 0) throw new Error(\"no row \" + i);\n  return i;\n}\n",
        ),
    );
    let out = run(&save);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let sites = program(
        "sites.ts",
        format!(
            "import {{ pick }} from \"rowTools\";\n{SITES}const seen: string[] = [];\ntry {{ pick(3); }} catch (e) {{ seen.push(String((e as Error).stack)); }}\n(Error as any).prepareStackTrace = undefined;\ntry {{ pick(4); }} catch (e) {{ seen.push(String((e as Error).stack)); }}\nexport default seen.join(\"\\n\");\n"
        ),
    );
    let out = run(&sites);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let value: String = serde_json::from_str(
        text(&out.stdout)
            .lines()
            .find_map(|l| l.strip_prefix("value: "))
            .expect("a value"),
    )
    .unwrap();
    assert_eq!(
        value,
        "rowTools.ts | rowTools.ts | pick (rowTools.ts:2:20)\n\
         sites.ts | sites.ts | sites.ts:5:7\n\
         Error: no row 4\n    at pick (rowTools.ts:2:20)\n    at sites.ts:7:7"
    );
    // The hook's frames, in the operator's log.
    let log = text(&out.stderr);
    assert!(
        log.contains(r"hook frames: onUse.ts | onUse.ts | hooked (onUse.ts:"),
        "{log}"
    );
    // An uncaught error names the program as its stack does.
    let throws = program("throws.ts", "\nthrow new Error(\"boom\");\n".into());
    let out = run(&throws);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stdout).contains("error: Error: boom\n    at throws.ts:2:7"),
        "{}",
        text(&out.stdout)
    );
    for (what, shown) in [("the value", value.as_str()), ("the log", log.as_str())] {
        for leak in [
            folder.as_str(),
            "/tmp",
            "file:",
            "gg:program",
            "gg:memory",
            "gg:onuse",
        ] {
            assert!(!shown.contains(leak), "{what} shows {leak:?}: {shown}");
        }
    }
}
