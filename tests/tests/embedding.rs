//! The embedder's side of an agent: the blocking turn refused from async
//! code (before it touches the agent), allowed on tokio's blocking threads,
//! and `AgentHandle`, an agent on a thread of its own with an async turn.

use gg_runtime::{Agent, AgentError, AgentHandle, AgentOptions, Response};
use gg_tests::{ack, run};

#[test]
fn a_blocking_turn_from_async_code_is_refused_and_leaves_the_agent_as_it_was() {
    let mut agent = Agent::new(AgentOptions::default()).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let refused = runtime.block_on(async { agent.turn(Response::program("export default 1;")) });
    match refused {
        Err(AgentError::Setup(why)) => {
            assert!(
                why.contains("Agent::turn") && why.contains("AgentHandle"),
                "{why}"
            );
        }
        other => panic!("expected a setup error, got {other:?}"),
    }
    // Outside the runtime the same agent runs, and the refused call was no
    // turn of its life.
    let out = run(&mut agent, "export default 2;");
    assert_eq!(out.turn, 1);
    assert_eq!(ack(&out).value.as_deref(), Some("2"));
}

#[test]
fn a_blocking_turn_on_a_blocking_thread_of_a_runtime_runs() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    let value = runtime
        .block_on(async {
            tokio::task::spawn_blocking(|| {
                let mut agent = Agent::new(AgentOptions::default()).unwrap();
                let out = agent.turn(Response::program("export default 3;")).unwrap();
                out.acknowledgement.unwrap().value
            })
            .await
        })
        .unwrap();
    assert_eq!(value.as_deref(), Some("3"));
}

#[test]
fn agent_handles_take_turns_from_async_code_each_on_its_own_thread() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let a = AgentHandle::spawn(AgentOptions::default().agent_id("a".to_string())).unwrap();
        let b = AgentHandle::spawn(AgentOptions::default().agent_id("b".to_string())).unwrap();
        assert_eq!((a.id(), b.id()), ("a", "b"));
        // Both programs wait on a timer: the turns overlap.
        let program = |n: u32| {
            Response::program(format!(
                "await new Promise((r) => setTimeout(r, 200)); export default {n};"
            ))
        };
        let started = std::time::Instant::now();
        let (x, y) = tokio::join!(a.turn(program(1)), b.turn(program(2)));
        let (x, y) = (x.unwrap(), y.unwrap());
        assert_eq!(x.acknowledgement.unwrap().value.as_deref(), Some("1"));
        assert_eq!(y.acknowledgement.unwrap().value.as_deref(), Some("2"));
        assert!(
            started.elapsed() < std::time::Duration::from_millis(390),
            "the two turns ran one after the other: {:?}",
            started.elapsed()
        );
        // Calls on one handle run in order.
        let (first, second) = tokio::join!(
            a.turn(Response::program("export default 'first';")),
            a.with(|agent| agent.render_window())
        );
        assert_eq!(first.unwrap().turn, 2);
        assert!(second.unwrap().contains("first"));
    });
}

#[test]
fn an_agent_handle_that_cannot_open_says_why() {
    let state = tempfile::tempdir().unwrap();
    let error = AgentHandle::spawn(
        AgentOptions::default()
            .state(state.path().to_path_buf())
            .workspace(state.path().to_path_buf()),
    )
    .err()
    .expect("a workspace that is the state folder is refused");
    assert!(error.to_string().contains("is the state folder"), "{error}");
}
