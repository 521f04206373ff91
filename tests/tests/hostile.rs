//! Hostile programs: each is stopped or reported, the host survives, and
//! the next program on the same agent runs.

use gg_module::RunStatus;
use gg_tests::{ack, agent, agent_with, error_text, memories_profile, run, run_fixture};

fn survives(name: &str) -> gg_runtime::TurnOutcome {
    survives_in(agent(), name)
}

/// [`survives`] in the agent `a`.
fn survives_in(mut a: gg_runtime::Agent, name: &str) -> gg_runtime::TurnOutcome {
    let out = run_fixture(&mut a, &format!("hostile/{name}"));
    let next = run(&mut a, "export default [1, 2, 3].map((n) => n * 2);");
    assert_eq!(
        ack(&next).value.as_deref(),
        Some("[2,4,6]"),
        "{name}: the next program runs: {:?}",
        ack(&next)
    );
    out
}

#[test]
fn an_infinite_promise_chain_is_stopped() {
    let out = survives("promise_loop.ts");
    assert_eq!(ack(&out).status, RunStatus::Ceiling, "{:?}", ack(&out));
}

#[test]
fn an_infinite_promise_chain_started_after_a_timer_is_stopped() {
    let out = survives("promise_loop_after_timer.ts");
    assert_eq!(ack(&out).status, RunStatus::Ceiling, "{:?}", ack(&out));
}

#[test]
fn an_infinite_loop_in_finally_is_stopped() {
    let out = survives("finally_loop.ts");
    assert_eq!(ack(&out).status, RunStatus::Ceiling, "{:?}", ack(&out));
}

#[test]
fn deep_recursion_is_a_range_error() {
    let out = survives("deep_recursion.ts");
    assert_eq!(ack(&out).status, RunStatus::Threw, "{:?}", ack(&out));
    assert!(
        error_text(&out).contains("RangeError") || error_text(&out).contains("stack"),
        "{:?}",
        ack(&out)
    );
}

#[test]
fn catastrophic_regex_backtracking_is_stopped() {
    let out = survives("regex_backtracking.ts");
    assert_eq!(ack(&out).status, RunStatus::Ceiling, "{:?}", ack(&out));
}

#[test]
fn a_program_the_parser_could_guess_at_forever_is_refused_at_compile_time() {
    let out = survives("parser_backtracking.ts");
    assert_eq!(ack(&out).status, RunStatus::CompileError, "{:?}", ack(&out));
    assert!(
        error_text(&out).contains("too intricate to parse"),
        "{:?}",
        ack(&out)
    );
    let location = out.error_location.as_deref().unwrap_or_default();
    assert!(
        location.starts_with("hostile/parser_backtracking.ts:6:"),
        "{location}"
    );
}

#[test]
fn string_doubling_is_stopped() {
    let out = survives("string_doubling.ts");
    assert!(
        matches!(ack(&out).status, RunStatus::Ceiling | RunStatus::Threw),
        "{:?}",
        ack(&out)
    );
}

#[test]
fn a_4_gb_allocation_is_stopped() {
    let out = survives("huge_allocation.ts");
    assert!(
        matches!(ack(&out).status, RunStatus::Ceiling | RunStatus::Threw),
        "{:?}",
        ack(&out)
    );
}

#[test]
fn an_unhandled_rejection_is_reported() {
    let out = survives("unhandled_rejection.ts");
    assert_eq!(ack(&out).status, RunStatus::Threw, "{:?}", ack(&out));
    assert!(error_text(&out).contains("nobody awaits me"));
}

#[test]
fn a_top_level_await_that_never_resolves_is_reported() {
    let out = survives("never_resolves.ts");
    assert_ne!(ack(&out).status, RunStatus::Ok, "{:?}", ack(&out));
    let error = error_text(&out);
    assert!(
        error.contains("never resolved") || error.contains("never settled"),
        "{error}"
    );
}

