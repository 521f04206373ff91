//! The tool-call row: one upstream MCP tool call as a program sees it
//! (`await echo(…)` from `gg/tools/everything`, npm's server-everything
//! over stdio), timed inside the program with `performance.now()`, beside
//! the official MCP TypeScript SDK's client calling the same tool of the
//! same server from Node.js (`tests/tools/call-bench.mjs`), with as many calls,
//! in the same run.

use gg_module::Profile;
use gg_runtime::{Agent, AgentOptions, Response};

use super::peers::Peers;
use super::table::{ms, Table};

/// Untimed calls before the timed ones, as `call-bench.mjs` makes.
const WARMUP: usize = 20;

/// The echo's message, and the text the tool answers.
const MESSAGE: &str = "hi";

/// gg's per-call figures, in microseconds, as the program measured them,
/// and the host's `tool_call` events' median `durationMs` (in ms).
#[derive(Debug, Clone, Copy, PartialEq)]
struct GgCalls {
    median_micros: f64,
    p99_micros: f64,
    mean_micros: f64,
    host_median_ms: Option<f64>,
}

/// A program of [`WARMUP`] untimed and `n` timed sequential calls; its
/// value is the timed calls' median (the mean of the middle two for an
/// even count, as `call-bench.mjs` takes it), p99 and mean, in µs.
fn program(n: usize) -> String {
    format!(
        r#"import {{ echo }} from "gg/tools/everything";
const args = {{ message: {MESSAGE:?} }};
for (let i = 0; i < {WARMUP}; i++) await echo(args);
const micros = new Array({n});
let answer;
for (let i = 0; i < {n}; i++) {{
  const start = performance.now();
  answer = await echo(args);
  micros[i] = (performance.now() - start) * 1000;
}}
if (answer !== "Echo: " + args.message) throw new Error("echo answered " + JSON.stringify(answer));
micros.sort((a, b) => a - b);
const mid = {n} >> 1;
export default {{
  median: {n} % 2 ? micros[mid] : (micros[mid - 1] + micros[mid]) / 2,
  p99: micros[Math.max(1, Math.ceil({n} * 0.99)) - 1],
  mean: micros.reduce((s, x) => s + x, 0) / {n},
}};
"#
    )
}

/// A code-mode profile with server-everything (started by `node SCRIPT
/// stdio`) allowed its `echo`.
fn profile(server: &str) -> Result<Profile, String> {
    let text = serde_json::json!({
        "id": "bench-tools",
        "programs": { "timeMs": 600_000 },
        "capabilities": [{
            "id": "tools",
            "params": { "servers": [{
                "name": "everything",
                "command": "node",
                "args": [server, "stdio"],
                "allow": ["echo"]
            }] }
        }]
    });
    Profile::from_json5(&text.to_string(), "bench").map_err(|e| e.to_string())
}

/// Runs the program in a new agent on `server`.
fn measure_gg(server: &str, n: usize) -> Result<GgCalls, String> {
    let mut agent =
        Agent::new(AgentOptions::new(profile(server)?)).map_err(|e| format!("agent: {e}"))?;
    let out = agent
        .turn(Response::program(program(n)))
        .map_err(|e| format!("turn: {e}"))?;
    let ack = out
        .acknowledgement
        .ok_or_else(|| "the turn has no acknowledgement".to_string())?;
    let value: serde_json::Value = ack
        .value
        .as_deref()
        .and_then(|v| serde_json::from_str(v).ok())
        .ok_or_else(|| format!("the program answered {}", ack.render()))?;
    let number = |key: &str| {
        value[key]
            .as_f64()
            .ok_or_else(|| format!("the program's value has no {key}: {value}"))
    };
    // The host's own timing of the timed calls (after the warm-up ones).
    let mut host: Vec<f64> = out
        .events
        .iter()
        .filter_map(|e| match e {
            gg_runtime::Event::ToolCall(call) => Some(call.duration_ms),
            _ => None,
        })
        .skip(WARMUP)
        .collect();
    host.sort_by(f64::total_cmp);
    Ok(GgCalls {
        median_micros: number("median")?,
        p99_micros: number("p99")?,
        mean_micros: number("mean")?,
        host_median_ms: (host.len() == n).then(|| host[n / 2]),
    })
}

/// `ratio` against the goal of at most 1.0×.
fn verdict(gg_median: f64, node_median: f64) -> String {
    let ratio = gg_median / node_median;
    let met = if ratio <= 1.0 { "met" } else { "not met" };
    format!("gg / node: {ratio:.2}× (goal ≤ 1.0×: {met})")
}

/// The row, with `n` timed calls each.
pub fn row(table: &mut Table, peers: &Peers, n: usize) {
    let what = format!(
        "tool call: one upstream MCP tool call from a program (`await echo({{ message }})` of `gg/tools/everything`: npm's server-everything over stdio, timed in the program; {WARMUP} untimed, then {n} sequential calls)"
    );
    let server = match peers.mcp_everything() {
        Ok(server) => server.display().to_string(),
        Err(e) => {
            table.row(
                what,
                "–",
                vec![peers.missing("@modelcontextprotocol/server-everything", &e)],
            );
            return;
        }
    };
    let us = |micros: f64| ms(micros / 1e3);
    let gg = measure_gg(&server, n);
    let node = peers.mcp_call_bench(
        n,
        "echo",
        &serde_json::json!({ "message": MESSAGE }),
        &["node", &server, "stdio"],
    );
    let gg_cell = match &gg {
        Ok(calls) => format!(
            "median {} · p99 {} · mean {}{}",
            us(calls.median_micros),
            us(calls.p99_micros),
            us(calls.mean_micros),
            calls
                .host_median_ms
                .map(|m| format!(" (the host's tool_call events: median {})", ms(m)))
                .unwrap_or_default()
        ),
        Err(e) => format!("failed: {e}"),
    };
    let mut beside = vec![match &node {
        Ok(calls) => format!(
            "node, the official MCP TypeScript SDK's client (callTool): median {} · mean {}",
            us(calls.median_micros),
            us(calls.mean_micros)
        ),
        Err(e) => peers.missing("@modelcontextprotocol/sdk", e),
    }];
    if let (Ok(gg), Ok(node)) = (&gg, &node) {
        beside.push(verdict(gg.median_micros, node.median_micros));
    }
    table.row(what, gg_cell, beside);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_program_and_profile_name_the_server_and_counts() {
        let src = program(1000);
        assert!(src.contains(r#"import { echo } from "gg/tools/everything";"#));
        assert!(src.contains("i < 20; i++) await echo(args)"), "{src}");
        assert!(src.contains("new Array(1000)"), "{src}");
        let text = gg_transpiler::transpile(&src, "bench.ts");
        assert!(text.is_ok(), "the program transpiles");
        let profile = profile("/x/dist/index.js").expect("the bench profile");
        assert_eq!(profile.id, "bench-tools");
    }

    #[test]
    fn the_verdict_is_against_one() {
        assert_eq!(verdict(300.0, 400.0), "gg / node: 0.75× (goal ≤ 1.0×: met)");
        assert_eq!(
            verdict(500.0, 400.0),
            "gg / node: 1.25× (goal ≤ 1.0×: not met)"
        );
    }
}
