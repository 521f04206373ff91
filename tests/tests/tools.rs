//! Tools: the embedder's host functions and real upstream MCP servers
//! (`@modelcontextprotocol/server-everything` and `server-filesystem`,
//! installed from npm into `target/` by the test), reached by programs as
//! typed `gg/tools/<server>` modules and by tool-calling models as native
//! tools, through the same checks, limits and events.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use gg_module::{Mode, Profile};
use gg_runtime::{Agent, AgentOptions, HostTool, Response, ToolCall, ToolError};
use gg_tests::{ack, run};
use serde_json::{json, Value};

fn agent(profile: Profile, host_tools: Vec<HostTool>) -> Result<Agent, gg_runtime::AgentError> {
    Agent::new(AgentOptions::new(profile).host_tools(host_tools))
}

/// The shop's host functions: an order lookup answering structured content,
/// a slow one, and one that refuses.
fn shop_tools() -> Vec<HostTool> {
    let lookup = HostTool::new(
        "shop",
        "lookup_order",
        "Looks up an order by its id.",
        json!({
            "type": "object",
            "properties": {
                "id": { "type": "integer", "minimum": 1, "description": "The order's id." },
                "withLines": { "type": "boolean" }
            },
            "required": ["id"],
            "additionalProperties": false
        }),
        |args: Value| async move {
            let id = args["id"].as_i64().unwrap_or_default();
            if id == 404 {
                return Err(ToolError::not_found(format!("there is no order {id}")));
            }
            Ok(json!({ "id": id, "total": id * 10, "status": "shipped" }))
        },
    )
    .with_output_schema(json!({
        "type": "object",
        "properties": { "id": { "type": "integer" }, "total": { "type": "number" }, "status": { "type": "string" } },
        "required": ["id", "total", "status"]
    }));
    let slow = HostTool::new(
        "shop",
        "slow-report",
        "Takes its time.",
        json!({ "type": "object", "properties": {} }),
        |_args: Value| async move {
            // Handlers run on gg's tool runtime, whose timers this uses.
            tokio::time::sleep(Duration::from_secs(5)).await;
            Ok(Value::String("late".into()))
        },
    )
    .with_time_ms(200);
    vec![lookup, slow]
}

fn code_profile() -> Profile {
    Profile::from_json5(
        r#"{ id: "shop-agent", programs: { timeMs: 3000 } }"#,
        "test",
    )
    .unwrap()
}

