//! `gg mcp` driven by a client nobody here wrote: the official Python MCP
//! SDK, installed from PyPI into a virtualenv under the target folder by
//! this test's own setup.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The pinned client version the checks are written against.
const MCP_SDK: &str = "mcp==2.3.0";

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// A server process, killed and reaped however the test ends.
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A Python with the MCP SDK: `target/tmp/mcp-venv`, created once.
fn python() -> &'static Path {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(|| {
        let venv = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("mcp-venv");
        let python = venv.join("bin/python");
        let ready = Command::new(&python)
            .args(["-c", "import mcp"])
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false);
        if !ready {
            let made = Command::new("python3")
                .args(["-m", "venv"])
                .arg(&venv)
                .status()
                .expect("python3 -m venv");
            assert!(made.success(), "creating the virtualenv failed");
            let pip = Command::new(venv.join("bin/pip"))
                .args(["install", "--quiet", "--disable-pip-version-check", MCP_SDK])
                .output()
                .expect("pip");
            assert!(
                pip.status.success(),
                "installing {MCP_SDK} failed: {}",
                String::from_utf8_lossy(&pip.stderr)
            );
        }
        python
    })
}

/// Runs a client process, killing it if it takes longer than `secs`.
fn bounded(command: &mut Command, secs: u64) -> std::process::Output {
    let child = command
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run the MCP client");
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(std::time::Duration::from_secs(secs)) {
        Ok(out) => out.expect("the MCP client ran"),
        Err(_) => {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
            panic!("the MCP client did not finish within {secs} s");
        }
    }
}

