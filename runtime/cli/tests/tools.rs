//! Tools from the command line: `gg run` with a profile that declares
//! upstream MCP servers by paths relative to itself, `gg test` over a
//! session file that declares one, and a server reached over streamable
//! HTTP. The servers are npm's reference servers, installed into
//! `target/` by `tests/tools/install`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// `node_modules/@modelcontextprotocol` of the installed servers.
fn servers() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let target = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tool-servers");
        let out = Command::new("bash")
            .arg(repo().join("tests/tools/install"))
            .arg(&target)
            .output()
            .expect("bash");
        assert!(
            out.status.success(),
            "installing the MCP servers failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
    })
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

/// A folder laid out as a user would: `profiles/files.json5` naming the
/// filesystem server by a path relative to itself, rooted in `data/`.
fn layout() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::write(data.join("north.txt"), "cold\n").unwrap();
    std::fs::write(data.join("south.txt"), "warm\n").unwrap();
    std::fs::create_dir_all(dir.path().join("profiles")).unwrap();
    // The server script is linked into the folder, so the profile can name
    // it relatively, as a project would name its own server.
    std::os::unix::fs::symlink(servers(), dir.path().join("mcp")).unwrap();
    std::fs::write(
        dir.path().join("profiles/files.json5"),
        r#"{
  id: "librarian",
  capabilities: [
    { id: "memories", implementation: "markdown", params: { scope: "isolated", maxCount: 10, maxLenPerMemory: 2000, maxTotalLen: 10000, maxLenIndex: 2000, maxLenDescription: 200, maxResults: 5 } },
    { id: "tools", params: { servers: [
      // cwd is taken from this file's folder.
      { name: "files", command: "node", cwd: "..", args: ["mcp/server-filesystem/dist/index.js", "data"],
        allow: ["list_directory", "read_text_file"] },
    ] } },
  ],
}"#,
    )
    .unwrap();
    dir
}

const SUMMARY_PROGRAM: &str = r#"import { memories } from "gg";
import { listDirectory, readTextFile } from "gg/tools/files";
const listing = await listDirectory({ path: "." });
const names = listing.content.split("\n").map((l) => l.replace("[FILE] ", "")).sort();
const [a, b] = await Promise.all(names.map((path) => readTextFile({ path })));
memories.createMemory({ name: "weather", description: "what the files say", body: `${names[0]}: ${a.content.trim()}; ${names[1]}: ${b.content.trim()}` });
export default memories.readMemory("weather").body;
"#;

#[test]
fn gg_run_with_a_profile_that_declares_a_server_relative_to_itself() {
    let dir = layout();
    std::fs::write(dir.path().join("summary.ts"), SUMMARY_PROGRAM).unwrap();
    // Run from elsewhere: the profile's relative paths still hold.
    let elsewhere = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let out = gg(
        &[
            "run",
            dir.path().join("summary.ts").to_str().unwrap(),
            "--profile",
            dir.path().join("profiles/files.json5").to_str().unwrap(),
            "--state",
            state.to_str().unwrap(),
        ],
        elsewhere.path(),
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert!(
        stdout.contains("\"north.txt: cold; south.txt: warm\""),
        "{stdout}"
    );
    // The calls are in the agent's event stream.
    let events = std::fs::read_to_string(state.join("events/main.jsonl")).unwrap();
    let calls: Vec<serde_json::Value> = events
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|e| e["type"] == "tool_call")
        .collect();
    assert_eq!(calls.len(), 3, "{events}");
    assert!(calls
        .iter()
        .all(|c| c["server"] == "files" && c["ok"] == true));
    // No server outlives gg.
    let left = Command::new("pgrep")
        .args(["-f", &format!("{}", dir.path().join("data").display())])
        .output()
        .unwrap();
    assert!(text(&left.stdout).trim().is_empty(), "servers left running");
}

#[test]
fn a_bad_tools_block_is_refused_with_every_problem() {
    let dir = tempfile::tempdir().unwrap();
    let profile = dir.path().join("bad.json5");
    std::fs::write(
        &profile,
        r#"{ id: "bad", capabilities: [{ id: "tools", params: { servers: [
             { name: "a__b", command: "node" }, { name: "c", url: "ws://x", allow: [] } ] } }] }"#,
    )
    .unwrap();
    std::fs::write(dir.path().join("p.ts"), "export default 1;").unwrap();
    let out = gg(
        &["run", "p.ts", "--profile", "bad.json5", "--state", "s"],
        dir.path(),
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    for expected in ["\"a__b\"", "allow", "ws://x"] {
        assert!(stderr.contains(expected), "{expected}: {stderr}");
    }
}