#[test]
fn host_functions_are_typed_modules_checked_host_side() {
    let mut agent = agent(code_profile(), shop_tools()).expect("agent");
    let prompt = agent.system_prompt();
    assert!(
        prompt.contains("declare module \"gg/tools/shop\""),
        "{prompt}"
    );
    assert!(
        prompt.contains("export function lookupOrder(args: {"),
        "{prompt}"
    );
    assert!(prompt.contains("Looks up an order by its id."), "{prompt}");
    assert!(prompt.contains("export function slowReport("), "{prompt}");

    let out = run(
        &mut agent,
        r#"import { lookupOrder } from "gg/tools/shop";
           const [a, b] = await Promise.all([lookupOrder({ id: 3 }), lookupOrder({ id: 5, withLines: true })]);
           export default [a.total, b.status];"#,
    );
    assert_eq!(
        ack(&out).value.as_deref(),
        Some("[30,\"shipped\"]"),
        "{:?}",
        ack(&out)
    );
    let events = gg_tests::json(&out.events);
    let calls: Vec<&Value> = events.iter().filter(|e| e["type"] == "tool_call").collect();
    assert_eq!(calls.len(), 2, "{:?}", gg_tests::json(&out.events));
    assert_eq!(calls[0]["server"], "shop");
    assert_eq!(calls[0]["tool"], "lookup_order");
    assert_eq!(calls[0]["ok"], true);
    assert_eq!(calls[0]["turn"], 1);
    assert!(
        calls[0]["resultChars"].as_u64().unwrap() > 10,
        "{}",
        calls[0]
    );

    // The schema is checked before the handler runs, naming the field.
    let out = run(
        &mut agent,
        r#"import { lookupOrder } from "gg/tools/shop";
           import { GgError } from "gg";
           const seen = [];
           for (const bad of [{ id: "7" }, {}, { id: 0 }, { id: 1, extra: true }, 5]) {
             try { await lookupOrder(bad); seen.push("passed"); }
             catch (e) { seen.push((e instanceof GgError) + " " + e.code + " " + e.message); }
           }
           export default seen;"#,
    );
    let seen: Vec<String> = serde_json::from_str(
        ack(&out)
            .value
            .as_deref()
            .unwrap_or_else(|| panic!("{:?}", ack(&out))),
    )
    .unwrap();
    assert_eq!(seen.len(), 5);
    assert!(
        seen[0].starts_with("true invalid-argument shop.lookup_order: args.id must be an integer"),
        "{seen:?}"
    );
    assert!(
        seen[1].contains("invalid-argument") && seen[1].contains("\"id\""),
        "{seen:?}"
    );
    assert!(seen[2].contains("args.id must be at least 1"), "{seen:?}");
    assert!(seen[3].contains("unknown field \"extra\""), "{seen:?}");
    assert!(
        seen[4].contains("one object argument, got a number"),
        "{seen:?}"
    );
    assert!(
        gg_tests::json(&out.events)
            .iter()
            .all(|e| e["type"] != "tool_call"),
        "a refused call never reaches the tool: {:?}",
        gg_tests::json(&out.events)
    );
    assert_eq!(out.refusals.len(), 5, "{:?}", out.refusals);

    // The handler's refusal, the limit, and a tool that is not offered.
    let out = run(
        &mut agent,
        r#"import { lookupOrder, slowReport } from "gg/tools/shop";
           import { call as callTool } from "gg/tools";
           const seen = [];
           for (const call of [() => lookupOrder({ id: 404 }), () => slowReport({}), () => callTool("shop", "drop_tables", {}), () => callTool("bank", "pay", {})]) {
             try { await call(); seen.push("passed"); } catch (e) { seen.push(e.code + " " + e.message); }
           }
           export default seen;"#,
    );
    let seen: Vec<String> = serde_json::from_str(
        ack(&out)
            .value
            .as_deref()
            .unwrap_or_else(|| panic!("{:?}", ack(&out))),
    )
    .unwrap();
    assert_eq!(seen[0], "not-found there is no order 404", "{seen:?}");
    assert!(
        seen[1].starts_with(
            "limit-exceeded shop.slow-report did not answer within its limit of 200 ms"
        ),
        "{seen:?}"
    );
    assert!(
        seen[2].starts_with("unavailable") && seen[2].contains("\"lookup_order\""),
        "{seen:?}"
    );
    assert!(
        seen[3].starts_with("unavailable") && seen[3].contains("\"shop\""),
        "{seen:?}"
    );
    let events = gg_tests::json(&out.events);
    let calls: Vec<&Value> = events.iter().filter(|e| e["type"] == "tool_call").collect();
    assert_eq!(calls.len(), 2, "{:?}", gg_tests::json(&out.events));
    assert_eq!(calls[0]["errorCode"], "not-found");
    assert_eq!(calls[1]["errorCode"], "limit-exceeded");

    // Other specifiers stay closed, and the refusal names the tool modules.
    let out = run(
        &mut agent,
        r#"import { x } from "gg/tools/bank"; export default x;"#,
    );
    let error = ack(&out).error.clone().unwrap_or_default();
    assert!(error.contains("\"gg/tools/shop\""), "{error}");
}

#[test]
fn host_functions_are_native_tools_in_tool_calling_mode() {
    let mut profile = code_profile();
    profile.mode = Mode::ToolCalling;
    let mut agent = agent(profile, shop_tools()).expect("agent");
    let names: Vec<String> = agent
        .tool_schemas()
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, ["shop__lookup_order", "shop__slow-report"]);
    let schema = &agent.tool_schemas()[0];
    assert_eq!(schema["input_schema"]["required"], json!(["id"]));
    let out = agent
        .turn(Response::ToolCalls(vec![
            ToolCall {
                id: "c1".into(),
                name: "shop__lookup_order".into(),
                arguments: json!({ "id": 2 }),
            },
            ToolCall {
                id: "c2".into(),
                name: "shop__lookup_order".into(),
                arguments: json!({ "id": "2" }),
            },
            ToolCall {
                id: "c3".into(),
                name: "shop__missing".into(),
                arguments: json!({}),
            },
        ]))
        .expect("turn");
    assert!(!out.tool_results[0].is_error);
    assert_eq!(
        serde_json::from_str::<Value>(&out.tool_results[0].content).unwrap(),
        json!({ "id": 2, "total": 20, "status": "shipped" })
    );
    assert!(out.tool_results[1].is_error);
    assert!(
        out.tool_results[1]
            .content
            .contains("args.id must be an integer"),
        "{:?}",
        out.tool_results[1]
    );
    assert!(out.tool_results[2].is_error);
    assert!(
        out.tool_results[2].content.contains("shop__lookup_order"),
        "{:?}",
        out.tool_results[2]
    );
    let events = gg_tests::json(&out.events);
    let calls = events.iter().filter(|e| e["type"] == "tool_call").count();
    assert_eq!(calls, 1, "{:?}", gg_tests::json(&out.events));
}

