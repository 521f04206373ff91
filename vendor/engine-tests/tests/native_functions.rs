//! Native functions as the engine makes them from templates, on a bare
//! deno_core runtime: a function its template says cannot be constructed has
//! no `prototype` (as in V8), a constructible one keeps its own, and every
//! native function prints as native code through one shared `toString`;
//! ops an embedder disables are one function that throws for each of them;
//! `Global`s made and reset by the thousand leave the isolate working.

use deno_core::{v8, JsRuntime, RuntimeOptions};

const PROBE: &str = r#"
const ops = Deno.core.ops;
// Async ops are JavaScript wrappers deno_core writes; the rest are the
// engine's native functions, each with the engine's own toString.
const names = Object.keys(ops).filter(
  (name) => typeof ops[name] === "function" && Object.hasOwn(ops[name], "toString"),
);
const withPrototype = names.filter((name) => Object.hasOwn(ops[name], "prototype"));
const texts = names.map((name) => String(ops[name]));
const sharedToString = new Set(names.map((name) => ops[name].toString)).size;
let constructed;
try {
  new ops.op_void_sync();
  constructed = "constructed";
} catch (e) {
  constructed = e instanceof TypeError ? "TypeError" : String(e);
}
JSON.stringify({
  count: names.length,
  withPrototype,
  allNative: texts.every((t) => t.includes("[native code]")),
  named: texts.includes("function op_void_sync() { [native code] }"),
  sharedToString,
  constructed,
})
"#;

fn report(runtime: &mut JsRuntime, source: &'static str) -> serde_json::Value {
    let result = runtime
        .execute_script("probe", source)
        .expect("the probe ran");
    deno_core::scope!(scope, runtime);
    let local = v8::Local::new(scope, result);
    serde_json::from_str(&local.to_rust_string_lossy(scope)).expect("JSON")
}

#[test]
fn native_functions_have_no_prototype_unless_constructible_and_share_to_string() {
    let mut runtime = JsRuntime::new(RuntimeOptions::default());
    let report = report(&mut runtime, PROBE);
    assert!(report["count"].as_u64().unwrap() > 50, "{report}");
    assert_eq!(report["withPrototype"], serde_json::json!([]), "{report}");
    assert_eq!(report["allNative"], true, "{report}");
    assert_eq!(report["named"], true, "{report}");
    assert_eq!(report["sharedToString"], 1, "{report}");
    assert_eq!(report["constructed"], "TypeError", "{report}");
}

const DISABLED_PROBE: &str = r#"
const ops = Deno.core.ops;
const disabled = ["op_print", "op_panic", "op_void_sync", "op_str_byte_length"];
const thrown = disabled.map((name) => {
  try {
    ops[name]("text", true);
    return "returned";
  } catch (e) {
    return String(e.message);
  }
});
JSON.stringify({
  functions: new Set(disabled.map((name) => ops[name])).size,
  thrown,
  add: ops.op_add(1, 2),
  addIsItsOwn: ops.op_add !== ops.op_print,
})
"#;

#[test]
fn disabled_ops_are_one_function_that_throws_for_each() {
    let disable = deno_core::Extension {
        name: "disables_some_ops",
        middleware_fn: Some(Box::new(|op: deno_core::OpDecl| match op.name {
            "op_print" | "op_panic" | "op_void_sync" | "op_str_byte_length" => op.disable(),
            _ => op,
        })),
        ..Default::default()
    };
    let mut runtime = JsRuntime::new(RuntimeOptions {
        extensions: vec![disable],
        ..Default::default()
    });
    let report = report(&mut runtime, DISABLED_PROBE);
    assert_eq!(report["functions"], 1, "{report}");
    assert_eq!(
        report["thrown"],
        serde_json::json!(vec!["op is disabled"; 4]),
        "{report}"
    );
    assert_eq!(report["add"], 3, "{report}");
    assert_eq!(report["addIsItsOwn"], true, "{report}");
}

#[test]
fn globals_reset_in_any_order_keep_the_rest_alive() {
    let mut runtime = JsRuntime::new(RuntimeOptions::default());
    let mut kept = Vec::new();
    {
        deno_core::scope!(scope, &mut runtime);
        let mut made: Vec<v8::Global<v8::Value>> = (0..5_000)
            .map(|i| {
                let text = v8::String::new(scope, &format!("value {i}")).unwrap();
                v8::Global::new(scope, v8::Local::<v8::Value>::from(text))
            })
            .collect();
        // Drop every other one, from the middle out, keeping the rest.
        let mut index = 0;
        while !made.is_empty() {
            let at = (made.len() / 2 + index) % made.len();
            let global = made.swap_remove(at);
            if index % 2 == 0 {
                kept.push(global);
            }
            index += 1;
        }
        for (i, global) in kept.iter().enumerate().step_by(97) {
            let text = v8::Local::new(scope, global).to_rust_string_lossy(scope);
            assert!(text.starts_with("value "), "global {i} reads {text:?}");
        }
    }
    assert_eq!(kept.len(), 2_500);
    drop(kept);
    // The isolate still runs scripts after the churn.
    let again = report(
        &mut runtime,
        "JSON.stringify({ ok: [1, 2].map((x) => x * 2) })",
    );
    assert_eq!(again["ok"], serde_json::json!([2, 4]));
}
