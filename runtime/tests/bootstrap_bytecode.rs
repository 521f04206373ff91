//! The bytecode blob the engine embeds (`vendor/bytecode/bootstrap.qbc`,
//! named by `V82JSC_BC_BLOB` in `.cargo/config.toml`) holds everything an
//! isolate's bootstrap compiles: deno_core's and deno_web's scripts and
//! modules, gg's own, and the engine's shims. A process then parses none of
//! them, not even for its first isolate, which is most of a one-shot
//! `gg run`'s time.
//!
//! deno_web's scripts load with an isolate's first run that names one of
//! their globals, not with the isolate; the test runs such a program (a
//! line that names `console`, whose own bytecode the blob then holds too)
//! so that they are compiled, and kept, as well.
//!
//! This file holds one test, so that it runs in a process of its own whose
//! only isolate is the one it makes. With `GG_WRITE_BOOTSTRAP_BYTECODE` set
//! to a path it writes a new blob there instead (`scripts/bootstrap-bytecode`
//! does, after any change to a bootstrap script or to QuickJS).

#![cfg(feature = "quickjs")]

use gg_module::Profile;
use gg_runtime::Agent;

/// The program run after the isolate is made: it names a web global, so
/// deno_web's scripts load before it.
const NAMES_A_WEB_GLOBAL: &str = "export default typeof console;";

#[test]
fn creating_an_isolate_compiles_nothing_the_embedded_blob_lacks() {
    Agent::prewarm(&Profile::default(), 1).expect("an isolate");
    let mut agent = default_agent();
    let out = agent
        .turn(gg_runtime::Response::program(NAMES_A_WEB_GLOBAL))
        .expect("a turn");
    let value = out.acknowledgement.and_then(|a| a.value);
    assert_eq!(
        value.as_deref(),
        Some("\"object\""),
        "the web globals loaded"
    );
    assert!(agent.holds_web_globals());
    if let Some(path) = std::env::var_os("GG_WRITE_BOOTSTRAP_BYTECODE") {
        let blob = deno_core::v8::quickjs_bytecode_blob();
        std::fs::write(&path, &blob).expect("writing the blob");
        return;
    }
    let compiled = deno_core::v8::quickjs_bytecode_compiled_entries();
    assert_eq!(
        compiled, 0,
        "creating an isolate and loading deno_web's globals compiled {compiled} script(s) or \
         module(s) the embedded bytecode blob does not hold: a bootstrap script or QuickJS changed since \
         vendor/bytecode/bootstrap.qbc was made; run scripts/bootstrap-bytecode"
    );
}

/// An agent of the default profile: it takes the isolate warmed above.
fn default_agent() -> Agent {
    Agent::new(gg_runtime::AgentOptions::new(Profile::default())).expect("an agent")
}