#[test]
fn gg_test_covers_a_session_that_declares_a_server() {
    let dir = layout();
    std::fs::write(
        dir.path().join("summary.session.json5"),
        r#"{
  run: { profiles: ["profiles/files.json5"] },
  steps: [
    { start: { agent: "a", profile: "librarian" } },
    { turn: { agent: "a", file: "summary.ts" } },
    { expect: { agent: "a", value: "north.txt: cold; south.txt: warm", event: { type: "tool_call", server: "files", tool: "read_text_file", ok: true } } },
  ],
}"#,
    )
    .unwrap();
    std::fs::write(dir.path().join("summary.ts"), SUMMARY_PROGRAM).unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let out = gg(&["test", dir.path().to_str().unwrap()], elsewhere.path());
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert!(stdout.contains("ok   "), "{stdout}");
    // Named bare, from its own folder.
    let out = gg(&["test", "summary.session.json5"], dir.path());
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
}

/// server-everything over streamable HTTP on a free port.
struct HttpServer {
    child: std::process::Child,
    url: String,
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn http_server() -> HttpServer {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new("node")
        .arg(servers().join("server-everything/dist/index.js"))
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("node");
    let started = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the HTTP server never listened"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    HttpServer {
        child,
        url: format!("http://127.0.0.1:{port}/mcp"),
    }
}

#[test]
fn a_server_over_streamable_http_in_both_modes() {
    let server = http_server();
    let dir = tempfile::tempdir().unwrap();
    for mode in ["code", "tool-calling"] {
        std::fs::write(
            dir.path().join(format!("{mode}.json5")),
            format!(
                r#"{{ id: "http-{mode}", mode: "{mode}", capabilities: [{{ id: "tools", params: {{ servers: [
                     {{ name: "everything", url: "{}", allow: ["echo", "get-sum"] }} ] }} }}] }}"#,
                server.url
            ),
        )
        .unwrap();
    }
    std::fs::write(
        dir.path().join("p.ts"),
        r#"import { echo, getSum } from "gg/tools/everything";
           export default [await echo({ message: "over http" }), await getSum({ a: 20, b: 22 })];"#,
    )
    .unwrap();
    let out = gg(
        &["run", "p.ts", "--profile", "code.json5", "--state", "s1"],
        dir.path(),
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert!(
        stdout.contains(r#"["Echo: over http","The sum of 20 and 22 is 42."]"#),
        "{stdout}"
    );

    // Tool-calling mode through a session: the native tool's result.
    std::fs::write(
        dir.path().join("http.session.json5"),
        r#"{
  run: { profiles: ["tool-calling.json5"] },
  steps: [
    { start: { agent: "t", profile: "http-tool-calling" } },
    { turn: { agent: "t", tools: [ { id: "c1", name: "everything__echo", arguments: { message: "native" } } ] } },
    { expect: { agent: "t", window: "Echo: native", event: { type: "tool_call", tool: "echo" } } },
  ],
}"#,
    )
    .unwrap();
    let out = gg(&["test", "http.session.json5"], dir.path());
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
}

/// Talks JSON-RPC to `gg mcp` over its standard input and output: the
/// given requests (ids 1..), then the replies by id.
fn mcp_exchange(args: &[&str], cwd: &Path, requests: &[String]) -> Vec<serde_json::Value> {
    use std::io::{BufRead, BufReader, Write};
    let mut server = Command::new(env!("CARGO_BIN_EXE_gg"))
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = server.stdin.take().unwrap();
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
    let mut reader = BufReader::new(server.stdout.take().unwrap());
    let mut replies = Vec::new();
    for (i, request) in std::iter::once(None)
        .chain(requests.iter().map(Some))
        .enumerate()
    {
        if let Some(request) = request {
            writeln!(
                stdin,
                r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{request}}}"#
            )
            .unwrap();
            stdin.flush().unwrap();
        }
        let mut line = String::new();
        assert!(reader.read_line(&mut line).unwrap() > 0, "gg mcp stopped");
        if request.is_some() {
            replies.push(serde_json::from_str(&line).unwrap());
        }
    }
    drop(stdin);
    let _ = server.wait();
    replies
}

