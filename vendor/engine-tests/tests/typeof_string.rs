//! `typeof x === "string"` and its negations are compiled to one
//! instruction; these pin that they answer as the spelled-out comparison
//! does, for every kind of value, in every form the compiler folds.

use deno_core::{JsRuntime, RuntimeOptions};

#[test]
fn typeof_string_tests_answer_as_the_comparison_does() {
    let mut runtime = JsRuntime::new(RuntimeOptions::default());
    let value = runtime
        .execute_script(
            "typeof:string.js",
            r#"
            const values = [
              "", "text", "a".repeat(40) + String(Math.random()), new String("boxed"),
              0, 1.5, 10n, true, null, undefined, Symbol("s"), {}, [], () => 1,
              class {}, new Date(0), /x/,
            ];
            const string = ["str", "ing"].join("");
            const lines = [];
            for (const x of values) {
              const spelled = (typeof x) === string;
              let ifNot = "taken";
              if (typeof x !== "string") ifNot = "skipped";
              let ifLoose = "taken";
              if (typeof x != "string") ifLoose = "skipped";
              const folded = [
                typeof x === "string",
                typeof x == "string",
                !(typeof x !== "string"),
                !(typeof x != "string"),
                ifNot === "taken",
                ifLoose === "taken",
                "string" === typeof x,
              ];
              if (folded.some((answer) => answer !== spelled)) {
                lines.push(`${typeof x}: ${folded} against ${spelled}`);
              }
            }
            lines.push(`strings: ${values.filter((x) => typeof x === "string").length}`);
            lines.join("\n")
            "#,
        )
        .expect("the script runs");
    deno_core::scope!(scope, runtime);
    let local = deno_core::v8::Local::new(scope, value);
    assert_eq!(local.to_rust_string_lossy(scope), "strings: 3");
}
