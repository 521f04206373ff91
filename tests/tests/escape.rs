//! Escape attempts: each link of a known chain out of the sandbox, and the
//! class around it, must stay closed. Every program here runs while a canary
//! variable sits in the host's environment and a canary file sits just
//! outside the agent's workspace; no program's output may ever show either.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use gg_module::{Profile, RunStatus};
use gg_runtime::{Agent, AgentOptions, TurnOutcome};
use gg_tests::{ack, run, run_fixture, test_store};

const CANARY_VARIABLE: &str = "GG_ESCAPE_CANARY";
const CANARY_VALUE: &str = "canary-7c0ffee-in-the-environment";
const CANARY_TEXT: &str = "canary-b16b00b5-in-a-file-outside";

/// A workspace with the canary file beside it (outside the root), and the
/// canary variable set in this process's environment.
struct Fixture {
    _dir: tempfile::TempDir,
    workspace: PathBuf,
    outside: PathBuf,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        // Set once, before any agent runs a program in this process.
        std::env::set_var(CANARY_VARIABLE, CANARY_VALUE);
        let dir = tempfile::tempdir().unwrap();
        let workspace = dir.path().join("workspace");
        std::fs::create_dir_all(workspace.join("notes")).unwrap();
        std::fs::write(workspace.join("notes/a.md"), "inside\n").unwrap();
        let outside = dir.path().join("outside.txt");
        std::fs::write(&outside, format!("{CANARY_TEXT}\n")).unwrap();
        std::os::unix::fs::symlink(&outside, workspace.join("to_outside")).unwrap();
        std::os::unix::fs::symlink(
            dir.path().join("nothing-here"),
            workspace.join("to_missing"),
        )
        .unwrap();
        std::os::unix::fs::symlink("/proc/self/environ", workspace.join("environ")).unwrap();
        Fixture {
            workspace,
            outside,
            _dir: dir,
        }
    })
}

fn agent() -> Agent {
    let fixture = fixture();
    let mut profile = Profile::default();
    profile.programs.time_ms = 1_000;
    profile.programs.heap_mib = 128;
    Agent::new(
        AgentOptions::new(profile)
            .workspace(fixture.workspace.clone())
            .database_url(test_store()),
    )
    .expect("agent")
}

/// Everything the model would read of a turn, and the canary check on it.
fn seen(agent: &Agent, outcome: &TurnOutcome) -> String {
    let text = format!("{outcome:?}\n{}", agent.render_window());
    assert!(
        !text.contains(CANARY_VALUE) && !text.contains(CANARY_TEXT),
        "a program read a canary: {text}"
    );
    text
}

fn value(outcome: &TurnOutcome) -> serde_json::Value {
    let raw = ack(outcome)
        .value
        .as_deref()
        .unwrap_or_else(|| panic!("no value: {:?}", ack(outcome)));
    serde_json::from_str(raw).unwrap_or_else(|e| panic!("{raw}: {e}"))
}

fn escape(name: &str) -> (Agent, TurnOutcome) {
    let mut a = agent();
    let out = run_fixture(&mut a, &format!("escape/{name}"));
    seen(&a, &out);
    (a, out)
}

/// The value of an escape fixture that must run to the end: a walk cut
/// short would report no findings.
fn escape_ok_value(name: &str) -> serde_json::Value {
    let (_, out) = escape(name);
    assert_eq!(ack(&out).status, RunStatus::Ok, "{:?}", ack(&out));
    value(&out)
}

#[test]
fn nothing_reachable_from_the_program_carries_ops_or_engine_glue() {
    gg_tests::alone(
        module_path!(),
        "nothing_reachable_from_the_program_carries_ops_or_engine_glue",
        || {
            let v = escape_ok_value("reachability.ts");
            assert_eq!(v["walked"], true, "the walk saw the global graph: {v}");
            assert_eq!(v["findings"], serde_json::json!([]), "{v}");
        },
    );
}

#[test]
fn call_sites_hand_out_no_receiver_and_no_function() {
    gg_tests::alone(
        module_path!(),
        "call_sites_hand_out_no_receiver_and_no_function",
        || {
            let v = escape_ok_value("callsite_receivers.ts");
            assert_eq!(v["frames"], true, "{v}");
            assert_eq!(
                v["kinds"],
                serde_json::json!(["undefined/undefined"]),
                "{v}"
            );
            assert_eq!(v["reached"], 0, "{v}");
        },
    );
}

#[test]
fn a_shared_array_buffer_is_never_serialized() {
    gg_tests::alone(
        module_path!(),
        "a_shared_array_buffer_is_never_serialized",
        || {
            let (_, out) = escape("shared_memory_clone.ts");
            assert_eq!(
                value(&out),
                serde_json::json!(["DataCloneError", "DataCloneError"]),
                "{:?}",
                ack(&out)
            );
        },
    );
}

#[test]
fn local_time_is_utc_whatever_the_host_says() {
    gg_tests::alone(
        module_path!(),
        "local_time_is_utc_whatever_the_host_says",
        || {
            // The host process's zone is set, so a leak would show.
            let (_, out) = escape("local_time.ts");
            assert_eq!(
                value(&out),
                serde_json::json!([
                    0,
                    "Thu Jan 15 2026 12:30:00 GMT+0000 (Coordinated Universal Time)",
                    12,
                    "12:30:00 GMT+0000 (Coordinated Universal Time)"
                ]),
                "{:?}",
                ack(&out)
            );
        },
    );
}