fn client(script: &str, args: &[&str]) -> serde_json::Value {
    let out = bounded(
        Command::new(python())
            .arg(repo().join("tests/mcp").join(script))
            .arg(env!("CARGO_BIN_EXE_gg"))
            .args(args)
            .current_dir(repo()),
        120,
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the client failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(stdout.lines().last().unwrap_or(""))
        .unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

fn workspace() -> String {
    repo()
        .join("fixtures/workspace")
        .to_string_lossy()
        .into_owned()
}

#[test]
fn console_lines_arrive_as_log_messages_at_the_level_the_client_set() {
    let state = tempfile::tempdir().unwrap();
    let out = client(
        "logging_client.py",
        &[state.path().to_str().unwrap(), &workspace()],
    );
    assert_eq!(out["logging_capability"], true, "{out}");
    assert_eq!(out["before_set_level"], serde_json::json!([]), "{out}");
    let line = |level: &str, data: &str| serde_json::json!({ "level": level, "logger": "gg.console", "data": data });
    assert_eq!(
        out["at_info"],
        serde_json::json!([
            line("info", "hello"),
            line("warning", "careful"),
            line("error", "bad")
        ]),
        "debug is below info; the rest arrive in order: {out}"
    );
    assert_eq!(out["result_has_console"], true, "{out}");
    assert_eq!(
        out["slow_lines"],
        serde_json::json!(["started", "ending"]),
        "{out}"
    );
    // The program works 1.5 s between its two lines: the first is heard
    // while it works, not with the result.
    let lead = out["first_line_lead_ms"].as_u64().unwrap();
    assert!(
        lead >= 1000,
        "the first line came {lead} ms before the result: {out}"
    );
}

#[test]
fn code_mode_over_stdio() {
    let state = tempfile::tempdir().unwrap();
    let out = client(
        "client.py",
        &[state.path().to_str().unwrap(), &workspace(), "code", "a1"],
    );
    assert_eq!(out["tools"], serde_json::json!(["run_program"]));
    assert_eq!(
        out["description_has_dts"], true,
        "run_program's description carries the gg declarations"
    );
    assert_eq!(out["create"]["error"], false);
    assert!(
        out["create"]["text"]
            .as_str()
            .unwrap()
            .starts_with("p1: ok"),
        "{out}"
    );
    let read = out["read"]["text"].as_str().unwrap();
    assert!(
        read.contains("value: \"CSV helpers\"")
            && read.contains("--- view: documentation csvTools.parseCsv ---"),
        "views arrive in the result: {read}"
    );
    assert!(
        out["import"]["text"]
            .as_str()
            .unwrap()
            .contains(r#"value: ["a","b","c"]"#),
        "a program imports the code memory: {out}"
    );
    assert_eq!(
        out["refusal"]["error"], true,
        "a refusal is an isError result"
    );
    assert!(out["refusal"]["text"]
        .as_str()
        .unwrap()
        .contains("GgError: the name \"bad name!\""));
    assert!(
        out["unknown"]
            .as_str()
            .unwrap()
            .contains("unknown tool \"no_such_tool\""),
        "{out}"
    );
    assert!(
        out["oversized"]
            .as_str()
            .unwrap()
            .contains("over the 262144-byte limit"),
        "{out}"
    );
    assert_schema_errors(&out);
    assert_eq!(out["still_serving"], true);
    assert_eq!(
        out["resources"],
        serde_json::json!([
            "gg://agent/pinned",
            "gg://agent/system-prompt",
            "gg://agent/window"
        ])
    );
    assert_eq!(out["system_prompt_has_memories"], true);
}

#[test]
fn tool_calling_mode_over_stdio() {
    let state = tempfile::tempdir().unwrap();
    let profile = repo().join("fixtures/profiles/keyword-search-tools.json5");
    let out = client(
        "client.py",
        &[
            state.path().to_str().unwrap(),
            &workspace(),
            "tools",
            "t1",
            profile.to_str().unwrap(),
        ],
    );
    assert_eq!(
        out["tools"],
        serde_json::json!([
            "create_memory",
            "read_memory",
            "edit_memory",
            "delete_memory",
            "search_memories"
        ])
    );
    assert_eq!(out["create"]["text"], "created `deploy` (revision 1).");
    assert_eq!(out["edit"]["text"], "edited `deploy` (revision 2).");
    assert!(
        out["search"]["text"]
            .as_str()
            .unwrap()
            .starts_with("- `deploy` — How deploys work (2 of the keywords"),
        "{out}"
    );
    assert_eq!(out["refusal"]["error"], true);
    assert!(out["refusal"]["text"]
        .as_str()
        .unwrap()
        .starts_with("invalid-argument: create_memory: a memory named \"deploy\" already exists"));
    assert!(
        out["unknown"].as_str().unwrap().contains("unknown tool"),
        "{out}"
    );
    assert_schema_errors(&out);
    assert_eq!(out["still_serving"], true);
}

/// A missing required argument and an undeclared one are invalid-params
/// protocol errors naming the property, in either mode.
fn assert_schema_errors(out: &serde_json::Value) {
    let missing = out["missing"].as_str().unwrap();
    assert!(missing.contains("lack the required property"), "{missing}");
    let undeclared = out["undeclared"].as_str().unwrap();
    assert!(
        undeclared.contains("undeclared property `extra`"),
        "{undeclared}"
    );
}

#[test]
fn a_second_session_sharing_the_store_sees_memories_and_notices() {
    let state = tempfile::tempdir().unwrap();
    let out = client("shared.py", &[state.path().to_str().unwrap(), &workspace()]);
    let bob = out["bob"].as_str().unwrap();
    assert!(bob.contains("value: \"drain, roll, verify\""), "{bob}");
    assert!(bob.contains("Another agent sharing your memories has made changes since your last turn:\n\n- added `deploy-runbook` — how the staging cluster is rolled"), "{bob}");
    assert!(
        !out["bob_again"].as_str().unwrap().contains("Another agent"),
        "exactly once"
    );
}

#[test]
fn code_mode_over_streamable_http_on_loopback() {
    let state = tempfile::tempdir().unwrap();
    let (server, url) = http_server(state.path());
    let out = python_script("http_client.py", &[url.as_str()], 60);
    drop(server);
    assert_eq!(out["tools"], serde_json::json!(["run_program"]));
    assert_eq!(out["run"]["text"], "p1: ok\nvalue: \"hello\"");
    assert_eq!(out["refusal"]["error"], true);
    assert!(out["unknown"]
        .as_str()
        .unwrap()
        .contains("unknown tool \"nope\""));
    assert_eq!(out["still_serving"], true);
}

#[test]
fn http_refuses_a_non_loopback_address() {
    let out = Command::new(env!("CARGO_BIN_EXE_gg"))
        .args(["mcp", "--http", "0.0.0.0:0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "a usage error");
    assert!(String::from_utf8_lossy(&out.stderr).contains("--http takes a loopback address"));
}

#[test]
fn a_restarted_server_never_hands_a_new_session_an_earlier_agent() {
    // One session, a server restart on the same state folder, another
    // session: the second client starts a new agent (its first program is
    // p1), and the state folder holds two agents.
    let state = tempfile::tempdir().unwrap();
    for round in 0..2 {
        let (server, url) = http_server(state.path());
        let out = python_script("http_client.py", &[url.as_str()], 60);
        drop(server);
        // A new agent: its first program is p1 (the earlier agent's next
        // would be p3). The memory itself is the profile's, shared: the
        // second round's create finds it already there.
        let text = out["run"]["text"].as_str().unwrap();
        assert!(text.starts_with("p1: "), "round {round}: {out}");
        if round == 1 {
            assert!(text.contains("already exists"), "round {round}: {out}");
        }
    }
    let agents: Vec<String> = std::fs::read_dir(state.path().join("agents"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("mcp-"))
        .collect();
    assert_eq!(agents.len(), 2, "{agents:?}");
}

/// Runs the Python script `tests/mcp/SCRIPT` with `args` (within `secs`)
/// and returns the JSON line it printed last.
fn python_script(script: &str, args: &[&str], secs: u64) -> serde_json::Value {
    last_json_line(&bounded(
        Command::new(python())
            .arg(repo().join("tests/mcp").join(script))
            .args(args),
        secs,
    ))
}

/// One session of `resume_client.py` against `url`, resuming with `token`.
fn resume_session(url: &str, token: Option<&str>) -> serde_json::Value {
    let mut args = vec![url];
    args.extend(token);
    python_script("resume_client.py", &args, 60)
}

#[test]
fn a_session_resumes_its_agent_with_the_token_it_was_issued_and_only_with_it() {
    // A session's agent, its token from gg://agent/session, a restart: the
    // token brings the same agent (its program ids go on, its window holds
    // the earlier turn); a forged token is refused; no token, a new agent.
    let state = tempfile::tempdir().unwrap();
    let (server, url) = http_server(state.path());
    let first = resume_session(&url, None);
    drop(server);
    assert!(
        first["run"].as_str().unwrap().starts_with("p1: ok"),
        "{first}"
    );
    let agent = first["session"]["agent"].as_str().unwrap().to_string();
    let token = first["session"]["resumeToken"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        agent.starts_with("mcp-") && token.starts_with(&format!("{agent}.")),
        "{first}"
    );
    assert!(
        token.len() >= agent.len() + 33,
        "an unguessable token: {token}"
    );

    let (server, url) = http_server(state.path());
    let resumed = resume_session(&url, Some(&token));
    assert_eq!(resumed["session"]["agent"], agent.as_str(), "{resumed}");
    assert!(
        resumed["run"].as_str().unwrap().starts_with("p2: ok"),
        "{resumed}"
    );
    let window = resumed["window"].as_str().unwrap();
    assert!(window.contains("--- program p1 ---"), "{window}");

    let forged = format!("{agent}.{}", "0".repeat(32));
    let refused = resume_session(&url, Some(&forged));
    let error = refused["initialize_error"].as_str().unwrap_or_default();
    assert!(
        error.contains("Gg-Resume token was not issued"),
        "{refused}"
    );

    let fresh = resume_session(&url, None);
    assert_ne!(fresh["session"]["agent"], agent.as_str(), "{fresh}");
    assert!(
        fresh["run"].as_str().unwrap().starts_with("p1: ok"),
        "{fresh}"
    );
    drop(server);
}

/// The TypeScript MCP SDK's client script, installed with its pinned SDK
/// into `target/tmp/mcp-node` once (npm); returns the script's path.
fn ts_client() -> &'static Path {
    static SCRIPT: OnceLock<PathBuf> = OnceLock::new();
    SCRIPT.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("mcp-node");
        std::fs::create_dir_all(&dir).unwrap();
        for file in ["package.json", "client.mjs"] {
            std::fs::copy(repo().join("tests/mcp/ts").join(file), dir.join(file)).unwrap();
        }
        if !dir
            .join("node_modules/@modelcontextprotocol/sdk/package.json")
            .exists()
        {
            let npm = Command::new("npm")
                .args(["install", "--no-audit", "--no-fund", "--silent"])
                .current_dir(&dir)
                .output()
                .expect("npm");
            assert!(
                npm.status.success(),
                "installing the TypeScript MCP SDK failed: {}",
                String::from_utf8_lossy(&npm.stderr)
            );
        }
        dir.join("client.mjs")
    })
}

/// One run of the TypeScript client with `args`.
fn ts_session(args: &[&str]) -> serde_json::Value {
    last_json_line(&bounded(
        Command::new("node").arg(ts_client()).args(args),
        120,
    ))
}

#[test]
fn the_typescript_sdk_over_stdio_in_code_and_tool_calling_modes() {
    let state = tempfile::tempdir().unwrap();
    let profile = state.path().join("tools.json5");
    std::fs::write(
        &profile,
        r#"{ id: "ts-tools", mode: "tool-calling", capabilities: [
             { id: "read-file", enabled: true, implementation: "default-cap", params: { lineCap: 250 } } ] }"#,
    )
    .unwrap();
    let out = ts_session(&[
        "stdio",
        env!("CARGO_BIN_EXE_gg"),
        state.path().to_str().unwrap(),
        &workspace(),
        profile.to_str().unwrap(),
    ]);
    assert_eq!(out["server"]["name"], "gg", "{out}");
    assert_eq!(
        out["codeTools"],
        serde_json::json!(["run_program"]),
        "{out}"
    );
    let run = out["run"]["text"].as_str().unwrap();
    assert!(run.starts_with("p1: ok") && run.contains("42"), "{out}");
    assert_eq!(
        out["heard"],
        serde_json::json!([{ "level": "info", "logger": "gg.console", "data": "from ts" }]),
        "{out}"
    );
    assert!(
        out["badArgument"].as_str().unwrap().contains("program"),
        "a wrong argument type is a protocol error naming the argument: {out}"
    );
    assert_eq!(
        out["nativeTools"],
        serde_json::json!(["read_file"]),
        "{out}"
    );
    assert_eq!(out["readFile"]["isError"], false, "{out}");
    let first_line = std::fs::read_to_string(repo().join("fixtures/workspace/src/notes.md"))
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_string();
    assert!(
        out["readFile"]["text"]
            .as_str()
            .unwrap()
            .contains(&first_line),
        "{out}"
    );
}

#[test]
fn the_typescript_sdk_over_http_needs_the_token_and_resumes_only_with_its_credential() {
    let state = tempfile::tempdir().unwrap();
    let token_file = state.path().join("token");
    std::fs::write(&token_file, "ts-secret-token\n").unwrap();
    let token_arg = ["--token-file", token_file.to_str().unwrap()];
    let (server, url) = http_server_with(state.path(), &token_arg);
    let first = ts_session(&["http", &url, "ts-secret-token"]);
    drop(server);
    assert!(
        first["withoutToken"]
            .as_str()
            .unwrap()
            .contains("this server requires its token"),
        "{first}"
    );
    assert!(
        first["run"].as_str().unwrap().starts_with("p1: ok"),
        "{first}"
    );
    let agent = first["session"]["agent"].as_str().unwrap().to_string();
    let resume = first["session"]["resumeToken"]
        .as_str()
        .unwrap()
        .to_string();

    // After a restart: no credential, a new agent; the credential, the
    // same agent, its program ids going on.
    let (server, url) = http_server_with(state.path(), &token_arg);
    let fresh = ts_session(&["http", &url, "ts-secret-token"]);
    assert_ne!(fresh["session"]["agent"], agent.as_str(), "{fresh}");
    assert!(
        fresh["run"].as_str().unwrap().starts_with("p1: ok"),
        "{fresh}"
    );
    let resumed = ts_session(&["http", &url, "ts-secret-token", &resume]);
    drop(server);
    assert_eq!(resumed["session"]["agent"], agent.as_str(), "{resumed}");
    assert!(
        resumed["run"].as_str().unwrap().starts_with("p2: ok"),
        "{resumed}"
    );
}

/// One raw HTTP request: (status, head, body).
fn raw_request(addr: &str, request: &str) -> (u16, String, String) {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    let raw = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
    let status = head.split(' ').nth(1).unwrap_or("0").parse().unwrap_or(0);
    (status, head.to_string(), body.to_string())
}

#[test]
fn both_http_servers_check_host_origin_and_their_token() {
    let state = tempfile::tempdir().unwrap();
    let token_file = state.path().join("token");
    std::fs::write(&token_file, "t0ken-for-tests\n").unwrap();
    let token = ["--token-file", token_file.to_str().unwrap()];
    // gg mcp on `localhost` (accepted, bound on 127.0.0.1), port 0.
    let (mcp, mcp_url) = http_server_on(state.path(), "localhost:0", &token);
    let mcp_addr = mcp_url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_string();
    let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;
    let post = |host: &str, extra: &str| {
        raw_request(
            &mcp_addr,
            &format!(
                "POST /mcp HTTP/1.1\r\nHost: {host}\r\n{extra}Content-Type: application/json\r\n\
                 Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
                 Connection: close\r\n\r\n{initialize}",
                initialize.len()
            ),
        )
    };
    let bearer = "Authorization: Bearer t0ken-for-tests\r\n";
    let (status, _, body) = post("evil.example", bearer);
    assert_eq!(status, 403, "a foreign Host: {body}");
    assert!(
        body.contains("evil.example") && body.contains("--allow-host"),
        "{body}"
    );
    let (status, _, body) = post(
        &mcp_addr,
        &format!("{bearer}Origin: http://evil.example\r\n"),
    );
    assert_eq!(status, 403, "a foreign Origin: {body}");
    let (status, head, _) = post(&mcp_addr, "");
    assert_eq!(status, 401, "no token");
    assert!(
        head.to_ascii_lowercase()
            .contains("www-authenticate: bearer"),
        "{head}"
    );
    let (status, _, _) = post(&mcp_addr, "Authorization: Bearer t0ken-for-test\r\n");
    assert_eq!(status, 401, "a wrong token");
    let (status, _, body) = post(&mcp_addr, &format!("{bearer}Origin: http://{mcp_addr}\r\n"));
    assert_eq!(status, 200, "the token and this server's origin: {body}");
    assert!(body.contains("serverInfo"), "{body}");
    drop(mcp);

    // gg console: the same checks, and the page's token cookie.
    let mut console = Killed(
        Command::new(env!("CARGO_BIN_EXE_gg"))
            .args(["console", "--addr", "127.0.0.1:0", "--state"])
            .arg(state.path())
            .args(token)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let line = first_line(console.0.stdout.take().unwrap());
    let addr = line
        .trim()
        .trim_start_matches("gg console: http://")
        .trim_end_matches('/')
        .to_string();
    let get = |path: &str, headers: &str| {
        raw_request(
            &addr,
            &format!("GET {path} HTTP/1.1\r\n{headers}Connection: close\r\n\r\n"),
        )
    };
    let host = format!("Host: {addr}\r\n");
    let (status, _, _) = get("/api/overview", &format!("Host: evil.example\r\n{bearer}"));
    assert_eq!(status, 403, "a foreign Host (DNS rebinding)");
    let (status, _, _) = get("/api/overview", &host);
    assert_eq!(status, 401, "no token");
    let (status, _, body) = get("/api/overview", &format!("{host}{bearer}"));
    assert_eq!(status, 200, "{body}");
    let (status, head, _) = get("/?token=t0ken-for-tests", &host);
    assert_eq!(status, 303, "{head}");
    assert!(
        head.contains("gg_token=t0ken-for-tests; HttpOnly; SameSite=Strict"),
        "{head}"
    );
    let (status, _, _) = get(
        "/api/overview",
        &format!("{host}Cookie: gg_token=t0ken-for-tests\r\n"),
    );
    assert_eq!(status, 200, "the cookie the page carries");
    drop(console);

    // A token file that holds no token is a usage error, before serving.
    std::fs::write(&token_file, "\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_gg"))
        .args(["console", "--addr", "127.0.0.1:0", "--state"])
        .arg(state.path())
        .args(token)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is empty"));
}

/// The first line a child printed.
fn first_line(stdout: std::process::ChildStdout) -> String {
    use std::io::BufRead;
    let mut line = String::new();
    std::io::BufReader::new(stdout)
        .read_line(&mut line)
        .unwrap();
    line
}

#[test]
fn malformed_requests_get_protocol_errors_and_the_server_keeps_serving() {
    use std::io::{BufRead, BufReader, Write};
    let state = tempfile::tempdir().unwrap();
    let mut server = Killed(
        Command::new(env!("CARGO_BIN_EXE_gg"))
            .args(["mcp", "--state", state.path().to_str().unwrap()])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut stdin = server.0.stdin.take().unwrap();
    let lines = [
        "this is not json",
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_program"}}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"no/such/method"}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"run_program","arguments":{"program":"export default 6 * 7;"}}}"#,
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/list"}"#,
    ];
    for line in lines {
        writeln!(stdin, "{line}").unwrap();
    }
    stdin.flush().unwrap();
    let mut replies = std::collections::HashMap::new();
    let mut reader = BufReader::new(server.0.stdout.take().unwrap());
    while replies.len() < 5 {
        let mut line = String::new();
        assert!(
            reader.read_line(&mut line).unwrap() > 0,
            "the server stopped answering"
        );
        let reply: serde_json::Value = serde_json::from_str(&line).unwrap();
        replies.insert(reply["id"].as_i64().unwrap(), reply);
    }
    drop(stdin);
    drop(server);
    assert_eq!(
        replies[&2]["error"]["code"], -32602,
        "missing arguments: invalid params"
    );
    assert_eq!(replies[&3]["error"]["code"], -32601, "unknown method");
    // gg names itself, and hands the agent's system prompt as instructions.
    let init = &replies[&1]["result"];
    assert_eq!(init["serverInfo"]["name"], "gg", "{init}");
    assert_eq!(init["serverInfo"]["version"], env!("CARGO_PKG_VERSION"));
    assert!(
        init["instructions"]
            .as_str()
            .unwrap_or("")
            .contains("one TypeScript program"),
        "{init}"
    );
    // The default profile's markdown memories: the tool's description
    // declares their calls and no other strategy's.
    let description = replies[&5]["result"]["tools"][0]["description"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        description.contains("function createMemory("),
        "{description}"
    );
    assert!(
        !description.contains("function writeMemory("),
        "{description}"
    );
    assert!(
        !description.contains("function searchMemories("),
        "{description}"
    );
    assert_eq!(
        replies[&4]["result"]["content"][0]["text"], "p1: ok\nvalue: 42",
        "still serving"
    );
}

/// `gg mcp --http` started on a free loopback port, with the line it printed.
fn http_server(state: &std::path::Path) -> (Killed, String) {
    http_server_with(state, &[])
}

/// `gg mcp --http` with extra arguments.
fn http_server_with(state: &std::path::Path, extra: &[&str]) -> (Killed, String) {
    http_server_on(state, "127.0.0.1:0", extra)
}

/// `gg mcp --http ADDR` (port 0: a free one) with extra arguments, and the
/// URL it printed once listening.
fn http_server_on(state: &std::path::Path, addr: &str, extra: &[&str]) -> (Killed, String) {
    let mut server = Killed(
        Command::new(env!("CARGO_BIN_EXE_gg"))
            .args(["mcp", "--http", addr, "--state", state.to_str().unwrap()])
            .args(["--workspace", &workspace()])
            .args(extra)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("start gg mcp --http"),
    );
    let line = first_line(server.0.stdout.take().unwrap());
    let url = line
        .trim()
        .strip_prefix("gg mcp: ")
        .unwrap_or_else(|| panic!("gg mcp printed {line:?}"))
        .to_string();
    assert!(
        url.starts_with("http://127.0.0.1:") && !url.starts_with("http://127.0.0.1:0/"),
        "{url}"
    );
    (server, url)
}

/// The soft and hard limits on open files of process `pid`.
fn open_file_limits(pid: u32) -> (String, String) {
    let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).expect("its limits");
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .expect("a limit on open files");
    let fields: Vec<&str> = line.split_whitespace().collect();
    (fields[3].to_string(), fields[4].to_string())
}

#[test]
fn the_server_raises_its_open_file_limit_to_the_hard_limit() {
    // Started with a soft limit of 128 (each agent with a state folder holds
    // three files open), it runs with its hard limit.
    let state = tempfile::tempdir().unwrap();
    let mut server = Killed(
        Command::new("sh")
            .args(["-c", "ulimit -Sn 128 && exec \"$0\" \"$@\""])
            .arg(env!("CARGO_BIN_EXE_gg"))
            .args([
                "mcp",
                "--http",
                "127.0.0.1:0",
                "--state",
                state.path().to_str().unwrap(),
            ])
            .args(["--workspace", &workspace()])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("start gg mcp --http under a low soft limit"),
    );
    let line = first_line(server.0.stdout.take().unwrap());
    assert!(line.starts_with("gg mcp: "), "{line}");
    let (soft, hard) = open_file_limits(server.0.id());
    assert_eq!(soft, hard, "soft {soft}, hard {hard}");
    assert_ne!(soft, "128");
}

#[test]
fn a_thousand_sequential_http_sessions_leave_the_server_flat() {
    // Each session is an agent with an isolate of its own: 1 000 of them
    // come and go, and the server ends where it stood after the first 50
    // (resident memory within a small constant, the same threads and files).
    let state = tempfile::tempdir().unwrap();
    let (server, url) = http_server(state.path());
    let pid = server.0.id().to_string();
    let out = python_script(
        "churn_client.py",
        &[url.as_str(), pid.as_str(), "1000", "50"],
        900,
    );
    drop(server);
    let figure = |at: &str, what: &str| out[at][what].as_i64().unwrap();
    let grown_mb = (figure("last", "rss_kb") - figure("checkpoint", "rss_kb")) as f64 / 1024.0;
    assert!(
        grown_mb < 20.0,
        "resident memory grew {grown_mb:.1} MB from session 50 to 1 000: {out}"
    );
    for what in ["threads", "files"] {
        assert!(
            figure("last", what) <= figure("checkpoint", what) + 2,
            "{what} grew from session 50 to 1 000: {out}"
        );
    }
    // Every session's agent held the default profile's shared store, one
    // after another: each ended before the next joined, so no join
    // rewrote an earlier session's modules file (the cost of a join does
    // not grow with the sessions before it).
    let agents = std::fs::read_dir(state.path().join("agents")).unwrap();
    let mut files = 0;
    for agent in agents {
        let file = agent.unwrap().path().join("modules/memories");
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        assert_eq!(json["others"], serde_json::json!([]), "{}", file.display());
        files += 1;
    }
    assert_eq!(files, 1000);
}

#[test]
fn sessions_a_client_abandons_end_after_the_idle_timeout_and_release_everything() {
    // Forty clients go away without DELETE; with a two-second idle timeout
    // the server ends their sessions and gives back every worker, thread
    // and open file they held.
    let state = tempfile::tempdir().unwrap();
    let (server, url) = http_server_with(state.path(), &["--session-idle-secs", "2"]);
    let pid = server.0.id().to_string();
    let out = python_script(
        "churn_client.py",
        &[url.as_str(), pid.as_str(), "40", "1", "abandon", "5"],
        600,
    );
    drop(server);
    let figure = |at: &str, what: &str| out[at][what].as_i64().unwrap();
    assert!(
        figure("open", "threads") > figure("start", "threads"),
        "open sessions hold threads: {out}"
    );
    for what in ["threads", "files"] {
        assert!(
            figure("last", what) <= figure("start", what) + 2,
            "{what} still held after the idle timeout: {out}"
        );
    }
}

#[test]
fn an_agent_idle_past_park_after_lets_its_isolate_go_and_its_next_call_runs_in_a_fresh_one() {
    // In a worker process (the default) and on a thread of the server: the
    // count a program keeps on `globalThis` survives a call that comes at
    // once and is gone after an idle wait past `--park-after`, while the
    // agent's memory and its loaded code module carry on.
    for extra in [&[][..], &["--in-process"][..]] {
        let state = tempfile::tempdir().unwrap();
        let workspace = workspace();
        let mut args = vec![
            env!("CARGO_BIN_EXE_gg"),
            state.path().to_str().unwrap(),
            workspace.as_str(),
        ];
        args.extend_from_slice(extra);
        let out = python_script("park_client.py", &args, 120);
        let answer = |key: &str| {
            assert_eq!(out[key]["error"], false, "{key} failed: {out}");
            out[key]["text"].as_str().unwrap().to_string()
        };
        assert!(answer("first").ends_with("value: 1"), "{extra:?}: {out}");
        assert!(
            answer("second").contains("value: 2\n"),
            "a call that comes at once runs in the same isolate ({extra:?}): {out}"
        );
        assert!(
            answer("after_idle").contains(r#"value: [1,"PARKED"]"#),
            "after the idle wait, a fresh isolate with the loaded module ({extra:?}): {out}"
        );
        assert!(answer("next").ends_with("value: 2"), "{extra:?}: {out}");
    }
}

/// Whether the gg under test carries the injected engine fault (it does
/// when built by `cargo test --workspace`, which CI runs; a test that needs
/// it is skipped otherwise, and fails under CI).
fn fault_injection_built() -> bool {
    let probe = Command::new(env!("CARGO_BIN_EXE_gg"))
        .args(["mcp", "--inject-engine-fault", "--state"])
        .arg(tempfile::tempdir().unwrap().path())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    if String::from_utf8_lossy(&probe.stderr).contains("fault-injection feature") {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI builds gg with the fault-injection feature (cargo test --workspace)"
        );
        eprintln!("SKIPPED: this gg was built without the fault-injection feature");
        return false;
    }
    true
}

#[test]
fn an_engine_fault_in_a_worker_reads_nothing_outside_and_a_crash_loses_nothing() {
    // A test-only op stands for an engine bug that hands a program the host:
    // it reads any file by path, reads the environment, aborts the process.
    // The worker process's walls (empty environment, Landlock, seccomp) must
    // hold against it, and the agent must outlive its worker.
    if !fault_injection_built() {
        return;
    }
    let state = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let canary_file = outside.path().join("canary.txt");
    std::fs::write(&canary_file, "canary-outside-the-workspace").unwrap();
    let inside = PathBuf::from(workspace()).join("src/notes.md");
    // Another agent's files in the same state folder, and the agent's own:
    // the worker reaches none of them (its host keeps the agent's state).
    for (path, body) in [
        ("events/other.jsonl", "{\"canary-other-agent-events\":1}\n"),
        ("memories/agent.other.sqlite", "canary-other-agent-memories"),
        (
            "agents/other/modules/memories",
            "canary-other-agent-modules",
        ),
    ] {
        let path = state.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, body).unwrap();
    }
    let state_files: Vec<String> = [
        "events/other.jsonl",
        "memories/agent.other.sqlite",
        "agents/other/modules/memories",
        "state.sqlite",
        "events/mcp.jsonl",
        "memories/profile.mcp.sqlite",
        "agents/mcp/modules/memories",
    ]
    .iter()
    .map(|p| state.path().join(p).to_string_lossy().into_owned())
    .collect();
    let out = client_with_env(
        "tests/mcp/fault_client.py",
        &[
            env!("CARGO_BIN_EXE_gg"),
            state.path().to_str().unwrap(),
            &workspace(),
            inside.to_str().unwrap(),
            canary_file.to_str().unwrap(),
            "GG_WORKER_CANARY",
            &serde_json::to_string(&state_files).unwrap(),
        ],
        &[("GG_WORKER_CANARY", "canary-in-the-host-environment")],
    );
    let text = |key: &str| out[key]["text"].as_str().unwrap_or_default().to_string();
    for (i, path) in state_files.iter().enumerate() {
        assert!(
            std::path::Path::new(path).exists(),
            "{path} is where the test expects it: {:?}",
            walkdir(state.path())
        );
        assert!(
            text(&format!("state{i}")).contains("refused: Permission denied"),
            "{path}: {out}"
        );
    }
    let expected_inside = std::fs::read_to_string(&inside).unwrap();
    assert!(
        text("inside").contains(expected_inside.lines().next().unwrap()),
        "the injected op reads inside the workspace: {out}"
    );
    for key in ["outside", "environ", "passwd"] {
        assert!(
            text(key).contains("refused: Permission denied"),
            "{key}: {out}"
        );
    }
    assert!(text("variable").contains("value: \"\\\"\\\"\""), "{out}");
    assert!(
        !out.to_string().contains("canary-"),
        "a canary leaked: {out}"
    );
    assert_eq!(out["remember"]["error"], false, "{out}");
    assert!(text("crash").contains("worker process stopped"), "{out}");
    // The crashed turn was never acknowledged; what was is still there.
    assert!(
        text("after").ends_with(": ok\nvalue: \"still here\""),
        "{out}"
    );
}