#[test]
fn a_host_tool_with_a_bad_server_name_is_refused_at_launch() {
    let tool = HostTool::new(
        "bad name",
        "x",
        "x",
        json!({"type": "object"}),
        |_v: Value| async { Ok(Value::Null) },
    );
    let error = agent(code_profile(), vec![tool])
        .err()
        .expect("refused")
        .to_string();
    assert!(error.contains("\"bad name\""), "{error}");
}

/// The npm MCP servers, installed once into `target/tmp/tool-servers` by
/// `tests/tools/install`; their `node_modules/@modelcontextprotocol`.
fn servers() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let script = gg_tests::fixtures().join("../tests/tools/install");
        let target = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tool-servers");
        let out = Command::new("bash")
            .arg(&script)
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

fn server_script(package: &str) -> String {
    servers()
        .join(package)
        .join("dist/index.js")
        .display()
        .to_string()
}

/// Two servers: everything (its node started with `title`, which names
/// the process for `pkill`, and makes it a connection of its own: the
/// process shares a server only between identical configurations) and
/// files, rooted at `root`.
fn upstream_profile(
    mode: &str,
    root: &Path,
    allow_everything: &str,
    time_ms: u64,
    title: &str,
) -> Profile {
    let text = json!({
        "id": "upstream",
        "mode": mode,
        "programs": { "timeMs": 20000 },
        "capabilities": [{
            "id": "tools",
            "params": {
                "servers": [
                    {
                        "name": "everything",
                        "command": "node",
                        "args": [format!("--title={title}"), server_script("server-everything"), "stdio"],
                        "allow": serde_json::from_str::<Value>(allow_everything).unwrap(),
                        "timeMs": time_ms
                    },
                    {
                        "name": "files",
                        "command": "node",
                        "args": [server_script("server-filesystem"), root.display().to_string()],
                        "allow": ["list_directory", "read_text_file", "write_file"]
                    }
                ]
            }
        }]
    });
    Profile::from_json5(&text.to_string(), "test").unwrap()
}

