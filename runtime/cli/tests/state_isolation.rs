//! No agent reads another's through the workspace. In the layout `gg run`
//! gives by default (the state folder `.gg-state` inside the current
//! folder, which is the workspace) two isolated agents share one state
//! folder: Bob's program tries every route to Alice's event stream, memory
//! store and modules file (directly, through a relative and an absolute
//! symlink, through `..`, through hard links) under `gg run`, `gg session
//! run` and `gg mcp` (in a confined worker and in-process), and reaches
//! none of them, while his own workspace files still open. Layouts in
//! which a workspace would be the state (or a tool server would be handed
//! it) are refused at launch, saying what to change.

use std::path::Path;
use std::process::{Command, Output, Stdio};

/// Alice's memory body: it must show in nothing Bob is given.
const SECRET: &str = "ALICE-SECRET-7Q";

const PROFILE: &str = r#"{
  id: "isolated",
  mode: "code",
  capabilities: [
    { id: "memories", enabled: true, implementation: "markdown",
      params: { scope: "isolated", maxCount: 8, maxLenPerMemory: 2000, maxTotalLen: 8000,
                maxLenIndex: 2000, maxLenDescription: 200, maxResults: 5 } },
  ],
}"#;

const WRITE: &str = r#"import { memories } from "gg";
memories.createMemory({ name: "vault", description: "the code", body: "ALICE-" + "SECRET-7Q" });
export default "kept";
"#;

/// Every route by path to Alice's files the project folder offers (see
/// `layout`).
const ROUTES: [&str; 8] = [
    ".gg-state/events/alice.jsonl",
    ".gg-state/agents/alice/modules/memories",
    ".gg-state/memories/agent.alice.sqlite",
    "./.gg-state/../.gg-state/events/alice.jsonl",
    "notes/../.gg-state/events/alice.jsonl",
    "state-link/events/alice.jsonl",
    "notes/absolute-link/alice.jsonl",
    "notes/file-link",
];

/// Other names of Alice's stream and modules file (see `add_hard_links`):
/// tried apart from the routes by path, which would otherwise meet the
/// files' extra names first.
const HARD_LINKS: [&str; 2] = ["stream-copy.jsonl", "notes/modules-copy.json"];

/// Bob's program: tries every one of `routes`, then opens his own note.
/// Its value sorts what happened; a route that opened would also put
/// Alice's text in his next window.
fn peek_program(routes: &[&str]) -> String {
    let routes = serde_json::to_string(routes).unwrap();
    format!(
        r#"import {{ views }} from "gg";
const refused = [], opened = [], other = [];
for (const path of {routes}) {{
  try {{ views.openFile(path); opened.push(path); }}
  catch (e) {{ (e.message.includes("is in gg's state folder") ? refused : other).push(path + ": " + e.message); }}
}}
views.openFile("notes/todo.txt");
export default {{ refused: refused.length, opened, other }};
"#
    )
}

/// The value Bob's program must give for `routes`.
fn all_refused(routes: &[&str]) -> serde_json::Value {
    serde_json::json!({ "refused": routes.len(), "opened": [], "other": [] })
}

fn gg(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gg"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("run gg")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A project folder with the profile, Bob's program and a note of his own,
/// in which Alice has run one turn with `gg run`'s defaults (so her state
/// is in `.gg-state`), and the symlinks a hostile layout might hold: a
/// relative one to the state folder, an absolute one to its streams, one
/// to her stream.
fn layout() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path();
    std::fs::write(project.join("isolated.json5"), PROFILE).unwrap();
    std::fs::write(project.join("write.ts"), WRITE).unwrap();
    std::fs::write(project.join("peek.ts"), peek_program(&ROUTES)).unwrap();
    std::fs::write(project.join("peek-links.ts"), peek_program(&HARD_LINKS)).unwrap();
    std::fs::create_dir_all(project.join("notes")).unwrap();
    std::fs::write(project.join("notes/todo.txt"), "water the plants\n").unwrap();
    let out = gg(
        &[
            "run",
            "write.ts",
            "--profile",
            "isolated.json5",
            "--agent",
            "alice",
        ],
        project,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let state = project.join(".gg-state");
    let stream = std::fs::read_to_string(state.join("events/alice.jsonl")).unwrap();
    assert!(stream.contains(SECRET), "the stream holds the secret");
    assert!(
        state.join(".gg-state-folder").is_file(),
        "the state folder is marked"
    );
    std::os::unix::fs::symlink(".gg-state", project.join("state-link")).unwrap();
    std::os::unix::fs::symlink(state.join("events"), project.join("notes/absolute-link")).unwrap();
    std::os::unix::fs::symlink(
        "../.gg-state/events/alice.jsonl",
        project.join("notes/file-link"),
    )
    .unwrap();
    dir
}

/// Hard links, in the workspace, to Alice's stream and modules file (both
/// text, so nothing but the check stands between them and a view).
fn add_hard_links(project: &Path) {
    let state = project.join(".gg-state");
    std::fs::hard_link(
        state.join("events/alice.jsonl"),
        project.join(HARD_LINKS[0]),
    )
    .unwrap();
    std::fs::hard_link(
        state.join("agents/alice/modules/memories"),
        project.join(HARD_LINKS[1]),
    )
    .unwrap();
}

/// The value line `gg run` printed (`value: …`), as JSON.
fn printed_value(stdout: &str) -> serde_json::Value {
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix("value: "))
        .unwrap_or_else(|| panic!("no value in {stdout}"));
    serde_json::from_str(line).unwrap_or_else(|_| panic!("{line}"))
}

