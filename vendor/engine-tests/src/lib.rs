//! Tests of the vendored engine (`tests/`: deno_core on v8x's QuickJS-ng
//! with gg's patches, on bare deno_core runtimes, none of gg's host), and
//! the one helper gg's test binaries share: [`alone`].

/// Runs `test` in a process of its own, for a test that changes or counts
/// something process-wide (an engine switch, an injected fault, an
/// environment variable, a process-wide count) and so must not share its
/// process with the other tests of its binary.
///
/// Called from the test `module::name` (pass `module_path!()` and the
/// test's own name), it starts the test binary again filtered to exactly
/// that test, with `GG_TEST_ALONE` naming it; in that process it runs
/// `test`. The child's output is shown when it fails, and a filter that
/// ran no test fails too.
pub fn alone(module_path: &str, name: &str, test: impl FnOnce()) {
    const MARK: &str = "GG_TEST_ALONE";
    // `module_path!()` starts with the test binary's crate name, which the
    // test harness leaves out of a test's name.
    let module = module_path.split_once("::").map_or("", |(_, rest)| rest);
    let full = if module.is_empty() {
        name.to_string()
    } else {
        format!("{module}::{name}")
    };
    if std::env::var(MARK).as_deref() == Ok(full.as_str()) {
        test();
        return;
    }
    let exe = std::env::current_exe().expect("the test binary's path");
    let out = std::process::Command::new(exe)
        .args([full.as_str(), "--exact", "--nocapture", "--test-threads=1"])
        .env(MARK, &full)
        .output()
        .expect("start the test binary again");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains("test result: ok. 1 passed"),
        "{full}, run alone, failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
}