#[test]
fn atomics_wait_refuses_instead_of_blocking() {
    gg_tests::alone(
        module_path!(),
        "atomics_wait_refuses_instead_of_blocking",
        || {
            let started = Instant::now();
            let (mut a, out) = escape("atomics_wait.ts");
            assert_eq!(
                value(&out),
                serde_json::json!("TypeError"),
                "{:?}",
                ack(&out)
            );
            assert!(started.elapsed() < Duration::from_secs(5));
            let next = run(&mut a, "export default 42;");
            assert_eq!(ack(&next).value.as_deref(), Some("42"));
        },
    );
}

/// The answer `views.openFile` gives for `path`, as the model reads it.
fn open_file_answer(a: &mut Agent, path: &str) -> String {
    let path = serde_json::to_string(path).unwrap();
    let source = format!(
        r#"import {{ views }} from "gg";
let answer: string;
try {{ views.openFile({path}); answer = "opened"; }}
catch (e: any) {{ answer = `${{e.code}}: ${{String(e.message).replaceAll({path}, "P")}}`; }}
export default answer;"#
    );
    let out = run(a, &source);
    seen(a, &out);
    let text = value(&out).as_str().unwrap_or_default().to_string();
    assert!(!text.is_empty(), "{:?}", ack(&out));
    text
}

#[test]
fn open_file_says_the_same_for_every_path_outside() {
    gg_tests::alone(
        module_path!(),
        "open_file_says_the_same_for_every_path_outside",
        || {
            let mut a = agent();
            let answers: Vec<String> = ["to_outside", "to_missing", "environ"]
                .iter()
                .map(|p| open_file_answer(&mut a, p))
                .collect();
            assert!(answers.iter().all(|x| x == &answers[0]), "{answers:?}");
            assert!(answers[0].starts_with("invalid-argument"), "{answers:?}");
            assert!(fixture().outside.exists());
            assert_eq!(open_file_answer(&mut a, "notes/a.md"), "opened");
        },
    );
}

#[test]
fn a_fifo_in_the_workspace_is_refused_before_it_blocks() {
    gg_tests::alone(
        module_path!(),
        "a_fifo_in_the_workspace_is_refused_before_it_blocks",
        || {
            let fifo = fixture().workspace.join("pipe");
            if !fifo.exists() {
                let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
                // SAFETY: a valid NUL-terminated path.
                assert_eq!(unsafe { mkfifo(c.as_ptr(), 0o600) }, 0);
            }
            let mut a = agent();
            let started = Instant::now();
            let answer = open_file_answer(&mut a, "pipe");
            assert!(answer.contains("not a regular file"), "{answer}");
            assert!(
                started.elapsed() < Duration::from_secs(2),
                "{:?}",
                started.elapsed()
            );
        },
    );
}

extern "C" {
    fn mkfifo(path: *const std::ffi::c_char, mode: u32) -> i32;
}

#[test]
fn the_canaries_are_where_the_tests_put_them() {
    gg_tests::alone(
        module_path!(),
        "the_canaries_are_where_the_tests_put_them",
        || {
            // The canary checks above mean something only if the canaries are there.
            let fixture = fixture();
            assert_eq!(std::env::var(CANARY_VARIABLE).as_deref(), Ok(CANARY_VALUE));
            assert!(std::fs::read_to_string(&fixture.outside)
                .unwrap()
                .contains(CANARY_TEXT));
            assert!(Path::new(&fixture.workspace)
                .join("to_outside")
                .is_symlink());
        },
    );
}

#[test]
fn an_import_the_engine_scan_misreads_is_refused_by_the_loader() {
    gg_tests::alone(
        module_path!(),
        "an_import_the_engine_scan_misreads_is_refused_by_the_loader",
        || {
            let (mut a, out) = escape("import_hidden_from_the_scan.ts");
            assert_eq!(ack(&out).status, RunStatus::Threw, "{:?}", ack(&out));
            let error = gg_tests::error_text(&out);
            assert!(error.contains("Cannot import \"ext:core/ops\""), "{error}");
            let next = run(&mut a, "export default 1 + 2;");
            assert_eq!(ack(&next).value.as_deref(), Some("3"), "{:?}", ack(&next));
        },
    );
}

#[test]
fn the_engines_source_rewrites_leave_a_programs_data_alone() {
    gg_tests::alone(
        module_path!(),
        "the_engines_source_rewrites_leave_a_programs_data_alone",
        || {
            let v = escape_ok_value("rewrite_words_in_data.ts");
            assert_eq!(
                v["words"],
                serde_json::json!([
                    "%OptimizeFunctionOnNextCall(f)",
                    "%PrepareFunctionForOptimization(f)",
                    "import.defer(\"gg\")",
                    "ximport.source(1)y",
                    "import.defer(x)",
                    "%NeverOptimizeFunction(f)",
                    "\nimport defer * as ns from \"gg\";\nimport source wasm from \"gg\";\n",
                ]),
                "{v}"
            );
            assert_eq!(v["reads"], 0, "no native call read the global: {v}");
            assert_eq!(v["f"], 1, "{v}");
        },
    );
}
