//! The host runs TypeScript programs end to end.

use gg_module::{Profile, RunStatus};
use gg_tests::{ack, agent, agent_with, error_text, run, run_fixture};

/// Fixture `name` as a fresh agent's first turn: for the tests that check
/// only what that one program did.
fn first_turn(name: &str) -> gg_runtime::TurnOutcome {
    run_fixture(&mut agent(), name)
}

#[test]
fn types_are_stripped_and_enums_and_namespaces_work() {
    let out = first_turn("types_and_enums.ts");
    assert_eq!(ack(&out).status, RunStatus::Ok, "{:?}", ack(&out));
    assert_eq!(
        ack(&out).value.as_deref(),
        Some(r#"{"total":11,"high":"High"}"#)
    );
}

#[test]
fn top_level_await_works_and_console_is_captured() {
    let out = first_turn("top_level_await.ts");
    let ack = ack(&out);
    assert_eq!(ack.value.as_deref(), Some("42"));
    assert_eq!(ack.console.len(), 1);
    assert_eq!(ack.console[0].level, "log");
    assert_eq!(ack.console[0].text, "awaited 20 22");
}

#[test]
fn a_runtime_error_reports_the_typescript_line() {
    let out = first_turn("runtime_error.ts");
    let ack = ack(&out);
    assert_eq!(ack.status, RunStatus::Threw);
    // Line 10 of the TypeScript (`return order!.items[0];`), not a line of the emitted JavaScript.
    let location = out.error_location.as_deref().expect("located");
    assert!(location.starts_with("runtime_error.ts:10:"), "{location}");
    let error = ack.error.as_deref().unwrap();
    assert!(error.starts_with("TypeError"), "{error}");
    assert!(
        error.contains("runtime_error.ts:14:"),
        "the caller's frame too: {error}"
    );
    assert_eq!(
        ack.console[0].text, "before the error",
        "output before the throw is kept"
    );
}

#[test]
fn a_syntax_error_reports_line_and_column() {
    let out = first_turn("syntax_error.ts");
    let ack = ack(&out);
    assert_eq!(ack.status, RunStatus::CompileError);
    assert_eq!(out.error_location.as_deref(), Some("syntax_error.ts:2:22"));
    let error = ack.error.as_deref().unwrap();
    assert!(error.contains("2 | const broken = (ok + ;"), "{error}");
    assert!(error.contains('^'), "{error}");
}

#[test]
fn a_program_over_the_cap_is_refused_with_the_limit_message() {
    let mut a = agent();
    let source = format!("export default 1;\n{}", "/".repeat(32_769 - 18));
    assert_eq!(source.chars().count(), 32_769);
    let out = run(&mut a, &source);
    let ack = ack(&out);
    assert_eq!(ack.status, RunStatus::CompileError);
    let error = ack.error.as_deref().unwrap();
    assert!(
        error.starts_with(
            "limit exceeded: the program is 32769 characters, over the 32768-character limit by 1."
        ),
        "{error}"
    );
    assert!(error.contains("Shorten it"), "{error}");
}

/// Runs `fixture` on a fresh agent: it must stop at a ceiling whose error
/// names `limit`. The agent, for the program that must still run after.
fn stopped_at_a_ceiling(fixture: &str, limit: &str) -> gg_runtime::Agent {
    let mut a = agent();
    let out = run_fixture(&mut a, fixture);
    assert_eq!(ack(&out).status, RunStatus::Ceiling, "{:?}", ack(&out));
    assert!(error_text(&out).contains(limit), "{}", error_text(&out));
    a
}

#[test]
fn an_infinite_loop_is_stopped_and_the_next_program_runs() {
    let mut a = stopped_at_a_ceiling("infinite_loop.ts", "time limit of 1000 ms");
    let next = run(&mut a, "export default 6 * 7;");
    assert_eq!(ack(&next).status, RunStatus::Ok);
    assert_eq!(ack(&next).value.as_deref(), Some("42"));
}

#[test]
fn an_allocation_bomb_is_stopped_and_the_host_lives() {
    let mut a = stopped_at_a_ceiling("allocation_bomb.ts", "heap limit of 128 MiB");
    let next = run(&mut a, "export default [1, 2, 3].length;");
    assert_eq!(ack(&next).value.as_deref(), Some("3"));
}

#[test]
fn nothing_but_gg_is_reachable() {
    let out = first_turn("sandbox_probe.ts");
    assert_eq!(ack(&out).status, RunStatus::Ok, "{:?}", ack(&out));
    let report: serde_json::Value =
        serde_json::from_str(ack(&out).value.as_deref().unwrap()).unwrap();
    for key in [
        "bootstrap",
        "apiStash",
        "webStash",
        "require",
        "process",
        "print",
    ] {
        assert_eq!(report[key], "undefined", "{key}: {report}");
    }
    assert_eq!(report["denoKeys"], 0, "{report}");
    let core = report["denoCore"].as_str().unwrap();
    assert!(
        core.starts_with("Deno.core is not available in gg programs"),
        "{core}"
    );
    let read = report["denoReadTextFile"].as_str().unwrap();
    assert!(
        read.starts_with("Deno.readTextFile is not available")
            && read.contains("views.openFile(path)"),
        "{read}"
    );
    let fetch = report["fetch"].as_str().unwrap();
    assert!(
        fetch.starts_with("fetch is not available") && fetch.contains("views.openFile(path)"),
        "{fetch}"
    );
    for spec in [
        "ext:core/ops",
        "ext:gg_host/gg.js",
        "file:///etc/passwd",
        "https://example.com/x.js",
        "./local.ts",
        "gg:program/p1.ts",
    ] {
        assert_eq!(report[spec], "refused", "{spec}: {report}");
    }
}

#[test]
fn path_escapes_are_refused() {
    let mut a = agent();
    let out = run_fixture(&mut a, "path_escape.ts");
    let codes: Vec<String> = serde_json::from_str(ack(&out).value.as_deref().unwrap()).unwrap();
    assert_eq!(codes.len(), 3);
    for code in &codes {
        assert!(code.starts_with("invalid-argument: "), "{code}");
    }
    assert!(codes[0].contains("climbs out"), "{}", codes[0]);
    assert!(codes[1].contains("absolute"), "{}", codes[1]);
    assert!(a.window().open_views().next().is_none());
}

#[test]
fn views_opened_in_turn_one_arrive_in_the_window_of_turn_two() {
    let mut a = agent();
    let out = run_fixture(&mut a, "open_views.ts");
    let ack = ack(&out);
    assert_eq!(ack.status, RunStatus::Ok, "{ack:?}");
    // Not in the program's own output…
    assert!(!ack.render().contains("line two"));
    assert_eq!(out.views.len(), 2);
    // …but in the window the next turn sees, after the acknowledgement.
    let window = a.render_window();
    let ack_at = window.find("--- acknowledgement ---").unwrap();
    let file_at = window
        .find("--- view: file src/notes.md (lines 2-3 of 4) ---")
        .expect(&window);
    let text_at = window.find("--- view: text plan ---").unwrap();
    assert!(ack_at < file_at && file_at < text_at);
    assert!(
        window.contains("    2  line two\n    3  line three\n"),
        "{window}"
    );
    assert!(!window.contains("line four"));
    // Closing one in turn 2 removes it from turn 3's window.
    run(
        &mut a,
        r#"import { views } from "gg"; views.close("plan");"#,
    );
    let window = a.render_window();
    assert!(!window.contains("--- view: text plan ---"));
    assert!(window.contains("--- view: file src/notes.md"));
}

#[test]
fn a_thrown_non_error_is_reported() {
    let mut a = agent();
    let out = run_fixture(&mut a, "throw_non_error.ts");
    assert_eq!(ack(&out).status, RunStatus::Threw);
    let error = error_text(&out);
    assert!(
        error.contains("not an Error") || error.contains("[object Object]"),
        "{error}"
    );
    let next = run(&mut a, "throw 42;");
    assert_eq!(ack(&next).error.as_deref(), Some("42"));
}

#[test]
fn programs_get_minted_ids_or_the_fixed_ok() {
    let mut a = agent();
    assert_eq!(ack(&run(&mut a, "1;")).headline(), "p1: ok");
    assert_eq!(ack(&run(&mut a, "2;")).headline(), "p2: ok");
    let mut profile = Profile::default();
    profile.programs.library = false;
    let mut b = agent_with(profile);
    let out = run(&mut b, "export default 1;");
    assert_eq!(ack(&out).program_id, None);
    assert_eq!(ack(&out).headline(), "ok");
}

#[test]
fn gg_calls_check_their_arguments_host_side() {
    let out = run(
        &mut agent(),
        r#"import { views, memories } from "gg";
const seen: string[] = [];
for (const f of [() => (views as any).openText(1, "x"), () => (views as any).openFile("src/notes.md", { offset: -1 }), () => memories.readMemory("x")]) {
  try { f(); seen.push("ok"); } catch (e: any) { seen.push(e.code + " " + e.message); }
}
export default seen;"#,
    );
    let seen: Vec<String> = serde_json::from_str(ack(&out).value.as_deref().unwrap()).unwrap();
    assert_eq!(
        seen[0],
        "invalid-argument views.openText: label must be a string, got a number."
    );
    assert!(
        seen[1].starts_with("invalid-argument views.openFile: offset must be a whole number"),
        "{}",
        seen[1]
    );
    assert!(
        seen[2].starts_with("unavailable readMemory is unavailable"),
        "{}",
        seen[2]
    );
}

#[test]
fn views_calls_answer_alike_whichever_op_carries_them() {
    // Primitive strings take the typed ops; everything else goes through
    // the JSON dispatcher. The answers, refusals and window must not tell.
    let mut a = agent();
    let out = run(
        &mut a,
        r#"import { views } from "gg";
const seen: string[] = [];
const cases: [string, () => void][] = [
  ["plain", () => views.openText("a", "body a")],
  ["string object", () => views.openText(new String("b") as any, new String("body b") as any)],
  ["blank label", () => views.openText(" ", "x")],
  ["lone surrogate", () => views.openText("c\ud800", "x")],
  ["real U+FFFD", () => views.openText("d\ufffd", "body d")],
  ["missing body", () => (views.openText as any)("e")],
  ["reopened", () => views.openText("a", "body a, again")],
  ["close pending", () => views.close("b")],
  ["close unknown", () => views.close("nope")],
  ["close lone", () => views.close("\udc00")],
];
for (const [name, f] of cases) {
  try { f(); seen.push(name + ": ok"); } catch (e: any) { seen.push(name + ": " + e.code); }
}
export default seen;"#,
    );
    let seen: Vec<String> = serde_json::from_str(ack(&out).value.as_deref().unwrap()).unwrap();
    assert_eq!(
        seen,
        [
            "plain: ok",
            "string object: ok",
            "blank label: invalid-argument",
            "lone surrogate: invalid-argument",
            "real U+FFFD: ok",
            "missing body: invalid-argument",
            "reopened: ok",
            "close pending: ok",
            "close unknown: not-found",
            "close lone: invalid-argument",
        ]
    );
    let window = a.render_window();
    assert!(
        window.contains("--- view: text a ---\nbody a, again"),
        "{window}"
    );
    assert!(window.contains("--- view: text d\u{fffd} ---"), "{window}");
    assert!(!window.contains("--- view: text b ---"), "{window}");
    // Every refusal is in the turn's record, typed op or not.
    let refusals: Vec<(&str, &str)> = out
        .refusals
        .iter()
        .map(|r| (r.call.as_str(), r.code.as_str()))
        .collect();
    assert_eq!(
        refusals,
        [
            ("views.openText", "invalid-argument"),
            ("views.openText", "invalid-argument"),
            ("views.openText", "invalid-argument"),
            ("views.close", "not-found"),
            ("views.close", "invalid-argument"),
        ]
    );
}

#[test]
fn views_methods_throw_gg_errors_at_the_caller_and_let_encoding_exceptions_through() {
    // `views.openText` and `views.close` are the host's typed calls
    // themselves: a refusal is a GgError like any other gg call's, thrown
    // where the program called; an argument whose encoding throws throws
    // that; a call made while encoding another's argument is made.
    let mut a = agent();
    let out = run(
        &mut a,
        r#"import { views, GgError } from "gg";
const seen: string[] = [];
function thrown(f: () => void): any { try { f(); return null; } catch (e) { return e; } }
function callerOfOpenText() { views.openText("", "x"); }
const typed = thrown(callerOfOpenText);
seen.push([typed instanceof GgError, typed instanceof Error, typed.name, typed.code,
  Object.keys(typed).join(","), String(typed.stack).includes("callerOfOpenText")].join(" "));
const viaJson = thrown(() => views.openText(42 as any, "x"));
seen.push([viaJson instanceof GgError, viaJson.code, viaJson.message].join(" "));
const closed = thrown(() => views.close("nothing open"));
seen.push([closed instanceof GgError, closed.code].join(" "));
const boom = new Error("from toJSON");
const passed = thrown(() => views.openText({ toJSON() { throw boom; } } as any, "x"));
seen.push(String(passed === boom));
const nested = thrown(() => views.openText({ toJSON() { views.openText("inner", "made"); return "outer"; } } as any, "kept"));
seen.push(String(nested));
seen.push([views.openText.name, views.openText.length, views.close.name, views.close.length].join(" "));
// Text the engine holds as Latin-1 and as UTF-16 reads as what was passed.
views.openText("café", "crème brûlée");
views.openText("🙂 x", "a smile: 🙂, a replacement character: \ufffd");
export default seen;"#,
    );
    let seen: Vec<String> = serde_json::from_str(ack(&out).value.as_deref().unwrap()).unwrap();
    assert_eq!(
        seen,
        [
            "true true GgError invalid-argument code true",
            "true invalid-argument views.openText: label must be a string, got a number.",
            "true not-found",
            "true",
            "null",
            "openText 2 close 1",
        ]
    );
    let window = a.render_window();
    assert!(
        window.contains("--- view: text inner ---\nmade"),
        "{window}"
    );
    assert!(
        window.contains("--- view: text outer ---\nkept"),
        "{window}"
    );
    assert!(
        window.contains("--- view: text café ---\ncrème brûlée"),
        "{window}"
    );
    assert!(
        window.contains("--- view: text 🙂 x ---\na smile: 🙂, a replacement character: \u{fffd}"),
        "{window}"
    );
}

#[test]
fn the_gg_api_functions_are_frozen_so_no_program_leaves_state_on_them() {
    // A property hung on an API function would outlive its program in this
    // isolate but not in a fresh one: the functions are frozen like the
    // objects that hold them.
    let mut a = agent();
    let out = run(
        &mut a,
        r#"import { views, memories, GgError } from "gg";
const fns: [string, any][] = [
  ["views.openText", views.openText], ["views.close", views.close], ["views.openFile", views.openFile],
  ["memories.readMemory", memories.readMemory], ["memories.searchMemories", memories.searchMemories], ["GgError", GgError],
];
const seen: string[] = [];
for (const [name, f] of fns) {
  let refused = false;
  try { f.leftBehind = 1; } catch (e) { refused = e instanceof TypeError; }
  seen.push([name, f.name, Object.isFrozen(f), refused, f.leftBehind === undefined].join(" "));
}
export default seen;"#,
    );
    let seen: Vec<String> = serde_json::from_str(ack(&out).value.as_deref().unwrap()).unwrap();
    assert_eq!(
        seen,
        [
            "views.openText openText true true true",
            "views.close close true true true",
            "views.openFile openFile true true true",
            "memories.readMemory readMemory true true true",
            "memories.searchMemories searchMemories true true true",
            "GgError GgError true true true",
        ]
    );
}

#[test]
fn the_window_and_program_library_persist_in_the_state_folder() {
    let state = tempfile::tempdir().unwrap();
    let options = || {
        gg_runtime::AgentOptions::new(Profile::default())
            .workspace(gg_tests::fixtures().join("workspace"))
            .state(state.path().to_path_buf())
            .agent_id("main".to_string())
    };
    {
        let mut a = gg_runtime::Agent::new(options()).unwrap();
        run(
            &mut a,
            r#"import { views } from "gg"; views.openText("kept", "across processes");"#,
        );
    }
    let mut a = gg_runtime::Agent::new(options()).unwrap();
    assert!(a.render_window().contains("across processes"));
    assert_eq!(ack(&run(&mut a, "1;")).program_id.as_deref(), Some("p2"));
}

#[test]
fn prototype_pollution_does_not_change_how_gg_answers() {
    let out = run(
        &mut agent(),
        r#"import { views } from "gg";
(Object.prototype as any)[0] = true;
(Array.prototype as any)[0] = true;
(Object.prototype as any).err = { code: "x", message: "y" };
try { views.close("nothing-open"); } catch (e: any) { console.log(e.code); }
views.openText("still", "works");"#,
    );
    assert_eq!(ack(&out).status, RunStatus::Ok, "{:?}", ack(&out));
    assert_eq!(ack(&out).console[0].text, "not-found");
    assert_eq!(out.views.len(), 1);
}

#[test]
fn one_program_holds_at_most_its_profile_s_views_and_a_superseding_label_takes_no_room() {
    let mut profile = Profile::default();
    profile.programs.views = 8;
    let mut a = agent_with(profile);
    let out = run(
        &mut a,
        r#"import { views } from "gg";
// Reopening one label any number of times supersedes it in place.
for (let i = 0; i < 10000; i++) views.openText("same", "take " + i);
const refused: string[] = [];
for (let i = 0; i < 12; i++) {
  try { views.openText("v" + i, "body " + i); } catch (e: any) { refused.push(e.code + " " + i); }
}
// A closed view makes room again, and a superseding open needs none.
views.close("v0");
views.openText("after-close", "x");
views.openText("v1", "v1 again");
export default refused;"#,
    );
    assert_eq!(ack(&out).status, RunStatus::Ok, "{:?}", ack(&out));
    assert_eq!(
        ack(&out).value.as_deref(),
        Some(
            r#"["limit-exceeded 7","limit-exceeded 8","limit-exceeded 9","limit-exceeded 10","limit-exceeded 11"]"#
        )
    );
    assert!(
        out.refusals[0]
            .message
            .contains("this program already has 8 views open, the most one program may open (the profile's programs.views)"),
        "{:?}",
        out.refusals
    );
    let open: Vec<String> = a
        .window()
        .open_views()
        .filter_map(|v| v.close_name().map(|n| n.into_owned()))
        .collect();
    assert_eq!(
        open,
        ["same", "v2", "v3", "v4", "v5", "v6", "after-close", "v1"]
    );
}

#[test]
fn a_turn_records_its_first_refusals_one_by_one_and_counts_the_rest() {
    let mut a = agent();
    let out = run(
        &mut a,
        r#"import { views } from "gg";
let caught = 0;
for (let i = 0; i < 10000; i++) { try { views.close("never-opened-" + i); } catch { caught++; } }
export default caught;"#,
    );
    assert_eq!(ack(&out).value.as_deref(), Some("10000"), "{:?}", ack(&out));
    let recorded = gg_module::events::RECORDED_REFUSALS;
    assert_eq!(out.refusals.len(), recorded);
    assert!(
        out.refusals[0].message.contains("never-opened-0"),
        "{:?}",
        out.refusals[0]
    );
    assert!(out.refusals[recorded - 1]
        .message
        .contains(&format!("never-opened-{}", recorded - 1)));
    assert_eq!(out.unrecorded_refusals, 10000 - recorded as u64);
    let events = gg_tests::json(&out.events);
    let turn = events.last().expect("the turn record");
    assert_eq!(turn["refusals"].as_array().map(Vec::len), Some(recorded));
    assert_eq!(turn["unrecordedRefusals"], 10000 - recorded as u64);
    // A turn with few refusals records them all and counts none.
    let out = run(
        &mut a,
        r#"import { views } from "gg"; try { views.close("x"); } catch {}"#,
    );
    assert_eq!((out.refusals.len(), out.unrecorded_refusals), (1, 0));
    assert!(gg_tests::json(&out.events)
        .last()
        .unwrap()
        .get("unrecordedRefusals")
        .is_none());
}

#[test]
fn a_long_label_is_refused_and_a_refusal_quoting_a_long_argument_is_recorded_cut() {
    let mut a = agent();
    let out = run(
        &mut a,
        r#"import { views } from "gg";
const codes: string[] = [];
try { views.openText("L".repeat(201), "body"); } catch (e: any) { codes.push(e.code); }
for (let i = 0; i < 30; i++) views.openText(String(i).padEnd(200, "L"), "body");
let thrown = "";
try { views.close("n".repeat(100000)); } catch (e: any) { thrown = e.message; }
export default [codes, thrown.length < 1000, thrown.includes("… (100000 characters)")];"#,
    );
    // A name the program chose is quoted cut, with its length.
    assert_eq!(
        ack(&out).value.as_deref(),
        Some(r#"[["invalid-argument"],true,true]"#),
        "{:?}",
        ack(&out)
    );
    assert!(
        out.refusals[0]
            .message
            .contains("a label is at most 200 characters, and this one is 201"),
        "{:?}",
        out.refusals[0]
    );
    // Closing a view no one opened lists the thirty open ones: the program
    // is told everything, and the turn's record keeps a bounded part.
    let out = run(
        &mut a,
        r#"import { views } from "gg";
let told = 0;
try { views.close("missing"); } catch (e: any) { told = e.message.length; }
export default told;"#,
    );
    let told: usize = ack(&out).value.as_deref().unwrap().parse().unwrap();
    assert!(told > gg_module::events::RECORDED_MESSAGE_CHARS, "{told}");
    let recorded = &out.refusals[0].message;
    assert!(
        recorded.chars().count() < gg_module::events::RECORDED_MESSAGE_CHARS + 100,
        "{}",
        recorded.len()
    );
    assert!(recorded.ends_with("characters in all)"), "{recorded:.100}");
}

/// A file view is held to the profile's `outputChars` as a text view is:
/// the region ends before the line that would pass it, and a first line
/// longer than it is shown cut, however large the file (one of 200 MB on
/// one line took gigabytes when the whole file was read and kept).
#[test]
fn a_file_view_shows_at_most_the_profiles_output_characters() {
    let workspace = tempfile::tempdir().unwrap();
    std::fs::write(
        workspace.path().join("long.txt"),
        format!("{}\nsecond\nshort\n", "z".repeat(300_000)),
    )
    .unwrap();
    let mut profile = Profile::default();
    profile.programs.output_chars = 1_000;
    let mut a = gg_runtime::Agent::new(
        gg_runtime::AgentOptions::new(profile).workspace(workspace.path().to_path_buf()),
    )
    .unwrap();
    let out = run(
        &mut a,
        r#"import { views } from "gg"; views.openFile("long.txt"); views.openFile("long.txt", { offset: 2 });"#,
    );
    assert_eq!(ack(&out).status, RunStatus::Ok, "{:?}", ack(&out));
    let window = a.render_window();
    assert!(
        window.contains("--- view: file long.txt (line 1 of 3, cut after 1000 characters) ---"),
        "{}",
        &window[..window.len().min(2000)]
    );
    assert!(window.contains(&format!("    1  {}\n", "z".repeat(1_000))));
    assert!(!window.contains(&"z".repeat(1_001)));
    // Opened again from line 2, the same path's view shows the rest, whole.
    assert!(window.contains("    2  second\n    3  short"), "{window}");
    assert!(
        window.contains("--- view: file long.txt (lines 2-3 of 3) ---"),
        "{window}"
    );
}
