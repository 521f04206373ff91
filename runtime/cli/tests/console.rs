//! `gg console` end to end: its JSON API over HTTP, and the page itself in
//! headless Chromium (Debian's `chromium`, installed by `scripts/setup`),
//! driven by Playwright (`playwright-core`, installed by this test's own
//! setup into `target/tmp/console-playwright`; no browser download).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use crate::crowd;
use crate::serve::{console, get, get_json, memory, strings};

/// The pinned Playwright the browser script is written against.
const PLAYWRIGHT: &str = "playwright-core@1.65.1";
const CHROMIUM: &str = "/usr/bin/chromium";

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// A state folder the console fixture session ran into.
fn state_folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_gg"))
        .args([
            "session",
            "run",
            "fixtures/sessions/console.session.json5",
            "--state",
        ])
        .arg(dir.path())
        .current_dir(repo())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the fixture session failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    dir
}

#[test]
fn the_json_api_serves_stores_memories_histories_and_agents() {
    let state = state_folder();
    let (_server, url) = console(state.path(), &[]);

    let overview = get_json(&url, "/api/overview");
    assert_eq!(overview["stores"].as_array().unwrap().len(), 2);
    assert_eq!(overview["agents"].as_array().unwrap().len(), 3);

    let stores = get_json(&url, "/api/stores");
    let ids = strings(&stores, "id");
    assert_eq!(ids, ["agent.solo", "profile.notes"]);

    let notes = get_json(&url, "/api/stores/profile.notes");
    assert_eq!(notes["totals"]["count"], 1);
    assert_eq!(notes["totals"]["chars"], 50);
    assert_eq!(notes["peaks"]["count"], 2);
    assert_eq!(notes["peaks"]["chars"], 97);
    assert_eq!(notes["peaks"]["lines"], 3);
    assert_eq!(notes["everHeld"], 2);
    assert_eq!(notes["deleted"], 1);
    assert_eq!(notes["revisions"], 4);
    let holders = strings(&notes["holders"], "agent");
    assert_eq!(holders, ["ana", "ben"]);

    let memories = get_json(&url, "/api/stores/profile.notes/memories");
    let scratch = memory(&memories, "scratch-notes");
    assert_eq!(scratch["deleted"], true);
    assert_eq!(scratch["chars"], 47, "a deleted memory keeps its last size");
    assert_eq!(scratch["lastMutation"], "delete");
    assert_eq!(scratch["lastAgent"], "ben");

    let history = get_json(
        &url,
        "/api/stores/profile.notes/memories/deploy-runbook/revisions",
    );
    let history = history.as_array().unwrap();
    assert_eq!(history.len(), 2);
    assert_eq!(history[0]["revision"], 1);
    assert_eq!(history[0]["mutation"], "create");
    assert_eq!(history[0]["text"], "Roll staging first.");
    assert_eq!(history[1]["mutation"], "edit");
    let diff = history[1]["diff"].as_str().unwrap();
    assert!(diff.contains("-Roll staging first."), "{diff}");
    assert!(
        diff.contains("+Roll staging first, then production after an hour."),
        "{diff}"
    );
    let deleted = get_json(
        &url,
        "/api/stores/profile.notes/memories/scratch-notes/revisions",
    );
    assert_eq!(deleted[1]["mutation"], "delete");
    assert_eq!(deleted[1]["text"], "");

    let agents = get_json(&url, "/api/agents");
    let profiles = agents["profiles"].as_array().unwrap();
    let notes_row = profiles.iter().find(|p| p["profile"] == "notes").unwrap();
    assert_eq!(notes_row["sharing"], "share one store");
    assert_eq!(notes_row["stores"], serde_json::json!(["profile.notes"]));
    assert_eq!(notes_row["divergences"], serde_json::json!([]));
    let solo = profiles.iter().find(|p| p["profile"] == "solo").unwrap();
    assert_eq!(solo["stores"], serde_json::json!(["agent.solo"]));

    for missing in [
        "/api/stores/agent.nobody",
        "/api/stores/agent.nobody/memories",
        "/api/stores/profile.notes/memories/never-held/revisions",
        "/api/nothing-here",
    ] {
        let (status, body) = get(&url, missing);
        assert_eq!(status, 404, "{missing}: {body}");
        assert!(body.contains("\"error\""), "{missing}: {body}");
    }

    // The page and its compiled modules are served by the binary.
    let (status, page) = get(&url, "/");
    assert_eq!(status, 200);
    assert!(page.contains("<script type=\"module\" src=\"/ui/app.js\">"));
    let (status, app) = get(&url, "/ui/app.js");
    assert_eq!(status, 200);
    assert!(app.contains("import { squarify } from \"./treemap.js\""));
    assert!(!app.contains("interface "), "types are stripped");

    // The event stream says `changed` on connect.
    let host = url.trim_start_matches("http://").trim_end_matches('/');
    let mut stream = TcpStream::connect(host).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(stream, "GET /api/events HTTP/1.1\r\nHost: {host}\r\n\r\n").unwrap();
    let mut seen = String::new();
    let mut buf = [0u8; 1024];
    while !seen.contains("event: changed") {
        let n = stream.read(&mut buf).unwrap();
        assert!(n > 0, "the event stream closed: {seen}");
        seen.push_str(&String::from_utf8_lossy(&buf[..n]));
    }
    assert!(seen.contains("text/event-stream"), "{seen}");
}

