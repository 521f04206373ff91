//! Web-standard globals in gg's isolates: timers and the event loop,
//! the pinned seed and clock, and the globals a model expects.

use gg_module::window::RunStatus;
use gg_runtime::Determinism;
use gg_tests::{ack, agent, run, run_fixture};

fn value(outcome: &gg_runtime::TurnOutcome) -> serde_json::Value {
    let ack = ack(outcome);
    assert_eq!(ack.status, RunStatus::Ok, "{ack:?}");
    serde_json::from_str(ack.value.as_deref().expect("a value")).expect("JSON")
}

#[test]
fn timers_fire_awaited_or_not_before_the_program_ends() {
    let mut a = agent();
    let out = run_fixture(&mut a, "web/timers.ts");
    let v = value(&out);
    assert_eq!(
        v["order"],
        serde_json::json!(["microtask", "a", "b", "stop"])
    );
    assert_eq!(v["ticks"], 3);
    assert!(ack(&out).notes.is_empty(), "{:?}", ack(&out).notes);
    let console: Vec<&str> = ack(&out).console.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(console, ["interval cleared after 2", "late timeout"]);
}

/// The commonest shape of a model's program: `main().then(...)`, no
/// top-level await, sleeps inside. It runs to the end, and what its
/// callbacks open arrives like any view of the program.
#[test]
fn a_program_runs_until_its_event_loop_is_empty() {
    let mut a = agent();
    let out = gg_tests::run(
        &mut a,
        r#"import { views } from "gg";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function main() {
  for (let page = 1; page <= 3; page++) {
    await sleep(10);
    console.log("page " + page);
  }
  return "done";
}
main().then((result) => {
  console.log(result);
  views.openText("late", "opened from a callback");
});"#,
    );
    assert_eq!(ack(&out).status, RunStatus::Ok, "{:?}", ack(&out));
    let console: Vec<&str> = ack(&out).console.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(console, ["page 1", "page 2", "page 3", "done"]);
    assert!(
        a.render_window()
            .contains("--- view: text late ---\nopened from a callback"),
        "{}",
        a.render_window()
    );
}

/// An interval never cleared keeps the program running (Deno would run
/// forever): a time ceiling, with a note saying what to do.
#[test]
fn an_interval_never_cleared_is_a_time_ceiling_with_a_note() {
    let mut a = agent();
    let out = gg_tests::run(
        &mut a,
        "let n = 0; setInterval(() => { n++; }, 10); console.log(\"started\");",
    );
    let ack = ack(&out);
    assert_eq!(ack.status, RunStatus::Ceiling, "{ack:?}");
    assert_eq!(ack.console.len(), 1, "{:?}", ack.console);
    assert!(
        ack.notes.iter().any(|n| n
            .starts_with("1 setInterval timer was still running at the time limit")
            && n.contains("clearInterval(id)")),
        "{:?}",
        ack.notes
    );
    let next = gg_tests::run(&mut a, "export default 2;");
    assert_eq!(gg_tests::ack(&next).value.as_deref(), Some("2"));
    assert!(gg_tests::ack(&next).notes.is_empty());
}

#[test]
fn a_timer_cannot_outlive_the_time_limit() {
    let mut a = agent();
    let out = gg_tests::run(
        &mut a,
        "await new Promise((r) => setTimeout(r, 60_000)); export default 1;",
    );
    assert_eq!(ack(&out).status, RunStatus::Ceiling, "{:?}", ack(&out));
    assert!(
        ack(&out)
            .notes
            .iter()
            .any(|n| n.starts_with("1 timer was still pending at the time limit")),
        "{:?}",
        ack(&out).notes
    );
    let next = gg_tests::run(&mut a, "export default 2;");
    assert_eq!(ack(&next).value.as_deref(), Some("2"));
}

fn pinned_run(seed: u64, clock: &str) -> (Vec<String>, String) {
    let mut a = agent();
    a.set_determinism(Determinism::from_parts(Some(seed), Some(clock)).unwrap())
        .unwrap();
    let out = run_fixture(&mut a, "web/determinism.ts");
    let ack = ack(&out);
    assert_eq!(ack.status, RunStatus::Ok, "{ack:?}");
    (
        ack.console.iter().map(|l| l.text.clone()).collect(),
        ack.value.clone().unwrap(),
    )
}