/// Every file under `dir`, for a failure's message.
fn walkdir(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(walkdir(&path));
        } else {
            found.push(path);
        }
    }
    found
}

/// Runs a Python client script with extra environment variables; its last
/// stdout line as JSON.
fn client_with_env(script: &str, args: &[&str], env: &[(&str, &str)]) -> serde_json::Value {
    let mut command = Command::new(python());
    command.arg(repo().join(script)).args(args);
    for (k, v) in env {
        command.env(k, v);
    }
    let out = bounded(&mut command, 120);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the client failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(stdout.lines().last().unwrap_or("null")).unwrap()
}

#[test]
fn a_session_running_former_crash_programs_leaves_the_other_session_serving() {
    // In-process mode, the harder case: both agents share the server
    // process, so a program that could crash it would end both sessions.
    let hostile_dir = repo().join("fixtures/programs/hostile");
    let programs: Vec<String> = [
        "sym_arg.ts",
        "sym_value.ts",
        "null_throw.ts",
        "bad_tostring.ts",
        "reject_null.ts",
        "report_null.ts",
        "wasm_stream.ts",
        "getter_op.ts",
        "array_accessor.ts",
        "getter_hang.ts",
        "heap_sabs.ts",
    ]
    .iter()
    .map(|name| std::fs::read_to_string(hostile_dir.join(name)).unwrap())
    .collect();
    let state = tempfile::tempdir().unwrap();
    let (server, url) = http_server_with(state.path(), &["--in-process"]);
    let out = bounded(
        Command::new(python())
            .arg(repo().join("tests/mcp/two_sessions_client.py"))
            .arg(&url)
            .arg(serde_json::to_string(&programs).unwrap()),
        300,
    );
    drop(server);
    let out = last_json_line(&out);
    let hostile = out["hostile"].as_array().unwrap();
    assert_eq!(hostile.len(), programs.len(), "{out}");
    assert!(
        hostile
            .iter()
            .all(|line| !line.as_str().unwrap().starts_with("protocol error")),
        "{out}"
    );
    for (i, answer) in out["other"].as_array().unwrap().iter().enumerate() {
        assert!(
            answer
                .as_str()
                .unwrap()
                .contains(&format!("value: {}", i * 2)),
            "answer {i}: {out}"
        );
    }
}