/// A state folder of 200 agents and 2 000 memories ([`crowd`]).
fn crowd_folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let started = std::time::Instant::now();
    crowd::fill(dir.path());
    eprintln!("the crowd folder took {:?}", started.elapsed());
    dir
}

#[test]
fn the_json_api_searches_and_pages_a_crowd_and_reads_transcripts() {
    let state = crowd_folder();
    let (_server, url) = console(state.path(), &[]);
    let memories = crowd::AGENTS * crowd::PER_AGENT;

    let first = get_json(&url, "/api/find/memories");
    assert_eq!(first["total"], memories);
    assert_eq!(
        (first["offset"].as_u64(), first["limit"].as_u64()),
        (Some(0), Some(50))
    );
    assert_eq!(first["items"].as_array().unwrap().len(), 50);
    assert_eq!(first["items"][0]["store"], "agent.a000");
    assert_eq!(first["items"][0]["slug"], "note-000-0");
    assert_eq!(
        first["items"][0]["chars"], 36,
        "a found memory is the list's row"
    );

    let needle = get_json(
        &url,
        &format!("/api/find/memories?q={}", crowd::NEEDLE.to_uppercase()),
    );
    assert_eq!(needle["total"], 1, "{needle}");
    assert_eq!(
        needle["items"][0]["store"],
        format!("agent.{}", crowd::NEEDLE_AT.0)
    );
    assert_eq!(needle["items"][0]["slug"], crowd::NEEDLE_AT.1);
    let described = get_json(&url, "/api/find/memories?q=note+3+of+a04");
    assert_eq!(described["total"], 10, "a040 … a049's note 3: {described}");

    let page = get_json(&url, "/api/find/memories?store=agent.a005&offset=8&limit=4");
    assert_eq!(page["total"], crowd::PER_AGENT);
    let slugs = strings(&page["items"], "slug");
    assert_eq!(slugs, ["note-005-8", "note-005-9"]);
    let last = get_json(
        &url,
        &format!("/api/find/memories?offset={}&limit=500", memories - 3),
    );
    assert_eq!(last["items"].as_array().unwrap().len(), 3);
    assert_eq!(last["items"][2]["slug"], "note-199-9");

    let agents = get_json(&url, "/api/find/agents?limit=20");
    assert_eq!(agents["total"], crowd::AGENTS);
    assert_eq!(agents["items"].as_array().unwrap().len(), 20);
    assert_eq!(agents["items"][0]["id"], "a000");
    assert_eq!(agents["items"][0]["totals"]["count"], crowd::PER_AGENT);
    let filtered = get_json(&url, "/api/find/agents?q=A12");
    let ids = strings(&filtered["items"], "id");
    assert_eq!(ids, (120..130).map(|i| format!("a{i}")).collect::<Vec<_>>());
    let profile = get_json(&url, "/api/find/agents?profile=crowd-1&offset=45");
    assert_eq!(profile["total"], crowd::AGENTS / 4);
    assert_eq!(profile["items"].as_array().unwrap().len(), 5);
    assert_eq!(profile["items"][0]["profile"], "crowd-1");

    let t = get_json(&url, &format!("/api/agents/{}/transcript", crowd::THREW));
    assert_eq!(
        (t["profile"].as_str(), t["turn"].as_u64()),
        (Some("crowd-3"), Some(1))
    );
    let turn = &t["turns"][0];
    assert_eq!(turn["turn"], 1);
    assert_eq!(turn["items"][0]["type"], "program");
    assert_eq!(turn["items"][0]["source"], crowd::program(crowd::THREW));
    let ack = &turn["items"][1];
    assert_eq!(ack["type"], "acknowledgement");
    assert_eq!(ack["status"], "threw");
    assert_eq!(ack["console"][0]["text"], "hello from a007");
    assert!(ack["error"].as_str().unwrap().contains("too long"), "{ack}");
    assert_eq!(
        (t["eventsTotal"].as_u64(), t["events"][0]["type"].as_str()),
        (Some(1), Some("memory_pull"))
    );

    assert_eq!(t["revisions"].as_array().unwrap().len(), crowd::PER_AGENT);
    assert_eq!(t["revisions"][0]["slug"], "note-007-0");
    assert!(t["revisions"][0]["atMs"].as_i64().unwrap() > 0);

    // The old routes answer as before over the crowd.
    assert_eq!(
        get_json(&url, "/api/overview")["agents"]
            .as_array()
            .unwrap()
            .len(),
        crowd::AGENTS
    );
    assert_eq!(
        get_json(&url, "/api/stores/agent.a010/memories")
            .as_array()
            .unwrap()
            .len(),
        crowd::PER_AGENT
    );

    for (path, status) in [
        ("/api/find/memories?store=agent.nobody", 404),
        ("/api/agents/nobody/transcript", 404),
        ("/api/find/memories?limit=ten", 400),
        ("/api/find/agents?offset=-1", 400),
    ] {
        let (got, body) = get(&url, path);
        assert_eq!(got, status, "{path}: {body}");
        assert!(body.contains("\"error\""), "{path}: {body}");
    }
}

