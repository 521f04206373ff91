//! Any program, run as an agent's turn with small limits (200 ms, 32 MiB).
//! A bug is: the process panics or aborts; a turn outlives its time limit by
//! more than a margin; gg reports its own internal error; the sandbox no
//! longer holds afterwards (an engine op or glue object reachable from the
//! global object); or the agent's next ordinary turn does not work. Memory
//! past libFuzzer's `-rss_limit_mb` fails the run too (scripts/fuzz sets it).
#![no_main]

use std::cell::RefCell;
use std::mem::ManuallyDrop;
use std::time::{Duration, Instant};

use gg_module::{Profile, RunStatus};
use gg_runtime::{Agent, AgentOptions, Response};
use libfuzzer_sys::fuzz_target;

/// The turn's time limit (ms).
const TIME_MS: u64 = 200;

/// Walks what the global object reaches (own properties, accessors,
/// prototypes; no getter called) for engine internals: a native function
/// named like an op (`op:NAME`), or an engine glue global (`global:KEY`).
/// Answers them as an array, empty when none.
const PROBE: &str = r#"
const found: string[] = [];
for (const key of Reflect.ownKeys(globalThis)) {
  if (typeof key === "string" && (key.startsWith("__v8x") || key === "gc")) found.push("global:" + key);
}
const seen = new Set<unknown>();
const queue: unknown[] = [globalThis];
while (queue.length > 0 && seen.size < 20000) {
  const value = queue.pop();
  if ((typeof value !== "object" && typeof value !== "function") || value === null || seen.has(value)) continue;
  seen.add(value);
  if (typeof value === "function") {
    const name = Object.getOwnPropertyDescriptor(value, "name")?.value;
    if (typeof name === "string" && name.startsWith("op_") && /\[native code\]/.test(Function.prototype.toString.call(value))) found.push("op:" + name);
  }
  let keys: (string | symbol)[] = [];
  try { keys = Reflect.ownKeys(value as object); } catch { continue; }
  for (const key of keys) {
    let d: PropertyDescriptor | undefined;
    try { d = Object.getOwnPropertyDescriptor(value as object, key); } catch { continue; }
    if (d) queue.push(d.value, d.get, d.set);
  }
  try { queue.push(Object.getPrototypeOf(value)); } catch { /* a proxy trap */ }
}
export default found;
"#;

thread_local! {
    // Never dropped: at process exit the engine's own thread-locals may
    // already be gone when this one is destroyed.
    static AGENT: RefCell<Option<ManuallyDrop<Agent>>> = const { RefCell::new(None) };
    static INPUTS: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
    // Globals the probe found that the text of the program before it named:
    // the program's own, which the agent keeps for its later turns, whose
    // texts need not name them again. Emptied with the agent.
    static PROGRAM_GLOBALS: RefCell<std::collections::HashSet<String>> =
        RefCell::new(std::collections::HashSet::new());
}

/// Inputs one agent serves before a fresh one takes over; 0, the default,
/// keeps one agent for the whole run, since a long-lived agent must serve
/// every input as a fresh one would. `GG_FUZZ_INPUTS_PER_AGENT` changes it.
const INPUTS_PER_AGENT: u32 = 0;

fn inputs_per_agent() -> u32 {
    static PER_AGENT: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *PER_AGENT.get_or_init(|| {
        std::env::var("GG_FUZZ_INPUTS_PER_AGENT")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(INPUTS_PER_AGENT)
    })
}

fn agent() -> Agent {
    let mut profile = Profile::default();
    profile.programs.time_ms = TIME_MS;
    profile.programs.heap_mib = 32;
    Agent::new(AgentOptions::new(profile)).expect("an agent")
}

fuzz_target!(|data: &[u8]| {
    let source = String::from_utf8_lossy(data).into_owned();
    AGENT.with(|slot| {
        let mut slot = slot.borrow_mut();
        let served = INPUTS.with(|n| {
            n.set(n.get() + 1);
            n.get()
        });
        let per_agent = inputs_per_agent();
        if per_agent > 0 && served % per_agent == 0 {
            if let Some(old) = slot.take() {
                drop(ManuallyDrop::into_inner(old));
            }
            PROGRAM_GLOBALS.with(|known| known.borrow_mut().clear());
        }
        let agent: &mut Agent = slot.get_or_insert_with(|| ManuallyDrop::new(agent()));
        let started = Instant::now();
        let outcome = agent.turn(Response::program(source.clone()));
        let elapsed = started.elapsed();
        if let Err(e) = &outcome {
            panic!("the turn failed inside gg: {e}");
        }
        // Room for replacing the isolate after a ceiling. An unoptimized
        // build (`cargo fuzz run --dev`) does gg's own work after the
        // program (a 10 MB value cut to the output limit) many times slower:
        // GG_FUZZ_MARGIN_MS widens the margin there.
        let margin = Duration::from_millis(
            std::env::var("GG_FUZZ_MARGIN_MS")
                .ok()
                .and_then(|ms| ms.parse().ok())
                .unwrap_or(2 * TIME_MS + 1500),
        );
        assert!(
            elapsed < margin,
            "the turn took {elapsed:?} against a {TIME_MS} ms limit"
        );
        let probe = agent
            .turn(Response::program(PROBE))
            .expect("the probe turn");
        let ack = probe.acknowledgement.expect("an acknowledgement");
        if ack.status == RunStatus::Ok {
            // A global the program's own text names is the program's: it
            // may define `__v8x…` or `gc` itself, and the agent's global
            // object keeps it for its next turns, so a later program's probe
            // finds it too. No program makes a native function named like an
            // op.
            let found: Vec<String> =
                serde_json::from_str(ack.value.as_deref().unwrap_or("[]")).expect("the probe's array");
            let internals: Vec<&String> = PROGRAM_GLOBALS.with(|known| {
                let mut known = known.borrow_mut();
                found
                    .iter()
                    .filter(|found| match found.strip_prefix("global:") {
                        Some(key) if source.contains(key) => {
                            known.insert(key.to_string());
                            false
                        }
                        Some(key) => !known.contains(key),
                        None => true,
                    })
                    .collect()
            });
            assert!(
                internals.is_empty(),
                "after this program, engine internals are reachable from the global object: {internals:?}"
            );
        }
        let next = agent
            .turn(Response::program(
                "export default [1, 2].length;".to_string(),
            ))
            .expect("the next turn");
        let ack = next.acknowledgement.expect("an acknowledgement");
        // A program may leave the agent's globals broken for itself (its own
        // prototypes), but the turn itself must run.
        assert!(
            matches!(ack.status, RunStatus::Ok | RunStatus::Threw),
            "the next turn did not run: {ack:?}"
        );
    });
});