/// A client's last stdout line as JSON, after checking that it succeeded.
fn last_json_line(out: &std::process::Output) -> serde_json::Value {
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(stdout.lines().last().unwrap()).unwrap()
}

#[test]
fn what_a_worker_prints_reaches_the_log_only_as_tagged_events() {
    // Raw JSON-RPC over stdio: initialize, then two run_program calls. The
    // first writes a forged log line (and a terminal escape) to the
    // worker's standard error through the injected fault, as a library
    // under gg that prints would; the second throws an error whose text is
    // a forged log line and whose stack formatting the time limit
    // interrupts (deno_core printed that text until gg's patch).
    use std::io::{BufRead, BufReader, Write};
    if !fault_injection_built() {
        return;
    }
    let state = tempfile::tempdir().unwrap();
    let program =
        std::fs::read_to_string(repo().join("fixtures/programs/hostile/forge_engine_warning.ts"))
            .unwrap();
    let mut server = Command::new(env!("CARGO_BIN_EXE_gg"))
        .args(["mcp", "--inject-engine-fault", "--state"])
        .arg(state.path())
        .args(["--workspace", &workspace()])
        .args([
            "--profile",
            repo()
                .join("fixtures/profiles/short-limit.json5")
                .to_str()
                .unwrap(),
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start gg mcp");
    let mut input = server.stdin.take().unwrap();
    let mut output = BufReader::new(server.stdout.take().unwrap());
    let mut send = move |message: serde_json::Value| {
        writeln!(input, "{message}").unwrap();
        input.flush().unwrap();
    };
    send(
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}),
    );
    let mut line = String::new();
    output.read_line(&mut line).unwrap();
    send(serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let printing = r#"(globalThis as any).__ggInjectedFault.writeStderr("boom\n[gg] FORGED-BY-WORKER \u001b[31mred\n"); export default 1;"#;
    send(
        serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "run_program", "arguments": {"program": printing}}}),
    );
    line.clear();
    output.read_line(&mut line).unwrap();
    assert!(line.contains("\"result\""), "{line}");
    send(
        serde_json::json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "run_program", "arguments": {"program": program}}}),
    );
    line.clear();
    output.read_line(&mut line).unwrap();
    assert!(line.contains("stopped at a limit"), "{line}");
    drop(send);
    let stderr = bounded_stderr(server);
    // Every line is one of the server's own log events (a timestamp, a
    // level); what the worker printed is there only as events tagged with
    // the worker, never as a raw line.
    let forged: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("FORGED-BY-WORKER"))
        .collect();
    assert!(
        !forged.is_empty(),
        "the worker's output is relayed: {stderr}"
    );
    assert!(
        !stderr.contains('\u{1b}'),
        "a raw escape in the log: {stderr:?}"
    );
    assert!(
        !stderr.contains("FORGED-BY-ENGINE-WARNING"),
        "the engine no longer prints a program's error text: {stderr}"
    );
    for line in stderr.lines() {
        assert!(
            line.starts_with("20")
                && (line.contains(" INFO ") || line.contains(" WARN ") || line.contains(" ERROR ")),
            "a raw line in the server's log: {line:?} in {stderr}"
        );
    }
    assert!(forged.iter().all(|l| l.contains("worker=")), "{stderr}");
}