/// A state folder of one agent 2 000 turns old, written through gg's own
/// store, agent store and event stream
/// ([`gg_module::durable::inspect::long_lived`]): 20 memories created per
/// turn (40 000 in its store, 40 000 `memory_revision` events), 2 000
/// `turn` events, and a `memory_state` of the whole set every 100 turns
/// (every turn, as the runtime emits it, would make 3 GB to write); its
/// stream rotated in 4 MiB segments, three kept, so the older events are
/// gone from the disk but not from the count.
#[test]
fn the_overview_agents_and_stores_answer_fast_for_an_agent_two_thousand_turns_old() {
    use gg_module::durable::inspect::long_lived::{self, Shape};
    use gg_module::events::EventLogLimits;
    let state = tempfile::tempdir().unwrap();
    let shape = Shape {
        turns: 2_000,
        per_turn: 20,
        state_every: 100,
        limits: EventLogLimits {
            segment_bytes: 4 << 20,
            kept_segments: 3,
        },
    };
    let started = std::time::Instant::now();
    let written = long_lived::write(state.path(), &shape).unwrap();
    eprintln!("the long-lived folder took {:?}", started.elapsed());
    assert_eq!(written.memories, 40_000);
    assert_eq!(written.events, 40_000 + 2_000 + 20);
    let (_server, url) = console(state.path(), &[]);

    // Debug build, shared machine: generous. Issue #24 measured 3.5–5.8 s
    // for the first two on a 3 GB stream before the stream's index.
    let bound = Duration::from_secs(2);
    let timed = |path: &str| {
        let started = std::time::Instant::now();
        let (status, body) = get(&url, path);
        let took = started.elapsed();
        assert_eq!(status, 200, "{path}: {body}");
        assert!(took < bound, "{path} took {took:?}, more than {bound:?}");
        eprintln!("{path}: {took:?}");
        serde_json::from_str::<serde_json::Value>(&body).unwrap()
    };
    let overview = timed("/api/overview");
    let agent = &overview["agents"][0];
    assert_eq!(agent["id"], long_lived::AGENT);
    assert_eq!(
        agent["events"], written.events,
        "every event, rotated out or not"
    );
    assert_eq!(agent["turn"], 2_000);
    assert_eq!(agent["totals"]["count"], 40_000);
    let agents = timed("/api/agents");
    assert_eq!(agents["agents"].as_array().unwrap().len(), 1);
    assert_eq!(agents["agents"][0]["events"], written.events);
    let stores = timed("/api/stores");
    assert_eq!(stores[0]["everHeld"], 40_000);
    assert_eq!(stores[0]["revisions"], 40_000);
    let transcript = timed(&format!("/api/agents/{}/transcript", long_lived::AGENT));
    assert_eq!(transcript["eventsTotal"], written.events);
    let events = transcript["events"].as_array().unwrap();
    assert_eq!(events.len(), 500);
    assert_eq!(events[499]["type"], "turn");
    assert_eq!(events[499]["turn"], 2_000);
}

#[test]
fn reading_leaves_the_state_folder_as_it_was() {
    let state = state_folder();
    let before = snapshot(state.path());
    let (server, url) = console(state.path(), &[]);
    for path in [
        "/api/overview",
        "/api/agents",
        "/api/stores/profile.notes/memories",
        "/api/stores/profile.notes/memories/deploy-runbook/revisions",
        "/api/find/memories?q=staging",
        "/api/find/agents?q=a",
        "/api/agents/ana/transcript",
    ] {
        get_json(&url, path);
    }
    drop(server);
    assert_eq!(snapshot(state.path()), before);
}

