//! Session files (`*.session.json5`): a run configuration, a workspace and
//! steps in order. Everything is checked before anything runs, and each
//! problem names the file and line of the step it is in.

use std::path::{Path, PathBuf};

use gg_module::run::{RunConfig, StartKind};
use serde_json::{Map, Value};

use gg_runtime::ToolCall;

pub const STEP_KINDS: [&str; 6] = ["start", "turn", "compact", "finish", "refresh", "expect"];

#[derive(Debug, Clone)]
pub struct Session {
    pub path: PathBuf,
    pub run: RunConfig,
    pub workspace: Option<PathBuf>,
    /// `seed` and `clock`: pinned for every agent of the session.
    pub determinism: gg_runtime::Determinism,
    pub steps: Vec<Located>,
}

#[derive(Debug, Clone)]
pub struct Located {
    pub line: usize,
    pub step: Step,
}

#[derive(Debug, Clone)]
pub enum Step {
    Start {
        agent: String,
        profile: String,
        start: StartKind,
    },
    Turn {
        agent: String,
        body: TurnBody,
    },
    Compact {
        agent: String,
        summary: String,
    },
    Finish {
        agent: String,
        how: gg_runtime::Finish,
    },
    Refresh {
        agent: String,
    },
    Expect {
        agent: String,
        expect: Map<String, Value>,
    },
}

#[derive(Debug, Clone)]
pub enum TurnBody {
    Program {
        source: String,
        file: Option<String>,
    },
    Tools(Vec<ToolCall>),
}

impl Step {
    pub fn agent(&self) -> &str {
        match self {
            Step::Start { agent, .. }
            | Step::Turn { agent, .. }
            | Step::Compact { agent, .. }
            | Step::Finish { agent, .. }
            | Step::Refresh { agent }
            | Step::Expect { agent, .. } => agent,
        }
    }
}

/// The expectation keys an `expect` step understands.
pub const EXPECT_KEYS: [&str; 11] = [
    "agent", "window", "pinned", "value", "status", "console", "refusal", "event", "noEvent",
    "memory", "noMemory",
];

/// Reads and checks a session file.
pub fn load(path: &Path) -> Result<Session, String> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("{shown}: cannot read the session file: {e}"))?;
    let root: Value =
        json5::from_str(&text).map_err(|e| format!("{shown}: not valid JSON5: {e}"))?;
    let dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
    let Value::Object(mut root) = root else {
        return Err(format!(
            "{shown}:1: a session is an object {{ run, workspace?, steps }}"
        ));
    };
    for key in root.keys() {
        if !["run", "workspace", "steps", "description", "seed", "clock"].contains(&key.as_str()) {
            return Err(format!("{shown}: unknown top-level key {key:?}; a session has run, workspace, steps (and description, seed, clock)."));
        }
    }
    let run = parse_run(root.remove("run"), &dir, &shown)?;
    let seed = match root.remove("seed") {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) if n.as_u64().is_some() => n.as_u64(),
        Some(other) => {
            return Err(format!(
            "{shown}: seed must be a whole number (it pins Math.random and crypto), got {other}."
        ))
        }
    };
    let clock = match root.remove("clock") {
        None | Some(Value::Null) => None,
        Some(Value::String(c)) => Some(c),
        Some(other) => {
            return Err(format!(
                "{shown}: clock must be an ISO-8601 instant string like \"2026-01-02T03:04:05Z\", got {other}."
            ))
        }
    };
    let determinism = gg_runtime::Determinism::from_parts(seed, clock.as_deref())
        .map_err(|e| format!("{shown}: {e}"))?;
    let workspace = match root.remove("workspace") {
        None => None,
        Some(Value::String(w)) => {
            let ws = dir.join(w);
            if !ws.is_dir() {
                return Err(format!(
                    "{shown}: the workspace {} is not a folder.",
                    ws.display()
                ));
            }
            Some(ws)
        }
        Some(other) => {
            return Err(format!(
                "{shown}: workspace must be a folder path, got {other}."
            ))
        }
    };
    let Some(Value::Array(raw_steps)) = root.remove("steps") else {
        return Err(format!("{shown}: a session needs a steps array."));
    };
    let lines = super::locate::step_lines(&text);
    let mut steps = Vec::new();
    let mut started: Vec<String> = Vec::new();
    for (i, raw) in raw_steps.into_iter().enumerate() {
        let line = lines.get(i).copied().unwrap_or(0);
        let at = format!("{shown}:{line}");
        let step = parse_step(raw, &dir, &at, &run)?;
        match &step {
            Step::Start { agent, .. } => {
                if started.contains(agent) {
                    return Err(format!("{at}: agent {agent:?} is started twice."));
                }
                if let Step::Start {
                    start:
                        StartKind::Subagent { spawner: other }
                        | StartKind::Fork { of: other }
                        | StartKind::Successor { from: other },
                    ..
                } = &step
                {
                    if !started.contains(other) {
                        return Err(format!("{at}: agent {agent:?} is started from {other:?}, which no earlier step started."));
                    }
                }
                started.push(agent.clone());
            }
            other => {
                if !started.contains(&other.agent().to_string()) {
                    let known = if started.is_empty() {
                        "none yet".to_string()
                    } else {
                        started.join(", ")
                    };
                    return Err(format!("{at}: unknown agent {:?}: start it with a start step first (started: {known}).", other.agent()));
                }
            }
        }
        steps.push(Located { line, step });
    }
    Ok(Session {
        path: path.to_path_buf(),
        run,
        workspace,
        determinism,
        steps,
    })
}

