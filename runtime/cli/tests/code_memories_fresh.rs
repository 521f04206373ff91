//! The code-memory sessions in `fixtures/sessions/code-memories/`, which
//! `gg test` runs in one long-lived process, replayed turn by turn through
//! separate `gg run` processes on one state folder: every value and status
//! the session expects must be what a fresh process on the same state gives.
//! (The desk and subagent session is not replayed: `gg run` starts every
//! agent as its run's root and never finishes one.)

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// What one `gg run` of a turn gave.
struct Outcome {
    /// The program's `export default`, as JSON, if it had one.
    value: Option<Value>,
    /// The acknowledgement's headline status (`ok`, `threw`, …).
    status: String,
    /// Everything the process printed, for failure messages.
    printed: String,
}

/// Reads the acknowledgement `gg run` printed: `p3: ok`, then `value: …`
/// up to the next part (console, error, note) or the blank line before
/// the window.
fn outcome(stdout: &str) -> Outcome {
    let mut lines = stdout.lines();
    let headline = lines.next().unwrap_or_default();
    let status = headline
        .split_once(": ")
        .map(|(_, rest)| rest.split_whitespace().next().unwrap_or_default())
        .unwrap_or_default()
        .to_string();
    let mut value_text: Option<String> = None;
    for line in lines {
        if line.is_empty()
            || line.starts_with("console:")
            || line.starts_with("error: ")
            || line.starts_with("note: ")
        {
            break;
        }
        match (&mut value_text, line.strip_prefix("value: ")) {
            (None, Some(first)) => value_text = Some(first.to_string()),
            (Some(text), _) => {
                text.push('\n');
                text.push_str(line);
            }
            (None, None) => {}
        }
    }
    Outcome {
        value: value_text.map(|t| {
            serde_json::from_str(&t).unwrap_or_else(|e| panic!("value {t:?} is not JSON: {e}"))
        }),
        status,
        printed: stdout.to_string(),
    }
}

/// The profile files a session names, by profile id: files as they are,
/// inline profiles written out under `scratch`.
fn profile_files(session: &Value, dir: &Path, scratch: &Path) -> HashMap<String, PathBuf> {
    let mut files = HashMap::new();
    for (n, entry) in session["run"]["profiles"]
        .as_array()
        .expect("run.profiles")
        .iter()
        .enumerate()
    {
        let (path, profile) = match entry {
            Value::String(relative) => {
                let path = dir.join(relative);
                let text = std::fs::read_to_string(&path).unwrap();
                (path, json5::from_str::<Value>(&text).unwrap())
            }
            inline => {
                let path = scratch.join(format!("profile{n}.json"));
                std::fs::write(&path, inline.to_string()).unwrap();
                (path, inline.clone())
            }
        };
        let id = profile["id"].as_str().expect("profile id").to_string();
        files.insert(id, path);
    }
    files
}

/// Replays `session` through one `gg run` process per turn and checks each
/// `value` and `status` expectation against the process's acknowledgement.
fn replay(session_path: &Path) {
    let text = std::fs::read_to_string(session_path).unwrap();
    let session: Value = json5::from_str(&text).unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let state = scratch.path().join("state");
    let profiles = profile_files(&session, session_path.parent().unwrap(), scratch.path());
    let mut agent_profile: HashMap<String, PathBuf> = HashMap::new();
    let mut last: HashMap<String, Outcome> = HashMap::new();
    let name = session_path.file_name().unwrap().to_string_lossy();
    for (n, step) in session["steps"].as_array().unwrap().iter().enumerate() {
        if let Some(start) = step.get("start") {
            let agent = start["agent"].as_str().unwrap().to_string();
            let profile = start["profile"].as_str().unwrap();
            assert!(
                start.get("as").is_none(),
                "{name}: step {n} starts a non-root agent, which gg run cannot"
            );
            agent_profile.insert(agent, profiles[profile].clone());
        } else if let Some(turn) = step.get("turn") {
            let agent = turn["agent"].as_str().unwrap();
            let program = turn["program"].as_str().expect("an inline program");
            let file = scratch.path().join(format!("step{n}.ts"));
            std::fs::write(&file, program).unwrap();
            let out = Command::new(env!("CARGO_BIN_EXE_gg"))
                .arg("run")
                .arg(&file)
                .arg("--profile")
                .arg(&agent_profile[agent])
                .arg("--state")
                .arg(&state)
                .arg("--agent")
                .arg(agent)
                .current_dir(repo())
                .output()
                .expect("run gg");
            let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
            assert!(
                matches!(out.status.code(), Some(0 | 1)),
                "{name}: step {n}: gg run failed to run: {stdout}{}",
                String::from_utf8_lossy(&out.stderr)
            );
            last.insert(agent.to_string(), outcome(&stdout));
        } else if let Some(expect) = step.get("expect") {
            let agent = expect["agent"].as_str().unwrap();
            let Some(got) = last.get(agent) else { continue };
            if let Some(value) = expect.get("value") {
                assert_eq!(
                    got.value.as_ref(),
                    Some(value),
                    "{name}: step {n}: a fresh process gave another value:\n{}",
                    got.printed
                );
            }
            if let Some(status) = expect.get("status").and_then(Value::as_str) {
                assert_eq!(
                    got.status, status,
                    "{name}: step {n}: a fresh process gave another status:\n{}",
                    got.printed
                );
            }
        } else {
            panic!("{name}: step {n} is one gg run cannot replay: {step}");
        }
    }
}

fn session(name: &str) -> PathBuf {
    repo()
        .join("fixtures/sessions/code-memories")
        .join(format!("{name}.session.json5"))
}

#[test]
fn a_dependent_sees_the_revision_in_a_fresh_process_too() {
    replay(&session("dependents"));
}

#[test]
fn one_specifier_is_one_module_in_a_fresh_process_too() {
    replay(&session("one-specifier"));
}

#[test]
fn other_holders_changes_reach_a_fresh_process_too() {
    replay(&session("other-holders"));
}

#[test]
fn keys_and_documentation_are_the_same_in_a_fresh_process() {
    replay(&session("keys-and-docs"));
}