#[test]
fn under_gg_run_bob_reaches_nothing_of_alice_by_any_route() {
    let dir = layout();
    let out = gg(
        &[
            "run",
            "peek.ts",
            "--profile",
            "isolated.json5",
            "--agent",
            "bob",
        ],
        dir.path(),
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert_eq!(printed_value(&stdout), all_refused(&ROUTES), "{stdout}");
    assert!(!stdout.contains(SECRET), "{stdout}");
    // His own note is in his next window.
    assert!(stdout.contains("water the plants"), "{stdout}");
    add_hard_links(dir.path());
    let out = gg(
        &[
            "run",
            "peek-links.ts",
            "--profile",
            "isolated.json5",
            "--agent",
            "bob",
        ],
        dir.path(),
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert_eq!(printed_value(&stdout), all_refused(&HARD_LINKS), "{stdout}");
    assert!(!stdout.contains(SECRET), "{stdout}");
    // Nor does a second turn's window, after a restart, show anything.
    let window = gg(&["window", "--agent", "bob"], dir.path());
    assert!(!text(&window.stdout).contains(SECRET));
}

#[test]
fn under_gg_session_run_bob_reaches_nothing_of_alice_by_any_route() {
    let dir = layout();
    let session = serde_json::json!({
        "run": { "profiles": ["isolated.json5"] },
        "workspace": ".",
        "steps": [
            { "start": { "agent": "bob", "profile": "isolated" } },
            { "turn": { "agent": "bob", "file": "peek.ts" } },
            { "expect": { "agent": "bob", "status": "ok", "value": all_refused(&ROUTES) } },
            { "turn": { "agent": "bob", "program": "export default 1;" } },
            { "expect": { "agent": "bob", "window": { "contains": "water the plants", "notContains": SECRET } } },
        ],
    });
    std::fs::write(
        dir.path().join("peek.session.json5"),
        serde_json::to_string_pretty(&session).unwrap(),
    )
    .unwrap();
    // The run's state folder is the project's, inside the workspace.
    let out = gg(
        &[
            "session",
            "run",
            "peek.session.json5",
            "--state",
            ".gg-state",
        ],
        dir.path(),
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert!(!stdout.contains(SECRET), "{stdout}");
}

/// One `run_program` call to `gg mcp` over stdio as agent `agent`; the
/// result's text.
fn mcp_run_program(extra: &[&str], cwd: &Path, agent: &str, program: &str) -> String {
    use std::io::{BufRead, BufReader, Write};
    let mut server = Command::new(env!("CARGO_BIN_EXE_gg"))
        .args(["mcp", "--profile", "isolated.json5", "--agent", agent])
        .args(extra)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = server.stdin.take().unwrap();
    let call = serde_json::json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": { "name": "run_program", "arguments": { "program": program } }
    });
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"2025-06-18","capabilities":{{}},"clientInfo":{{"name":"raw","version":"0"}}}}}}"#
    )
    .unwrap();
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
    )
    .unwrap();
    writeln!(stdin, "{call}").unwrap();
    stdin.flush().unwrap();
    let mut reader = BufReader::new(server.stdout.take().unwrap());
    let mut answer = None;
    let mut line = String::new();
    while reader.read_line(&mut line).unwrap() > 0 {
        let reply: serde_json::Value = serde_json::from_str(&line).unwrap();
        line.clear();
        if reply["id"] == 1 {
            answer = Some(reply);
            break;
        }
    }
    drop(stdin);
    let out = server.wait_with_output().unwrap();
    let reply = answer.unwrap_or_else(|| panic!("no reply; stderr: {}", text(&out.stderr)));
    reply["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{reply}"))
        .to_string()
}

