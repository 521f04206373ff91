//! Scripts compiled from the engine's bytecode cache behave as scripts
//! parsed afresh: a source compiled before (in this runtime or another) is
//! not checked again, so these pin what the check and the cache must keep
//! answering: located syntax errors, each runtime's own values, and stacks
//! that name the script they ran under.

use deno_core::{JsRuntime, RuntimeOptions};

fn run(
    runtime: &mut JsRuntime,
    name: &'static str,
    source: &'static str,
) -> Result<String, String> {
    match runtime.execute_script(name, source) {
        Ok(value) => {
            deno_core::scope!(scope, runtime);
            let local = deno_core::v8::Local::new(scope, value);
            Ok(local.to_rust_string_lossy(scope))
        }
        Err(error) => Err(error.to_string()),
    }
}

#[test]
fn a_cached_script_runs_alike_in_every_runtime() {
    const SOURCE: &str = "globalThis.count = (globalThis.count ?? 0) + 1; String(globalThis.count)";
    for _ in 0..3 {
        let mut runtime = JsRuntime::new(RuntimeOptions::default());
        assert_eq!(
            run(&mut runtime, "cache:count.js", SOURCE).as_deref(),
            Ok("1")
        );
        assert_eq!(
            run(&mut runtime, "cache:count.js", SOURCE).as_deref(),
            Ok("2")
        );
    }
}

#[test]
fn a_syntax_error_is_located_however_often_its_name_compiled_before() {
    for _ in 0..3 {
        let mut runtime = JsRuntime::new(RuntimeOptions::default());
        assert_eq!(
            run(&mut runtime, "cache:edit.js", "1 + 1").as_deref(),
            Ok("2")
        );
        let error = run(&mut runtime, "cache:edit.js", "1 +\n  (").expect_err("a syntax error");
        assert!(error.contains("SyntaxError"), "{error}");
        assert!(
            error.contains("cache:edit.js:2"),
            "the error names its line: {error}"
        );
    }
}

#[test]
fn the_same_source_under_two_names_keeps_each_name() {
    const SOURCE: &str = "new Error(\"where\").stack";
    for name in ["cache:first.js", "cache:second.js", "cache:first.js"] {
        let mut runtime = JsRuntime::new(RuntimeOptions::default());
        let stack = run(&mut runtime, name, SOURCE).expect("ran");
        assert!(stack.contains(name), "{name}: {stack}");
    }
}
