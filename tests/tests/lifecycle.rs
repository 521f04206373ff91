//! Isolates over a long life: a thread makes and drops isolates without
//! limit or leak, holds hundreds of them at once, and an agent outlives any
//! number of ceilings (each of which replaces its isolate).

use gg_module::{Profile, RunStatus};
use gg_runtime::{Agent, AgentOptions};
use gg_tests::{ack, run, test_store};

fn agent(time_ms: u64) -> Agent {
    let mut profile = Profile::default();
    profile.programs.time_ms = time_ms;
    profile.programs.heap_mib = 64;
    Agent::new(AgentOptions {
        profile,
        workspace: None,
        state: None,
        agent_id: None,
        binding: None,
        database_url: test_store(),
        host_tools: Vec::new(),
    })
    .expect("agent")
}

#[test]
fn one_thread_makes_and_drops_a_thousand_isolates() {
    // The first agent settles the thread's shared entries; from then on
    // every isolate gives back what it took.
    let mut first = agent(1_000);
    run(&mut first, "export default 1;");
    drop(first);
    let baseline = gg_runtime::live_native_slots();
    let modules_baseline = gg_runtime::live_module_handles();
    for i in 0..1_000 {
        let mut a = agent(1_000);
        let out = run(
            &mut a,
            &format!("const xs: number[] = [{i}, 1]; export default xs[0] + xs[1];"),
        );
        assert_eq!(
            ack(&out).value.as_deref(),
            Some((i + 1).to_string().as_str()),
            "isolate {i}: {:?}",
            ack(&out)
        );
        assert!(
            gg_runtime::live_module_handles() > modules_baseline,
            "a live isolate holds its modules' handles"
        );
        drop(a);
        assert_eq!(
            gg_runtime::live_native_slots(),
            baseline,
            "isolate {i} kept native slots after it was dropped"
        );
        assert_eq!(
            gg_runtime::live_module_handles(),
            modules_baseline,
            "isolate {i} kept module handles after it was dropped"
        );
    }
}

#[test]
fn an_agent_survives_a_thousand_time_ceilings() {
    let mut a = agent(5);
    run(&mut a, "export default 0;");
    let baseline = gg_runtime::live_native_slots();
    assert!(baseline > 0, "one live isolate holds slots");
    for i in 0..1_000 {
        let out = run(&mut a, "while (true) {}");
        assert_eq!(
            ack(&out).status,
            RunStatus::Ceiling,
            "ceiling {i}: {:?}",
            ack(&out)
        );
    }
    let out = run(&mut a, "export default 42;");
    assert_eq!(ack(&out).value.as_deref(), Some("42"), "{:?}", ack(&out));
    // Each ceiling replaced the isolate; the table holds one isolate's worth
    // (give or take the functions one program made).
    let after = gg_runtime::live_native_slots();
    assert!(
        after <= baseline + 8,
        "{after} slots live after 1 000 ceilings, {baseline} before them"
    );
}

#[test]
fn one_thread_holds_hundreds_of_live_agents_and_each_calls_its_own_natives() {
    // Agents are added until their isolates number their native functions
    // past 65 536 (about 150 slots each: some 430 agents), beyond what a
    // 16-bit index can tell apart, so a call reaching another isolate's
    // callback would show in the values.
    const PAST: usize = 65_536;
    const AT_MOST: usize = 2_000;
    let mut agents = Vec::new();
    while gg_runtime::live_native_slots() <= PAST {
        let i = agents.len();
        assert!(
            i < AT_MOST,
            "{i} live agents hold only {} native slots",
            gg_runtime::live_native_slots()
        );
        let mut a = agent(5_000);
        let out = run(&mut a, &format!("export default {i};"));
        assert_eq!(
            ack(&out).value.as_deref(),
            Some(i.to_string().as_str()),
            "agent {i} live on this thread: {:?}",
            ack(&out)
        );
        agents.push(a);
    }
    for (i, a) in agents.iter_mut().enumerate() {
        let out = run(
            a,
            &format!(
                r#"import {{ views }} from "gg";
views.openText("n", "agent {i}");
const url = new URL("https://example.test/agent/{i}?k=" + btoa("{i}"));
export default [url.pathname, atob(url.searchParams.get("k")!), new TextEncoder().encode("{i}").length].join(" ");"#
            ),
        );
        assert_eq!(
            ack(&out).value.as_deref(),
            Some(format!("\"/agent/{i} {i} {}\"", i.to_string().len()).as_str()),
            "agent {i}: {:?}",
            ack(&out)
        );
    }
}
