//! An External (a pointer the embedder hands to JavaScript, as deno_core
//! does for each op's context) is recorded by the engine under its object's
//! address. Once the object is freed that address can hold any other
//! object, so the record must go with the External: left behind, it made
//! whatever object came to live there answer `IsExternal` and hand out the
//! freed External's pointer. The test runs alone: the count is
//! process-wide.
use deno_core::{v8, JsRuntime, RuntimeOptions};

#[test]
fn an_isolates_external_records_are_dropped_with_it() {
    gg_engine_tests::alone(
        module_path!(),
        "an_isolates_external_records_are_dropped_with_it",
        || {
            // The first runtime of a process sets up what every later one shares.
            drop(JsRuntime::new(RuntimeOptions::default()));
            let baseline = v8::quickjs_recorded_externals();

            let runtime = JsRuntime::new(RuntimeOptions::default());
            let live = v8::quickjs_recorded_externals();
            assert!(
        live > baseline,
        "a live runtime's ops hold Externals ({baseline} recorded before it, {live} with it)"
    );
            drop(runtime);
            assert_eq!(
                v8::quickjs_recorded_externals(),
                baseline,
                "the dropped runtime's Externals left their records behind"
            );

            for i in 0..20 {
                let mut runtime = JsRuntime::new(RuntimeOptions::default());
                runtime
                    .execute_script("probe", "Deno.core.ops.op_void_sync(); 1")
                    .expect("an op call");
                drop(runtime);
                assert_eq!(
                    v8::quickjs_recorded_externals(),
                    baseline,
                    "runtime {i} left External records behind"
                );
            }
        },
    );
}
