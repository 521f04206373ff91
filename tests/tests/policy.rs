//! The embedder's `HostPolicy` at the host boundary: a tool call the
//! profile allows is let through, refused, or decided later (the program
//! waits, its time limit stopped); a run at its deadline is stopped or
//! given more time. In both execution modes.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use gg_module::{Mode, Profile, RunStatus};
use gg_runtime::{
    Agent, AgentOptions, DeadlineDecision, DeadlineReached, HostPolicy, HostTool, ToolCallRequest,
    ToolDecision,
};
use gg_tests::{ack, call_tools, run};
use serde_json::{json, Value};

/// Two host functions: `shop.look` answers its argument, `shop.wipe`
/// counts the calls that reached it.
fn shop(wiped: Arc<AtomicUsize>) -> Vec<HostTool> {
    let schema = json!({ "type": "object", "properties": { "n": { "type": "integer" } } });
    vec![
        HostTool::new(
            "shop",
            "look",
            "Looks.",
            schema.clone(),
            |args: Value| async move { Ok(args["n"].clone()) },
        ),
        HostTool::new("shop", "wipe", "Wipes.", schema, move |_args: Value| {
            let wiped = wiped.clone();
            async move {
                wiped.fetch_add(1, Ordering::SeqCst);
                Ok(Value::String("wiped".into()))
            }
        }),
    ]
}

/// Refuses `wipe`; `look` with `n: 2` is asked about, and allowed after
/// 1.5 s (a person taking their time); `n: 3` is asked about and refused;
/// `n: 5` is asked about for 5 s.
struct Approvals;

impl HostPolicy for Approvals {
    fn tool_call(&self, call: &ToolCallRequest<'_>) -> ToolDecision {
        assert_eq!((call.agent, call.server), ("clerk", "shop"));
        match (call.tool, call.argument["n"].as_i64()) {
            ("wipe", _) => ToolDecision::Refuse("wiping needs a manager".into()),
            ("look", Some(2)) => ToolDecision::Ask(Box::pin(async {
                tokio::time::sleep(Duration::from_millis(1_500)).await;
                ToolDecision::Allow
            })),
            ("look", Some(3)) => {
                ToolDecision::Ask(Box::pin(async { ToolDecision::Refuse("not today".into()) }))
            }
            ("look", Some(5)) => ToolDecision::Ask(Box::pin(async {
                tokio::time::sleep(Duration::from_secs(5)).await;
                ToolDecision::Allow
            })),
            _ => ToolDecision::Allow,
        }
    }
}

fn clerk(mode: Mode, time_ms: u64, wiped: Arc<AtomicUsize>) -> Agent {
    let mut profile = Profile {
        mode,
        ..Profile::default()
    };
    profile.programs.time_ms = time_ms;
    Agent::new(
        AgentOptions::new(profile)
            .agent_id("clerk".to_string())
            .host_tools(shop(wiped))
            .policy(Arc::new(Approvals)),
    )
    .unwrap()
}

