//! gg's own defects, injected (feature `fault-injection`): a panic in gg's
//! code ends the agent it happened in as `internal_error`, with what it
//! stored kept, and never the process or another agent.

use gg_module::RunStatus;
use gg_runtime::{AgentError, Response};
use gg_tests::{ack, agent, run, scratchpad_agent, stored};

#[test]
fn a_panic_inside_a_gg_call_ends_only_that_agent() {
    gg_tests::alone(
        module_path!(),
        "a_panic_inside_a_gg_call_ends_only_that_agent",
        || {
            gg_runtime::fault::enable();
            let mut other = agent();
            let mut a = scratchpad_agent();
            let out = run(
                &mut a,
                r#"import { memories } from "gg";
memories.writeMemory({ name: "kept", description: "d", body: "written before the defect" });
// The raw reply of the call, as gg.js would decode it into a GgError.
export default (globalThis as any).__ggInjectedFault.panicInCall();"#,
            );
            // The call was refused as gg's defect; the turn reports it.
            assert!(
                ack(&out)
                    .value
                    .as_deref()
                    .unwrap_or("")
                    .contains("this is gg's defect"),
                "{:?}",
                ack(&out)
            );
            assert!(out.internal_error.is_some(), "{:?}", out.internal_error);
            // The agent has ended; what it stored stays.
            let next = a.turn(Response::program("export default 1;"));
            assert!(matches!(next, Err(AgentError::Internal(_))), "{next:?}");
            assert_eq!(
                stored(&a),
                vec![(
                    "kept".to_string(),
                    "d".to_string(),
                    "written before the defect".to_string()
                )]
            );
            // Another agent in the same process goes on.
            let fine = run(&mut other, "export default [1, 2].length;");
            assert_eq!(ack(&fine).value.as_deref(), Some("2"));
        },
    );
}

#[test]
fn a_panic_in_the_turn_loop_ends_only_that_agent() {
    gg_tests::alone(
        module_path!(),
        "a_panic_in_the_turn_loop_ends_only_that_agent",
        || {
            let mut other = agent();
            let mut a = agent();
            let first = run(&mut a, "export default 1;");
            assert_eq!(ack(&first).status, RunStatus::Ok);
            gg_runtime::fault::panic_in_next_turn();
            let crashed = a.turn(Response::program("export default 2;"));
            match crashed {
                Err(AgentError::Internal(reason)) => {
                    assert!(reason.contains("gg's defect"), "{reason}")
                }
                other => panic!("expected an internal error, got {other:?}"),
            }
            let after = a.turn(Response::program("export default 3;"));
            assert!(matches!(after, Err(AgentError::Internal(_))), "{after:?}");
            let fine = run(&mut other, "export default [1, 2, 3].length;");
            assert_eq!(ack(&fine).value.as_deref(), Some("3"));
        },
    );
}
