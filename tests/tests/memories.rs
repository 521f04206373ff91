//! The memories capability end to end, in both execution modes.

use gg_module::{Mode, RunStatus};
use gg_tests::{
    ack, agent_with, call_tools, code_memories_agent, memories_profile, run, run_fixture, stored,
};
use serde_json::json;

/// Runs `program` and returns its value parsed as JSON.
fn value(agent: &mut gg_runtime::Agent, program: &str) -> serde_json::Value {
    let out = run(agent, program);
    assert_eq!(ack(&out).status, RunStatus::Ok, "{:?}", ack(&out));
    serde_json::from_str(ack(&out).value.as_deref().unwrap_or("null")).unwrap()
}

/// Runs a program whose one memory call must be refused; returns `code: message`.
fn refusal(agent: &mut gg_runtime::Agent, call: &str) -> String {
    let program = format!(
        r#"import {{ memories }} from "gg";
try {{ {call}; }} catch (e: any) {{ console.log(e.name + "|" + e.code + ": " + e.message); }}"#
    );
    let out = run(agent, &program);
    let console = &ack(&out).console;
    assert_eq!(
        console.len(),
        1,
        "expected a refusal from {call}: {:?}",
        ack(&out)
    );
    let line = &console[0].text;
    assert!(line.starts_with("GgError|"), "{line}");
    line["GgError|".len()..].to_string()
}

/// A native call that must be refused; returns its result text.
fn native_refusal(agent: &mut gg_runtime::Agent, name: &str, args: serde_json::Value) -> String {
    let out = call_tools(agent, &[(name, args)]);
    let r = &out.tool_results[0];
    assert!(r.is_error, "{name} should be refused: {r:?}");
    r.content.clone()
}

const BIG: u64 = 0;

#[test]
fn scratchpad_fixture_writes_updates_deletes_and_lacks_read() {
    let mut a = code_memories_agent("scratchpad", [10, BIG, BIG, BIG, 100, BIG]);
    let out = run_fixture(&mut a, "memories/scratchpad.ts");
    assert_eq!(
        ack(&out).value.as_deref(),
        Some("\"unavailable\""),
        "{:?}",
        ack(&out)
    );
    assert_eq!(
        stored(&a),
        [(
            "deploy-runbook".into(),
            "How staging is rolled out".into(),
            "1. drain\n2. roll\n3. verify\n4. announce".into()
        )]
    );
    // The pinned block is rebuilt at a compaction boundary, not before.
    assert!(!a.window().pinned.contains("deploy-runbook"));
    a.compact("worked on the runbook").unwrap();
    let pinned = a.window().pinned;
    assert!(pinned.starts_with("## Memories\n"), "{pinned}");
    assert!(pinned.contains("### deploy-runbook — How staging is rolled out\n1. drain\n2. roll\n3. verify\n4. announce"), "{pinned}");
}

#[test]
fn markdown_fixture_creates_edits_by_appending_and_reads() {
    let mut a = code_memories_agent("markdown", [1, BIG, BIG, 4096, 100, BIG]);
    let out = run_fixture(&mut a, "memories/markdown.ts");
    let v: serde_json::Value = serde_json::from_str(ack(&out).value.as_deref().unwrap()).unwrap();
    assert_eq!(
        v["body"],
        "Errors are { error: { code, message } }.\nPagination uses cursors."
    );
    // markdown has no count limit: maxCount 1 does not stop a second memory.
    value(
        &mut a,
        r#"import { memories } from "gg"; memories.createMemory({ name: "second", description: "d", body: "b" });"#,
    );
    a.compact("s").unwrap();
    assert_eq!(
        a.window().pinned,
        "## Memory index\n- `api-conventions` — Error envelope rules\n- `second` — d\n"
    );
}