/// The server's standard error once it has exited (its input closed).
fn bounded_stderr(mut server: std::process::Child) -> String {
    use std::io::Read;
    let mut stderr = server.stderr.take().unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while server.try_wait().unwrap().is_none() {
        assert!(std::time::Instant::now() < deadline, "gg mcp did not exit");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let mut text = String::new();
    stderr.read_to_string(&mut text).unwrap();
    text
}

/// `gg mcp` over stdio with raw JSON-RPC: initialize, then one
/// `run_program` call at a time.
struct StdioServer {
    server: Killed,
    input: std::process::ChildStdin,
    output: std::io::BufReader<std::process::ChildStdout>,
    next_id: u64,
}

impl StdioServer {
    fn start(state: &Path, profile: &str, extra: &[&str]) -> StdioServer {
        use std::io::BufRead;
        let mut child = Command::new(env!("CARGO_BIN_EXE_gg"))
            .args(["mcp", "--state"])
            .arg(state)
            .args(["--workspace", &workspace()])
            .args([
                "--profile",
                repo()
                    .join("fixtures/profiles")
                    .join(profile)
                    .to_str()
                    .unwrap(),
            ])
            .args(extra)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("start gg mcp");
        let input = child.stdin.take().unwrap();
        let output = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut server = StdioServer {
            server: Killed(child),
            input,
            output,
            next_id: 1,
        };
        server.send(serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}));
        let mut line = String::new();
        server.output.read_line(&mut line).unwrap();
        server.send(serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        server
    }

    fn send(&mut self, message: serde_json::Value) {
        use std::io::Write;
        writeln!(self.input, "{message}").unwrap();
        self.input.flush().unwrap();
    }

    /// Sends a `run_program` call without waiting for its answer.
    fn call(&mut self, program: &str) {
        let id = self.next_id;
        self.next_id += 1;
        self.send(
            serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "run_program", "arguments": {"program": program}}}),
        );
    }

    /// The next answer's text.
    fn answer(&mut self) -> String {
        use std::io::BufRead;
        let mut line = String::new();
        self.output.read_line(&mut line).unwrap();
        let reply: serde_json::Value = serde_json::from_str(&line).unwrap_or_default();
        reply["result"]["content"][0]["text"]
            .as_str()
            .map(str::to_string)
            .unwrap_or(line)
    }

    fn run(&mut self, program: &str) -> String {
        self.call(program);
        self.answer()
    }

    fn pid(&self) -> u32 {
        self.server.0.id()
    }
}