#[test]
fn gg_mcp_relays_a_confined_workers_tool_calls_to_the_servers_it_holds() {
    let dir = layout();
    let state = dir.path().join("state");
    let program = serde_json::json!({
        "name": "run_program",
        "arguments": { "program": SUMMARY_PROGRAM }
    })
    .to_string();
    let replies = mcp_exchange(
        &[
            "mcp",
            "--profile",
            "profiles/files.json5",
            "--state",
            state.to_str().unwrap(),
        ],
        dir.path(),
        &[program],
    );
    let text = replies[0]["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        text.contains("north.txt: cold; south.txt: warm"),
        "{}",
        replies[0]
    );
    // The worker recorded the calls in the agent's stream.
    let events: String = std::fs::read_dir(state.join("events"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap_or_default())
        .collect();
    assert_eq!(
        events.matches("\"type\":\"tool_call\"").count(),
        3,
        "{events}"
    );
}

#[test]
fn a_server_at_an_https_url_is_reached_when_its_certificate_is_trusted() {
    let server = http_server();
    let dir = tempfile::tempdir().unwrap();
    // A CA the test makes, and a certificate for 127.0.0.1 it signs.
    let file = |name: &str| dir.path().join(name).display().to_string();
    let openssl = |args: &[&str]| {
        let made = Command::new("openssl")
            .args(args)
            .current_dir(dir.path())
            .output()
            .expect("openssl");
        assert!(
            made.status.success(),
            "openssl {args:?}: {}",
            text(&made.stderr)
        );
    };
    openssl(&[
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "1",
        "-subj",
        "/CN=gg test CA",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
    ]);
    openssl(&[
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-subj",
        "/CN=127.0.0.1",
        "-keyout",
        "key.pem",
        "-out",
        "leaf.csr",
    ]);
    std::fs::write(
        dir.path().join("leaf.cnf"),
        "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n",
    )
    .unwrap();
    openssl(&[
        "x509",
        "-req",
        "-in",
        "leaf.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-days",
        "1",
        "-extfile",
        "leaf.cnf",
        "-out",
        "cert.pem",
    ]);
    let (ca, cert, key) = (file("ca.pem"), file("cert.pem"), file("key.pem"));
    let mut proxy = Killed(
        Command::new("node")
            .arg(repo().join("tests/tools/https-proxy.mjs"))
            .arg(&cert)
            .arg(&key)
            .arg(&server.url)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("node"),
    );
    let port = {
        use std::io::BufRead;
        let mut line = String::new();
        std::io::BufReader::new(proxy.0.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        line.trim().to_string()
    };
    std::fs::write(
        dir.path().join("tls.json5"),
        format!(
            r#"{{ id: "tls", capabilities: [{{ id: "tools", params: {{ servers: [
                 {{ name: "everything", url: "https://127.0.0.1:{port}/mcp", allow: ["echo"], timeMs: 5000 }} ] }} }}] }}"#
        ),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("p.ts"),
        r#"import { echo } from "gg/tools/everything"; export default await echo({ message: "over tls" });"#,
    )
    .unwrap();
    let run = |trust: bool| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_gg"));
        command
            .args(["run", "p.ts", "--profile", "tls.json5", "--state", "s"])
            .current_dir(dir.path());
        if trust {
            command.env("SSL_CERT_FILE", &ca);
        }
        command.output().expect("gg")
    };
    let trusted = run(true);
    let stdout = text(&trusted.stdout);
    assert!(
        trusted.status.success(),
        "{stdout}\n{}",
        text(&trusted.stderr)
    );
    assert!(stdout.contains("\"Echo: over tls\""), "{stdout}");
    // A certificate nobody vouches for is refused at launch, by name.
    let untrusted = run(false);
    let stderr = text(&untrusted.stderr);
    assert_eq!(untrusted.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("\"everything\""), "{stderr}");
    assert!(stderr.contains("https://127.0.0.1:"), "{stderr}");
}

/// A child process killed when the test lets go of it (a failing assertion
/// included), so nothing outlives the test holding its output pipes.
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// One JSON-RPC message POSTed to `gg mcp --http`'s endpoint `url`
/// (`http://ADDR/mcp`) in session `session`: the reply's session id (on
/// initialize) and its JSON-RPC answer, if it carried one.
fn mcp_post(
    url: &str,
    session: Option<&str>,
    body: &serde_json::Value,
) -> (Option<String>, Option<serde_json::Value>) {
    use std::io::{Read, Write};
    let addr = url
        .strip_prefix("http://")
        .and_then(|rest| rest.strip_suffix("/mcp"))
        .unwrap();
    let body = body.to_string();
    let session_header = session
        .map(|s| format!("Mcp-Session-Id: {s}\r\n"))
        .unwrap_or_default();
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Protocol-Version: 2025-06-18\r\n{session_header}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map_or(raw.len(), |at| at + 4);
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut body = raw[split..].to_vec();
    if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        body = dechunk(&body);
    }
    let body = String::from_utf8_lossy(&body).into_owned();
    let id = head.lines().find_map(|l| {
        let (name, value) = l.split_once(':')?;
        name.eq_ignore_ascii_case("mcp-session-id")
            .then(|| value.trim().to_string())
    });
    // An event stream's `data:` lines, or a plain JSON body.
    let answer = body
        .lines()
        .map(|l| l.strip_prefix("data:").unwrap_or(l))
        .find_map(|l| serde_json::from_str::<serde_json::Value>(l.trim()).ok())
        .filter(|v| v.get("jsonrpc").is_some());
    (id, answer)
}