#[test]
fn upstream_servers_from_npm_in_code_mode() {
    let root = tempfile::tempdir().unwrap();
    std::fs::write(root.path().join("a.txt"), "alpha\n").unwrap();
    std::fs::write(root.path().join("b.txt"), "beta\n").unwrap();
    let profile = upstream_profile(
        "code",
        root.path(),
        r#"["echo", "get-sum", "get-structured-content", "get-resource-reference", "trigger-long-running-operation"]"#,
        1500,
        "gg-tools-code-mode",
    );
    let mut agent = Agent::new(AgentOptions::new(profile)).expect("agent");
    let prompt = agent.system_prompt();
    assert!(
        prompt.contains("declare module \"gg/tools/everything\""),
        "{prompt}"
    );
    assert!(
        prompt.contains("export function getSum(args: {"),
        "{prompt}"
    );
    assert!(
        prompt.contains("export function listDirectory("),
        "{prompt}"
    );
    // Only allowed tools appear.
    assert!(!prompt.contains("getTinyImage"), "{prompt}");
    assert!(!prompt.contains("export function readFile("), "{prompt}");

    let out = run(
        &mut agent,
        r#"import { echo, getSum, getStructuredContent } from "gg/tools/everything";
           import { listDirectory, readTextFile, writeFile } from "gg/tools/files";
           const listing = await listDirectory({ path: "." });
           const names = listing.content.split("\n").map((l) => l.replace("[FILE] ", "")).sort();
           const texts = await Promise.all(names.map((path) => readTextFile({ path })));
           await writeFile({ path: "summary.txt", content: texts.map((t) => t.content.trim()).join("+") });
           export default {
             names,
             echo: await echo({ message: "hi" }),
             sum: await getSum({ a: 2, b: 3 }),
             weather: (await getStructuredContent({ location: "Chicago" })).conditions.length > 0,
           };"#,
    );
    let value: Value = serde_json::from_str(ack(&out).value.as_deref().expect("a value")).unwrap();
    assert_eq!(value["names"], json!(["a.txt", "b.txt"]), "{value}");
    assert_eq!(value["echo"], "Echo: hi", "{value}");
    assert_eq!(value["sum"], "The sum of 2 and 3 is 5.", "{value}");
    assert_eq!(value["weather"], true, "{value}");
    assert_eq!(
        std::fs::read_to_string(root.path().join("summary.txt")).unwrap(),
        "alpha+beta"
    );
    let events = gg_tests::json(&out.events);
    let calls = events.iter().filter(|e| e["type"] == "tool_call").count();
    assert_eq!(calls, 7, "{:?}", gg_tests::json(&out.events));

    // Errors: the server's isError text, a host-side schema refusal, a
    // disallowed tool, and a slow tool past its timeMs.
    let out = run(
        &mut agent,
        r#"import { getResourceReference, triggerLongRunningOperation, echo } from "gg/tools/everything";
           import { readTextFile } from "gg/tools/files";
           import { call as callTool } from "gg/tools";
           const seen = [];
           const calls = [
             () => getResourceReference({ resourceId: 0 }),
             () => readTextFile({ path: "missing.txt" }),
             () => echo({ message: 5 }),
             () => callTool("everything", "get-tiny-image", {}),
             () => triggerLongRunningOperation({ duration: 5, steps: 1 }),
           ];
           for (const call of calls) {
             try { await call(); seen.push("passed"); } catch (e) { seen.push(e.code + " " + e.message); }
           }
           export default seen;"#,
    );
    let seen: Vec<String> = serde_json::from_str(ack(&out).value.as_deref().unwrap()).unwrap();
    assert!(
        seen[0].starts_with("io-error everything.get-resource-reference: Invalid resourceId: 0"),
        "{seen:?}"
    );
    assert!(
        seen[1].starts_with("io-error files.read_text_file:") && seen[1].contains("ENOENT"),
        "{seen:?}"
    );
    assert!(
        seen[2].starts_with("invalid-argument everything.echo: args.message must be a string"),
        "{seen:?}"
    );
    assert!(
        seen[3].starts_with("unavailable") && seen[3].contains("get-tiny-image"),
        "{seen:?}"
    );
    assert!(seen[4].starts_with("limit-exceeded everything.trigger-long-running-operation did not answer within its limit of 1500 ms"), "{seen:?}");
}

#[test]
fn upstream_servers_in_tool_calling_mode_and_a_killed_server_restarts() {
    let root = tempfile::tempdir().unwrap();
    std::fs::write(root.path().join("a.txt"), "alpha\n").unwrap();
    let profile = upstream_profile(
        "tool-calling",
        root.path(),
        r#"["ech*"]"#,
        5000,
        "gg-tools-restart",
    );
    let mut agent = Agent::new(AgentOptions::new(profile)).expect("agent");
    let names: Vec<String> = agent
        .tool_schemas()
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        names,
        // The server's own order.
        [
            "everything__echo",
            "files__read_text_file",
            "files__write_file",
            "files__list_directory"
        ]
    );
    let call = |agent: &mut Agent, name: &str, arguments: Value| {
        agent
            .turn(Response::ToolCalls(vec![ToolCall {
                id: "c".into(),
                name: name.into(),
                arguments,
            }]))
            .expect("turn")
            .tool_results
            .remove(0)
    };
    let echoed = call(&mut agent, "everything__echo", json!({ "message": "one" }));
    assert_eq!(echoed.content, "Echo: one", "{echoed:?}");
    let refused = call(&mut agent, "everything__get-sum", json!({ "a": 1, "b": 2 }));
    assert!(
        refused.is_error && refused.content.contains("everything__echo"),
        "{refused:?}"
    );
    let read = call(
        &mut agent,
        "files__read_text_file",
        json!({ "path": "a.txt" }),
    );
    assert_eq!(
        serde_json::from_str::<Value>(&read.content).unwrap()["content"],
        "alpha\n"
    );

    // Kill the everything server behind gg's back: the next call restarts it.
    let killed = Command::new("pkill")
        .args(["-f", "gg-tools-restart"])
        .status()
        .unwrap();
    assert!(killed.success());
    std::thread::sleep(Duration::from_millis(300));
    let mut answer = call(&mut agent, "everything__echo", json!({ "message": "two" }));
    if answer.is_error {
        // The death was seen by this call (the pipe closed under it): the
        // one after restarts.
        assert!(answer.content.contains("unavailable"), "{answer:?}");
        answer = call(&mut agent, "everything__echo", json!({ "message": "two" }));
    }
    assert_eq!(answer.content, "Echo: two", "{answer:?}");
}