fn parse_run(raw: Option<Value>, dir: &Path, shown: &str) -> Result<RunConfig, String> {
    let Some(Value::Object(mut run)) = raw else {
        return Err(format!(
            "{shown}: a session needs a run {{ profiles: [...], maxParallel?, roster? }}."
        ));
    };
    // A profile may be given inline or as a path to a profile file.
    // A tool server's folder is that of the file that declares it.
    let mut bases = Vec::new();
    if let Some(Value::Array(profiles)) = run.get_mut("profiles") {
        for profile in profiles.iter_mut() {
            bases.push(dir.to_path_buf());
            if let Value::String(file) = profile {
                let p = dir.join(&*file);
                if let Some(parent) = p.parent() {
                    *bases.last_mut().expect("just pushed") = parent.to_path_buf();
                }
                let text = std::fs::read_to_string(&p).map_err(|e| {
                    format!("{shown}: cannot read the profile {}: {e}", p.display())
                })?;
                *profile = json5::from_str(&text)
                    .map_err(|e| format!("{}: not valid JSON5: {e}", p.display()))?;
            }
        }
    }
    let mut config: RunConfig = serde_json::from_value(Value::Object(run))
        .map_err(|e| format!("{shown}: the run configuration is not valid: {e}"))?;
    for (profile, base) in config.profiles.iter_mut().zip(&bases) {
        let base = std::path::absolute(base).unwrap_or_else(|_| base.clone());
        gg_module::tools::anchor_to(profile, &base);
    }
    Ok(config)
}

fn string(map: &Map<String, Value>, key: &str, at: &str, step: &str) -> Result<String, String> {
    match map.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(other) => Err(format!("{at}: {step}.{key} must be a string, got {other}.")),
        None => Err(format!("{at}: {step} needs {key}.")),
    }
}

fn closest(word: &str, options: &[&str]) -> Option<String> {
    options
        .iter()
        .map(|o| (similar::TextDiff::from_chars(word, o).ratio(), o))
        .filter(|(r, _)| *r >= 0.5)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, o)| o.to_string())
}