#[test]
fn a_policy_refuses_one_tool_and_lets_the_others_through() {
    let wiped = Arc::new(AtomicUsize::new(0));
    let mut a = clerk(Mode::Code, 5_000, wiped.clone());
    let out = run(
        &mut a,
        r#"import { look, wipe } from "gg/tools/shop";
let refusal = "";
try { await wipe({}); } catch (e) { refusal = `${e.code}: ${e.message}`; }
export default [await look({ n: 1 }), refusal];"#,
    );
    assert_eq!(
        ack(&out).value.as_deref(),
        Some(r#"[1,"unavailable: shop.wipe was refused by the host: wiping needs a manager"]"#),
        "{:?}",
        ack(&out)
    );
    assert_eq!(
        wiped.load(Ordering::SeqCst),
        0,
        "a refused call never reaches the tool"
    );

    // The same policy for a tool-calling model's native calls.
    let mut b = clerk(Mode::ToolCalling, 5_000, wiped.clone());
    let out = call_tools(
        &mut b,
        &[("shop__wipe", json!({})), ("shop__look", json!({ "n": 4 }))],
    );
    assert!(out.tool_results[0].is_error, "{:?}", out.tool_results);
    assert!(
        out.tool_results[0]
            .content
            .contains("wiping needs a manager"),
        "{:?}",
        out.tool_results[0]
    );
    assert!(!out.tool_results[1].is_error, "{:?}", out.tool_results[1]);
    assert_eq!(wiped.load(Ordering::SeqCst), 0);
}

#[test]
fn a_decision_the_program_waits_for_does_not_count_against_its_time_limit() {
    let mut a = clerk(Mode::Code, 1_000, Arc::new(AtomicUsize::new(0)));
    let started = Instant::now();
    let out = run(
        &mut a,
        r#"import { look } from "gg/tools/shop";
let refusal = "";
try { await look({ n: 3 }); } catch (e) { refusal = e.message; }
export default [await look({ n: 2 }), refusal];"#,
    );
    assert_eq!(ack(&out).status, RunStatus::Ok, "{:?}", ack(&out));
    assert_eq!(
        ack(&out).value.as_deref(),
        Some(r#"[2,"shop.look was refused by the host: not today"]"#)
    );
    assert!(
        started.elapsed() >= Duration::from_millis(1_500),
        "the call waited for its approval: {:?}",
        started.elapsed()
    );
    // The program's own running still counts: a loop after the approval
    // meets the limit.
    let out = run(
        &mut a,
        r#"import { look } from "gg/tools/shop";
await look({ n: 2 });
while (true) {}"#,
    );
    assert_eq!(ack(&out).status, RunStatus::Ceiling, "{:?}", ack(&out));
}

/// Grants one extension of half the limit, then stops the run; counts the
/// times it was asked.
struct OneMoreChance(Arc<AtomicUsize>);

impl HostPolicy for OneMoreChance {
    fn deadline(&self, run: &DeadlineReached) -> DeadlineDecision {
        self.0.fetch_add(1, Ordering::SeqCst);
        if run.extended.is_zero() {
            DeadlineDecision::Extend(run.limit / 2)
        } else {
            DeadlineDecision::Stop
        }
    }
}

#[test]
fn a_policy_gives_a_run_at_its_deadline_more_time_or_stops_it() {
    let asked = Arc::new(AtomicUsize::new(0));
    let mut profile = Profile::default();
    profile.programs.time_ms = 600;
    let mut a =
        Agent::new(AgentOptions::new(profile).policy(Arc::new(OneMoreChance(asked.clone()))))
            .unwrap();
    // 800 ms of work: past the limit, within the extension.
    let out = run(
        &mut a,
        "const end = Date.now() + 800; while (Date.now() < end) {} export default 'done';",
    );
    assert_eq!(
        ack(&out).value.as_deref(),
        Some(r#""done""#),
        "{:?}",
        ack(&out)
    );
    assert_eq!(asked.load(Ordering::SeqCst), 1);
    // A loop without end: extended once, then stopped.
    let started = Instant::now();
    let out = run(&mut a, "while (true) {}");
    assert_eq!(ack(&out).status, RunStatus::Ceiling, "{:?}", ack(&out));
    assert!(
        started.elapsed() >= Duration::from_millis(900),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(asked.load(Ordering::SeqCst), 3);
}

#[test]
fn the_clock_stands_still_only_while_the_program_is_idle_on_its_own_decision() {
    let mut a = clerk(Mode::Code, 1_000, Arc::new(AtomicUsize::new(0)));
    // A program that runs on while its call waits for a decision is
    // running: its deadline is not paused, and it is stopped at its limit.
    let started = Instant::now();
    let out = run(
        &mut a,
        r#"import { look } from "gg/tools/shop";
look({ n: 5 }).catch(() => {});
while (true) {}"#,
    );
    assert_eq!(ack(&out).status, RunStatus::Ceiling, "{:?}", ack(&out));
    assert!(
        ack(&out)
            .error
            .as_deref()
            .unwrap_or("")
            .contains("time limit of 1000 ms"),
        "{:?}",
        ack(&out)
    );
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    // Idle on its decision, then running on: the clock stood still for the
    // idle part only, and the program is stopped at its moved deadline.
    let started = Instant::now();
    let out = run(
        &mut a,
        r#"import { look } from "gg/tools/shop";
look({ n: 5 }).catch(() => {});
await new Promise((r) => setTimeout(r, 300));
while (true) {}"#,
    );
    assert_eq!(ack(&out).status, RunStatus::Ceiling, "{:?}", ack(&out));
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    // A decision a run left pending never stops the clock of the next.
    let out = run(
        &mut a,
        r#"import { look } from "gg/tools/shop";
look({ n: 5 }).catch(() => {});
export default 1;"#,
    );
    assert_eq!(ack(&out).status, RunStatus::Ok, "{:?}", ack(&out));
    let started = Instant::now();
    let out = run(&mut a, "await new Promise((r) => setTimeout(r, 60_000));");
    assert_eq!(ack(&out).status, RunStatus::Ceiling, "{:?}", ack(&out));
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
}