#[test]
fn a_store_url_that_is_not_postgres_or_unreachable_is_refused_at_start() {
    let state = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(state.path().join("events")).unwrap();
    std::fs::write(state.path().join("events").join("a.jsonl"), "").unwrap();
    let start = |store: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_gg"))
            .args(["console", "--addr", "127.0.0.1:0", "--state"])
            .arg(state.path())
            .args(["--store", store])
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, stderr) = start("sqlite");
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("gg: --store: the store URL sqlite is not a postgres:// URL"),
        "{stderr}"
    );
    let (code, stderr) = start("postgres://gg@127.0.0.1:notaport/gg");
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("not a PostgreSQL URL gg can read"),
        "{stderr}"
    );
    // Port 1: nothing listens, the connection is refused at once.
    let (code, stderr) = start("postgres://gg:secret@127.0.0.1:1/gg");
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("is unreachable"), "{stderr}");
    assert!(
        !stderr.contains("secret"),
        "the password is blanked: {stderr}"
    );
}

/// Every gg file's bytes (SQLite's -wal/-shm coordination files aside).
fn snapshot(root: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files: Vec<(PathBuf, Vec<u8>)> = walkdir(root)
        .into_iter()
        .filter(|p| {
            let name = p.to_string_lossy();
            !name.ends_with("-wal") && !name.ends_with("-shm")
        })
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            (p, bytes)
        })
        .collect();
    files.sort();
    files
}

