//! The peers `gg bench` measures gg against, run as child processes: Deno
//! (from npm's `@deno/linux-x64-glibc`), Node.js with esbuild, `@swc/core`,
//! and the official MCP TypeScript SDK's client with
//! `@modelcontextprotocol/server-everything`, all installed by `bench/setup`
//! into `target/bench-peers/`.
//! Every call answers `Err(reason)` when its peer is missing or fails, and
//! the row prints [`Peers::missing`] instead of a number.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

pub struct Peers {
    /// `target/bench-peers`
    pub dir: PathBuf,
    /// The checkout's `bench/` folder (the Node.js helper scripts).
    pub scripts: PathBuf,
}

/// Per tool, per corpus file: median microseconds, or `None` when the tool
/// refused the file.
pub type TranspileTimes = BTreeMap<String, BTreeMap<String, Option<f64>>>;

impl Peers {
    pub fn locate(dir: Option<PathBuf>) -> Peers {
        let root = checkout_root();
        let dir = dir
            .or_else(|| std::env::var_os("GG_BENCH_PEERS").map(PathBuf::from))
            .unwrap_or_else(|| root.join("target/bench-peers"));
        Peers {
            dir,
            scripts: root.join("bench"),
        }
    }

    /// `deno: not installed (run bench/setup: …)`
    pub fn missing(&self, tool: &str, reason: &str) -> String {
        format!("{tool}: not installed (run bench/setup: {reason})")
    }

    /// Why an npm package is not there: the failure `bench/setup` recorded,
    /// or that it has not run.
    fn npm_reason(&self, package: &str) -> String {
        let failed = self
            .dir
            .join(format!("failed-{}.txt", package.replace(['/', '@'], "_")));
        match std::fs::read_to_string(&failed) {
            Ok(text) => format!("npm install failed: {}", text.trim()),
            Err(_) => format!(
                "{} has no {package}",
                self.dir.join("node_modules").display()
            ),
        }
    }

    pub fn node(&self) -> Result<String, String> {
        let out = Command::new("node")
            .arg("--version")
            .output()
            .map_err(|e| format!("node is not on PATH: {e}"))?;
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    }

    fn npm_package(&self, package: &str) -> Result<PathBuf, String> {
        let dir = self.dir.join("node_modules").join(package);
        if dir.join("package.json").is_file() {
            Ok(dir)
        } else {
            Err(self.npm_reason(package))
        }
    }

    pub fn esbuild(&self) -> Result<PathBuf, String> {
        self.node()?;
        self.npm_package("esbuild")?;
        let bin = self.dir.join("node_modules/.bin/esbuild");
        if bin.exists() {
            Ok(bin)
        } else {
            Err(format!("no {}", bin.display()))
        }
    }

    pub fn deno(&self) -> Result<PathBuf, String> {
        self.npm_package("@deno/linux-x64-glibc")?;
        let bin = self.dir.join("deno");
        let out = Command::new(&bin)
            .arg("--version")
            .output()
            .map_err(|e| format!("cannot run {}: {e}", bin.display()))?;
        if out.status.success() {
            Ok(bin)
        } else {
            Err(format!("{} --version failed", bin.display()))
        }
    }