/// The worker processes `gg mcp` (process `server`) has started and not
/// yet reaped.
fn workers_of(server: u32) -> Vec<u32> {
    let mut found = Vec::new();
    for task in std::fs::read_dir(format!("/proc/{server}/task"))
        .into_iter()
        .flatten()
    {
        let Ok(task) = task else { continue };
        let children = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
        found.extend(
            children
                .split_whitespace()
                .filter_map(|p| p.parse::<u32>().ok()),
        );
    }
    found.retain(|pid| {
        std::fs::read(format!("/proc/{pid}/cmdline"))
            .map(|c| String::from_utf8_lossy(&c).contains("mcp-worker"))
            .unwrap_or(false)
    });
    found
}

/// Whether process `pid` is gone (or a zombie nobody will run again).
fn gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .unwrap_or("")
            .trim_start()
            .starts_with('Z'),
    }
}

const SPIN: &str = "(globalThis as any).__ggInjectedFault.spin(); export default 1;";

#[test]
fn a_program_stuck_in_native_code_ends_its_worker_and_the_next_call_reopens_the_agent() {
    // The injected `spin` stands for native code the engine never
    // interrupts: the watchdog's termination cannot reach it. The call
    // must still be answered, the worker ended and reaped, and the agent
    // reopened from its state for the next call.
    if !fault_injection_built() {
        return;
    }
    let state = tempfile::tempdir().unwrap();
    let mut server = StdioServer::start(
        state.path(),
        "short-limit.json5",
        &["--inject-engine-fault"],
    );
    assert!(server.run("export default 'warm';").contains("warm"));
    let worker = workers_of(server.pid());
    assert_eq!(worker.len(), 1, "one worker: {worker:?}");
    let limits = std::fs::read_to_string(format!("/proc/{}/limits", worker[0])).unwrap();
    let limit_of = |name: &str| {
        limits
            .lines()
            .find(|l| l.starts_with(name))
            .map(|l| {
                l.split_whitespace()
                    .nth(name.split_whitespace().count())
                    .unwrap_or("")
                    .to_string()
            })
            .unwrap_or_default()
    };
    assert_ne!(limit_of("Max cpu time"), "unlimited", "{limits}");
    assert_ne!(limit_of("Max address space"), "unlimited", "{limits}");
    assert_eq!(limit_of("Max core file size"), "0", "{limits}");
    let started = std::time::Instant::now();
    server.call(SPIN);
    let mut line = String::new();
    std::io::BufRead::read_line(&mut server.output, &mut line).unwrap();
    let took = started.elapsed();
    // The tool's failure, for the model to read: not a malformed request.
    let reply: serde_json::Value = serde_json::from_str(&line).expect("a JSON-RPC reply");
    assert_eq!(reply["result"]["isError"], true, "{reply}");
    let answer = reply["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    // 300 ms limit: within 3 × the limit and 10 s, as the walls promise.
    assert!(
        took < std::time::Duration::from_millis(3 * 300 + 10_000),
        "{took:?}"
    );
    assert!(answer.contains("did not stop when told to"), "{answer}");
    assert!(answer.contains("300 ms"), "{answer}");
    assert!(gone(worker[0]), "the stuck worker is ended and reaped");
    assert_eq!(
        server.run("export default 6 * 7;").lines().last(),
        Some("value: 42")
    );
}

#[test]
fn a_worker_never_outlives_its_server() {
    if !fault_injection_built() {
        return;
    }
    let state = tempfile::tempdir().unwrap();
    // A long limit: the worker is still spinning when the server is killed.
    let mut server =
        StdioServer::start(state.path(), "long-limit.json5", &["--inject-engine-fault"]);
    assert!(server.run("export default 'warm';").contains("warm"));
    let worker = workers_of(server.pid());
    assert_eq!(worker.len(), 1, "one worker: {worker:?}");
    server.call(SPIN);
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert!(!gone(worker[0]), "the worker spins");
    // SIGKILL: the server runs no code of its own on the way out.
    drop(server);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while !gone(worker[0]) {
        assert!(
            std::time::Instant::now() < deadline,
            "worker {} outlived its server",
            worker[0]
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[test]
fn a_worker_that_starts_a_process_or_opens_a_socket_is_ended_by_its_filter() {
    // What an engine escape would do next: each is fatal to the worker
    // (SIGSYS), and the agent goes on in a new one.
    if !fault_injection_built() {
        return;
    }
    let state = tempfile::tempdir().unwrap();
    let mut server = StdioServer::start(
        state.path(),
        "short-limit.json5",
        &["--inject-engine-fault"],
    );
    for call in ["fork", "clone", "execve", "socket"] {
        let answer = server.run(&format!(
            "export default (globalThis as any).__ggInjectedFault.syscall({call:?});"
        ));
        assert!(
            answer.contains("its confinement forbids"),
            "{call}: {answer}"
        );
        assert_eq!(
            server.run("export default 1 + 1;").lines().last(),
            Some("value: 2"),
            "after {call}"
        );
    }
    // What reaches the server, or lets the worker outlive it, is not
    // there: each fails as a call the kernel lacks, and the worker goes on.
    for call in [
        "signal-parent",
        "limits-of-parent",
        "clear-parent-death-signal",
    ] {
        let answer = server.run(&format!(
            "export default (globalThis as any).__ggInjectedFault.syscall({call:?});"
        ));
        assert!(
            answer.contains("refused: Function not implemented"),
            "{call}: {answer}"
        );
    }
}

#[test]
fn a_worker_keeps_its_postgresql_store_through_its_host() {
    // The host holds the store's connection: the worker, which may open no
    // socket, reads and writes the store through it.
    let Some(base) = std::env::var("GG_TEST_POSTGRES_URL")
        .ok()
        .filter(|u| !u.is_empty())
    else {
        eprintln!("SKIPPED a_worker_keeps_its_postgresql_store_through_its_host: GG_TEST_POSTGRES_URL is not set (scripts/test sets it)");
        return;
    };
    let sep = if base.contains('?') { '&' } else { '?' };
    let url = format!(
        "{base}{sep}options=-csearch_path%3Dgg_mcp_worker_{}",
        std::process::id()
    );
    let state = tempfile::tempdir().unwrap();
    let mut server = StdioServer::start(state.path(), "markdown.json5", &["--store", &url]);
    let saved = server.run(
        r#"import { memories } from "gg"; memories.createMemory({ name: "kept", description: "in postgres", body: "there" }); export default "saved";"#,
    );
    assert!(saved.ends_with("value: \"saved\""), "{saved}");
    let read = server
        .run(r#"import { memories } from "gg"; export default memories.readMemory("kept").body;"#);
    assert!(read.ends_with("value: \"there\""), "{read}");
}