#[test]
fn a_pinned_seed_and_clock_give_identical_output() {
    let (first, value) = pinned_run(7, "2026-01-02T03:04:05Z");
    let (second, value2) = pinned_run(7, "2026-01-02T03:04:05Z");
    assert_eq!(first, second);
    assert_eq!(value, value2);
    assert_eq!(first[3], "1767323045000 2026-01-02T03:04:05.000Z 0");
    assert!(value.contains("\"uuidShape\":true"), "{value}");
    // Another seed gives other numbers; the clock still holds.
    let (other, _) = pinned_run(8, "2026-01-02T03:04:05Z");
    assert_ne!(first[0], other[0]);
    assert_ne!(first[1], other[1]);
    assert_ne!(first[2], other[2]);
    assert_eq!(first[3], other[3]);
}

#[test]
fn a_pinned_seed_gives_each_run_its_own_draws_whichever_isolate_runs_it() {
    // One agent keeps its isolate; the other lets it go before every run,
    // and one of its runs throws (which also replaces the isolate). Their
    // runs draw the same numbers, and no two runs draw the same ones: a
    // fresh isolate does not start the sequence again.
    const DRAW: &str = "export default [Math.random(), crypto.randomUUID()];";
    const THROW: &str = "Math.random(); throw new Error(\"on purpose\");";
    let pinned = || Determinism::from_parts(Some(11), None).unwrap();
    let draws = |park: bool| {
        let mut a = agent();
        a.set_determinism(pinned()).unwrap();
        let mut seen = Vec::new();
        for (i, program) in [DRAW, DRAW, THROW, DRAW, DRAW].into_iter().enumerate() {
            if park {
                a.park();
            }
            let out = gg_tests::run(&mut a, program);
            if program == DRAW {
                seen.push(value(&out));
            } else {
                assert_eq!(ack(&out).status, RunStatus::Threw, "run {i}");
            }
        }
        seen
    };
    let kept = draws(false);
    assert_eq!(kept, draws(true), "the same draws in fresh isolates");
    let mut distinct: Vec<String> = kept.iter().map(|v| v.to_string()).collect();
    distinct.sort();
    distinct.dedup();
    assert_eq!(
        distinct.len(),
        kept.len(),
        "no run repeats another's draws: {kept:?}"
    );
}

#[test]
fn without_a_seed_randomness_is_real() {
    let mut a = agent();
    let one = run_fixture(&mut a, "web/determinism.ts");
    let two = run_fixture(&mut a, "web/determinism.ts");
    assert_ne!(ack(&one).console[1].text, ack(&two).console[1].text);
    assert_ne!(ack(&one).console[2].text, ack(&two).console[2].text);
}

#[test]
fn the_web_globals_a_model_expects_are_there() {
    let mut a = agent();
    let v = value(&run_fixture(&mut a, "web/globals.ts"));
    assert_eq!(v["url"], "https://example.com/a/b?x=1&y=two&z=3#frag");
    assert_eq!(v["host"], "example.com");
    assert_eq!(v["params"], serde_json::json!(["x", "y", "z"]));
    assert_eq!(v["utf8"], serde_json::json!([10, "héllo ✓"]));
    assert_eq!(v["base64"], serde_json::json!(["Z2c=", "gg"]));
    assert_eq!(v["events"], serde_json::json!(["pong"]));
    assert_eq!(v["cloned"], serde_json::json!([true, 1, true]));
    assert_eq!(v["domError"], "InvalidCharacterError");
    assert_eq!(v["perf"], "number");
    assert_eq!(v["findLast"], 3);
    assert_eq!(v["grouped"], serde_json::json!(["odd", "even"]));
    assert_eq!(v["intl"], "1,234,567.891");
    assert_eq!(v["console"], "function");
}