fn walkdir(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walkdir(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// `node_modules` with playwright-core, installed once under the target folder.
fn node_modules() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("console-playwright");
        let modules = root.join("node_modules");
        if !modules
            .join("playwright-core")
            .join("package.json")
            .is_file()
        {
            std::fs::create_dir_all(&root).unwrap();
            let out = Command::new("npm")
                .args([
                    "install",
                    "--no-audit",
                    "--no-fund",
                    "--no-save",
                    "--prefix",
                ])
                .arg(&root)
                .arg(PLAYWRIGHT)
                .output()
                .expect("npm (Node.js) is needed for the console's browser test");
            assert!(
                out.status.success(),
                "installing {PLAYWRIGHT} failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        modules
    })
}

/// Runs `tests/console/<script>` (or `script`, an absolute path; it finds
/// the shared helpers at `CONSOLE_HELPERS`) in headless Chromium against
/// the console at `url` (within 180 s); returns what it printed, its
/// checks passed.
fn browse(
    script: &str,
    url: &str,
    expect: &serde_json::Value,
    live: &serde_json::Value,
    screenshot: &Path,
) -> String {
    assert!(
        Path::new(CHROMIUM).exists(),
        "{CHROMIUM} is missing: run scripts/setup (it installs Debian's chromium)"
    );
    let child = Command::new("node")
        .arg(repo().join("tests/console").join(script))
        .env("NODE_PATH", node_modules())
        .env("CONSOLE_URL", url)
        .env("EXPECT", expect.to_string())
        .env("LIVE_CMD", live.to_string())
        .env("SCREENSHOT", screenshot)
        .env(
            "CONSOLE_HELPERS",
            repo().join("tests/console").join("chromium.js"),
        )
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node");
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let out = match rx.recv_timeout(Duration::from_secs(180)) {
        Ok(out) => out.unwrap(),
        Err(_) => {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
            panic!("the browser script {script} did not finish within 180 s");
        }
    };
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "the browser checks failed:\n{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// Where the browser tests save their screenshots, `name` removed first.
fn artifact(name: &str) -> PathBuf {
    let artifacts = repo().join("target").join("test-artifacts");
    std::fs::create_dir_all(&artifacts).unwrap();
    let path = artifacts.join(name);
    let _ = std::fs::remove_file(&path);
    path
}

#[test]
fn the_page_in_headless_chromium_shows_totals_a_deleted_memory_and_its_history_live() {
    let state = state_folder();
    let (_server, url) = console(state.path(), &[]);
    let screenshot = artifact("console.png");

    let live = serde_json::json!([
        env!("CARGO_BIN_EXE_gg"),
        "session",
        "run",
        repo().join("tests/console/live.session.json5"),
        "--state",
        state.path(),
    ]);
    let expect = serde_json::json!({
        "store": {
            "current-count": 1, "current-chars": 50, "current-lines": 1,
            "peak-count": 2, "peak-chars": 97, "peak-lines": 3,
        },
        "scratchRevision1": "Maybe cache the vendor exports.\nCheck with ben.",
        "runbookRevision1": "Roll staging first.",
        "runbookNow": "Roll staging first, then production after an hour.",
    });
    let stdout = browse("browser.js", &url, &expect, &live, &screenshot);
    for line in [
        "ok scratch-notes is marked deleted in the treemap",
        "ok scratch-notes revision 1 reads",
        "ok deploy-runbook revision 1 reads \"Roll staging first.\"",
        "ok the new memory arrived without a reload",
        "ok the notes profile's instances share one store",
    ] {
        assert!(stdout.contains(line), "missing {line:?} in:\n{stdout}");
    }
    assert!(std::fs::metadata(&screenshot).unwrap().len() > 10_000);
}

#[test]
fn the_page_in_headless_chromium_searches_pages_and_shows_a_transcript_live_over_a_crowd() {
    let state = crowd_folder();
    let (_server, url) = console(state.path(), &[]);
    let screenshot = artifact("console-crowd.png");
    let live = serde_json::json!([
        env!("CARGO_BIN_EXE_gg"),
        "session",
        "run",
        repo().join("tests/console/crowd-live.session.json5"),
        "--state",
        state.path(),
    ]);
    let expect = serde_json::json!({
        "memories": crowd::AGENTS * crowd::PER_AGENT,
        "agents": crowd::AGENTS,
        "page2First": "note-005-0",
        "needle": crowd::NEEDLE,
        "needleStore": format!("agent.{}", crowd::NEEDLE_AT.0),
        "needleSlug": crowd::NEEDLE_AT.1,
        "threw": crowd::THREW,
        "program": crowd::program(crowd::THREW),
    });
    let stdout = browse("crowd.js", &url, &expect, &live, &screenshot);
    for line in [
        "ok the search within agent.a050 finds note-050-3",
        "ok page 2 starts at note-005-0",
        "ok the search finds note-123-7",
        "ok agents page 2 starts at a050",
        "ok and the profile narrows it to a121, a125, a129",
        "ok turn 1 shows its program",
        "ok and the 10 revisions it made, with their times",
        "ok and its acknowledgement: threw, with the error",
        "ok the live turn arrived on the agent's page without a reload",
    ] {
        assert!(stdout.contains(line), "missing {line:?} in:\n{stdout}");
    }
    for name in ["search", "agents", "transcript", "transcript-live"] {
        let path = screenshot.with_file_name(format!("console-crowd-{name}.png"));
        assert!(
            std::fs::metadata(&path).unwrap().len() > 10_000,
            "{}",
            path.display()
        );
    }
}

/// The agent whose turns call upstream tool servers.
const CALLER: &str = "caller";
/// The agent one turn of which made more calls than the console reads.
const BUSY: &str = "busy";
/// Calls `BUSY`'s one turn made: more than the newest 500 lines hold.
const BUSY_CALLS: usize = 600;
/// A tool name as an upstream server might send it: markup, never to be
/// parsed as such.
const HOSTILE_TOOL: &str = "<img src=x onerror=\"window.__xss=1\">";

/// A `tool_call` event.
fn tool_call(
    agent: &str,
    turn: u32,
    (server, tool): (&str, &str),
    duration_ms: f64,
    error_code: Option<&str>,
    (argument_chars, result_chars): (usize, usize),
) -> gg_module::events::Event {
    gg_module::events::Event::ToolCall(gg_module::events::ToolCallRecord {
        agent: agent.into(),
        turn,
        server: server.into(),
        tool: tool.into(),
        duration_ms,
        ok: error_code.is_none(),
        error_code: error_code.map(str::to_string),
        argument_chars,
        result_chars,
    })
}

/// A `turn` record: turn `turn` ran program `p<turn>` to the end after
/// emitting `events` events.
fn turn_record(agent: &str, turn: u32, events: usize) -> gg_module::events::Event {
    gg_module::events::Event::Turn(gg_module::events::TurnRecord {
        agent: agent.into(),
        turn,
        program: Some(format!("p{turn}")),
        status: Some(gg_module::window::RunStatus::Ok),
        tool_calls: 0,
        refusals: Vec::new(),
        unrecorded_refusals: 0,
        events,
        duration_ms: 30.0,
    })
}

/// Saves agent `id` to `state.sqlite` with a program and its
/// acknowledgement for each of `turns`.
fn save_agent(root: &Path, id: &str, turns: u32) {
    use gg_module::durable::{AgentRecord, AgentStore, StoredProgram};
    use gg_module::window::{Acknowledgement, ItemBody, RunStatus, Window};
    let mut window = Window::default();
    let mut programs = Vec::new();
    for turn in 1..=turns {
        let program = format!("p{turn}");
        let source = format!("await tools.files.read_text_file({{ path: \"turn-{turn}.md\" }});\n");
        window.push(
            turn,
            ItemBody::Program {
                id: Some(program.clone()),
                source: source.clone(),
            },
        );
        window.push(
            turn,
            ItemBody::Acknowledgement(Acknowledgement {
                program_id: Some(program.clone()),
                status: RunStatus::Ok,
                value: None,
                console: Vec::new(),
                error: None,
                notes: Vec::new(),
            }),
        );
        programs.push(StoredProgram {
            id: program,
            turn,
            source,
            opening: false,
        });
    }
    let record = AgentRecord {
        id: id.into(),
        profile_id: "tools".into(),
        turn: turns,
        next_program: u64::from(turns) + 1,
        window,
        loaded: Vec::new(),
        in_flight: None,
    };
    AgentStore::open(&root.join("state.sqlite"))
        .unwrap()
        .save(&record.as_save(), &programs)
        .unwrap();
}

/// A state folder written through gg-module's agent store and event
/// stream: [`CALLER`] ran three turns — turn 1 called two tool servers
/// (the second call refused), turn 2 two calls (one tool named with
/// markup), turn 3 none — and is in turn 4, one call made so far;
/// [`BUSY`] ran one turn of [`BUSY_CALLS`] calls.
fn tool_call_folder() -> tempfile::TempDir {
    use gg_module::events::EventLog;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    save_agent(root, CALLER, 3);
    save_agent(root, BUSY, 1);

    let mut log = EventLog::to_file(&root.join("events").join(format!("{CALLER}.jsonl"))).unwrap();
    log.emit(tool_call(
        CALLER,
        1,
        ("files", "read_text_file"),
        12.4,
        None,
        (18, 240),
    ));
    log.emit(tool_call(
        CALLER,
        1,
        ("everything", "echo"),
        1.1,
        Some("invalid-argument"),
        (2, 0),
    ));
    log.emit(turn_record(CALLER, 1, 2));
    log.drain();
    log.emit(tool_call(
        CALLER,
        2,
        ("files", HOSTILE_TOOL),
        3.2,
        None,
        (40, 7),
    ));
    log.emit(tool_call(
        CALLER,
        2,
        ("files", "list_directory"),
        2.0,
        None,
        (12, 1_234),
    ));
    log.emit(turn_record(CALLER, 2, 2));
    log.drain();
    log.emit(turn_record(CALLER, 3, 0));
    log.drain();
    log.emit(tool_call(
        CALLER,
        4,
        ("everything", "get-sum"),
        0.5,
        None,
        (15, 1),
    ));
    log.drain();

    let mut log = EventLog::to_file(&root.join("events").join(format!("{BUSY}.jsonl"))).unwrap();
    for k in 0..BUSY_CALLS {
        let tool = format!("read-{k:03}");
        log.emit(tool_call(BUSY, 1, ("files", &tool), 1.0, None, (10, 10)));
    }
    log.emit(turn_record(BUSY, 1, BUSY_CALLS));
    log.drain();
    dir
}

/// The transcript's turn `n`.
fn turn(transcript: &serde_json::Value, n: u64) -> &serde_json::Value {
    transcript["turns"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["turn"] == n)
        .unwrap_or_else(|| panic!("no turn {n}: {transcript}"))
}

#[test]
fn the_transcript_lists_each_turns_tool_calls_with_their_outcomes_and_sizes() {
    use serde_json::json;
    let state = tool_call_folder();
    let (_server, url) = console(state.path(), &[]);

    let t = get_json(&url, &format!("/api/agents/{CALLER}/transcript"));
    assert_eq!(
        turn(&t, 1)["toolCalls"],
        json!([
            { "server": "files", "tool": "read_text_file", "durationMs": 12.4, "ok": true,
              "argumentChars": 18, "resultChars": 240 },
            { "server": "everything", "tool": "echo", "durationMs": 1.1, "ok": false,
              "errorCode": "invalid-argument", "argumentChars": 2, "resultChars": 0 },
        ]),
        "{t}"
    );
    let second = &turn(&t, 2)["toolCalls"];
    assert_eq!(strings(second, "tool"), [HOSTILE_TOOL, "list_directory"]);
    assert_eq!(
        (
            second[1]["durationMs"].as_f64(),
            second[1]["resultChars"].as_u64()
        ),
        (Some(2.0), Some(1_234))
    );
    assert!(second[0].get("errorCode").is_none(), "{second}");
    // Each turn keeps its window entries and record beside its calls.
    assert_eq!(turn(&t, 2)["items"][0]["type"], "program");
    assert_eq!(turn(&t, 2)["record"]["events"], 2);
    let third = turn(&t, 3);
    assert!(third.get("toolCalls").is_none(), "no calls: {third}");
    // The turn still running, not in the window yet, with its call so far.
    let running = turn(&t, 4);
    assert_eq!(running["items"], json!([]));
    assert_eq!(strings(&running["toolCalls"], "tool"), ["get-sum"]);
    let turns: Vec<u64> = t["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["turn"].as_u64().unwrap())
        .collect();
    assert_eq!(turns, [1, 2, 3, 4]);
    for n in 1..=4 {
        assert!(turn(&t, n).get("toolCallsPartial").is_none(), "{t}");
    }

    // A turn of more calls than the newest 500 lines hold: the calls those
    // lines have (the record is the 500th), the turn marked partial.
    let t = get_json(&url, &format!("/api/agents/{BUSY}/transcript"));
    assert_eq!(t["eventsTotal"], BUSY_CALLS + 1);
    let busy = turn(&t, 1);
    let calls = busy["toolCalls"].as_array().unwrap();
    assert_eq!(calls.len(), 499);
    assert_eq!(calls[0]["tool"], format!("read-{:03}", BUSY_CALLS - 499));
    assert_eq!(calls[498]["tool"], format!("read-{:03}", BUSY_CALLS - 1));
    assert_eq!(busy["toolCallsPartial"], true);
}

/// The browser half of the tool-call test: the Agents tab, an agent's
/// page, each turn's calls. (Written out by the test: its helpers are
/// `tests/console/chromium.js`, found at `CONSOLE_HELPERS`.)
const TOOL_CALLS_JS: &str = r##"
const { TIMEOUT, check, text, run } = require(process.env.CONSOLE_HELPERS);
const url = process.env.CONSOLE_URL;
const expect = JSON.parse(process.env.EXPECT);
const screenshot = process.env.SCREENSHOT;

/** Turn `n`'s tool-call rows, each row's cells' text. */
async function calls(page, n) {
  return page
    .locator(`#transcript .turn[data-turn="${n}"] table.tool-calls tbody tr`)
    .evaluateAll((trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent.trim())));
}

async function open(page, agent) {
  await page.click('nav .tab[data-tab="agents"]');
  await page.click(`[data-agent-link="${agent}"]`);
  // The page of the agent asked for, not the one open before it.
  await page.waitForFunction(
    (a) => document.querySelector('[data-testid="agent-title"]')?.textContent.startsWith(`Agent ${a} `),
    agent,
    { timeout: TIMEOUT },
  );
  await page.waitForSelector('#transcript .turn[data-turn="1"] table.tool-calls', { timeout: TIMEOUT });
}

run(url, async (page) => {
  await open(page, expect.caller);
  const first = await calls(page, 1);
  check(JSON.stringify(first) === JSON.stringify(expect.turn1), `turn 1 lists its two calls (${JSON.stringify(first)})`);
  const refused = await text(page, '#transcript .turn[data-turn="1"] table.tool-calls tr[data-ok="false"] .outcome .badge');
  check(refused === "invalid-argument", `the refused call shows its error code (${refused})`);
  const second = await calls(page, 2);
  check(JSON.stringify(second) === JSON.stringify(expect.turn2), `turn 2 lists its calls (${JSON.stringify(second)})`);
  check(
    (await page.locator("#transcript img").count()) === 0 && (await page.evaluate(() => window.__xss)) === undefined,
    "a tool named with markup reads as text, never as markup",
  );
  check((await page.locator('#transcript .turn[data-turn="3"] table.tool-calls').count()) === 0, "turn 3, which called nothing, has no call table");
  const running = await calls(page, 4);
  check(running.length === 1 && running[0][1] === "get-sum", "the running turn lists its call so far");
  check((await text(page, '#transcript .turn[data-turn="4"] h3')).endsWith("still running"), "and is headed as still running");
  check((await page.locator("#transcript .tool-calls .partial").count()) === 0, "no turn of it is marked partial");
  await page.screenshot({ path: screenshot, fullPage: true });

  await page.click('[data-testid="back-to-agents"]');
  await open(page, expect.busy);
  const busy = await calls(page, 1);
  check(busy.length === expect.busyShown, `the busy turn lists the ${busy.length} calls read`);
  check((await page.locator('#transcript .turn[data-turn="1"] .tool-calls .partial').count()) === 1, "and says its older calls were not read");
});
"##;

#[test]
fn the_page_in_headless_chromium_lists_each_turns_tool_calls() {
    let state = tool_call_folder();
    let (_server, url) = console(state.path(), &[]);
    let scripts = tempfile::tempdir().unwrap();
    let script = scripts.path().join("tool-calls.js");
    std::fs::write(&script, TOOL_CALLS_JS).unwrap();
    let screenshot = artifact("console-tool-calls.png");
    let expect = serde_json::json!({
        "caller": CALLER,
        "busy": BUSY,
        "busyShown": 499,
        "turn1": [
            ["files", "read_text_file", "12.4", "ok", "18", "240"],
            ["everything", "echo", "1.1", "invalid-argument", "2", "0"],
        ],
        "turn2": [
            ["files", HOSTILE_TOOL, "3.2", "ok", "40", "7"],
            ["files", "list_directory", "2.0", "ok", "12", "1,234"],
        ],
    });
    let stdout = browse(
        script.to_str().unwrap(),
        &url,
        &expect,
        &serde_json::Value::Null,
        &screenshot,
    );
    for line in [
        "ok turn 1 lists its two calls",
        "ok the refused call shows its error code (invalid-argument)",
        "ok turn 2 lists its calls",
        "ok a tool named with markup reads as text, never as markup",
        "ok turn 3, which called nothing, has no call table",
        "ok the running turn lists its call so far",
        "ok and is headed as still running",
        "ok the busy turn lists the 499 calls read",
        "ok and says its older calls were not read",
    ] {
        assert!(stdout.contains(line), "missing {line:?} in:\n{stdout}");
    }
    assert!(std::fs::metadata(&screenshot).unwrap().len() > 10_000);
}

/// The status line and headers (names lower-cased) of one request for
/// `path` with `host` as its Host header.
fn response_head(base: &str, path: &str, host: &str) -> (u16, Vec<(String, String)>) {
    let addr = base.trim_start_matches("http://").trim_end_matches('/');
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut raw = Vec::new();
    let mut buf = [0u8; 4096];
    // The head only: the event stream never ends.
    while !raw.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = stream.read(&mut buf).unwrap();
        assert!(n > 0, "{path}: the connection closed in the head");
        raw.extend_from_slice(&buf[..n]);
    }
    let raw = String::from_utf8_lossy(&raw);
    let head = raw.split("\r\n\r\n").next().unwrap();
    let mut lines = head.lines();
    let status = lines.next().unwrap().split(' ').nth(1).unwrap();
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    (status.parse().unwrap(), headers)
}

#[test]
fn every_response_forbids_framing_sniffing_referrers_and_anything_but_its_own_files() {
    let state = state_folder();
    let (_server, url) = console(state.path(), &[]);
    let host = url.trim_start_matches("http://").trim_end_matches('/');
    for (path, host, status) in [
        ("/", host, 200),
        ("/ui/style.css", host, 200),
        ("/ui/app.js", host, 200),
        ("/api/overview", host, 200),
        ("/api/events", host, 200),
        ("/api/stores/no-such-store/memories", host, 404),
        ("/no/such/route", host, 404),
        // Refused by the guard (a rebinding page's name), before any route.
        ("/", "evil.example", 403),
    ] {
        let (got, headers) = response_head(&url, path, host);
        assert_eq!(got, status, "{path} (Host {host}): {headers:?}");
        let header = |name: &str| {
            let values: Vec<&str> = headers
                .iter()
                .filter(|(k, _)| k == name)
                .map(|(_, v)| v.as_str())
                .collect();
            assert_eq!(values.len(), 1, "{path}: one {name} in {headers:?}");
            values[0].to_string()
        };
        assert_eq!(header("x-frame-options"), "DENY", "{path}");
        assert_eq!(header("x-content-type-options"), "nosniff", "{path}");
        assert_eq!(header("referrer-policy"), "no-referrer", "{path}");
        let csp = header("content-security-policy");
        let directives: Vec<&str> = csp.split(';').map(str::trim).collect();
        for directive in [
            "default-src 'none'",
            "script-src 'self'",
            "style-src 'self'",
            "connect-src 'self'",
            "frame-ancestors 'none'",
            "base-uri 'none'",
            "form-action 'none'",
        ] {
            assert!(
                directives.contains(&directive),
                "{path}: {directive} in {csp}"
            );
        }
        assert!(
            !csp.contains("unsafe-inline") && !csp.contains("unsafe-eval"),
            "{path}: {csp}"
        );
    }
    // What the policy allows is all the page needs: no inline script or
    // style, no style attribute (the browser tests also check that Chromium
    // refused nothing).
    let (_, page) = get(&url, "/");
    assert!(
        !page.contains("<style") && !page.contains(" style="),
        "{page}"
    );
    for script in page.split("<script").skip(1) {
        assert!(
            script
                .trim_start()
                .starts_with("type=\"module\" src=\"/ui/"),
            "{script}"
        );
    }
}