    /// `node bench/SCRIPT ARGS…` with the peers' folder in the environment;
    /// its stdout.
    fn node_script(&self, script: &str, args: &[&str]) -> Result<String, String> {
        self.node()?;
        let path = self.scripts.join(script);
        if !path.is_file() {
            return Err(format!("no {}", path.display()));
        }
        let out = Command::new("node")
            .arg(&path)
            .args(args)
            .env("GG_BENCH_PEERS", &self.dir)
            .output()
            .map_err(|e| format!("running node {script}: {e}"))?;
        if !out.status.success() {
            let err = String::from_utf8_lossy(&out.stderr);
            return Err(format!(
                "node {script} failed: {}",
                err.lines().find(|l| !l.trim().is_empty()).unwrap_or("")
            ));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// The entry script of `@modelcontextprotocol/server-everything`, which
    /// `node SCRIPT stdio` serves over stdio.
    pub fn mcp_everything(&self) -> Result<PathBuf, String> {
        let script = self
            .npm_package("@modelcontextprotocol/server-everything")?
            .join("dist/index.js");
        self.node()?;
        if script.is_file() {
            Ok(script)
        } else {
            Err(format!("no {}", script.display()))
        }
    }

    /// `iterations` sequential calls of `tool` with `args` through the
    /// official MCP TypeScript SDK's client, from Node.js, to the server
    /// `command` starts over stdio (`tests/tools/call-bench.mjs`, the tools
    /// tests' own, run from the peers' folder so that its imports find the
    /// pinned SDK).
    pub fn mcp_call_bench(
        &self,
        iterations: usize,
        tool: &str,
        args: &serde_json::Value,
        command: &[&str],
    ) -> Result<CallBench, String> {
        self.npm_package("@modelcontextprotocol/sdk")?;
        self.node()?;
        let script = "call-bench.mjs";
        let copy = self.dir.join(script);
        std::fs::copy(self.scripts.join("../tests/tools").join(script), &copy).map_err(|e| {
            format!(
                "copying tests/tools/{script} into {}: {e}",
                self.dir.display()
            )
        })?;
        let out = Command::new("node")
            .arg(&copy)
            .arg(iterations.to_string())
            .arg(tool)
            .arg(args.to_string())
            .args(command)
            .current_dir(&self.dir)
            .output()
            .map_err(|e| format!("running node {script}: {e}"))?;
        if !out.status.success() {
            let err = String::from_utf8_lossy(&out.stderr);
            return Err(format!(
                "node {script} failed: {}",
                err.lines().find(|l| !l.trim().is_empty()).unwrap_or("")
            ));
        }
        CallBench::parse(&String::from_utf8_lossy(&out.stdout), iterations)
    }

    /// Samples of the program in a Node `vm` context: `turn` reuses one
    /// context, `fresh` creates one per run; each run strips the program
    /// with esbuild first, unless `strip_once`.
    pub fn node_vm(
        &self,
        mode: &str,
        runs: usize,
        program: &Path,
        strip_once: bool,
    ) -> Result<Vec<Duration>, String> {
        self.esbuild()?;
        let runs_text = runs.to_string();
        let program = program.to_string_lossy();
        let mut args = vec![mode, &runs_text, &program];
        if strip_once {
            args.push("once");
        }
        let out = self.node_script("node-vm.mjs", &args)?;
        let samples: Vec<Duration> = out
            .lines()
            .filter_map(|l| l.trim().parse::<f64>().ok())
            .map(|us| Duration::from_secs_f64(us / 1e6))
            .collect();
        if samples.len() == runs {
            Ok(samples)
        } else {
            Err(format!(
                "node-vm.mjs printed {} of {runs} samples",
                samples.len()
            ))
        }
    }

    /// Node's resident memory (KB) before, after 1 and after `n` contexts
    /// that each ran the program.
    pub fn node_memory(&self, n: usize, program: &Path) -> Result<[u64; 3], String> {
        self.esbuild()?;
        let out = self.node_script(
            "node-vm.mjs",
            &["memory", &n.to_string(), &program.to_string_lossy()],
        )?;
        let v: Vec<u64> = out
            .split_whitespace()
            .filter_map(|w| w.parse().ok())
            .collect();
        match v[..] {
            [a, b, c] => Ok([a, b, c]),
            _ => Err(format!("node-vm.mjs memory printed {out:?}")),
        }
    }

    /// esbuild's and swc's per-file times over the corpus; a tool that could
    /// not be loaded is an `Err` under its name.
    pub fn transpile(
        &self,
        corpus: &Path,
        passes: usize,
    ) -> BTreeMap<String, Result<BTreeMap<String, Option<f64>>, String>> {
        let mut tools: BTreeMap<String, Result<BTreeMap<String, Option<f64>>, String>> =
            BTreeMap::new();
        let names = [("esbuild", "esbuild"), ("swc", "@swc/core")];
        let out = match self.node_script(
            "transpile-peers.mjs",
            &[&corpus.to_string_lossy(), &passes.to_string()],
        ) {
            Ok(out) => out,
            Err(e) => {
                for (tool, _) in names {
                    tools.insert(tool.into(), Err(e.clone()));
                }
                return tools;
            }
        };
        let mut times: TranspileTimes = BTreeMap::new();
        for line in out.lines() {
            let mut parts = line.splitn(3, '\t');
            let (Some(tool), Some(file), Some(value)) = (parts.next(), parts.next(), parts.next())
            else {
                continue;
            };
            if file == "missing" {
                let package = names
                    .iter()
                    .find(|(t, _)| *t == tool)
                    .map_or(tool, |(_, p)| p);
                tools.insert(
                    tool.into(),
                    Err(format!("{}; {value}", self.npm_reason(package))),
                );
                continue;
            }
            times
                .entry(tool.to_string())
                .or_default()
                .insert(file.to_string(), value.parse().ok());
        }
        for (tool, files) in times {
            tools.insert(tool, Ok(files));
        }
        for (tool, _) in names {
            tools
                .entry(tool.into())
                .or_insert_with(|| Err("transpile-peers.mjs printed nothing for it".into()));
        }
        tools
    }
}

/// What `call-bench.mjs` measured: the per-call median and mean, in
/// microseconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CallBench {
    pub median_micros: f64,
    pub mean_micros: f64,
}

impl CallBench {
    /// Reads the script's one JSON line (`{"medianMicros":…,"meanMicros":…,
    /// "iterations":N}`), checking it timed `iterations` calls.
    pub fn parse(out: &str, iterations: usize) -> Result<CallBench, String> {
        let line = out
            .lines()
            .rev()
            .find(|l| l.trim_start().starts_with('{'))
            .ok_or_else(|| format!("call-bench.mjs printed {out:?}"))?;
        let v: serde_json::Value = serde_json::from_str(line)
            .map_err(|e| format!("call-bench.mjs printed {line:?}: {e}"))?;
        let number = |key: &str| {
            v[key]
                .as_f64()
                .ok_or_else(|| format!("call-bench.mjs printed no {key}: {line}"))
        };
        let timed = number("iterations")?;
        if timed != iterations as f64 {
            return Err(format!(
                "call-bench.mjs timed {timed} calls of {iterations}"
            ));
        }
        Ok(CallBench {
            median_micros: number("medianMicros")?,
            mean_micros: number("meanMicros")?,
        })
    }
}

/// The checkout this `gg` was built in (the folder holding `bench/setup`),
/// found from the binary's path, else the current folder.
fn checkout_root() -> PathBuf {
    let from_exe = std::env::current_exe().ok().and_then(|exe| {
        exe.ancestors()
            .find(|dir| dir.join("bench/setup").is_file())
            .map(Path::to_path_buf)
    });
    from_exe.unwrap_or_else(|| std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_peer_is_named_with_the_reason() {
        let dir = tempfile::tempdir().expect("tempdir");
        let peers = Peers::locate(Some(dir.path().to_path_buf()));
        let err = peers.deno().expect_err("no deno in an empty folder");
        assert!(err.contains("has no @deno/linux-x64-glibc"), "{err}");
        assert_eq!(
            peers.missing("deno", &err),
            format!("deno: not installed (run bench/setup: {err})")
        );
        // A failure bench/setup recorded is what the row says.
        std::fs::write(
            dir.path().join("failed-_swc_core.txt"),
            "@swc/core@1.16.22: npm error 404\n",
        )
        .expect("write");
        assert_eq!(
            peers.npm_reason("@swc/core"),
            "npm install failed: @swc/core@1.16.22: npm error 404"
        );
        let times = peers.transpile(dir.path(), 1);
        assert!(times.values().all(|t| t.is_err()));
        // The tool-call row's peers.
        let err = peers
            .mcp_everything()
            .expect_err("no server in an empty folder");
        assert!(
            err.contains("has no @modelcontextprotocol/server-everything"),
            "{err}"
        );
        let err = peers
            .mcp_call_bench(10, "echo", &serde_json::json!({}), &["node"])
            .expect_err("no SDK in an empty folder");
        assert!(err.contains("has no @modelcontextprotocol/sdk"), "{err}");
    }

    #[test]
    fn call_bench_output_is_read_and_checked() {
        let out = "{\"medianMicros\":412.3,\"meanMicros\":450.1,\"iterations\":1000}\n";
        assert_eq!(
            CallBench::parse(out, 1000),
            Ok(CallBench {
                median_micros: 412.3,
                mean_micros: 450.1
            })
        );
        assert!(CallBench::parse(out, 500)
            .expect_err("a different count")
            .contains("timed 1000 calls of 500"));
        assert!(CallBench::parse("", 10).is_err());
    }
}
