//! Profiles: the JSON5 an agent is configured by
//! (`{ id, name, mode, programs, capabilities: [...] }`).

use serde::{Deserialize, Serialize};

/// How the model answers each turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum Mode {
    /// Responses-as-code: each turn is a TypeScript program.
    #[default]
    #[serde(rename = "code")]
    Code,
    /// Each turn is a list of native tool calls.
    #[serde(rename = "tool-calling")]
    ToolCalling,
}

/// Per-program limits and the program library.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct ProgramSettings {
    /// Whether programs get ids from a library; off answers the fixed `ok`.
    pub library: bool,
    /// Most ids the library mints over the agent's life.
    pub library_capacity: u64,
    /// Wall-clock time one program may run, in milliseconds.
    pub time_ms: u64,
    /// Heap one agent's isolate may hold, in MiB.
    pub heap_mib: u64,
    /// Console characters one program may print before further output is
    /// dropped; also the most characters one text view may hold.
    pub output_chars: usize,
    /// Views one program may have open at once: those it opened (text,
    /// file and documentation views) and has not closed or superseded.
    /// Each holds at most `output_chars` characters or a file view's line
    /// cap, so this bounds what one program makes the host keep. Default
    /// 256.
    pub views: usize,
    /// Wall-clock time one onUse hook may run, in milliseconds.
    pub on_use_time_ms: u64,
}

impl Default for ProgramSettings {
    fn default() -> Self {
        ProgramSettings {
            library: true,
            library_capacity: 1_000_000,
            time_ms: 5_000,
            heap_mib: 256,
            output_chars: 64 * 1024,
            views: 256,
            on_use_time_ms: 1_000,
        }
    }
}

/// One entry of a profile's `capabilities`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Capability {
    /// The capability's id (`memories`, `read-file`...).
    pub id: String,
    /// Whether it is switched on; default true.
    #[serde(default = "yes")]
    pub enabled: bool,
    /// Which implementation it uses (for memories, the strategy).
    #[serde(default)]
    pub implementation: Option<String>,
    /// Its params, as the profile writes them.
    #[serde(default)]
    pub params: serde_json::Map<String, serde_json::Value>,
    /// Its Features box: switches beside the params.
    #[serde(default)]
    pub features: serde_json::Map<String, serde_json::Value>,
}

fn yes() -> bool {
    true
}

/// An agent profile: the template each instance of the agent is made from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Profile {
    /// The profile's id; instances, shared stores and persistence key on it.
    pub id: String,
    /// A display name; default empty.
    #[serde(default)]
    pub name: String,
    /// The execution mode; default code.
    #[serde(default)]
    pub mode: Mode,
    /// Per-program limits and the program library.
    #[serde(default)]
    pub programs: ProgramSettings,
    /// The capabilities, in the order the profile lists them.
    #[serde(default)]
    pub capabilities: Vec<Capability>,
}

impl Default for Profile {
    fn default() -> Self {
        Profile {
            id: "agent".into(),
            name: "Agent".into(),
            mode: Mode::Code,
            programs: ProgramSettings::default(),
            capabilities: Vec::new(),
        }
    }
}

impl Profile {
    /// Parses a profile from JSON5 text; `origin` names the file in errors.
    pub fn from_json5(text: &str, origin: &str) -> Result<Self, crate::ConfigError> {
        json5::from_str(text).map_err(|source| crate::ConfigError::Syntax {
            origin: origin.to_string(),
            what: "profile",
            source,
        })
    }

    /// The enabled capability with this id.
    pub fn capability(&self, id: &str) -> Option<&Capability> {
        self.capabilities.iter().find(|c| c.id == id && c.enabled)
    }

    /// The `read-file` capability's `lineCap`, if set.
    pub fn line_cap(&self) -> Option<usize> {
        self.capability("read-file")?
            .params
            .get("lineCap")?
            .as_u64()
            .map(|n| n as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_specs_profile_with_trailing_commas() {
        let p = Profile::from_json5(
            r#"{
  "id": "owner",
  "name": "Owner",
  "capabilities": [
    { "id": "agent-persistence", "enabled": true },
    {
      "id": "read-file",
      "enabled": true,
      "implementation": "default-cap",
      "params": { "lineCap": 250 },
    },
  ],
}"#,
            "owner.json5",
        )
        .unwrap();
        assert_eq!(p.mode, Mode::Code);
        assert_eq!(p.line_cap(), Some(250));
        assert!(p.capability("agent-persistence").is_some());
    }

    #[test]
    fn reads_mode_and_program_limits() {
        let p = Profile::from_json5(
            r#"{ id: "a", mode: "tool-calling", programs: { timeMs: 100, library: false, views: 8 } }"#,
            "a",
        )
        .unwrap();
        assert_eq!(p.mode, Mode::ToolCalling);
        assert_eq!(p.programs.time_ms, 100);
        assert!(!p.programs.library);
        assert_eq!(p.programs.views, 8);
        assert_eq!(
            p.programs.output_chars,
            64 * 1024,
            "a limit not given keeps its default"
        );
        let err = Profile::from_json5(r#"{ id: "a", programs: { timeout: 1 } }"#, "bad.json5")
            .unwrap_err();
        let err = err.to_string();
        assert!(
            err.contains("bad.json5") && err.contains("timeout"),
            "{err}"
        );
    }
}