#[test]
fn keyword_search_fixture_ranks_and_pins_nothing() {
    let mut a = code_memories_agent("keyword-search", [10, BIG, BIG, BIG, 100, 10]);
    let out = run_fixture(&mut a, "memories/keyword_search.ts");
    assert_eq!(
        ack(&out).value.as_deref(),
        Some(r#"[["staging",2,3],["prod",1,3]]"#),
        "{:?}",
        ack(&out)
    );
    a.compact("s").unwrap();
    assert_eq!(a.window().pinned, "");
    let hits = value(
        &mut a,
        r#"import { memories } from "gg"; export default memories.searchMemories(["TACOS"]);"#,
    );
    assert_eq!(hits[0]["name"], "lunch");
    assert_eq!(hits[0]["excerpt"], "Tacos on Tuesday.");
    assert_eq!(hits[0]["description"], "");
}

#[test]
fn the_description_is_checked_before_the_body() {
    for mode in [Mode::Code, Mode::ToolCalling] {
        let mut a = agent_with(memories_profile("markdown", [0, 10, 0, 0, 5, 0], mode));
        let message = match mode {
            Mode::Code => refusal(
                &mut a,
                r#"memories.createMemory({ name: "x", description: "too long here", body: "also far too long" })"#,
            ),
            Mode::ToolCalling => native_refusal(
                &mut a,
                "create_memory",
                json!({ "name": "x", "description": "too long here", "body": "also far too long" }),
            ),
        };
        assert!(message.starts_with("limit-exceeded: limit exceeded: the description of \"x\" is 13 characters, over maxLenDescription (5) by 8."), "{message}");
        assert!(
            message.contains("Revise it") && message.contains("nothing was stored"),
            "{message}"
        );
        assert!(stored(&a).is_empty());
    }
}

#[test]
fn per_memory_and_total_limits_refuse_and_name_candidates() {
    for mode in [Mode::Code, Mode::ToolCalling] {
        let mut a = agent_with(memories_profile("scratchpad", [0, 20, 30, 0, 0, 0], mode));
        let write = |a: &mut gg_runtime::Agent, name: &str, body: &str| match mode {
            Mode::Code => refusal(
                a,
                &format!(
                    r#"memories.writeMemory({{ name: "{name}", description: "d", body: "{body}" }})"#
                ),
            ),
            Mode::ToolCalling => native_refusal(
                a,
                "write_memory",
                json!({ "name": name, "description": "d", "body": body }),
            ),
        };
        let long = "x".repeat(21);
        let m = write(&mut a, "long", &long);
        assert!(
            m.contains("the body of \"long\" is 21 characters, over maxLenPerMemory (20) by 1"),
            "{m}"
        );
        match mode {
            Mode::Code => {
                value(
                    &mut a,
                    r#"import { memories } from "gg"; memories.writeMemory({ name: "big", description: "d", body: "aaaaaaaaaaaaaaaaaaaa" }); memories.writeMemory({ name: "small", description: "d", body: "bbbbb" });"#,
                );
            }
            Mode::ToolCalling => {
                let out = call_tools(
                    &mut a,
                    &[
                        (
                            "write_memory",
                            json!({ "name": "big", "description": "d", "body": "a".repeat(20) }),
                        ),
                        (
                            "write_memory",
                            json!({ "name": "small", "description": "d", "body": "bbbbb" }),
                        ),
                    ],
                );
                assert!(
                    out.tool_results.iter().all(|r| !r.is_error),
                    "{:?}",
                    out.tool_results
                );
            }
        }
        let before = stored(&a);
        let m = write(&mut a, "third", "cccccccccc");
        assert!(
            m.contains(
                "would bring the pinned memories to 35 characters, over maxTotalLen (30) by 5"
            ),
            "{m}"
        );
        assert!(
            m.contains("\"big\" (20 chars), \"small\" (5 chars)"),
            "names the largest: {m}"
        );
        assert!(m.contains("evict or delete"), "{m}");
        assert_eq!(stored(&a), before, "nothing changed");
    }
}

#[test]
fn max_count_refuses_under_scratchpad_and_keyword_search() {
    for strategy in ["scratchpad", "keyword-search"] {
        let mut a = agent_with(memories_profile(
            strategy,
            [2, 0, 0, 0, 0, 0],
            Mode::ToolCalling,
        ));
        let call = if strategy == "scratchpad" {
            "write_memory"
        } else {
            "create_memory"
        };
        for name in ["one", "two"] {
            let out = call_tools(
                &mut a,
                &[(
                    call,
                    json!({ "name": name, "description": "d", "body": format!("body of {name}") }),
                )],
            );
            assert!(!out.tool_results[0].is_error, "{:?}", out.tool_results);
        }
        let m = native_refusal(
            &mut a,
            call,
            json!({ "name": "three", "description": "d", "body": "b" }),
        );
        assert!(
            m.contains("the set already holds 2 memories, maxCount (2)"),
            "{m}"
        );
        assert!(m.contains("Delete or merge"), "{m}");
        assert_eq!(stored(&a).len(), 2);
    }
}

#[test]
fn the_index_bounds_markdown() {
    // "- `a` — d" is 9 characters, plus its line break: 10 per entry.
    let mut a = code_memories_agent("markdown", [0, 0, 0, 20, 0, 0]);
    value(
        &mut a,
        r#"import { memories } from "gg"; memories.createMemory({ name: "a", description: "d", body: "b" }); memories.createMemory({ name: "b", description: "d", body: "b" });"#,
    );
    let m = refusal(
        &mut a,
        r#"memories.createMemory({ name: "c", description: "d", body: "b" })"#,
    );
    assert!(m.contains("the index line for \"c\" would bring the index to 30 characters, over maxLenIndex (20) by 10"), "{m}");
    assert!(
        m.contains("Shorten descriptions, or delete memories"),
        "{m}"
    );
}

#[test]
fn edits_must_quote_text_that_occurs_exactly_once() {
    for mode in [Mode::Code, Mode::ToolCalling] {
        let mut a = agent_with(memories_profile("markdown", [0; 6], mode));
        let edit = |a: &mut gg_runtime::Agent, old: &str, new: &str| match mode {
            Mode::Code => refusal(
                a,
                &format!(
                    r#"memories.editMemory({{ name: "n", oldString: {old:?}, newString: {new:?} }})"#
                ),
            ),
            Mode::ToolCalling => native_refusal(
                a,
                "edit_memory",
                json!({ "name": "n", "old_string": old, "new_string": new }),
            ),
        };
        call_or_run(
            &mut a,
            mode,
            "create_memory",
            json!({ "name": "n", "description": "d", "body": "alpha beta\nbeta gamma" }),
        );
        let zero = edit(&mut a, "delta", "x");
        assert!(
            zero.starts_with("invalid-argument:") && zero.contains("does not occur in it"),
            "{zero}"
        );
        let several = edit(&mut a, "beta", "x");
        assert!(several.contains("occurs 2 times in it"), "{several}");
        let empty = edit(&mut a, "alpha beta\nbeta gamma", "");
        assert!(
            empty.contains("would leave \"n\" empty; delete it with delete_memory instead"),
            "{empty}"
        );
        assert_eq!(stored(&a)[0].2, "alpha beta\nbeta gamma", "nothing changed");
        // Appending: quote the last line, replace it with itself plus more.
        call_or_run(
            &mut a,
            mode,
            "edit_memory",
            json!({ "name": "n", "old_string": "beta gamma", "new_string": "beta gamma\ndelta" }),
        );
        assert_eq!(stored(&a)[0].2, "alpha beta\nbeta gamma\ndelta");
    }
}

fn call_or_run(a: &mut gg_runtime::Agent, mode: Mode, tool: &str, args: serde_json::Value) {
    match mode {
        Mode::ToolCalling => {
            let out = call_tools(a, &[(tool, args)]);
            assert!(!out.tool_results[0].is_error, "{:?}", out.tool_results);
        }
        Mode::Code => {
            let method = match tool {
                "create_memory" => "createMemory",
                "edit_memory" => "editMemory",
                other => panic!("{other}"),
            };
            let camel = serde_json::to_string(&args)
                .unwrap()
                .replace("old_string", "oldString")
                .replace("new_string", "newString");
            value(
                a,
                &format!(r#"import {{ memories }} from "gg"; memories.{method}({camel});"#),
            );
        }
    }
}

#[test]
fn a_call_the_strategy_lacks_is_unavailable_naming_the_calls_it_has() {
    let mut a = code_memories_agent("markdown", [0; 6]);
    let m = refusal(
        &mut a,
        r#"memories.writeMemory({ name: "x", description: "d", body: "b" })"#,
    );
    assert_eq!(m, "unavailable: writeMemory is unavailable: the markdown strategy does not offer it. Your memory calls: createMemory, readMemory, editMemory, deleteMemory.");
    let mut b = agent_with(memories_profile("scratchpad", [0; 6], Mode::ToolCalling));
    let m = native_refusal(&mut b, "search_memories", json!({ "keywords": ["x"] }));
    assert!(
        m.contains("search_memories is unavailable")
            && m.contains("write_memory, update_memory, delete_memory"),
        "{m}"
    );
}

#[test]
fn revise_off_makes_memories_append_only() {
    let mut profile = memories_profile("markdown", [0; 6], Mode::ToolCalling);
    profile.capabilities[0]
        .features
        .insert("reviseMemories".into(), json!(false));
    let mut a = agent_with(profile.clone());
    let names: Vec<String> = a
        .tool_schemas()
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, ["create_memory", "read_memory"]);
    call_tools(
        &mut a,
        &[(
            "create_memory",
            json!({ "name": "n", "description": "d", "body": "b" }),
        )],
    );
    let m = native_refusal(&mut a, "delete_memory", json!({ "name": "n" }));
    assert!(m.contains("append-only"), "{m}");
    profile.mode = Mode::Code;
    let mut c = agent_with(profile);
    let m = refusal(
        &mut c,
        r#"memories.editMemory({ name: "n", oldString: "b", newString: "c" })"#,
    );
    assert!(
        m.starts_with("unavailable:") && m.contains("append-only"),
        "{m}"
    );
}

#[test]
fn native_schemas_offer_exactly_the_strategys_calls_without_code_fields() {
    let a = agent_with(memories_profile(
        "keyword-search",
        [0; 6],
        Mode::ToolCalling,
    ));
    let schemas = a.tool_schemas();
    let names: Vec<&str> = schemas
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "create_memory",
            "read_memory",
            "edit_memory",
            "delete_memory",
            "search_memories"
        ]
    );
    let create = &schemas[0]["input_schema"];
    assert!(
        create["properties"].get("code").is_none() && create["properties"].get("on_use").is_none()
    );
    assert_eq!(
        create["required"],
        json!(["name", "body"]),
        "description is optional under keyword-search"
    );
    let mut b = agent_with(memories_profile(
        "keyword-search",
        [0; 6],
        Mode::ToolCalling,
    ));
    let m = native_refusal(
        &mut b,
        "create_memory",
        json!({ "name": "n", "body": "b", "code": "export {}" }),
    );
    assert!(m.contains("unknown field `code`"), "{m}");
}