/// `URL` and `URLSearchParams` carry deno_web's not-serializable marker
/// (gg's stand-in for its message-port script puts it there): the same
/// symbol description and attributes, and a clone of either is what
/// `structuredClone` makes of it as before. No message port exists.
#[test]
fn url_prototypes_keep_their_not_serializable_marker() {
    let mut a = agent();
    let v = value(&gg_tests::run(
        &mut a,
        r#"const marked = (proto: object) => {
  const key = Object.getOwnPropertySymbols(proto).find((s) => s.description === "[[NotSerializable]]");
  if (key === undefined) return null;
  const d = Object.getOwnPropertyDescriptor(proto, key)!;
  return [d.value, d.enumerable, d.writable, d.configurable, Reflect.deleteProperty(proto, key)];
};
const clone = (x: unknown) => {
  try { return JSON.stringify(structuredClone(x)); } catch (e) { return "threw " + (e as Error).name; }
};
const u = new URL("https://a.example/x?y=1");
export default {
  url: marked(URL.prototype),
  params: marked(URLSearchParams.prototype),
  cloned: [clone(u), clone(u.searchParams)],
  ports: [typeof MessagePort, typeof MessageChannel, typeof MessageEvent],
  still: [u.href, String(u.searchParams)],
};"#,
    ));
    assert_eq!(
        v["url"],
        serde_json::json!([true, false, false, false, false])
    );
    assert_eq!(
        v["params"],
        serde_json::json!([true, false, false, false, false])
    );
    assert_eq!(v["cloned"], serde_json::json!(["{}", "{}"]));
    assert_eq!(
        v["ports"],
        serde_json::json!(["undefined", "undefined", "undefined"])
    );
    assert_eq!(
        v["still"],
        serde_json::json!(["https://a.example/x?y=1", "y=1"])
    );
}

/// deno_web fetches some of its scripts again from function bodies, long
/// after they loaded (console inspecting a URL, a DOMException or an
/// event): they answer from the loaded scripts' cache, though loading the
/// web layer let go of what loading a script needs. The lines are Deno
/// 2.9.6's.
#[test]
fn what_deno_web_looks_up_after_the_web_layer_loaded_is_there() {
    let mut a = agent();
    let out = gg_tests::run(
        &mut a,
        r#"const u = new URL("https://a.example/p?q=1");
console.log(u);
console.log(u.searchParams);
console.log(new DOMException("gone", "NotFoundError"));
console.log(new Event("ping"));
console.log(AbortSignal.abort("why"));
console.log(new TextDecoder());"#,
    );
    assert_eq!(ack(&out).status, RunStatus::Ok, "{:?}", ack(&out));
    let text: Vec<&str> = ack(&out)
        .console
        .iter()
        .flat_map(|l| l.text.lines())
        .collect();
    for expected in [
        "URL {",
        "  href: \"https://a.example/p?q=1\",",
        "  search: \"?q=1\"",
        "URLSearchParams { \"q\" => \"1\" }",
        "NotFoundError: gone",
        "Event {",
        "  type: \"ping\"",
        "AbortSignal { aborted: true, reason: \"why\", onabort: null }",
        "TextDecoder { encoding: \"utf-8\", fatal: false, ignoreBOM: false }",
    ] {
        assert!(text.contains(&expected), "{expected:?} not in {text:#?}");
    }
}

#[test]
fn console_formats_values_as_deno_does() {
    let mut a = agent();
    let out = gg_tests::run(
        &mut a,
        r#"console.log({ a: 1, b: [1, "x"] }, new Map([["k", 1]]), new Set([1]), "%s=%d", "n", 5);
           console.error(new Error("boom", { cause: "why" }).message);
           console.info(null, undefined, 10n, Symbol("s"));"#,
    );
    let lines: Vec<(String, String)> = ack(&out)
        .console
        .iter()
        .map(|l| (l.level.clone(), l.text.clone()))
        .collect();
    assert_eq!(
        lines,
        vec![
            (
                "log".into(),
                r#"{ a: 1, b: [ 1, "x" ] } Map(1) { "k" => 1 } Set(1) { 1 } %s=%d n 5"#.into()
            ),
            ("error".into(), "boom".into()),
            ("log".into(), "null undefined 10n Symbol(s)".into()),
        ]
    );
}

/// The engine keeps the bytecode of every module it compiled and reads it
/// back when the same source comes again (a second agent, an isolate
/// recycled). What comes out of that cache must be what the compiler made:
/// a tagged template's strings, and their `raw`, frozen.
#[test]
fn a_tagged_template_is_frozen_whether_compiled_or_read_from_the_cache() {
    let program = r#"const tag = (s: TemplateStringsArray, ..._v: unknown[]) => s;
const s = tag`a${1}b`;
export default [Object.isFrozen(s), Object.isFrozen(s.raw), Object.getOwnPropertyDescriptor(s, "length")!.writable];"#;
    for round in ["compiled", "from the cache"] {
        let mut fresh = agent();
        let v = value(&gg_tests::run(&mut fresh, program));
        assert_eq!(v, serde_json::json!([true, true, false]), "{round}");
    }
}

