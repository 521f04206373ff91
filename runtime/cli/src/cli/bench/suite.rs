//! The suite row: `gg test` over N one-turn session files beside `deno test`
//! over N equivalent test files, each suite timed whole, as a user runs it.
//! Each gg session starts an agent, runs the 3-call program (with the
//! session's number in its text, so no two sessions share a source) and
//! expects its value; each Deno file makes the same calls on the bench's
//! stand-in `gg` module and checks the same value. Both run as many files
//! at once as the machine has cores, and Deno skips type-checking, as gg
//! does not type-check either.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use super::peers::Peers;
use super::table::{ms, Table};

/// Writes the gg suite into `dir`: one session file per test.
fn write_gg_suite(dir: &Path, sessions: usize) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for i in 0..sessions {
        let program = format!(
            "import {{ views }} from \"gg\";\nviews.openText(\"a\", \"first {i}\");\nviews.openText(\"b\", \"second\");\nviews.close(\"a\");\nexport default 3;\n"
        );
        let session = format!(
            "{{\n  run: {{ profiles: [{{ id: \"p\", mode: \"code\", capabilities: [] }}] }},\n  steps: [\n    {{ start: {{ agent: \"a\", profile: \"p\" }} }},\n    {{ turn: {{ agent: \"a\", program: {} }} }},\n    {{ expect: {{ agent: \"a\", status: \"ok\", value: 3 }} }},\n  ],\n}}\n",
            serde_json::to_string(&program).expect("a string")
        );
        std::fs::write(dir.join(format!("s{i:04}.session.json5")), session)?;
    }
    Ok(())
}

/// Writes the Deno suite into `dir`: one test file per test, and the
/// stand-in `gg` module they import.
fn write_deno_suite(dir: &Path, tests: usize, standin: &str) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join("gg.ts"), standin)?;
    for i in 0..tests {
        let test = format!(
            "import {{ views }} from \"./gg.ts\";\nDeno.test(\"session {i}\", () => {{\n  views.openText(\"a\", \"first {i}\");\n  views.openText(\"b\", \"second\");\n  views.close(\"a\");\n  const value = 3;\n  if (value !== 3) throw new Error(\"expected 3\");\n}});\n"
        );
        std::fs::write(dir.join(format!("s{i:04}_test.ts")), test)?;
    }
    Ok(())
}

/// Runs `cmd` to its end; its wall time, or why it failed.
fn time_whole(mut cmd: Command) -> Result<Duration, String> {
    let start = Instant::now();
    let out = cmd.output().map_err(|e| e.to_string())?;
    let took = start.elapsed();
    if !out.status.success() {
        let text = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        let last = text
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("")
            .to_string();
        return Err(format!("exit {}: {last}", out.status));
    }
    Ok(took)
}

/// The suite row, with `tests` sessions (and Deno test files).
pub fn row(table: &mut Table, peers: &Peers, scratch: &Path, tests: usize) {
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let root = scratch.join("suite");
    let _ = std::fs::remove_dir_all(&root);
    let gg_dir = root.join("gg");
    let gg = write_gg_suite(&gg_dir, tests)
        .map_err(|e| e.to_string())
        .and_then(|()| {
            let mut cmd = Command::new(std::env::current_exe().map_err(|e| e.to_string())?);
            cmd.arg("test")
                .arg(&gg_dir)
                .arg("--jobs")
                .arg(cores.to_string());
            time_whole(cmd)
        });
    let deno = peers.deno().and_then(|deno| {
        let standin = std::fs::read_to_string(peers.scripts.join("gg-standin.ts"))
            .map_err(|e| format!("bench/gg-standin.ts: {e}"))?;
        let deno_dir = root.join("deno");
        write_deno_suite(&deno_dir, tests, &standin).map_err(|e| e.to_string())?;
        let mut cmd = Command::new(deno);
        cmd.current_dir(&deno_dir)
            .env("DENO_DIR", peers.dir.join("deno-dir"))
            .env("DENO_NO_UPDATE_CHECK", "1")
            .env("DENO_JOBS", cores.to_string())
            .env("NO_COLOR", "1")
            .args([
                "test",
                "--quiet",
                "--no-check",
                "--no-config",
                "--parallel",
                ".",
            ]);
        time_whole(cmd)
    });
    let _ = std::fs::remove_dir_all(&root);
    let seconds = |d: Duration| ms(d.as_secs_f64() * 1e3);
    let gg_cell = match &gg {
        Ok(d) => format!("gg test --jobs {cores}: {}", seconds(*d)),
        Err(e) => format!("gg test failed: {e}"),
    };
    let mut beside = vec![match &deno {
        Ok(d) => format!("deno test --parallel --no-check: {}", seconds(*d)),
        Err(e) => peers.missing("deno", e),
    }];
    if let (Ok(gg), Ok(deno)) = (&gg, &deno) {
        let ratio = gg.as_secs_f64() / deno.as_secs_f64();
        let verdict = if ratio <= 0.5 { "met" } else { "not met" };
        beside.push(format!("gg / deno: {ratio:.2}× (goal ≤ 0.5×: {verdict})"));
    }
    table.row(
        format!("suite: {tests} one-turn sessions (the 3-call program, its value expected), each suite run whole"),
        gg_cell,
        beside,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_suites_hold_one_file_per_test() {
        let dir = tempfile::tempdir().unwrap();
        write_gg_suite(&dir.path().join("gg"), 3).unwrap();
        write_deno_suite(&dir.path().join("deno"), 3, "export const views = {};").unwrap();
        let count = |d: &str, suffix: &str| {
            std::fs::read_dir(dir.path().join(d))
                .unwrap()
                .filter(|e| {
                    e.as_ref()
                        .unwrap()
                        .file_name()
                        .to_string_lossy()
                        .ends_with(suffix)
                })
                .count()
        };
        assert_eq!(count("gg", ".session.json5"), 3);
        assert_eq!(count("deno", "_test.ts"), 3);
        let session = std::fs::read_to_string(dir.path().join("gg/s0002.session.json5")).unwrap();
        assert!(
            session.contains("first 2") && session.contains("value: 3"),
            "{session}"
        );
    }
}