#[test]
fn bad_arguments_and_slugs_are_refused_clearly() {
    let mut a = code_memories_agent("markdown", [0; 6]);
    let m = refusal(
        &mut a,
        r#"memories.createMemory({ name: "has space", description: "d", body: "b" })"#,
    );
    assert!(
        m.starts_with("invalid-argument:") && m.contains("' '"),
        "{m}"
    );
    let m = refusal(
        &mut a,
        &format!(
            r#"memories.createMemory({{ name: "{}", description: "d", body: "b" }})"#,
            "a".repeat(65)
        ),
    );
    assert!(m.contains("65 characters"), "{m}");
    let m = refusal(&mut a, r#"memories.createMemory({ name: "x", body: "b" })"#);
    assert!(
        m.contains("a description is required under the markdown strategy"),
        "{m}"
    );
    let m = refusal(
        &mut a,
        r#"(memories as any).createMemory({ name: "x", description: "d", body: 3 })"#,
    );
    assert!(
        m.starts_with("invalid-argument: createMemory: invalid type"),
        "{m}"
    );
    let m = refusal(&mut a, r#"memories.readMemory("ghost")"#);
    assert!(
        m.starts_with("not-found:") && m.contains("there are no memories yet"),
        "{m}"
    );
}

#[test]
fn launch_refusals_report_every_problem_at_once() {
    let profile = gg_module::Profile::from_json5(
        r#"{ id: "p", capabilities: [{ id: "memories", enabled: true, implementation: "vectors",
            params: { scope: "everywhere", maxCount: 1.5, maxLenPerMemory: 0, maxTotalLen: 0, maxLenIndex: 0, maxResults: 0, extra: 1 } }] }"#,
        "p.json5",
    )
    .unwrap();
    let err = gg_runtime::Agent::new(gg_runtime::AgentOptions::new(profile))
        .err()
        .expect("refused");
    let text = err.to_string();
    for needle in [
        "\"vectors\"",
        "scratchpad, markdown and keyword-search",
        "\"everywhere\"",
        "maxCount is 1.5",
        "maxLenDescription is missing",
        "unknown param \"extra\"",
    ] {
        assert!(text.contains(needle), "{needle} missing from: {text}");
    }
}