/// ICU4X debug-asserts on some locale data (Portuguese `{ year, month:
/// "long" }`): in a debug build its formatter panics, and a panic inside an
/// op cannot unwind through the engine, so it aborted the whole host. The
/// program gets an answer or an error; the host and the agent go on.
#[test]
fn a_formatter_that_panics_inside_icu4x_does_not_take_the_host_down() {
    let mut a = agent();
    let out = gg_tests::run(
        &mut a,
        r#"let text: string;
try { text = new Intl.DateTimeFormat("pt-BR", { year: "numeric", month: "long", timeZone: "UTC" }).format(new Date(Date.UTC(2024, 10, 5))); }
catch (e) { text = (e as Error).name; }
export default text;"#,
    );
    let text = value(&out);
    assert!(text == "novembro de 2024" || text == "RangeError", "{text}");
    let next = value(&gg_tests::run(&mut a, "export default 1 + 1;"));
    assert_eq!(next, serde_json::json!(2));
}

/// Temporal is installed on a program's first use of it (its polyfill was
/// more than half of creating an isolate); until then the global is an
/// accessor, and a program that assigns it first keeps its own value.
#[test]
fn temporal_installs_on_first_use() {
    let mut a = agent();
    let v = value(&gg_tests::run(
        &mut a,
        r#"const before = Object.getOwnPropertyDescriptor(globalThis, "Temporal")!;
const zoned = Temporal.Instant.from("2024-07-04T16:00:00Z").toZonedDateTimeISO("America/New_York");
const after = Object.getOwnPropertyDescriptor(globalThis, "Temporal")!;
export default [typeof before.get, "value" in after, zoned.toString(), new Date(0).toTemporalInstant().toString(),
  new Intl.DateTimeFormat("de-DE", { timeZone: "UTC" }).format(new Date(Date.UTC(2024, 6, 4)))];"#,
    ));
    assert_eq!(
        v,
        serde_json::json!([
            "function",
            true,
            "2024-07-04T12:00:00-04:00[America/New_York]",
            "1970-01-01T00:00:00Z",
            "4.7.2024"
        ])
    );
    let mut b = agent();
    let own = value(&gg_tests::run(
        &mut b,
        r#"(globalThis as any).Temporal = 5; export default (globalThis as any).Temporal;"#,
    ));
    assert_eq!(own, serde_json::json!(5));
}

/// A program's own functions keep their text for `toString` (types blanked
/// to spaces, as erasure leaves them); the host's
/// JavaScript behind the globals reads `[native code]`, as built-ins do,
/// in this isolate and in every later one of the process (the CLI test
/// `the_first_isolate_of_a_process_shows_functions_as_later_ones_do` checks
/// a fresh process's first).
#[test]
fn function_text_is_the_programs_own_only() {
    for _ in 0..3 {
        let mut a = agent();
        let v = value(&run_fixture(&mut a, "web/function-text.ts"));
        assert_eq!(v["mine"], true, "{v}");
        assert_eq!(
            v["consoleLog"], "function log() {\n    [native code]\n}",
            "{v}"
        );
        assert_eq!(v["textEncoder"], true, "{v}");
        assert_eq!(v["hostTextShown"], serde_json::json!([]), "{v}");
        // The text as written, its type blanked to spaces (the transpiler
        // erases types in place).
        assert_eq!(v["arrow"], "(x        ) => x * 2", "{v}");
    }
}