#[test]
fn a_server_that_cannot_start_is_named_at_launch() {
    let profile = Profile::from_json5(
        r#"{ id: "broken", capabilities: [{ id: "tools", params: { servers: [
             { name: "ghost", command: "/nonexistent/mcp-server", allow: ["*"], timeMs: 2000 },
             { name: "mute", command: "sleep", args: ["30"], allow: ["*"], timeMs: 1000 } ] } }] }"#,
        "test",
    )
    .unwrap();
    let started = std::time::Instant::now();
    let error = Agent::new(AgentOptions::new(profile))
        .err()
        .expect("refused")
        .to_string();
    assert!(started.elapsed() < Duration::from_secs(10), "never a hang");
    assert!(
        error.contains("\"ghost\"") && error.contains("could not be started"),
        "{error}"
    );
    assert!(
        error.contains("\"mute\"") && error.contains("1000 ms"),
        "{error}"
    );
}

#[test]
fn the_tools_block_lists_every_problem_at_launch() {
    let profile = Profile::from_json5(
        r#"{ id: "bad", capabilities: [{ id: "tools", params: { servers: [
             { name: "a b", command: "x" }, { name: "u", url: "ftp://x", allow: ["*"] } ] } }] }"#,
        "test",
    )
    .unwrap();
    let error = agent(profile, Vec::new())
        .err()
        .expect("refused")
        .to_string();
    assert!(error.contains("\"a b\""), "{error}");
    assert!(error.contains("allow"), "{error}");
    assert!(
        error.contains("ftp://x") || error.contains("http://"),
        "{error}"
    );
}