fn parse_step(raw: Value, dir: &Path, at: &str, run: &RunConfig) -> Result<Step, String> {
    let Value::Object(outer) = raw else {
        return Err(format!(
            "{at}: a step is an object with one key: {}.",
            STEP_KINDS.join(", ")
        ));
    };
    if outer.len() != 1 {
        return Err(format!(
            "{at}: a step has exactly one key ({}), got {}.",
            STEP_KINDS.join(", "),
            outer.len()
        ));
    }
    let (kind, body) = outer.into_iter().next().expect("one key");
    let Value::Object(body) = body else {
        return Err(format!("{at}: the {kind} step takes an object."));
    };
    let agent = || string(&body, "agent", at, &kind);
    match kind.as_str() {
        "start" => {
            let profile = string(&body, "profile", at, "start")?;
            if !run.profiles.iter().any(|p| p.id == profile) {
                let ids: Vec<&str> = run.profiles.iter().map(|p| p.id.as_str()).collect();
                return Err(format!(
                    "{at}: start: the run has no profile {profile:?} (profiles: {}).",
                    ids.join(", ")
                ));
            }
            let start = match body.get("as").and_then(Value::as_str).unwrap_or("root") {
                "root" => StartKind::Root,
                "implementer" => StartKind::Implementer,
                "reviewer" | "merge" => StartKind::Reviewer,
                "subagent" => StartKind::Subagent { spawner: string(&body, "of", at, "start")? },
                "fork" => StartKind::Fork { of: string(&body, "of", at, "start")? },
                "successor" => StartKind::Successor { from: string(&body, "of", at, "start")? },
                other => {
                    return Err(format!(
                        "{at}: start: unknown start kind {other:?}; use root, implementer, reviewer, subagent, fork or successor (the last three with `of`)."
                    ))
                }
            };
            Ok(Step::Start {
                agent: agent()?,
                profile,
                start,
            })
        }
        "turn" => {
            let turn = match (body.get("program"), body.get("file"), body.get("tools")) {
                (Some(Value::String(source)), None, None) => TurnBody::Program { source: source.clone(), file: None },
                (None, Some(Value::String(file)), None) => {
                    let path = dir.join(file);
                    let source = std::fs::read_to_string(&path)
                        .map_err(|e| format!("{at}: turn: cannot read the program {}: {e}", path.display()))?;
                    TurnBody::Program { source, file: Some(file.clone()) }
                }
                (None, None, Some(Value::Array(calls))) => {
                    let mut tools = Vec::new();
                    for (i, call) in calls.iter().enumerate() {
                        let name = call.get("name").and_then(Value::as_str).ok_or_else(|| format!("{at}: turn: tools[{i}] needs a name."))?;
                        tools.push(ToolCall {
                            id: call.get("id").and_then(Value::as_str).map(str::to_string).unwrap_or_else(|| format!("call-{}", i + 1)),
                            name: name.to_string(),
                            arguments: call.get("arguments").cloned().unwrap_or(Value::Object(Map::new())),
                        });
                    }
                    TurnBody::Tools(tools)
                }
                _ => return Err(format!("{at}: a turn takes exactly one of program (inline TypeScript), file (a .ts path) or tools (native calls).")),
            };
            Ok(Step::Turn {
                agent: agent()?,
                body: turn,
            })
        }
        "compact" => Ok(Step::Compact {
            agent: agent()?,
            summary: body
                .get("summary")
                .and_then(Value::as_str)
                .unwrap_or("(compacted)")
                .to_string(),
        }),
        "finish" => {
            let how = match body.get("how").and_then(Value::as_str).unwrap_or("done") {
                "done" => gg_runtime::Finish::Done { gate_passed: true },
                "gate-refused" => gg_runtime::Finish::Done { gate_passed: false },
                "ceiling" => gg_runtime::Finish::Ceiling,
                "error" => gg_runtime::Finish::Error,
                "handoff" => gg_runtime::Finish::Handoff,
                other => return Err(format!("{at}: finish: unknown ending {other:?}; use done, gate-refused, ceiling, error or handoff.")),
            };
            Ok(Step::Finish {
                agent: agent()?,
                how,
            })
        }
        "refresh" => Ok(Step::Refresh { agent: agent()? }),
        "expect" => {
            for key in body.keys() {
                if !EXPECT_KEYS.contains(&key.as_str()) {
                    let hint = closest(key, &EXPECT_KEYS)
                        .map(|k| format!(" (did you mean {k:?}?)"))
                        .unwrap_or_default();
                    return Err(format!(
                        "{at}: expect: unknown expectation {key:?}{hint}; expectations are {}.",
                        EXPECT_KEYS[1..].join(", ")
                    ));
                }
            }
            if let Some(Value::Object(window)) = body.get("window") {
                if let Some(Value::String(golden)) = window.get("golden") {
                    let _ = dir.join(golden);
                }
            }
            Ok(Step::Expect {
                agent: agent()?,
                expect: body,
            })
        }
        other => {
            let hint = closest(other, &STEP_KINDS)
                .map(|k| format!(" (did you mean {k:?}?)"))
                .unwrap_or_default();
            Err(format!(
                "{at}: unknown step {other:?}{hint}; steps are {}.",
                STEP_KINDS.join(", ")
            ))
        }
    }
}
