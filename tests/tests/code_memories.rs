//! Code memories end to end: compiled halves, camelCase modules,
//! documentation views, onUse after the turn, the compiler's own defects.

use gg_module::{Mode, RunStatus};
use gg_tests::{
    ack, agent_with, call_tools, code_memories_agent, memories_profile, run, run_fixture,
    scratchpad_agent, stored,
};
use serde_json::json;

fn markdown() -> gg_runtime::Agent {
    code_memories_agent("markdown", [0, 0, 0, 4096, 256, 0])
}

/// Everything the model could ever see of the agent: the window and every
/// acknowledgement and result.
fn model_visible(agent: &gg_runtime::Agent, outcomes: &[&gg_runtime::TurnOutcome]) -> String {
    let mut all = agent.render_window();
    for out in outcomes {
        if let Some(a) = &out.acknowledgement {
            all.push_str(&a.render());
        }
        for r in &out.tool_results {
            all.push_str(&r.content);
        }
    }
    all
}

#[test]
fn the_specs_csv_tools_example_end_to_end() {
    let mut a = scratchpad_agent();
    let saved = run_fixture(&mut a, "code_memories/save_csv_tools.ts");
    assert_eq!(ack(&saved).status, RunStatus::Ok, "{:?}", ack(&saved));
    // The load opened a documentation view; onUse opened a text view. Both
    // arrive in the window for the next turn, after the acknowledgement.
    let window = a.render_window();
    let ack_at = window.rfind("--- acknowledgement ---").unwrap();
    let doc_at = window
        .find("--- view: documentation csvTools.parseCsv ---")
        .expect(&window);
    let notes_at = window
        .find("--- view: text csv-notes ---\nRow 1 is a header on exports after March.")
        .expect(&window);
    assert!(ack_at < doc_at && doc_at < notes_at, "{window}");
    assert!(window.contains("import { parseCsv } from \"csvTools\"; // the code of memory \"csv-tools\"\nparseCsv(text: string): string[][]\nParses CSV text whose fields may or may not be quoted."), "{window}");
    assert!(
        !window.contains("documentation csvTools.splitLine"),
        "only exported functions get documentation views"
    );

    let used = run_fixture(&mut a, "code_memories/use_csv_tools.ts");
    assert_eq!(
        ack(&used).value.as_deref(),
        Some(r#"[["id","name","city"],["1","Smith, Jane","Paris"],["2","Lee","Rome"]]"#),
        "{:?}",
        ack(&used)
    );
    // `gg/csvTools` reaches the same module.
    let aliased = run(
        &mut a,
        r#"import { parseCsv } from "gg/csvTools"; export default parseCsv("a,\"b\"")[0];"#,
    );
    assert_eq!(ack(&aliased).value.as_deref(), Some(r#"["a","b"]"#));
}

#[test]
fn a_scratchpad_write_whose_code_does_not_compile_is_refused_and_nothing_is_stored() {
    let mut a = scratchpad_agent();
    let out = run(
        &mut a,
        r#"import { memories } from "gg";
try {
  memories.writeMemory({ name: "broken", description: "d", body: "b", code: "export function f( {\n  return 1;\n}" });
} catch (e: any) { console.log(e.code + "|" + e.message); }"#,
    );
    let line = &ack(&out).console[0].text;
    assert!(
        line.starts_with("invalid-argument|the code of \"broken\" does not compile:"),
        "{line}"
    );
    assert!(
        line.contains("broken.ts:2:"),
        "a located diagnostic: {line}"
    );
    assert!(
        line.contains("| export function f( {") || line.contains("|   return 1;"),
        "with the source line: {line}"
    );
    assert!(stored(&a).is_empty());
}

#[test]
fn a_markdown_read_of_broken_code_returns_the_body_with_the_diagnostic() {
    let mut a = markdown();
    let out = run(
        &mut a,
        r#"import { memories } from "gg";
memories.createMemory({ name: "half-done", description: "d", body: "The body.", code: "export const x = ;" });
export default memories.readMemory("half-done").body;"#,
    );
    let body: String = serde_json::from_str(ack(&out).value.as_deref().expect("a value")).unwrap();
    assert!(
        body.starts_with("The body.\n\n[gg] This memory's code did not load:"),
        "{body}"
    );
    assert!(body.contains("halfDone.ts:1:18"), "{body}");
}

#[test]
fn markdown_code_loads_on_read_not_on_create() {
    let mut a = markdown();
    run(
        &mut a,
        r#"import { memories } from "gg"; memories.createMemory({ name: "math-utils", description: "d", body: "b", code: "export const double = (n: number): number => n * 2;" });"#,
    );
    let before = run(
        &mut a,
        r#"const m = await import("mathUtils"); export default m.double(2);"#,
    );
    assert_eq!(
        ack(&before).status,
        RunStatus::Threw,
        "not loaded until read"
    );
    run(
        &mut a,
        r#"import { memories } from "gg"; memories.readMemory("math-utils");"#,
    );
    assert!(a.render_window().contains("--- view: documentation mathUtils.double ---\nimport { double } from \"mathUtils\"; // the code of memory \"math-utils\"\ndouble(n: number): number"));
    let after = run(
        &mut a,
        r#"import { double } from "mathUtils"; export default double(21);"#,
    );
    assert_eq!(
        ack(&after).value.as_deref(),
        Some("42"),
        "{:?}",
        ack(&after)
    );
}

#[test]
fn a_code_half_over_the_cap_is_refused_as_a_limit() {
    let mut a = scratchpad_agent();
    let program = r#"import { memories } from "gg";
const code = "export const x = 1;" + " ".repeat(32_769 - 19);
try { memories.writeMemory({ name: "big", description: "d", body: "b", code }); } catch (e: any) { console.log(e.code + "|" + e.message); }"#;
    let out = run(&mut a, program);
    let line = &ack(&out).console[0].text;
    assert!(line.starts_with("limit-exceeded|limit exceeded: the code of \"big\" is 32769 characters, over the 32768-character limit by 1."), "{line}");
    assert!(stored(&a).is_empty());
}

#[test]
fn a_taken_key_is_deduplicated() {
    let mut a = scratchpad_agent();
    let out = run(
        &mut a,
        r#"import { memories } from "gg";
memories.writeMemory({ name: "csv-tools", description: "d", body: "b", code: "export const which = 1;" });
memories.writeMemory({ name: "csv_tools", description: "d", body: "b", code: "export const which = 2;" });"#,
    );
    assert_eq!(ack(&out).status, RunStatus::Ok, "{:?}", ack(&out));
    let out = run(
        &mut a,
        r#"import { which as a } from "csvTools"; import { which as b } from "csvTools2"; export default [a, b];"#,
    );
    assert_eq!(ack(&out).value.as_deref(), Some("[1,2]"));
    assert!(
        a.render_window()
            .contains("--- view: documentation csvTools2.which")
            || !a.render_window().contains("which("),
        "const exports are not functions"
    );
}

#[test]
fn a_memory_module_may_import_gg_and_other_memory_modules() {
    let mut a = scratchpad_agent();
    run(
        &mut a,
        r#"import { memories } from "gg";
memories.writeMemory({ name: "base", description: "d", body: "b", code: "export function inc(n: number) { return n + 1; }" });
memories.writeMemory({ name: "derived", description: "d", body: "b", code: `import { inc } from "base";
import { views } from "gg";
export function twice(n: number) { views.openText("derived-used", "yes"); return inc(inc(n)); }` });"#,
    );
    let out = run(
        &mut a,
        r#"import { twice } from "derived"; export default twice(1);"#,
    );
    assert_eq!(ack(&out).value.as_deref(), Some("3"), "{:?}", ack(&out));
    assert!(a
        .render_window()
        .contains("--- view: text derived-used ---"));
}

#[test]
fn native_updates_keep_the_halves_and_code_updates_replace_them() {
    let mut profile = memories_profile("scratchpad", [0; 6], Mode::Code);
    let state = tempfile::tempdir().unwrap();
    let options = |profile: gg_module::Profile| {
        gg_runtime::AgentOptions::new(profile)
            .state(state.path().to_path_buf())
            .agent_id("same".to_string())
    };
    let mut code_agent = gg_runtime::Agent::new(options(profile.clone())).unwrap();
    run(
        &mut code_agent,
        r#"import { memories } from "gg"; memories.writeMemory({ name: "m", description: "d", body: "b", code: "export const v = 1;", onUse: "views.openText('x', 'y');" });"#,
    );
    drop(code_agent);
    profile.mode = Mode::ToolCalling;
    let mut native = gg_runtime::Agent::new(options(profile.clone())).unwrap();
    let out = call_tools(
        &mut native,
        &[(
            "update_memory",
            json!({ "name": "m", "description": "d2", "body": "b2" }),
        )],
    );
    assert!(!out.tool_results[0].is_error, "{:?}", out.tool_results);
    let record = native
        .with_memories(|m| m.record("m").unwrap().unwrap())
        .unwrap();
    assert_eq!(
        record.code.as_deref(),
        Some("export const v = 1;"),
        "a native update leaves the code alone"
    );
    assert!(record.on_use.is_some(), "and the onUse");
    drop(native);
    profile.mode = Mode::Code;
    let mut code_agent = gg_runtime::Agent::new(options(profile)).unwrap();
    run(
        &mut code_agent,
        r#"import { memories } from "gg"; memories.updateMemory({ name: "m", description: "d3", body: "b3" });"#,
    );
    let record = code_agent
        .with_memories(|m| m.record("m").unwrap().unwrap())
        .unwrap();
    assert_eq!(
        (record.code, record.on_use),
        (None, None),
        "a code-mode update without the halves clears them"
    );
    let out = run(
        &mut code_agent,
        r#"const m = await import("m"); export default m.v;"#,
    );
    assert_eq!(
        ack(&out).status,
        RunStatus::Threw,
        "the cleared module no longer loads"
    );
}

#[test]
fn revising_code_reloads_it_for_later_programs() {
    let mut a = scratchpad_agent();
    run(
        &mut a,
        r#"import { memories } from "gg"; memories.writeMemory({ name: "ver", description: "d", body: "b", code: "export const v = 1;" });"#,
    );
    assert_eq!(
        ack(&run(
            &mut a,
            r#"import { v } from "ver"; export default v;"#
        ))
        .value
        .as_deref(),
        Some("1")
    );
    run(
        &mut a,
        r#"import { memories } from "gg"; memories.updateMemory({ name: "ver", description: "d", body: "b", code: "export const v = 2;" });"#,
    );
    assert_eq!(
        ack(&run(
            &mut a,
            r#"import { v } from "ver"; export default v;"#
        ))
        .value
        .as_deref(),
        Some("2")
    );
}

#[test]
fn loaded_modules_survive_a_compaction() {
    let mut a = scratchpad_agent();
    run(
        &mut a,
        r#"import { memories } from "gg"; memories.writeMemory({ name: "keep", description: "d", body: "b", code: "export const k = 7;" });"#,
    );
    a.compact("summary").unwrap();
    let out = run(&mut a, r#"import { k } from "keep"; export default k;"#);
    assert_eq!(ack(&out).value.as_deref(), Some("7"));
}

#[test]
fn on_use_source_never_reaches_the_model() {
    let secret = "views.openText('hook-ran', 'visible result'); const SECRET_MARKER_42 = 1;";
    let mut a = scratchpad_agent();
    let mut outcomes = Vec::new();
    outcomes.push(run(&mut a, &format!(r#"import {{ memories }} from "gg"; memories.writeMemory({{ name: "hooked", description: "d", body: "b", code: "export const z = 1;", onUse: {secret:?} }});"#)));
    outcomes.push(run(&mut a, r#"import { memories } from "gg"; export default (memories as any).writeMemory === undefined;"#));
    outcomes.push(run(
        &mut a,
        r#"import { z } from "hooked"; export default z;"#,
    ));
    a.compact("c").unwrap();
    let mut m = markdown();
    outcomes.push(run(&mut m, &format!(r#"import {{ memories }} from "gg"; memories.createMemory({{ name: "hooked", description: "d", body: "b", onUse: {secret:?} }});"#)));
    outcomes.push(run(
        &mut m,
        r#"import { memories } from "gg"; export default memories.readMemory("hooked");"#,
    ));
    outcomes.push(run(&mut m, r#"import { memories } from "gg"; memories.createMemory({ name: "bad-hook", description: "d", body: "b", onUse: "SECRET_SYNTAX_77 (((" }); memories.readMemory("bad-hook");"#));
    let read = ack(&outcomes[4]).value.clone().unwrap();
    assert!(
        !read.contains("onUse") && !read.contains("SECRET"),
        "a read never returns onUse: {read}"
    );
    let refs: Vec<&gg_runtime::TurnOutcome> = outcomes.iter().collect();
    let (first, second) = refs.split_at(3);
    for (agent, outs) in [(&a, first), (&m, second)] {
        let visible = model_visible(agent, outs);
        // Every occurrence is inside a program the model itself wrote.
        assert_eq!(
            visible.matches("SECRET_MARKER_42").count(),
            count_program_echoes(&visible),
            "{visible}"
        );
    }
    // The hook ran (its view arrived) and its broken sibling produced a
    // notice that names the memory but not the source.
    assert!(m.render_window().contains("--- view: text hook-ran ---"));
    let window = m.render_window();
    assert!(window.contains("The onUse hook of `bad-hook` did not run: the onUse of \"bad-hook\" does not compile: 1:"), "{window}");
    let notice_at = window.find("--- notice ---").unwrap();
    assert!(
        !window[notice_at..].contains("SECRET_SYNTAX_77"),
        "{window}"
    );
}

/// The model's own programs quote the onUse it wrote; that is the model's
/// text, not gg showing the source back. Counts those echoes.
fn count_program_echoes(visible: &str) -> usize {
    visible
        .split("--- program")
        .skip(1)
        .map(|p| {
            p.split("--- acknowledgement")
                .next()
                .unwrap()
                .matches("SECRET_MARKER_42")
                .count()
        })
        .sum()
}

#[test]
fn an_infinite_loop_in_on_use_is_stopped_and_the_session_goes_on() {
    let mut profile = memories_profile("scratchpad", [0; 6], Mode::Code);
    profile.programs.on_use_time_ms = 200;
    let mut a = agent_with(profile);
    let out = run(
        &mut a,
        r#"import { memories } from "gg"; memories.writeMemory({ name: "spin", description: "d", body: "b", onUse: "while (true) {}" }); export default "written";"#,
    );
    assert_eq!(
        ack(&out).status,
        RunStatus::Ok,
        "the program itself was fine"
    );
    assert_eq!(ack(&out).value.as_deref(), Some("\"written\""));
    let window = a.render_window();
    assert!(
        window.contains(
            "The onUse hook of `spin` failed: it ran past its 200 ms limit and was stopped."
        ),
        "{window}"
    );
    assert!(
        !window.contains("while (true)") || window.matches("while (true)").count() == 1,
        "only the model's own program shows it"
    );
    assert!(gg_tests::json(&out.events)
        .iter()
        .any(|e| e["type"] == "on_use_failed"));
    let next = run(&mut a, "export default 1 + 1;");
    assert_eq!(ack(&next).value.as_deref(), Some("2"));
}

#[test]
fn a_compiler_crash_ends_the_run_as_internal_error_with_an_io_error_refusal() {
    let mut a = scratchpad_agent();
    // The program itself compiles; the code half it writes meets the crash.
    gg_transpiler::fault_injection::force_internal_failure_after(1);
    let out = run(
        &mut a,
        r#"import { memories } from "gg";
try { memories.writeMemory({ name: "m", description: "d", body: "b", code: "export const a = 1;" }); }
catch (e: any) { console.log(e.code + "|" + e.message); }"#,
    );
    let line = &ack(&out).console[0].text;
    assert!(
        line.starts_with(
            "io-error|writeMemory could not be completed: gg's TypeScript compiler failed."
        ),
        "{line}"
    );
    assert!(
        out.internal_error.is_some(),
        "the turn is recorded against gg"
    );
    assert!(gg_tests::json(&out.events)
        .iter()
        .any(|e| e["type"] == "internal_error" && e["blame"] == "gg"));
    assert!(stored(&a).is_empty());
    let err = a.turn(gg_runtime::Response::program("1;")).unwrap_err();
    assert!(err.to_string().starts_with("internal_error:"), "{err}");
}

#[test]
fn atomics_wait_in_on_use_is_refused_rather_than_blocking() {
    let mut profile = memories_profile("scratchpad", [0; 6], Mode::Code);
    profile.programs.on_use_time_ms = 200;
    let mut a = agent_with(profile);
    let started = std::time::Instant::now();
    let out = run(
        &mut a,
        r#"import { memories } from "gg"; memories.writeMemory({ name: "waiter", description: "d", body: "b", onUse: "Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60000);" }); export default "written";"#,
    );
    // The hook throws at once instead of blocking the host's thread for
    // 60 s (or for its 200 ms limit).
    assert!(
        started.elapsed() < std::time::Duration::from_millis(1_500),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(ack(&out).value.as_deref(), Some("\"written\""));
    let window = a.render_window();
    assert!(
        window.contains("The onUse hook of `waiter` failed: it threw"),
        "{window}"
    );
    assert!(!window.contains("ran past its 200 ms limit"), "{window}");
    let next = run(&mut a, "export default 1 + 1;");
    assert_eq!(ack(&next).value.as_deref(), Some("2"));
}