#[test]
fn under_gg_mcp_bob_reaches_nothing_of_alice_in_a_worker_or_in_process() {
    let dir = layout();
    let modes = [(&[][..], "bob"), (&["--in-process"][..], "carol")];
    let check = |routes: &[&str]| {
        for (extra, agent) in modes {
            let reply = mcp_run_program(extra, dir.path(), agent, &peek_program(routes));
            assert!(!reply.contains(SECRET), "{extra:?}: {reply}");
            let value = reply
                .lines()
                .find_map(|l| l.strip_prefix("value: "))
                .unwrap_or_else(|| panic!("{extra:?}: {reply}"));
            assert_eq!(
                serde_json::from_str::<serde_json::Value>(value).unwrap(),
                all_refused(routes),
                "{extra:?}: {reply}"
            );
            assert!(reply.contains("water the plants"), "{extra:?}: {reply}");
        }
    };
    check(&ROUTES);
    // The worker lists the state folder to check a file with two names.
    add_hard_links(dir.path());
    check(&HARD_LINKS);
}

#[test]
fn a_workspace_in_the_state_folder_is_refused_at_launch_in_every_command() {
    let dir = layout();
    let project = dir.path();
    let says = |out: &Output, what: &str| {
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{what}: {stderr}");
        assert!(
            stderr.contains("state folder")
                && (stderr.contains("is inside the state folder")
                    || stderr.contains("is the state folder"))
                && stderr.contains("--workspace DIR"),
            "{what}: {stderr}"
        );
    };
    for workspace in [".gg-state", ".gg-state/events", "state-link/agents"] {
        let out = gg(
            &[
                "run",
                "peek.ts",
                "--profile",
                "isolated.json5",
                "--agent",
                "bob",
                "--workspace",
                workspace,
            ],
            project,
        );
        says(&out, workspace);
    }
    // The state folder given as the workspace, by another name.
    let out = gg(
        &[
            "run",
            "peek.ts",
            "--state",
            "elsewhere",
            "--workspace",
            "elsewhere",
        ],
        project,
    );
    says(&out, "--state elsewhere --workspace elsewhere");
    let out = Command::new(env!("CARGO_BIN_EXE_gg"))
        .args([
            "mcp",
            "--profile",
            "isolated.json5",
            "--workspace",
            ".gg-state/agents",
        ])
        .current_dir(project)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    says(&out, "gg mcp");
    // A session whose workspace is its run's state folder.
    std::fs::write(
        project.join("inside.session.json5"),
        r#"{ run: { profiles: ["isolated.json5"] }, workspace: ".gg-state",
             steps: [ { start: { agent: "bob", profile: "isolated" } } ] }"#,
    )
    .unwrap();
    let out = gg(
        &[
            "session",
            "run",
            "inside.session.json5",
            "--state",
            ".gg-state",
        ],
        project,
    );
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(!out.status.success(), "{all}");
    assert!(all.contains("is the state folder"), "{all}");
}

#[test]
fn a_tool_server_handed_a_folder_holding_the_state_is_refused_at_launch() {
    let dir = layout();
    let project = dir.path();
    std::fs::write(
        project.join("files.json5"),
        r#"{ id: "files", mode: "code", capabilities: [
             { id: "tools", params: { servers: [
               { name: "files", command: "node", args: ["server.js", "."], allow: ["*"] } ] } } ] }"#,
    )
    .unwrap();
    let out = gg(&["run", "peek.ts", "--profile", "files.json5"], project);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(
            "the server \"files\" is given \".\" (args[1]), which holds the state folder"
        ) && stderr.contains("--state DIR"),
        "{stderr}"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_gg"))
        .args(["mcp", "--profile", "files.json5"])
        .current_dir(project)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("which holds the state folder"),
        "{}",
        text(&out.stderr)
    );
    // With the state kept elsewhere the same profile passes the check (and
    // then fails only because there is no server.js to start).
    let elsewhere = tempfile::tempdir().unwrap();
    let out = gg(
        &[
            "run",
            "peek.ts",
            "--profile",
            "files.json5",
            "--state",
            elsewhere.path().to_str().unwrap(),
        ],
        project,
    );
    let stderr = text(&out.stderr);
    assert!(!stderr.contains("holds the state folder"), "{stderr}");
}