#[test]
fn telemetry_records_revisions_and_state() {
    let mut a = code_memories_agent("markdown", [0, 0, 0, 0, 10, 0]);
    let out = run(
        &mut a,
        r#"import { memories } from "gg";
memories.createMemory({ name: "n", description: "d", body: "one\ntwo" });
memories.deleteMemory("n");
memories.createMemory({ name: "n", description: "d2", body: "three" });
try { memories.createMemory({ name: "m", description: "far too long a description", body: "x" }); } catch {}"#,
    );
    let events = gg_tests::json(&out.events);
    let revisions: Vec<_> = events
        .iter()
        .filter(|e| e["type"] == "memory_revision")
        .collect();
    let numbers: Vec<(String, i64, String)> = revisions
        .iter()
        .map(|e| {
            (
                e["name"].as_str().unwrap().into(),
                e["revision"].as_i64().unwrap(),
                e["mutation"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        numbers,
        [
            ("n".into(), 1, "create".into()),
            ("n".into(), 2, "delete".into()),
            ("n".into(), 3, "create".into())
        ]
    );
    assert_eq!(revisions[0]["body"], "one\ntwo");
    let events = gg_tests::json(&out.events);
    let state = events
        .iter()
        .rev()
        .find(|e| e["type"] == "memory_state")
        .unwrap();
    assert_eq!(
        state["totals"],
        json!({ "count": 1, "chars": 5, "lines": 1 })
    );
    assert_eq!(
        state["peaks"],
        json!({ "count": 1, "chars": 7, "lines": 2 })
    );
    assert_eq!(
        state["memories"][0],
        json!({ "name": "n", "description": "d2", "chars": 5, "lines": 1 })
    );
    assert_eq!(state["scope"], "isolated");
    assert_eq!(state["writable"], true);
    assert_eq!(state["limits"]["maxLenDescription"], 10);
    assert_eq!(
        gg_tests::json(&out.events)
            .iter()
            .filter(|e| e["type"] != "turn")
            .count(),
        4,
        "three revisions and one state; the refused create recorded nothing"
    );
}

#[test]
fn the_system_prompt_explains_calls_limits_and_the_lagging_index() {
    let a = code_memories_agent("markdown", [0, 8192, 0, 4096, 256, 0]);
    let prompt = a.window().system_prompt;
    assert!(prompt.contains("memories.createMemory, memories.readMemory, memories.editMemory, memories.deleteMemory"), "{prompt}");
    assert!(
        prompt.contains("description 256, body 8192, index 4096"),
        "{prompt}"
    );
    assert!(prompt.contains("not listed yet"), "{prompt}");
}

#[test]
fn memories_persist_in_the_state_folder_and_never_in_the_workspace() {
    let state = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let store = gg_tests::test_store();
    let options = || {
        gg_runtime::AgentOptions::new(memories_profile("markdown", [0; 6], Mode::Code))
            .workspace(workspace.path().to_path_buf())
            .state(state.path().to_path_buf())
            .agent_id("main".to_string())
            .database_url(store.clone())
    };
    {
        let mut a = gg_runtime::Agent::new(options()).unwrap();
        value(
            &mut a,
            r#"import { memories } from "gg"; memories.createMemory({ name: "kept", description: "d", body: "durable" });"#,
        );
    }
    let a = gg_runtime::Agent::new(options()).unwrap();
    assert_eq!(stored(&a)[0].2, "durable");
    assert_eq!(
        std::fs::read_dir(workspace.path()).unwrap().count(),
        0,
        "nothing written to the workspace"
    );
    assert!(state.path().join("events/main.jsonl").exists());
}

#[test]
fn a_search_takes_at_most_64_distinct_keywords_from_a_program_or_a_tool_call() {
    let mut a = code_memories_agent("keyword-search", [0, BIG, BIG, BIG, 100, 10]);
    value(
        &mut a,
        r#"import { memories } from "gg"; memories.createMemory({ name: "k7", description: "", body: "k63 k64" });"#,
    );
    // 64 distinct keywords (and repeats, which count once) are searched:
    // "k7" in the slug, "k6" and "k63" in the body.
    let found = value(
        &mut a,
        r#"import { memories } from "gg";
const words = Array.from({ length: 64 }, (_, i) => "k" + i);
export default memories.searchMemories([...words, ...words, "K0"]).map((h) => [h.name, h.distinct]);"#,
    );
    assert_eq!(found, json!([["k7", 3]]));
    let m = refusal(
        &mut a,
        r#"memories.searchMemories(Array.from({ length: 65 }, (_, i) => "k" + i))"#,
    );
    assert_eq!(m, "invalid-argument: searchMemories takes at most 64 distinct keywords, got 65; search with the words that matter most, or split them over several searches.");
    let mut b = agent_with(memories_profile(
        "keyword-search",
        [0, BIG, BIG, BIG, 100, 10],
        Mode::ToolCalling,
    ));
    let keywords: Vec<String> = (0..100).map(|i| format!("k{i}")).collect();
    let m = native_refusal(&mut b, "search_memories", json!({ "keywords": keywords }));
    assert!(
        m.contains("search_memories takes at most 64 distinct keywords, got 100"),
        "{m}"
    );
}

#[test]
fn a_search_still_running_at_the_time_limit_is_stopped_inside_the_call() {
    use gg_module::durable::memory_store::{Change, Mutation};
    let mut profile = memories_profile("keyword-search", [0, BIG, BIG, BIG, 100, 10], Mode::Code);
    profile.programs.time_ms = 200;
    let mut a = agent_with(profile);
    // 200 memories of 256 KB: 64 keywords make 3.3 GB of scanning, many
    // times the limit in any build. Written past the programs, whose
    // limit it would take to write them.
    let body = "lorem ipsum dolor sit amet ".repeat(256 * 1024 / 27);
    a.with_memories_mut(|m| {
        for i in 0..200 {
            m.store
                .mutate("test", &format!("m{i:03}"), |_| {
                    Ok(Change::Put {
                        mutation: Mutation::Create,
                        description: String::new(),
                        body: body.clone(),
                        code: None,
                        on_use: None,
                    })
                })
                .expect("write");
        }
    })
    .expect("memories");
    let out = run(
        &mut a,
        r#"import { memories } from "gg";
memories.searchMemories(Array.from({ length: 64 }, (_, i) => "absent" + i));
export default "finished";"#,
    );
    assert_eq!(ack(&out).status, RunStatus::Ceiling, "{:?}", ack(&out));
    // The search itself gave up, rather than running to its end and the
    // program being stopped after it.
    assert!(
        out.refusals
            .iter()
            .any(|r| r.message.contains("was stopped before it finished")),
        "{:?}",
        out.refusals
    );
    // The signal is cleared for the next program: a search over a set
    // small enough to finish does.
    a.with_memories_mut(|m| {
        for i in 1..200 {
            m.store
                .mutate("test", &format!("m{i:03}"), |_| Ok(Change::Delete))
                .expect("delete");
        }
    })
    .expect("memories");
    let hits = value(
        &mut a,
        r#"import { memories } from "gg"; export default memories.searchMemories(["ipsum"]).map((h) => h.name);"#,
    );
    assert_eq!(hits, json!(["m000"]));
}