#[test]
fn eval_and_function_reach_nothing_more() {
    let mut a = agent();
    let out = run_fixture(&mut a, "hostile/eval_and_function.ts");
    assert_eq!(
        ack(&out).value.as_deref(),
        Some(r#"[2,"refused","undefined"]"#),
        "{:?}",
        ack(&out)
    );
}

#[test]
fn prototype_pollution_does_not_reach_another_agent() {
    let mut a = agent();
    run_fixture(&mut a, "hostile/pollute.ts");
    let mut b = agent();
    let out = run_fixture(&mut b, "hostile/check_pollution.ts");
    assert_eq!(
        ack(&out).value.as_deref(),
        Some(r#"{"polluted":false,"json":"{\"a\":1}"}"#),
        "{:?}",
        ack(&out)
    );
}

/// The acknowledgement's error text, or the empty string.
fn error_of(out: &gg_runtime::TurnOutcome) -> String {
    ack(out).error.clone().unwrap_or_default()
}

#[test]
fn a_symbol_in_a_gg_argument_is_a_refusal() {
    let out = survives("sym_arg.ts");
    assert_eq!(ack(&out).status, RunStatus::Ok, "{:?}", ack(&out));
    assert!(
        ack(&out)
            .console
            .iter()
            .any(|l| l.text.contains("caught GgError")),
        "{:?}",
        ack(&out)
    );
}

#[test]
fn a_symbol_in_the_exported_value_renders() {
    let out = survives("sym_value.ts");
    assert_eq!(
        ack(&out).value.as_deref(),
        Some("[null]"),
        "{:?}",
        ack(&out)
    );
}

#[test]
fn thrown_values_with_no_string_form_are_reported() {
    for name in ["null_throw.ts", "bad_tostring.ts", "reject_null.ts"] {
        let out = survives(name);
        assert_eq!(
            ack(&out).status,
            RunStatus::Threw,
            "{name}: {:?}",
            ack(&out)
        );
        assert!(
            error_of(&out).contains("#<Object>"),
            "{name}: {:?}",
            ack(&out)
        );
    }
}

#[test]
fn report_error_of_a_null_prototype_object_is_survived() {
    // As in Deno, a reported error is uncaught (no `catch` sees it) and
    // ends the program; an object with no prototype is named as one.
    let out = survives("report_null.ts");
    assert_eq!(ack(&out).status, RunStatus::Threw, "{:?}", ack(&out));
    assert!(error_of(&out).contains("#<Object>"), "{:?}", ack(&out));
}

#[test]
fn streaming_wasm_compilation_is_refused() {
    let out = survives("wasm_stream.ts");
    assert_eq!(ack(&out).value.as_deref(), Some("3"), "{:?}", ack(&out));
    assert!(
        ack(&out)
            .console
            .iter()
            .any(|l| l.text == "rejected TypeError"),
        "{:?}",
        ack(&out)
    );
}

#[test]
fn a_getter_in_a_gg_argument_may_print_and_call_gg() {
    let out = survives("getter_op.ts");
    assert_eq!(ack(&out).status, RunStatus::Threw, "{:?}", ack(&out));
    assert!(
        error_of(&out).contains("body must be a string"),
        "{:?}",
        ack(&out)
    );
    let out = survives("getter_calls_gg.ts");
    assert_eq!(
        ack(&out).value.as_deref(),
        Some(r#""both""#),
        "{:?}",
        ack(&out)
    );
}

#[test]
fn accessors_on_array_prototype_change_no_reply() {
    let out = survives("array_accessor.ts");
    assert_eq!(ack(&out).value.as_deref(), Some("6"), "{:?}", ack(&out));
    let out = survives("array_accessor_reply.ts");
    assert_eq!(
        ack(&out).value.as_deref(),
        Some(r#""not-found""#),
        "{:?}",
        ack(&out)
    );
}

#[test]
fn accessors_on_array_prototype_do_not_reach_the_engines_own_lists() {
    // Index accessors (with setters that drop what is stored) left on
    // Array.prototype by one program: the engine builds its module request
    // and import attribute lists as arrays, and must not read back what the
    // accessors say when the next programs link their imports.
    let mut a = agent();
    run_fixture(&mut a, "hostile/array_accessor_reply.ts");
    for i in 0..3 {
        let out = run(
            &mut a,
            &format!(
                "import {{ views }} from \"gg\"; views.openText(\"t{i}\", \"b\"); export default new Error(\"e\").stack?.includes(\"p\");"
            ),
        );
        assert_eq!(ack(&out).status, RunStatus::Ok, "{i}: {:?}", ack(&out));
    }
}

#[test]
fn a_getter_that_never_returns_on_the_exported_value_is_stopped() {
    let started = std::time::Instant::now();
    let out = survives("getter_hang.ts");
    assert_eq!(ack(&out).status, RunStatus::Ceiling, "{:?}", ack(&out));
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
}

#[test]
fn values_errors_and_views_stay_within_the_output_limit() {
    // The test agents keep the default outputChars (65 536).
    let limit = 65_536;
    let out = survives("big_value.ts");
    assert!(ack(&out).value.as_ref().unwrap().chars().count() <= limit);
    noted(&out, "the value was 10000002 characters");
    let out = survives("big_error.ts");
    assert!(error_of(&out).chars().count() <= limit);
    assert!(
        ack(&out).notes.iter().any(|n| n.contains("the error was")),
        "{:?}",
        ack(&out).notes
    );
    let out = survives("big_view.ts");
    assert_eq!(ack(&out).status, RunStatus::Threw, "{:?}", ack(&out).notes);
    assert!(
        error_of(&out).contains("over the 65536-character limit of one view"),
        "{}",
        &error_of(&out)[..200.min(error_of(&out).len())]
    );
}

#[test]
fn a_microtask_fan_out_is_stopped() {
    let started = std::time::Instant::now();
    let out = survives("microtask_fanout.ts");
    assert_eq!(ack(&out).status, RunStatus::Ceiling, "{:?}", ack(&out));
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
}

#[test]
fn a_throwing_microtask_that_requeues_itself_does_not_reach_the_next_program() {
    // Found by the program fuzz target: the program throws, its queued
    // microtask keeps re-queuing itself, and the next program's compilation
    // used to abort the process inside deno_core.
    let out = survives("microtask_requeue_throw.ts");
    assert_eq!(ack(&out).status, RunStatus::Threw, "{:?}", ack(&out));
}

#[test]
fn accessors_on_object_prototype_do_not_reach_the_module_loader() {
    let mut a = agent_with(memories_profile(
        "scratchpad",
        [16, 4096, 16384, 0, 256, 0],
        gg_module::Mode::Code,
    ));
    let saved = run(
        &mut a,
        r#"import { memories } from "gg"; memories.writeMemory({ name: "math-utils", description: "d", body: "b", code: "export const double = (n: number): number => n * 2;" });"#,
    );
    assert_eq!(ack(&saved).status, RunStatus::Ok, "{:?}", ack(&saved));
    let polluted = run_fixture(&mut a, "hostile/pollute_loader.ts");
    assert_eq!(ack(&polluted).status, RunStatus::Ok, "{:?}", ack(&polluted));
    // Static and dynamic imports of a code memory, then of a module that
    // does not exist: each as without the accessors, none of them run.
    let out = run(
        &mut a,
        r#"import { double } from "mathUtils";
const dynamic = await import("mathUtils");
let missing = "";
try { await import("noSuchModule"); } catch (e) { missing = String(e).slice(0, 40); }
export default [double(21), dynamic.double(4), missing.length > 0, (globalThis as any).loaderHits];"#,
    );
    assert_eq!(
        ack(&out).value.as_deref(),
        Some("[42,8,true,0]"),
        "{:?}",
        ack(&out)
    );
}

/// An agent with a small heap (32 MiB) and `time_ms` per program (as
/// given: a test that asks for more than `agent_with`'s second means it),
/// where a big value, a long error or a full heap soon meets the ceiling.
fn small_heap_agent(time_ms: u64) -> gg_runtime::Agent {
    let mut profile = gg_module::Profile::default();
    profile.programs.heap_mib = 32;
    profile.programs.time_ms = time_ms;
    gg_tests::agent_with_limits(profile)
}

/// Asserts that one of the acknowledgement's notes says `text`.
fn noted(out: &gg_runtime::TurnOutcome, text: &str) {
    let notes = &ack(out).notes;
    assert!(notes.iter().any(|n| n.contains(text)), "{text}: {notes:?}");
}

/// Asserts how run `i`'s program ended.
fn ended(out: &gg_runtime::TurnOutcome, status: RunStatus, i: usize) {
    assert_eq!(ack(out).status, status, "run {i}: {:?}", ack(out));
}

/// An agent with a small heap (32 MiB), where a long error text or a
/// program's `Error.prepareStackTrace` meets the heap ceiling.
fn survives_small_heap(name: &str) -> gg_runtime::TurnOutcome {
    let mut a = small_heap_agent(1000);
    let out = run_fixture(&mut a, &format!("hostile/{name}"));
    let next = run(
        &mut a,
        "export default new Error('after').stack?.split('\\n')[0];",
    );
    assert_eq!(
        ack(&next).value.as_deref(),
        Some("\"Error: after\""),
        "{name}: the next program runs and formats stacks: {:?}",
        ack(&next)
    );
    out
}

#[test]
fn an_error_too_long_to_format_at_the_heap_ceiling_is_reported() {
    let out = survives_small_heap("error_at_heap_ceiling.ts");
    assert!(
        matches!(ack(&out).status, RunStatus::Threw | RunStatus::Ceiling),
        "{:?}",
        ack(&out)
    );
    let out = survives_small_heap("prepare_stack_trace_at_ceiling.ts");
    assert!(
        matches!(ack(&out).status, RunStatus::Threw | RunStatus::Ceiling),
        "{:?}",
        ack(&out)
    );
    // Where the ceiling falls differs from run to run: every allocation
    // the error's formatting makes (its property keys included) may be the
    // one that fails. Twenty runs on one small-heap agent, as the fuzzer's
    // agents run them, and each is a ceiling or a throw.
    let mut a = small_heap_agent(500);
    for i in 0..20 {
        for name in [
            "prepare_stack_trace_at_ceiling.ts",
            "deep_stack_at_heap_ceiling.ts",
        ] {
            let out = run_fixture(&mut a, &format!("hostile/{name}"));
            assert!(
                matches!(ack(&out).status, RunStatus::Threw | RunStatus::Ceiling),
                "{name} run {i}: {:?}",
                ack(&out)
            );
        }
    }
}

#[test]
fn async_wasm_instantiation_works_in_one_isolate_after_another() {
    // The promise WebAssembly.instantiate returns is made in the isolate
    // that asked: an agent after a dropped one on the same thread (and
    // after a ceiling replaced an isolate) still gets its instance.
    for round in 0..6 {
        let mut a = agent();
        let out = run_fixture(&mut a, "hostile/wasm_instantiate_async.ts");
        assert_eq!(
            ack(&out).value.as_deref(),
            Some("42"),
            "round {round}: {:?}",
            ack(&out)
        );
        if round % 2 == 1 {
            let out = run_fixture(&mut a, "hostile/wasm_start_loop_async.ts");
            assert_eq!(ack(&out).status, RunStatus::Ceiling, "{:?}", ack(&out));
            let out = run_fixture(&mut a, "hostile/wasm_instantiate_async.ts");
            assert_eq!(
                ack(&out).value.as_deref(),
                Some("42"),
                "after a ceiling: {:?}",
                ack(&out)
            );
        }
    }
}

#[test]
fn a_wasm_start_function_that_never_returns_is_stopped() {
    for name in ["wasm_start_loop.ts", "wasm_start_loop_async.ts"] {
        let started = std::time::Instant::now();
        let out = survives(name);
        assert_eq!(
            ack(&out).status,
            RunStatus::Ceiling,
            "{name}: {:?}",
            ack(&out)
        );
        // The profile's 1 000 ms, within twice that.
        assert!(
            started.elapsed() < std::time::Duration::from_secs(2),
            "{name}: stopped after {:?}",
            started.elapsed()
        );
    }
}

/// The program after a value the heap could not render compiles and runs:
/// the engine's allocation failure was not left behind for it.
fn next_program_runs(a: &mut gg_runtime::Agent, i: usize) {
    let next = run(a, "export default [1, 2].length;");
    assert_eq!(
        ack(&next).value.as_deref(),
        Some("2"),
        "run {i}: {:?}",
        ack(&next)
    );
}

#[test]
fn a_value_the_heap_cannot_render_is_a_ceiling_and_the_next_programs_compile() {
    // A 20-million-character string fits the 32 MiB heap; a second copy to
    // render it does not. A string value is quoted from outside the heap,
    // so it is shown (cut); an array holding it needs the heap to render
    // and ends at the ceiling. Neither leaves the engine's allocation
    // failure behind for the next program's compile to take as its own.
    // The host's copy of 20 MB (an unoptimized build's) runs within
    // the time limit too: room for it on a loaded machine.
    let mut a = small_heap_agent(3000);
    for i in 0..3 {
        let out = run_fixture(&mut a, "hostile/big_string_value_at_ceiling.ts");
        ended(&out, RunStatus::Ok, i);
        assert!(ack(&out).value.as_deref().unwrap().starts_with("\"yyyy"));
        noted(&out, "the value was 20000002 characters");
        next_program_runs(&mut a, i);

        let out = run_fixture(&mut a, "hostile/big_array_value_at_ceiling.ts");
        ended(&out, RunStatus::Ceiling, i);
        next_program_runs(&mut a, i);
    }
}

#[test]
fn wherever_the_heap_ceiling_falls_the_error_is_read_and_the_next_program_runs() {
    // Each variant moves where the ceiling falls (the chunk size the
    // program fills the heap with, and what it holds before), so that over
    // the runs every step of the error's unwinding and reading (its name,
    // message, stack and callsites) meets a full heap somewhere.
    let mut a = small_heap_agent(1000);
    let source = gg_tests::program("hostile/prepare_stack_trace_at_ceiling.ts");
    for step in 0..64 {
        let variant = format!(
            "const held = 'p'.repeat({});\n{}",
            (step % 61) * 4099,
            source.replace("1 << 16", &format!("{}", (1 << 16) - (step % 83) * 611))
        );
        let out = run(&mut a, &variant);
        assert!(
            matches!(ack(&out).status, RunStatus::Threw | RunStatus::Ceiling),
            "step {step}: {:?}",
            ack(&out)
        );
        next_program_runs(&mut a, step);
    }
}

#[test]
fn no_global_property_is_read_in_the_middle_of_a_call_into_the_host() {
    // The engine's test hook for fast calls once looked itself up on the
    // global object at every native call, so a getter planted there ran
    // program code inside the call's dispatch, and a number there chose
    // the call's path. Neither may reach a call now.
    let mut a = agent();
    let out = run(
        &mut a,
        r#"import { views } from "gg";
let reads = 0;
Object.defineProperty(globalThis, "__v8x_fast_api_next_call", {
  get() { reads++; return 1000; },
  configurable: true,
});
for (let i = 0; i < 20; i++) {
  performance.now();
  views.openText("v" + (i % 3), "body " + i);
  new TextEncoder().encode("x");
}
export default reads;"#,
    );
    assert_eq!(ack(&out).status, RunStatus::Ok, "{:?}", ack(&out));
    assert_eq!(ack(&out).value.as_deref(), Some("0"));
    assert_eq!(out.views.len(), 3);
}

/// Runs `f` on a thread and fails the test if it has not finished after
/// `secs`: a loop the watchdog cannot stop would otherwise hang the suite
/// instead of failing it.
fn within<T: Send + 'static>(what: &str, secs: u64, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(std::time::Duration::from_secs(secs))
        .unwrap_or_else(|_| panic!("{what} did not finish in {secs} s"))
}

const STOPPED: &[RunStatus] = &[RunStatus::Ceiling];
/// Work the engine bounds by the heap or by a size it checks up front: a
/// heap ceiling, a `RangeError`, or (for the cheaper ones) the end of it.
const BOUNDED: &[RunStatus] = &[RunStatus::Ceiling, RunStatus::Threw];
const ENDS: &[RunStatus] = &[RunStatus::Ok, RunStatus::Ceiling, RunStatus::Threw];

/// One-line programs whose work is one native call that runs as long as the
/// program says: every `Array.prototype` method over an array-like of length
/// 2^53 - 1 (or 2^32 - 1 where the method first allocates that length), and
/// the string, typed array, JSON, BigInt and proxy siblings, each with what it
/// may end as.
const NATIVE_LOOPS: &[(&str, &[RunStatus])] = &[
    ("Array.prototype.includes.call({ length: 2 ** 53 - 1 }, 1)", STOPPED),
    ("Array.prototype.indexOf.call({ length: 2 ** 53 - 1 }, 1)", STOPPED),
    ("Array.prototype.lastIndexOf.call({ length: 2 ** 53 - 1 }, 1)", STOPPED),
    ("Array.prototype.join.call({ length: 2 ** 53 - 1 })", BOUNDED),
    ("Array.prototype.join.call({ length: 2 ** 53 - 1 }, '')", STOPPED),
    ("Array.prototype.toString.call({ length: 2 ** 53 - 1, join: Array.prototype.join })", BOUNDED),
    ("Array.prototype.toLocaleString.call({ length: 2 ** 53 - 1 })", BOUNDED),
    ("Array.prototype.fill.call(Object.defineProperty(new Uint8Array(1), 'length', { value: 2 ** 53 - 1 }), 1)", STOPPED),
    ("Array.prototype.copyWithin.call({ length: 2 ** 53 - 1 }, 0, 1)", STOPPED),
    ("Array.prototype.reverse.call({ length: 2 ** 53 - 1 })", STOPPED),
    ("Array.prototype.sort.call({ length: 2 ** 53 - 1 })", STOPPED),
    ("Array.prototype.splice.call({ length: 2 ** 53 - 1 }, 0, 1)", STOPPED),
    ("Array.prototype.slice.call({ length: 2 ** 32 - 1 }, 0)", STOPPED),
    ("Array.prototype.flat.call({ length: 2 ** 53 - 1 })", STOPPED),
    ("Array.prototype.flatMap.call({ length: 2 ** 53 - 1 }, (x) => x)", STOPPED),
    ("[].concat({ length: 2 ** 53 - 1, [Symbol.isConcatSpreadable]: true })", STOPPED),
    ("Array.prototype.every.call({ length: 2 ** 53 - 1 }, () => true)", STOPPED),
    ("Array.prototype.some.call({ length: 2 ** 53 - 1 }, () => false)", STOPPED),
    ("Array.prototype.forEach.call({ length: 2 ** 53 - 1 }, () => 0)", STOPPED),
    ("Array.prototype.map.call({ length: 2 ** 32 - 1 }, () => 0)", STOPPED),
    ("Array.prototype.filter.call({ length: 2 ** 53 - 1 }, () => false)", STOPPED),
    ("Array.prototype.reduce.call({ length: 2 ** 53 - 1 }, (a) => a, 0)", STOPPED),
    ("Array.prototype.reduceRight.call({ length: 2 ** 53 - 1 }, (a) => a, 0)", STOPPED),
    ("Array.prototype.find.call({ length: 2 ** 53 - 1 }, () => false)", STOPPED),
    ("Array.prototype.findLastIndex.call({ length: 2 ** 53 - 1 }, () => false)", STOPPED),
    ("Array.prototype.shift.call({ length: 2 ** 53 - 1 })", STOPPED),
    ("Array.prototype.unshift.call({ length: 2 ** 53 - 2 }, 1)", STOPPED),
    ("Array.prototype.at.call({ length: 2 ** 53 - 1 }, -1)", ENDS),
    ("Array.prototype.toSorted.call({ length: 2 ** 32 - 1 })", BOUNDED),
    ("Array.prototype.toSpliced.call({ length: 2 ** 32 - 1 }, 0, 0)", BOUNDED),
    ("Array.prototype.toReversed.call({ length: 2 ** 32 - 1 })", BOUNDED),
    ("Array.prototype.with.call({ length: 2 ** 32 - 1 }, 0, 1)", BOUNDED),
    ("Array.from({ length: 2 ** 32 - 1 })", BOUNDED),
    ("Array(2 ** 32 - 1).includes(1)", STOPPED),
    ("Array(2 ** 32 - 1).sort()", STOPPED),
    ("Array.prototype.includes.call(new Proxy({ length: 2 ** 53 - 1 }, {}), 1)", STOPPED),
    ("String.raw({ raw: { length: 2 ** 53 - 1 } })", STOPPED),
    ("'a'.repeat(2 ** 25).includes('a'.repeat(2 ** 20) + 'b')", STOPPED),
    ("'a'.repeat(2 ** 25).indexOf('a'.repeat(2 ** 20) + 'b')", STOPPED),
    ("'a'.repeat(2 ** 25).lastIndexOf('b' + 'a'.repeat(2 ** 20))", STOPPED),
    ("'a'.repeat(2 ** 25).split('a'.repeat(2 ** 20) + 'b')", STOPPED),
    ("'a'.repeat(2 ** 25).replaceAll('a'.repeat(2 ** 20) + 'b', 'c')", STOPPED),
    ("Array(10000).fill('a'.repeat(2 ** 22)).sort()", STOPPED),
    (
        "Array(10000).fill('a'.repeat(2 ** 22)).includes('a'.repeat(2 ** 22 - 1) + 'b')",
        STOPPED,
    ),
    ("'a'.repeat(2 ** 26).replace(/a/g, '').length", BOUNDED),
    ("new RegExp('(?:' + 'a|'.repeat(2 ** 20) + 'b)')", STOPPED),
    ("'\\u0301\\u0323'.repeat(2 ** 20).normalize('NFC').length", ENDS),
    ("eval('[' + '1,'.repeat(2 ** 23) + ']').length", BOUNDED),
    (
        "(() => { let x: unknown[] = []; for (let i = 0; i < 60; i++) x = [x, x]; return x.flat(Infinity).length; })()",
        STOPPED,
    ),
    (
        "(() => { let x: unknown[] = []; for (let i = 0; i < 60; i++) x = [x, x]; return JSON.stringify(x).length; })()",
        BOUNDED,
    ),
    // Beside a SharedArrayBuffer the serializer takes the value apart and
    // writes the string once per reference, outside the heap: 16 GB asked.
    (
        "structuredClone([Array(1000).fill('x'.repeat(2 ** 24)), new SharedArrayBuffer(8)])",
        BOUNDED,
    ),
    // The exported value itself: the host renders it once per path too.
    (
        "(() => { let x: unknown[] = []; for (let i = 0; i < 60; i++) x = [x, x]; return x; })()",
        ENDS,
    ),
    ("Array.prototype.join.call(new Uint8Array(2 ** 25)).length", BOUNDED),
    ("new Float64Array(2 ** 22).map(Math.random).sort().length", ENDS),
    ("((1n << 1048000n) - 1n).toString().length", STOPPED),
    // ICU4X's collator, host-side: its compare is quadratic over combining
    // marks (minutes at this length); long strings go by their sort keys.
    (
        "'a\\u0301'.repeat(2 ** 19).localeCompare('a\\u0301'.repeat(2 ** 19) + 'b', 'de')",
        ENDS,
    ),
    // ICU4X's segmenter, host-side: millions of segments in one op call,
    // or one word of millions of combining marks.
    (
        "[...new Intl.Segmenter('en', { granularity: 'word' }).segment('\\u0301'.repeat(2 ** 22))].length",
        ENDS,
    ),
    (
        "[...new Intl.Segmenter('en', { granularity: 'word' }).segment('\\u2028'.repeat(2 ** 22))].length",
        STOPPED,
    ),
    ("JSON.stringify('\\u0001'.repeat(2 ** 24)).length", BOUNDED),
    (
        "Object.getOwnPropertyNames(new Proxy({}, { ownKeys: () => Array.from({ length: 2 ** 20 }, (_, i) => 'k' + i) })).length",
        ENDS,
    ),
];

#[test]
fn every_native_loop_a_program_sizes_is_stopped_and_the_next_program_runs() {
    within("the native loops", 900, || {
        let mut a = agent();
        for (i, (expr, expected)) in NATIVE_LOOPS.iter().enumerate() {
            let started = std::time::Instant::now();
            let out = run(&mut a, &format!("export default {expr};"));
            let took = started.elapsed();
            assert!(
                expected.contains(&ack(&out).status),
                "{expr}: ended {:?}, expected one of {expected:?}",
                ack(&out)
            );
            // The issue's oracle is 2 x timeMs + 1 s; a debug build on a
            // shared machine gets room, a loop that is not stopped does not.
            assert!(
                took < std::time::Duration::from_secs(10),
                "{expr}: took {took:?}"
            );
            next_program_runs(&mut a, i);
        }
    });
}

/// The exported value is rendered outside the heap in at most the heap
/// limit's bytes: work in proportion to the limit, done for the program, so
/// it stops with the program (a time ceiling) instead of running on past
/// it. Strings of both forms the engine holds (one byte a character, and
/// two), each made in a fraction of the limit and escaped to six bytes a
/// character (a debug build took 2.1 s past a 200 ms limit on the second).
#[test]
fn rendering_a_huge_exported_value_stops_at_the_time_limit() {
    let mut profile = gg_module::Profile::default();
    profile.programs.time_ms = 200;
    profile.programs.heap_mib = 1024;
    let mut a = gg_tests::agent_with_limits(profile);
    for (i, value) in [
        "'\\x01'.repeat(2 ** 25)",
        "'\\x01\\u{1F600}'.repeat(2 ** 23)",
    ]
    .into_iter()
    .enumerate()
    {
        let started = std::time::Instant::now();
        let out = run(&mut a, &format!("export default {value};"));
        let took = started.elapsed();
        // A fast machine may render it all within the limit.
        assert!(
            matches!(ack(&out).status, RunStatus::Ceiling | RunStatus::Ok),
            "{value}: {:?}",
            ack(&out)
        );
        // The issue's oracle: 2 x timeMs + 1 s.
        assert!(
            took < std::time::Duration::from_millis(1_400),
            "{value}: took {took:?}"
        );
        next_program_runs(&mut a, i);
    }
}

#[test]
fn a_native_loop_in_a_getter_of_the_exported_value_is_stopped() {
    let out = within("the getter", 120, || survives("native_loop_in_getter.ts"));
    assert_eq!(ack(&out).status, RunStatus::Ceiling, "{:?}", ack(&out));
}

#[test]
fn a_native_loop_in_an_on_use_hook_is_stopped_and_the_session_goes_on() {
    within("the onUse hook", 120, || {
        let mut profile = memories_profile("scratchpad", [0; 6], gg_module::Mode::Code);
        profile.programs.on_use_time_ms = 200;
        let mut a = agent_with(profile);
        let out = run(
            &mut a,
            r#"import { memories } from "gg"; memories.writeMemory({ name: "spin", description: "d", body: "b", onUse: "Array.prototype.includes.call({ length: 2 ** 53 - 1 }, 1);" }); export default "written";"#,
        );
        assert_eq!(ack(&out).status, RunStatus::Ok, "{:?}", ack(&out));
        let window = a.render_window();
        assert!(
            window.contains(
                "The onUse hook of `spin` failed: it ran past its 200 ms limit and was stopped."
            ),
            "{window}"
        );
        next_program_runs(&mut a, 0);
    });
}

#[test]
fn structured_clone_walks_each_object_once_and_keeps_shared_references_and_cycles() {
    let out = within("the DAG clone", 120, || survives("structured_clone_dag.ts"));
    assert_eq!(ack(&out).status, RunStatus::Ok, "{:?}", ack(&out));
    assert_eq!(
        ack(&out).value.as_deref(),
        Some("[true,true,true,true,true]")
    );
}

#[test]
fn structured_clone_keeps_holes_and_never_walks_a_length() {
    let out = within("the sparse clone", 120, || {
        survives("structured_clone_sparse.ts")
    });
    assert_eq!(ack(&out).status, RunStatus::Ok, "{:?}", ack(&out));
    assert_eq!(
        ack(&out).value.as_deref(),
        Some(r#"[false,3,3,2147483647,false,4294967295,"last",1,"kept",true]"#)
    );
}

#[test]
fn structured_clone_of_a_dag_beside_a_refused_value_is_refused_at_once() {
    let out = within("the refused DAG clone", 120, || {
        survives("structured_clone_dag_refused.ts")
    });
    assert_eq!(ack(&out).status, RunStatus::Ok, "{:?}", ack(&out));
    assert_eq!(
        ack(&out).value.as_deref(),
        Some("\"DataCloneError: #<SharedArrayBuffer> could not be cloned.\"")
    );
}

#[test]
fn a_wasm_module_the_loader_would_take_seconds_over_is_stopped_at_the_time_limit() {
    // WAMR's loader is quadratic in a function's stacked locals: this 1.9 MB
    // module took some 20 s to load, past every limit, before the loader
    // heard the termination.
    let started = std::time::Instant::now();
    let out = survives("wasm_loader_quadratic.ts");
    assert_eq!(ack(&out).status, RunStatus::Ceiling, "{:?}", ack(&out));
    assert!(
        error_text(&out).contains("time limit"),
        "{}",
        error_text(&out)
    );
    // The profile's 1 000 ms, within twice that and a second.
    assert!(
        started.elapsed() < std::time::Duration::from_secs(3),
        "stopped after {:?}",
        started.elapsed()
    );
}

#[test]
fn wasm_modules_past_v8s_limits_are_refused_before_loading() {
    let out = survives("wasm_v8_limits.ts");
    assert_eq!(
        ack(&out).value.as_deref(),
        Some(concat!(
            r#"["false","CompileError: WebAssembly.Module(): local count too large @+23","#,
            r#""false","CompileError: WebAssembly.Module(): size 7654322 > maximum function size (7654321) @+24"]"#
        )),
        "{:?}",
        ack(&out)
    );
}

#[test]
fn wasm_memory_counts_against_the_heap_as_v8_refuses_what_it_cannot_allocate() {
    // The test agents' heap is 128 MiB: 8 192 pages (512 MiB) never fit.
    let out = survives("wasm_memory_limits.ts");
    assert_eq!(ack(&out).status, RunStatus::Ok, "{:?}", ack(&out));
    let value: serde_json::Value =
        serde_json::from_str(ack(&out).value.as_deref().unwrap()).unwrap();
    let said = |key: &str| value[key].as_str().unwrap_or_default().to_string();
    let range_error = |key: &str| {
        assert!(said(key).starts_with("RangeError: "), "{key}: {value}");
    };
    // A module's declared memory, a memory made from JS, and either grown
    // from JS: V8's RangeError.
    range_error("declared");
    range_error("jsGrow");
    range_error("constructed");
    range_error("constructedGrow");
    // `memory.grow` from the module's own code: -1, as the spec says of a
    // grow that cannot be satisfied.
    assert_eq!(said("wasmGrow"), "-1", "{value}");
    // What fits still grows (WAMR gives a module without an allocator of
    // its own one page more than it declares).
    assert_eq!(said("wasmGrowSmall"), "2", "{value}");
    assert_eq!(said("jsGrowSmall"), "3", "{value}");
    assert_eq!(said("constructedSmall"), "131072", "{value}");
    assert_eq!(said("bytes"), (4 * 65536).to_string(), "{value}");
}

#[test]
fn host_buffers_past_the_heap_end_the_turn_at_its_ceiling_and_the_next_runs() {
    // ICU4X's copies and answers and host-side decoding are sized before
    // they are built: past what the heap has left the turn ends at its heap
    // ceiling, as the same work done in the heap would. The heap ceiling is
    // what is tested: 10 s, not 1, so a loaded machine running an
    // unoptimized build reaches it before the time limit.
    for name in ["segmenter_32mib.ts", "text_decoder_48mib.ts"] {
        let mut profile = gg_module::Profile::default();
        profile.programs.heap_mib = 128;
        profile.programs.time_ms = 10_000;
        let out = survives_in(gg_tests::agent_with_limits(profile), name);
        assert_eq!(
            ack(&out).status,
            RunStatus::Ceiling,
            "{name}: {:?}",
            ack(&out)
        );
        assert!(
            error_text(&out).contains("heap limit"),
            "{name}: {}",
            error_text(&out)
        );
    }
    // Strings longer than the collator takes are refused with a RangeError
    // that says how long they may be, before anything is copied.
    let out = survives("locale_compare_8m.ts");
    assert_eq!(ack(&out).status, RunStatus::Threw, "{:?}", ack(&out));
    assert!(
        error_text(&out).contains("RangeError") && error_text(&out).contains("2097152"),
        "{}",
        error_text(&out)
    );
}

#[test]
fn outputs_built_host_side_are_cut_to_what_the_heap_has_left() {
    // 48 million control characters quote to 288 MB of JSON: the value is
    // built in at most the heap limit's bytes, and shown cut. A 64 MiB heap
    // and the time an unoptimized build needs to write 64 MB of escapes.
    let agent = || {
        let mut profile = gg_module::Profile::default();
        profile.programs.heap_mib = 64;
        profile.programs.time_ms = 10_000;
        gg_tests::agent_with_limits(profile)
    };
    let out = run_fixture(&mut agent(), "hostile/export_control_chars.ts");
    assert_eq!(ack(&out).status, RunStatus::Ok, "{:?}", ack(&out));
    let value = ack(&out).value.as_deref().unwrap();
    assert!(value.starts_with("\"\\u0001\\u0001"), "{}", &value[..40]);
    noted(&out, "the value was");
    // A console line the heap could not hold aborted the process inside
    // deno_web's formatting; its strings are cut before it is formatted.
    let mut a = agent();
    let out = run_fixture(&mut a, "hostile/console_huge_string.ts");
    assert_eq!(ack(&out).status, RunStatus::Ok, "{:?}", ack(&out));
    assert_eq!(ack(&out).value.as_deref(), Some("\"printed\""));
    assert!(!ack(&out).console.is_empty(), "{:?}", ack(&out));
    noted(&out, "console output reached the 65536-character limit");
    let next = run(&mut a, "export default [1, 2, 3].map((n) => n * 2);");
    assert_eq!(ack(&next).value.as_deref(), Some("[2,4,6]"));
}

#[test]
fn finalization_callbacks_that_never_return_end_with_their_run() {
    let (out, took) = within("the finalization callbacks", 120, || {
        let started = std::time::Instant::now();
        let out = survives("finalization_callbacks_spin.ts");
        (out, started.elapsed())
    });
    assert!(
        [RunStatus::Ok, RunStatus::Ceiling].contains(&ack(&out).status),
        "{:?}",
        ack(&out)
    );
    // 2 x timeMs + 1 s is 3 s here; a debug build gets room, a callback
    // started per registration does not.
    assert!(took < std::time::Duration::from_secs(5), "took {took:?}");
}
