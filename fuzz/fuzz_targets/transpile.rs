//! The transpiler's entry point on any bytes: lossy UTF-8, cut to the
//! 32 768 characters the guard admits, through `gg_transpiler::transpile`.
//! A panic anywhere (libFuzzer's panic hook aborts even inside swc's
//! `catch_unwind`) and an `Internal` error (a caught swc panic) are crashes;
//! a diagnostic is the expected answer to bad TypeScript. A module whose
//! types were erased in place must print, normalized, as the full
//! pipeline's output does (`differential`).
#![no_main]

use gg_transpiler::{SourcePosition, TranspileError, MAX_SOURCE_CHARS};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let source: String = text.chars().take(MAX_SOURCE_CHARS).collect();
    match gg_transpiler::transpile(&source, "fuzz.ts") {
        Ok(out) => {
            // Every generated position maps back to a line of the source
            // (swc ends a line at `\n`, `\r\n` or a lone `\r`).
            let lines = source.matches(['\n', '\r']).count() + 1;
            for (line, text) in out.code.lines().enumerate().take(64) {
                let column = text.chars().count().max(1);
                if let Some(p) = out.positions.original(SourcePosition {
                    line: line + 1,
                    column,
                }) {
                    assert!(
                        p.line >= 1 && p.line <= lines,
                        "mapped to line {} of {lines}",
                        p.line
                    );
                }
            }
            for f in out.declared() {
                let _ = format!("{f:?}");
            }
            // Types erased in place make the full pipeline's program.
            if out.positions.is_identity() {
                let both = gg_transpiler::differential::both(&source, "fuzz.ts")
                    .expect("the full pipeline takes what erasure took");
                // Two outputs that are not JavaScript fail alike, at load,
                // whatever the parser's first complaint about each.
                let invalid = |code: &str| code.starts_with("syntax error");
                if !(invalid(&both.full) && both.erased.as_deref().is_some_and(invalid)) {
                    assert_eq!(
                        both.erased.as_deref(),
                        Some(both.full.as_str()),
                        "erasure changed the program"
                    );
                }
            }
        }
        Err(TranspileError::Invalid(diagnostics)) => {
            // A diagnostic quotes a line the source really has.
            for d in &diagnostics {
                assert!(
                    !d.source_line.contains(['\n', '\r']) && source.contains(&d.source_line),
                    "diagnostic at {}:{} quotes {:?}",
                    d.line,
                    d.column,
                    d.source_line
                );
            }
        }
        Err(TranspileError::Internal(message)) => panic!("internal transpiler error: {message}"),
        Err(other) => {
            let _ = other.to_string();
        }
    }
    // The slug → import key mapping takes any text too.
    let slug: String = source.chars().take(200).collect();
    let key = gg_transpiler::module_key(&slug);
    let _ = gg_transpiler::module_key_avoiding(&slug, |k| k == key);
});
