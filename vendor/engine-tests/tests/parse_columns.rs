//! The columns stacks give for calls: each is the 1-based byte offset of the
//! called name (`f` in `f()`, `g` in `o.g()`) from the start of its line,
//! the byte after the last `\n` or `\r` before it. The parser finds that
//! start from the one it found last, so these pin it where that could go
//! wrong: long lines, every line ending, lines ended inside a template
//! literal, and the parser stepping back over an arrow function's or a
//! destructuring pattern's tokens.

use deno_core::{JsRuntime, RuntimeOptions};

/// Runs `calls` (a script whose every `f()` and `o.g()` call records the
/// caller's stack) and returns, per call in order, the caller's line and
/// column as the stacks give them.
fn recorded_positions(calls: &str) -> Vec<(usize, usize)> {
    let mut runtime = JsRuntime::new(RuntimeOptions::default());
    runtime
        .execute_script(
            "columns:setup.js",
            "globalThis.seen = [];\n\
             globalThis.f = function f() { seen.push(new Error().stack.split('\\n')[2]); return 1; };\n\
             globalThis.o = { g: f };",
        )
        .expect("the setup script runs");
    runtime
        .execute_script("columns:calls.js", calls.to_owned())
        .expect("the calls run");
    let value = runtime
        .execute_script("columns:read.js", "seen.join('\\n')")
        .expect("the stacks are read");
    deno_core::scope!(scope, runtime);
    let local = deno_core::v8::Local::new(scope, value);
    let text = local.to_rust_string_lossy(scope);
    text.lines()
        .map(|frame| {
            let place = frame
                .rsplit("columns:calls.js:")
                .next()
                .unwrap_or_else(|| panic!("a frame of the calls script: {frame}"));
            let mut numbers = place
                .trim_end_matches(')')
                .split(':')
                .map(|n| n.parse::<usize>().expect("a line or column number"));
            (numbers.next().unwrap(), numbers.next().unwrap())
        })
        .collect()
}

/// Where each call's name is in `calls`, counted as the stacks count: lines
/// as the scanner counts them (`\r\n` is one ending), columns in bytes from
/// the byte after the last `\n` or `\r`.
fn expected_positions(calls: &str) -> Vec<(usize, usize)> {
    let bytes = calls.as_bytes();
    let mut positions = Vec::new();
    for (at, _) in calls.match_indices("f()").chain(calls.match_indices("g()")) {
        let before = &bytes[..at];
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n' || b == b'\r')
            .map_or(0, |i| i + 1);
        let line = 1 + calls[..at]
            .replace("\r\n", "\n")
            .matches(['\n', '\r'])
            .count();
        positions.push((at, line, at - line_start + 1));
    }
    positions.sort();
    positions
        .into_iter()
        .map(|(_, line, column)| (line, column))
        .collect()
}

fn assert_columns(calls: &str) {
    let expected = expected_positions(calls);
    assert!(!expected.is_empty(), "the script makes calls");
    assert_eq!(recorded_positions(calls), expected, "in {calls:?}");
}

#[test]
fn calls_on_one_long_line_have_their_own_columns() {
    let line: Vec<String> = (0..2_000)
        .map(|i| format!("{}f(){}o.g();", " ".repeat(i % 7), ";".repeat(i % 3 + 1)))
        .collect();
    assert_columns(&line.join(""));
}

#[test]
fn every_line_ending_starts_a_line() {
    assert_columns("f(); o.g();\n  f();\r\n    o.g();\r f();\n\n\n f(); o.g()");
}

#[test]
fn a_line_ended_inside_a_template_literal_starts_a_line() {
    assert_columns("const s = `one\ntwo`; f(); o.g();\nconst t = `a\r\nb\rc`;   f()");
}

#[test]
fn calls_after_the_parser_steps_back_keep_their_columns() {
    // An arrow function's parameters and a destructuring pattern are
    // scanned ahead, then parsed again from their start, across lines too.
    assert_columns(
        "const h = (a = f(), b = o.g()) => f() + o.g(); h();\n\
         const { x = f(), y = o.g() } = {}; [f(), o.g()];\n\
         const k = (\n  a = f(),\n  b = o.g()\n) => f(); k(); const m = [f(), o.g()];\n\
         f(); let z; [z = f()] = []; o.g();",
    );
}
