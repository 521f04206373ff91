//! How `gg session run` shows a session: per step, the part of the window
//! the model would see next, and the events; text (coloured on a terminal,
//! plain when piped, escaped as everything a person reads is: see
//! [`crate::screen`]) or JSON lines.

use std::io::Write;

use anstyle::{AnsiColor, Style};

use super::runner::{Sink, StepRecord};
use crate::screen::Screen;

pub struct Text<W: Write> {
    out: Screen<W>,
    /// Show the `gg` module's declarations in system prompts too.
    full: bool,
    /// System prompts already shown, with the agent they were shown for.
    prompts: Vec<(String, String)>,
}

impl<W: Write> Text<W> {
    pub fn new(out: Screen<W>, full: bool) -> Self {
        Text {
            out,
            full,
            prompts: Vec::new(),
        }
    }

    /// Shows a system prompt once; later agents with the same one get a
    /// one-line reference to it.
    fn fold_repeated_prompt(&mut self, agent: &str, window: &str) -> String {
        let Some(rest) = window.strip_prefix("=== system ===\n") else {
            return window.to_string();
        };
        let end = rest.find("\n=== ").map(|i| i + 1).unwrap_or(rest.len());
        let prompt = &rest[..end];
        if let Some((_, first)) = self.prompts.iter().find(|(p, _)| p == prompt) {
            return format!(
                "=== system ===\n(the same system prompt as {first})\n{}",
                &rest[end..]
            );
        }
        self.prompts.push((prompt.to_string(), agent.to_string()));
        window.to_string()
    }
}

/// Folds the ```ts declarations block of a system prompt into one line.
fn fold_declarations(window: &str) -> String {
    let Some(start) = window.find("```ts\n") else {
        return window.to_string();
    };
    let Some(len) = window[start + 6..].find("```\n") else {
        return window.to_string();
    };
    let end = start + 6 + len + 4;
    let lines = window[start..end].lines().count().saturating_sub(2);
    format!("{}```ts … the gg module's declarations ({lines} lines, gg-module/gg.d.ts; --full shows them) …```\n{}", &window[..start], &window[end..])
}

const HEADER: Style = AnsiColor::Cyan.on_default().bold();
const FAIL: Style = AnsiColor::Red.on_default().bold();
const DIM: Style = AnsiColor::BrightBlack.on_default();

/// One line per event: its type and what it is about.
pub fn summarize_event(e: &serde_json::Value) -> String {
    let ty = e["type"].as_str().unwrap_or("event");
    match ty {
        "memory_revision" => format!(
            "{ty} {} r{} ({}) by {}",
            e["name"].as_str().unwrap_or(""),
            e["revision"],
            e["mutation"].as_str().unwrap_or(""),
            e["agent"].as_str().unwrap_or("")
        ),
        "memory_state" => format!(
            "{ty} of {}: {} memories, {} chars (peak {}) in {}",
            e["agent"].as_str().unwrap_or(""),
            e["totals"]["count"],
            e["totals"]["chars"],
            e["peaks"]["chars"],
            e["store"].as_str().unwrap_or("")
        ),
        "memory_pull" => format!(
            "{ty} by {}: {} revisions from others",
            e["agent"].as_str().unwrap_or(""),
            e["seqs"].as_array().map(|a| a.len()).unwrap_or(0)
        ),
        // The duration is left out: it differs from run to run.
        "turn" => {
            let ended = match (e["status"].as_str(), e["toolCalls"].as_u64()) {
                (Some(status), _) => status.to_string(),
                (None, Some(calls)) => format!("{calls} tool calls"),
                (None, None) => String::new(),
            };
            format!(
                "{ty} {} of {}: {ended}, {} refused, {} events",
                e["turn"],
                e["agent"].as_str().unwrap_or(""),
                e["refusals"].as_array().map(|a| a.len()).unwrap_or(0),
                e["events"]
            )
        }
        _ => {
            let mut rest = e.clone();
            if let Some(o) = rest.as_object_mut() {
                o.remove("type");
            }
            format!("{ty} {rest}")
        }
    }
}

impl<W: Write> Sink for Text<W> {
    fn record(&mut self, r: &StepRecord) {
        let out = &mut self.out;
        let _ = out.styled(HEADER, format_args!("━━ step {} · {} ━━", r.step, r.title));
        let _ = writeln!(out);
        if let Some(window) = &r.window {
            if r.rewritten {
                let how = if r.kind == "start" {
                    "that"
                } else {
                    "rewritten: all"
                };
                let _ = out.styled(
                    DIM,
                    format_args!("(the window {how} agent {} sees next)", r.agent),
                );
                let _ = writeln!(out);
            }
            let window = if self.full {
                window.clone()
            } else {
                self.fold_repeated_prompt(&r.agent, &fold_declarations(window))
            };
            let out = &mut self.out;
            let _ = write!(out, "{window}");
            if !window.is_empty() && !window.ends_with('\n') {
                let _ = writeln!(out);
            }
        }
        let out = &mut self.out;
        for event in &r.events {
            let _ = out.styled(DIM, format_args!("· event: {}", summarize_event(event)));
            let _ = writeln!(out);
        }
        for failure in &r.failures {
            let _ = out.styled(FAIL, format_args!("✗ {failure}"));
            let _ = writeln!(out);
        }
        if r.kind == "expect" && r.failures.is_empty() {
            let _ = out.styled(DIM, "✓ as expected");
            let _ = writeln!(out);
        }
    }
}

pub struct JsonLines<W: Write> {
    out: W,
}

impl<W: Write> JsonLines<W> {
    pub fn new(out: W) -> Self {
        JsonLines { out }
    }
}

impl<W: Write> Sink for JsonLines<W> {
    fn record(&mut self, r: &StepRecord) {
        let _ = writeln!(
            self.out,
            "{}",
            serde_json::to_string(r).expect("a record serializes")
        );
    }
}
