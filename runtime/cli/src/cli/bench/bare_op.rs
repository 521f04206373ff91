//! The op row's peer: what one call of a deno_core fast op costs on this
//! engine with nothing of gg around it: a bare `JsRuntime` (deno_core's own
//! bootstrap, no gg module, no web globals) whose one extra op takes two
//! strings, as `views.openText` does, and only adds their lengths.

use std::time::Instant;

use deno_core::op2;

/// Two strings in, a number out, nothing else: the cost of crossing into
/// Rust and reading the arguments.
#[op2(fast)]
fn op_bench_two_strings(#[string] label: &str, #[string] body: &str) -> u32 {
    (label.len() + body.len()) as u32
}

deno_core::extension!(gg_bench_bare_op, ops = [op_bench_two_strings]);

/// Nanoseconds per call over `calls` calls made from one JavaScript loop
/// (after a warm-up loop of a tenth as many), or why none were made.
pub fn ns_per_call(calls: usize) -> Result<f64, String> {
    let mut runtime = deno_core::JsRuntime::new(deno_core::RuntimeOptions {
        extensions: vec![gg_bench_bare_op::init()],
        ..Default::default()
    });
    let script = |n: usize| {
        format!(
            "{{ const op = Deno.core.ops.op_bench_two_strings; let sum = 0;\n\
             for (let i = 0; i < {n}; i++) sum += op(\"x\", \"y\");\n\
             if (sum !== {n} * 2) throw new Error(\"the op answered \" + sum); }}"
        )
    };
    runtime
        .execute_script("bare-op-warm-up", script(calls / 10))
        .map_err(|e| format!("the bare op's warm-up failed: {e}"))?;
    let start = Instant::now();
    runtime
        .execute_script("bare-op", script(calls))
        .map_err(|e| format!("the bare op's loop failed: {e}"))?;
    Ok(start.elapsed().as_secs_f64() * 1e9 / calls as f64)
}
