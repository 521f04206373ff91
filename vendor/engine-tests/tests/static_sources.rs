//! A module or lazily loaded script compiled into the binary is handed to
//! the engine as it lies, its rewrites and scans found once per process;
//! one whose text was computed at run time is handed over as a string and
//! scanned each time. Both must compile to the same thing: the same values,
//! the same `import.meta`, the same frames in an error's stack.

use std::borrow::Cow;
use std::sync::Arc;

use deno_core::{ascii_str, Extension, ExtensionFileSource, JsRuntime, RuntimeOptions};

const MODULE_NAME: &str = "ext:probe/mod.js";
const SCRIPT_NAME: &str = "ext:probe/lazy.js";

const MODULE: &str = r#"// A module of the probe extension.
function fromModule() {
  throw new RangeError("thrown in the module");
}
const script = Deno.core.loadExtScript("ext:probe/lazy.js");
globalThis.probe = {
  value: [1, 2, 3].map((x) => x * 2).join("-"),
  url: import.meta.url,
  fromModule,
  script,
};
"#;

const SCRIPT: &str = r#"// A script of the probe extension, loaded when asked for.
(function () {
  function fromScript(n) {
    if (n > 0) return fromScript(n - 1);
    throw new TypeError("thrown in the script");
  }
  return { answer: 6 * 7, fromScript };
})();
"#;

/// What the probe shows of its two sources: values, then each error's
/// message and its frames naming the probe's files.
const SHOW: &str = r#"
(() => {
  const frames = (error) => error.stack.split("\n").filter((l) => l.includes("ext:probe/"));
  const out = [probe.value, probe.url, String(probe.script.answer)];
  for (const f of [() => probe.fromModule(), () => probe.script.fromScript(2)]) {
    try { f(); out.push("no error"); } catch (e) { out.push(String(e), ...frames(e)); }
  }
  return out.join("\n");
})()
"#;

fn probe(module: ExtensionFileSource, script: ExtensionFileSource) -> String {
    let extension = Extension {
        name: "probe",
        esm_files: Cow::Owned(vec![module]),
        esm_entry_point: Some(MODULE_NAME),
        lazy_loaded_js_files: Cow::Owned(vec![script]),
        ..Default::default()
    };
    let mut runtime = JsRuntime::new(RuntimeOptions {
        extensions: vec![extension],
        ..Default::default()
    });
    let shown = runtime
        .execute_script("show.js", SHOW)
        .expect("the probe runs");
    deno_core::scope!(scope, runtime);
    let shown = deno_core::v8::Local::new(scope, shown);
    shown.to_rust_string_lossy(scope)
}

#[test]
fn sources_compiled_into_the_binary_compile_as_sources_made_at_run_time_do() {
    let from_binary = probe(
        ExtensionFileSource::new(MODULE_NAME, ascii_str!(MODULE)),
        ExtensionFileSource::new(SCRIPT_NAME, ascii_str!(SCRIPT)),
    );
    let made_at_run_time = probe(
        ExtensionFileSource::new_computed(MODULE_NAME, Arc::from(MODULE)),
        ExtensionFileSource::new_computed(SCRIPT_NAME, Arc::from(SCRIPT)),
    );
    // The two texts are the same text.
    assert!(
        from_binary.contains("thrown in the module"),
        "{from_binary}"
    );
    assert_eq!(from_binary, made_at_run_time);
    let lines: Vec<&str> = from_binary.lines().collect();
    assert_eq!(&lines[..3], ["2-4-6", MODULE_NAME, "42"], "{from_binary}");
    assert_eq!(lines[3], "RangeError: thrown in the module");
    assert!(lines[4].contains("ext:probe/mod.js:3:"), "{from_binary}");
    assert!(
        from_binary.contains("TypeError: thrown in the script")
            && from_binary.contains("at fromScript (ext:probe/lazy.js:5:"),
        "{from_binary}"
    );
    // The recursion's frames, at the line of the call in the file (the
    // script's leading comment is not counted out).
    assert_eq!(
        from_binary
            .matches("fromScript (ext:probe/lazy.js:4:")
            .count(),
        2,
        "{from_binary}"
    );
}
