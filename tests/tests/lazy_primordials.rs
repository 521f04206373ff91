//! deno_core's primordials wrap every intrinsic method so that internals can
//! call it without the prototype; the engine makes each wrapper when it is
//! first read, and most are never read. An isolate must behave exactly as one
//! whose wrappers were all made with it, also for a program that changed
//! what making a wrapper by hand would read (`vendor/engine-tests/tests/primordials.rs`
//! reads every wrapper after such changes). One test: the switch it turns is
//! process-wide.

use gg_module::Profile;
use gg_runtime::Agent;
use gg_tests::first_turn_of_a_default_agent;

/// First tampers with what `uncurryThis` reads when it makes a wrapper
/// (`bind`, `call`, their names, lengths and prototypes), then drives
/// internals through wrappers few programs reach: console formatting of
/// many kinds of values, URL and its parameters, encoders, events, abort
/// signals, structuredClone, timers, errors with their stacks.
const PROGRAM: &str = r#"
const call = Function.prototype.call;
const bind = Function.prototype.bind;
Object.defineProperty(call, "name", { get() { throw new Error("call.name read"); } });
Object.defineProperty(call, "length", { get() { throw new Error("call.length read"); } });
Object.defineProperty(bind, "name", { value: "hijacked" });
Object.setPrototypeOf(call, null);
Function.prototype.bind = function () { throw new Error("bind called"); };
Function.prototype.call = function () { throw new Error("call called"); };
Function.prototype.apply = function () { throw new Error("apply called"); };

const out: unknown[] = [];
console.log(new Map([[1, { a: [1, 2, 3] }]]), new Set(["x"]), new Date(0), /re/g,
  new Uint8Array([1, 2]), Symbol("s"), 12n, -0, [undefined, null], { nested: { deep: { deeper: { deepest: 1 } } } },
  new WeakMap(), Promise.resolve(4), class K {}, function named() {}, new Error("shown"));
console.error("%s and %d and %o", "text", 42, { o: 1 });
console.table([{ a: 1, b: 2 }, { a: 3, b: 4 }]);
const url = new URL("https://user:pw@example.com:8080/p/a/t/h?query=string&q=2#hash");
url.searchParams.append("k", "v w");
url.searchParams.sort();
out.push(url.href, url.origin, [...url.searchParams.entries()], url.searchParams.toString());
out.push(new TextDecoder("utf-16le").decode(new Uint8Array([104, 0, 105, 0])));
out.push([...new TextEncoder().encode("€")]);
const controller = new AbortController();
controller.signal.addEventListener("abort", () => out.push("aborted"));
controller.abort(new Error("why"));
out.push(String(controller.signal.reason));
out.push(AbortSignal.abort().aborted);
const target = new EventTarget();
target.addEventListener("ping", (e) => out.push((e as CustomEvent).detail), { once: true });
target.dispatchEvent(new CustomEvent("ping", { detail: { n: 1 } }));
target.dispatchEvent(new CustomEvent("ping", { detail: { n: 2 } }));
out.push(structuredClone({ d: new Date(1), m: new Map([["k", new Set([1])]]), r: /x/i, b: new Uint16Array([7]) }));
try { structuredClone(() => 1); } catch (e) { out.push(String(e)); }
try { new URL("no scheme"); } catch (e) { out.push(String(e), (e as Error).stack); }
try { new TextDecoder("no such encoding"); } catch (e) { out.push(String(e)); }
await new Promise((resolve) => setTimeout(resolve, 1));
out.push(new DOMException("m", "NotFoundError").code);
out.push(atob(btoa("round trip")));
export default JSON.stringify(out);
"#;

fn outcome_of_a_new_agent() -> (String, Vec<String>) {
    let ack = first_turn_of_a_default_agent(PROGRAM);
    let console = ack.console.iter().map(|line| format!("{line:?}")).collect();
    (ack.value.expect("a value"), console)
}

#[test]
fn wrappers_made_when_first_read_behave_as_wrappers_made_with_the_isolate() {
    gg_tests::alone(
        module_path!(),
        "wrappers_made_when_first_read_behave_as_wrappers_made_with_the_isolate",
        || {
            let before = gg_runtime::probes::lazy_primordials();
            Agent::prewarm(&Profile::default(), 1).expect("an isolate");
            let made = gg_runtime::probes::lazy_primordials();
            let left = made.left_unmade - before.left_unmade;
            let read = made.made_later - before.made_later;
            assert!(
                left >= 300 && read * 2 < left,
                "making an isolate leaves most primordial wrappers unmade \
         ({left} left unmade, {read} made since)"
            );
            // Most wrap an intrinsic method QuickJS has not made either: the copy
            // leaves it unmade too, to be made with its wrapper.
            let methods = made.methods_unmade - before.methods_unmade;
            assert!(
                methods >= 150 && methods <= left,
                "most wrapped intrinsic methods are left unmade too \
         ({methods} of {left} wrappers)"
            );

            let lazily = outcome_of_a_new_agent();

            gg_runtime::probes::set_lazy_primordials(false);
            let eager_before = gg_runtime::probes::lazy_primordials();
            let eagerly = outcome_of_a_new_agent();
            let eager_after = gg_runtime::probes::lazy_primordials();
            gg_runtime::probes::set_lazy_primordials(true);
            assert_eq!(
                eager_after.left_unmade, eager_before.left_unmade,
                "with the switch off every wrapper is made with the isolate"
            );
            assert_eq!(
                lazily.0, eagerly.0,
                "the same values, messages and stack frames"
            );
            assert_eq!(lazily.1, eagerly.1, "the same console lines");
            assert!(
                lazily.0.contains("https://user:pw@example.com:8080/"),
                "{}",
                lazily.0
            );
            assert!(lazily.1.len() >= 3, "{:?}", lazily.1);
        },
    );
}