#[test]
fn a_flood_of_calls_is_bounded_and_a_stalled_call_is_named_at_the_time_limit() {
    let pause = |name: &str, ms: u64| {
        HostTool::new(
            "clock",
            name,
            "Waits.",
            json!({ "type": "object" }),
            move |_v: Value| async move {
                tokio::time::sleep(Duration::from_millis(ms)).await;
                Ok(Value::String("done".into()))
            },
        )
    };
    let profile =
        Profile::from_json5(r#"{ id: "flood", programs: { timeMs: 1500 } }"#, "test").unwrap();
    let mut agent = agent(
        profile,
        vec![
            pause("short", 100),
            pause("stall", 20_000).with_time_ms(60_000),
        ],
    )
    .expect("agent");
    let out = run(
        &mut agent,
        r#"import { short } from "gg/tools/clock";
           const settled = await Promise.allSettled(Array.from({ length: 70 }, () => short({})));
           const refused = settled.filter((s) => s.status === "rejected");
           export default [settled.length - refused.length, refused.length, refused[0]?.reason.code];"#,
    );
    assert_eq!(
        ack(&out).value.as_deref(),
        Some("[64,6,\"limit-exceeded\"]"),
        "{:?}",
        ack(&out)
    );
    let out = run(
        &mut agent,
        r#"import { stall } from "gg/tools/clock";
           await stall({});"#,
    );
    let notes = ack(&out).notes.join("\n");
    assert!(
        notes.contains("1 tool call was still waiting") && notes.contains("clock.stall"),
        "{:?}",
        ack(&out)
    );
    // The next turn starts clean: nothing of the stalled call is left.
    let out = run(
        &mut agent,
        r#"import { short } from "gg/tools/clock"; export default await short({});"#,
    );
    assert_eq!(
        ack(&out).value.as_deref(),
        Some("\"done\""),
        "{:?}",
        ack(&out)
    );
}

/// npm's server-memory (a knowledge graph kept in a JSONL file), its file
/// in the server's own folder, named `graph`; its node started with
/// `title`, which names the process for `pgrep`.
fn graph_profile(share: Option<&str>, title: &str) -> Profile {
    let mut server = json!({
        "name": "graph",
        "command": "node",
        "args": [format!("--title={title}"), server_script("server-memory")],
        "env": { "MEMORY_FILE_PATH": "${GG_SERVER_STATE}/memory.jsonl" },
        "allow": ["create_entities", "read_graph"]
    });
    if let Some(share) = share {
        server["share"] = json!(share);
    }
    let text = json!({
        "id": "keeper",
        "mode": "code",
        "programs": { "timeMs": 20000 },
        "capabilities": [{ "id": "tools", "params": { "servers": [server] } }]
    });
    Profile::from_json5(&text.to_string(), "test").unwrap()
}

/// The processes whose command line carries `title`.
fn processes_titled(title: &str) -> usize {
    let out = Command::new("pgrep").args(["-f", title]).output().unwrap();
    String::from_utf8_lossy(&out.stdout).lines().count()
}

const REMEMBER: &str = r#"import { createEntities } from "gg/tools/graph";
await createEntities({ entities: [{ name: "vault", entityType: "secret", observations: ["alice's code is 4711"] }] });
export default "kept";"#;

const RECALL: &str = r#"import { readGraph } from "gg/tools/graph";
export default JSON.stringify(await readGraph({}));"#;

/// Alice keeps a secret in the graph server; what Bob's read of the graph
/// returns, and how many server processes the two had.
fn alice_then_bob(profile: &Profile, state: Option<&Path>, title: &str) -> (String, usize) {
    let open = |id: &str| {
        Agent::new(
            AgentOptions::new(profile.clone())
                .state(state.map(Path::to_path_buf))
                .agent_id(id.to_string()),
        )
        .expect("agent")
    };
    let mut alice = open("alice");
    let mut bob = open("bob");
    let kept = run(&mut alice, REMEMBER);
    assert_eq!(
        ack(&kept).value.as_deref(),
        Some("\"kept\""),
        "{:?}",
        ack(&kept)
    );
    let recalled = run(&mut bob, RECALL);
    let graph = ack(&recalled)
        .value
        .clone()
        .unwrap_or_else(|| panic!("{:?}", ack(&recalled)));
    (graph, processes_titled(title))
}

#[test]
fn isolated_agents_naming_one_stdio_server_each_get_their_own_and_a_profile_may_share_one() {
    // Each agent its own server process, and its own folder for the graph:
    // Bob reads an empty graph.
    let state = tempfile::tempdir().unwrap();
    let title = "gg-tools-graph-own";
    let (graph, processes) = alice_then_bob(&graph_profile(None, title), Some(state.path()), title);
    assert!(!graph.contains("4711"), "bob read alice's graph: {graph}");
    assert_eq!(processes, 2, "one server process per agent");
    let kept = std::fs::read_to_string(state.path().join("tools/agent.alice/graph/memory.jsonl"))
        .expect("alice's graph is kept in her server's folder");
    assert!(kept.contains("4711"), "{kept}");
    assert!(
        !state
            .path()
            .join("tools/agent.bob/graph/memory.jsonl")
            .exists()
            || !std::fs::read_to_string(state.path().join("tools/agent.bob/graph/memory.jsonl"))
                .unwrap()
                .contains("4711")
    );
    // The servers stop with their agents (killed from gg's tool thread).
    let stopping = std::time::Instant::now();
    while processes_titled(title) > 0 && stopping.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(
        processes_titled(title),
        0,
        "the servers stop with their agents"
    );

    // Without a state folder too (an embedder's agents in memory): two
    // processes, two temporary folders, removed with the agents.
    let title = "gg-tools-graph-memory";
    let (graph, processes) = alice_then_bob(&graph_profile(None, title), None, title);
    assert!(!graph.contains("4711"), "bob read alice's graph: {graph}");
    assert_eq!(processes, 2, "one server process per agent");

    // share: "profile": one process and one folder for the profile's
    // agents, so Bob reads what Alice kept.
    let state = tempfile::tempdir().unwrap();
    let title = "gg-tools-graph-shared";
    let (graph, processes) = alice_then_bob(
        &graph_profile(Some("profile"), title),
        Some(state.path()),
        title,
    );
    assert!(
        graph.contains("4711"),
        "bob shares the profile's graph: {graph}"
    );
    assert_eq!(processes, 1, "one server process for the profile");
    assert!(state
        .path()
        .join("tools/profile.keeper/graph/memory.jsonl")
        .exists());
}