/// The bytes of a chunked HTTP body.
fn dechunk(mut body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(end) = body.windows(2).position(|w| w == b"\r\n") {
        let size =
            usize::from_str_radix(String::from_utf8_lossy(&body[..end]).trim(), 16).unwrap_or(0);
        if size == 0 {
            break;
        }
        let start = end + 2;
        let stop = (start + size).min(body.len());
        out.extend_from_slice(&body[start..stop]);
        body = &body[(stop + 2).min(body.len())..];
    }
    out
}

/// A new MCP session with `gg mcp --http` at `url`: its id.
fn mcp_session(url: &str) -> String {
    let (id, answer) = mcp_post(
        url,
        None,
        &serde_json::json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": { "name": "raw", "version": "0" } } }),
    );
    let id = id.unwrap_or_else(|| panic!("no session id; answer: {answer:?}"));
    mcp_post(
        url,
        Some(&id),
        &serde_json::json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }),
    );
    id
}

/// `run_program` in session `session`: the result's text.
fn mcp_program(url: &str, session: &str, program: &str) -> String {
    let (_, answer) = mcp_post(
        url,
        Some(session),
        &serde_json::json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "run_program", "arguments": { "program": program } } }),
    );
    let answer = answer.unwrap_or_else(|| panic!("no answer to run_program in session {session}"));
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{answer}"))
        .to_string()
}

/// The processes whose command line carries `title`.
fn processes_titled(title: &str) -> usize {
    let out = Command::new("pgrep").args(["-f", title]).output().unwrap();
    text(&out.stdout).lines().count()
}

#[test]
fn gg_mcp_gives_each_sessions_agent_its_own_stdio_server_unless_the_profile_shares_it() {
    for (share, title) in [
        (None, "gg-mcp-graph-own"),
        (Some("profile"), "gg-mcp-graph-shared"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let mut server = serde_json::json!({
            "name": "graph",
            "command": "node",
            "args": [format!("--title={title}"), servers().join("server-memory/dist/index.js")],
            "env": { "MEMORY_FILE_PATH": "${GG_SERVER_STATE}/memory.jsonl" },
            "allow": ["create_entities", "read_graph"]
        });
        if let Some(share) = share {
            server["share"] = serde_json::json!(share);
        }
        let profile = serde_json::json!({
            "id": "keeper", "mode": "code", "programs": { "timeMs": 20000 },
            "capabilities": [{ "id": "tools", "params": { "servers": [server] } }]
        });
        std::fs::write(dir.path().join("keeper.json5"), profile.to_string()).unwrap();
        let mut gg = Command::new(env!("CARGO_BIN_EXE_gg"))
            .args(["mcp", "--http", "127.0.0.1:0", "--profile", "keeper.json5"])
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(gg.stdout.take().unwrap()),
            &mut line,
        )
        .unwrap();
        let url = line
            .trim()
            .strip_prefix("gg mcp: ")
            .unwrap_or_else(|| panic!("gg mcp printed {line:?}"))
            .to_string();
        // Two sessions: two agents, each in a worker of its own.
        let alice = mcp_session(&url);
        let bob = mcp_session(&url);
        let kept = mcp_program(
            &url,
            &alice,
            r#"import { createEntities } from "gg/tools/graph";
               await createEntities({ entities: [{ name: "vault", entityType: "secret", observations: ["alice's code is 4711"] }] });
               export default "kept";"#,
        );
        assert!(kept.contains("value: \"kept\""), "{kept}");
        let graph = mcp_program(
            &url,
            &bob,
            r#"import { readGraph } from "gg/tools/graph";
               export default JSON.stringify(await readGraph({}));"#,
        );
        let processes = processes_titled(title);
        let _ = gg.kill();
        let _ = gg.wait();
        match share {
            None => {
                assert!(!graph.contains("4711"), "bob read alice's graph: {graph}");
                assert_eq!(processes, 2, "one server process per session's agent");
            }
            Some(_) => {
                assert!(graph.contains("4711"), "the profile's graph: {graph}");
                assert_eq!(processes, 1, "one server process for the profile");
            }
        }
    }
}
