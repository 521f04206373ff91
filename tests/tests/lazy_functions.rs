//! The engine reads its embedded bootstrap without the bodies of the
//! functions nested in it, each read when its function first runs, and
//! leaves the functions' positions where they lie in the binary. An
//! isolate must behave, and name its frames, exactly as one whose bootstrap
//! was read whole and copied. One test: the switch it turns is process-wide.

use gg_module::Profile;
use gg_runtime::Agent;
use gg_tests::first_turn_of_a_default_agent;

/// Calls into deno_web's and deno_webidl's functions that the bootstrap
/// leaves unread (converters, URL parsing, event dispatch, encoders) and
/// back out of them into the program, with the stacks seen on the way.
const PROGRAM: &str = r#"
const out: unknown[] = [];
let seen = "";
new URL({ toString() { seen = new Error("from toString").stack ?? ""; return "http://a/b?c=1#d"; } });
out.push(seen);
try { new URL("::not a url"); } catch (e) { out.push(String(e), (e as Error).stack); }
out.push(new TextDecoder().decode(new TextEncoder().encode("héllo")));
const chunks: string[] = [];
for await (const chunk of [Promise.resolve("a"), Promise.resolve("b")]) chunks.push(chunk);
out.push(chunks);
out.push(new URLSearchParams("a=1&b=2&a=3").getAll("a"));
const target = new EventTarget();
let heard = "";
target.addEventListener("x", (e) => { heard = e.type + " " + new Error("in listener").stack; });
target.dispatchEvent(new Event("x"));
out.push(heard);
out.push(btoa("hi"), atob("aGk="));
out.push(new Intl.NumberFormat("de-DE").format(1234.5));
out.push(structuredClone({ a: [1, { b: "c" }] }));
export default JSON.stringify(out);
"#;

fn value_of_a_new_agent() -> String {
    first_turn_of_a_default_agent(PROGRAM)
        .value
        .expect("a value")
}

#[test]
fn an_isolate_whose_bootstrap_bodies_are_read_as_they_run_behaves_as_one_read_whole() {
    gg_tests::alone(
        module_path!(),
        "an_isolate_whose_bootstrap_bodies_are_read_as_they_run_behaves_as_one_read_whole",
        || {
            let before = gg_runtime::probes::lazy_function_reads();
            Agent::prewarm(&Profile::default(), 1).expect("an isolate");
            let made = gg_runtime::probes::lazy_function_reads();
            let left = made.left_unread - before.left_unread;
            let read = made.read_later - before.read_later;
            assert!(
                // deno_web's scripts load with the first run that uses them,
                // not with the isolate: what is counted here is the rest.
                left >= 200 && read * 2 < left,
                "making an isolate leaves most nested functions of its bootstrap unread \
         ({left} left unread, {read} read since)"
            );

            let listed = made.atoms_listed - before.atoms_listed;
            let interned = made.atoms_interned - before.atoms_interned;
            assert!(
                interned < listed * 9 / 10,
                "the names and strings only unread bodies use are not made \
         ({listed} listed, {interned} made)"
            );

            let in_place = made.debug_bytes_in_place - before.debug_bytes_in_place;
            assert!(
                in_place >= 20_000,
                "the positions of the bootstrap's functions stay in the binary, not \
         copied into the isolate ({in_place} bytes left in place)"
            );

            let lazily = value_of_a_new_agent();
            let after = gg_runtime::probes::lazy_function_reads();
            assert!(
                after.debug_bytes_in_place > made.debug_bytes_in_place,
                "the bodies read later left their positions in place too"
            );
            assert!(
                after.read_later > made.read_later,
                "the program ran bootstrap functions not run before, and they were read"
            );
            assert!(
                after.atoms_interned > made.atoms_interned,
                "the bodies read later made names and strings not made before"
            );
            for frame in [
                "ext:deno_webidl/00_webidl.js:",
                "ext:deno_web/00_url.js:",
                "ext:deno_web/02_event.js:",
            ] {
                assert!(lazily.contains(frame), "a frame in {frame}: {lazily}");
            }

            gg_runtime::probes::set_lazy_function_reads(false);
            let whole_before = gg_runtime::probes::lazy_function_reads();
            let whole = value_of_a_new_agent();
            let whole_after = gg_runtime::probes::lazy_function_reads();
            gg_runtime::probes::set_lazy_function_reads(true);
            assert_eq!(
                whole_after.left_unread, whole_before.left_unread,
                "with the switch off no body is left unread"
            );
            assert_eq!(
                whole_after.debug_bytes_in_place, whole_before.debug_bytes_in_place,
                "with the switch off every position is copied, as from any other bytes"
            );
            assert_eq!(lazily, whole, "the same values, messages and stack frames");
        },
    );
}
