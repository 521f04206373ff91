//! gg's answer to a program: how its run ended, its value, console, error
//! and notes, as the model reads them.

use serde::{Deserialize, Serialize};

/// How a program's run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum RunStatus {
    /// Ran to the end.
    Ok,
    /// Did not transpile.
    CompileError,
    /// Threw (or rejected) an uncaught value.
    Threw,
    /// Stopped by a limit: time, heap or output.
    Ceiling,
    /// Never finished: the host's process stopped while it ran. A
    /// reopened agent reports it with what it committed before that.
    Interrupted,
}

/// One line a program wrote to its console.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsoleLine {
    /// `log`, `info`, `debug`, `warn` or `error`.
    pub level: String,
    /// The line's text.
    pub text: String,
}

/// What gg answers a submitted program with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Acknowledgement {
    /// The id the program library minted; `None` for an agent with no
    /// library, whose acknowledgement is the fixed `ok`.
    pub program_id: Option<String>,
    /// How the run ended.
    pub status: RunStatus,
    /// The program's value, rendered (JSON where it is JSON).
    pub value: Option<String>,
    /// What the program logged, in order.
    pub console: Vec<ConsoleLine>,
    /// What went wrong, located in the program's own lines.
    pub error: Option<String>,
    /// Notes from gg about the run (an output cap reached, timers cancelled).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl Acknowledgement {
    /// The first line: the id and how the run ended.
    pub fn headline(&self) -> String {
        let id = match &self.program_id {
            Some(id) => id.as_str(),
            None if self.status == RunStatus::Ok => return "ok".to_string(),
            None => "program",
        };
        match self.status {
            RunStatus::Ok => format!("{id}: ok"),
            RunStatus::CompileError => format!("{id}: did not compile"),
            RunStatus::Threw => format!("{id}: threw"),
            RunStatus::Ceiling => format!("{id}: stopped at a limit"),
            RunStatus::Interrupted => format!("{id}: interrupted"),
        }
    }

    /// The acknowledgement as the model reads it: the headline, then the
    /// value, console lines, error and notes that are present.
    pub fn render(&self) -> String {
        let mut out = self.headline();
        if let Some(value) = &self.value {
            out.push_str("\nvalue: ");
            out.push_str(value);
        }
        if !self.console.is_empty() {
            out.push_str("\nconsole:");
            for line in &self.console {
                out.push_str(&format!("\n  [{}] {}", line.level, line.text));
            }
        }
        if let Some(error) = &self.error {
            out.push_str("\nerror: ");
            out.push_str(error);
        }
        for note in &self.notes {
            out.push_str("\nnote: ");
            out.push_str(note);
        }
        out
    }
}