/// deno_web's globals are loaded only for a run whose code may reach them,
/// and never into a realm a program has changed: a run that needs them
/// after runs that did not gets a fresh isolate, as a fresh process would.
#[test]
fn the_web_globals_load_for_the_first_run_that_names_them_in_an_untouched_realm() {
    let mut a = agent();
    // Plants a setter on `Object.prototype` that would catch every object
    // a script later gives a property of these names, and keeps them where
    // a later program could read them; names no web global.
    let planted = run(
        &mut a,
        r#"const caught: unknown[] = [];
for (const name of ["converters", "inspect", "level", "colors", "depth", "kind"]) {
  Object.defineProperty(Object.prototype, name, {
    __proto__: null,
    set(v) { caught.push(this); Object.defineProperty(this, name, { __proto__: null, value: v, writable: true, configurable: true, enumerable: true }); },
    configurable: true,
  } as PropertyDescriptor);
}
Array.prototype.caught = caught;
export default typeof Array.prototype.caught;"#,
    );
    assert_eq!(
        ack(&planted).value.as_deref(),
        Some("\"object\""),
        "{:?}",
        ack(&planted)
    );
    assert!(a.holds_isolate() && !a.holds_web_globals());

    let out = run(
        &mut a,
        r#"console.log(new URL("https://example.com/a?b=1").searchParams.get("b"));
export default typeof (Array.prototype as any).caught;"#,
    );
    assert_eq!(ack(&out).status, RunStatus::Ok, "{:?}", ack(&out));
    assert_eq!(
        ack(&out).value.as_deref(),
        Some("\"undefined\""),
        "{:?}",
        ack(&out)
    );
    let console: Vec<&str> = ack(&out).console.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(console, ["1"]);
    assert!(a.holds_web_globals());

    // Loaded, they stay for the isolate's later runs, named or not.
    let later = run(&mut a, "Array.prototype.mark = 1; export default 2;");
    assert_eq!(ack(&later).value.as_deref(), Some("2"));
    let again = run(&mut a, "console.log([].mark); export default 3;");
    assert_eq!(ack(&again).console[0].text, "1", "{:?}", ack(&again));
}

/// A run that reaches a web global without naming it (the name built at
/// run time, the global object found through a getter) is refused with
/// what to write, and nothing is loaded behind its back.
#[test]
fn a_web_global_reached_without_its_name_is_refused_with_what_to_write() {
    let mut a = agent();
    let out = run(
        &mut a,
        r#"Object.prototype.__defineGetter__("theGlobalObject", function () { return this; });
// @ts-ignore: found through the getter above
const g: any = theGlobalObject;
const name = ["con", "sole"].join("");
let message = "";
try { g[name].log("x"); } catch (e) { message = String(e); }
export default message;"#,
    );
    let value = ack(&out).value.clone().unwrap_or_default();
    assert!(
        value.contains("ReferenceError: console is not loaded in this run")
            && value.contains("Write console in the program's text."),
        "{:?}",
        ack(&out)
    );
    assert!(!a.holds_web_globals());
}

/// A code memory's module may use the web globals though the program that
/// imports it names none: the scan reads every module the run can import.
#[test]
fn a_code_memory_that_uses_a_web_global_has_it_in_a_run_that_does_not_name_it() {
    let mut a = gg_tests::scratchpad_agent();
    let written = run(
        &mut a,
        r#"import { memories } from "gg";
memories.writeMemory({ name: "shout", description: "d", body: "b", code: "export function shout(s: string) { console.log(s.toUpperCase()); return s.length; }" });"#,
    );
    assert_eq!(ack(&written).status, RunStatus::Ok, "{:?}", ack(&written));
    // A fresh isolate, which has run nothing, for the next run.
    a.park();
    let out = run(
        &mut a,
        r#"import { shout } from "shout"; export default shout("hi");"#,
    );
    assert_eq!(ack(&out).value.as_deref(), Some("2"), "{:?}", ack(&out));
    assert_eq!(ack(&out).console[0].text, "HI");
}

/// The engine's own code uses some web globals for programs that name
/// none: `Atomics.waitAsync`'s timeout is a `setTimeout`, and Temporal's
/// `Duration.prototype.toLocaleString` may warn on the console. Such
/// programs get the web layer too.
#[test]
fn what_the_engine_runs_through_a_web_global_has_it() {
    let mut a = agent();
    let waited = run(
        &mut a,
        r#"const view = new Int32Array(new SharedArrayBuffer(4));
const r = Atomics.waitAsync(view, 0, 0, 5);
export default String(await r.value);"#,
    );
    assert_eq!(
        ack(&waited).value.as_deref(),
        Some("\"timed-out\""),
        "{:?}",
        ack(&waited)
    );
    let mut b = agent();
    let duration = run(
        &mut b,
        r#"export default Temporal.Duration.from({ hours: 1 }).toLocaleString();"#,
    );
    assert_eq!(
        ack(&duration).value.as_deref(),
        Some("\"1 hr\""),
        "{:?}",
        ack(&duration)
    );
    assert!(a.holds_web_globals() && b.holds_web_globals());
}
