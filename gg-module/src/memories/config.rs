//! The memories capability block, exactly as the spec writes it:
//! `{ id, enabled, implementation, params: { scope, maxCount, maxLenPerMemory,
//! maxTotalLen, maxLenIndex, maxLenDescription, maxResults }, features }`.
//!
//! Every problem in a block is reported at once; a disabled block records its
//! configuration without validating it.

use serde::Serialize;

use crate::profile::Capability;

/// How memories are organized, and so what the window always holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Strategy {
    /// Every memory, body and all, pinned in the window.
    Scratchpad,
    /// A pinned index, one line per memory; bodies come in on a read.
    Markdown,
    /// Nothing pinned; memories are found with `search_memories`.
    KeywordSearch,
}

impl Strategy {
    /// The three strategies, in the order refusals name them.
    pub const ALL: [Strategy; 3] = [
        Strategy::Scratchpad,
        Strategy::Markdown,
        Strategy::KeywordSearch,
    ];

    /// The implementation name a capability writes (`keyword-search`).
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Scratchpad => "scratchpad",
            Strategy::Markdown => "markdown",
            Strategy::KeywordSearch => "keyword-search",
        }
    }

    /// The strategy an implementation name spells, if any.
    pub fn parse(name: &str) -> Option<Self> {
        Strategy::ALL.into_iter().find(|s| s.name() == name)
    }
}

/// Which instance an agent binds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scope {
    /// A fresh instance per agent instance.
    Isolated,
    /// One instance per agent profile, bound by every instance of it.
    Shared,
    /// The spawner's instance, read/write, for a subagent; its own otherwise.
    Inherited,
    /// As `Inherited`, but a spawner's instance is held read-only.
    ReadOnly,
}

impl Scope {
    /// The four scopes, in the order refusals name them.
    pub const ALL: [Scope; 4] = [
        Scope::Isolated,
        Scope::Shared,
        Scope::Inherited,
        Scope::ReadOnly,
    ];

    /// The value `params.scope` writes (`read-only`).
    pub fn name(self) -> &'static str {
        match self {
            Scope::Isolated => "isolated",
            Scope::Shared => "shared",
            Scope::Inherited => "inherited",
            Scope::ReadOnly => "read-only",
        }
    }

    /// The scope a `params.scope` value spells, if any.
    pub fn parse(name: &str) -> Option<Self> {
        Scope::ALL.into_iter().find(|s| s.name() == name)
    }
}

/// The six limits; 0 turns one off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Limits {
    /// `maxCount`: memories held at once (scratchpad, keyword-search).
    pub max_count: u64,
    /// `maxLenPerMemory`: characters in one memory's body.
    pub max_len_per_memory: u64,
    /// `maxTotalLen`: characters across every pinned body (scratchpad).
    pub max_total_len: u64,
    /// `maxLenIndex`: characters in the pinned index, line breaks included
    /// (markdown).
    pub max_len_index: u64,
    /// `maxLenDescription`: characters in one memory's description.
    pub max_len_description: u64,
    /// `maxResults`: hits one `search_memories` call returns (keyword-search).
    pub max_results: u64,
}

/// The six limit params, as `params` spells them; each is required.
pub const LIMIT_PARAMS: [&str; 6] = [
    "maxCount",
    "maxLenPerMemory",
    "maxTotalLen",
    "maxLenIndex",
    "maxLenDescription",
    "maxResults",
];

impl Limits {
    fn set(&mut self, param: &str, value: u64) {
        match param {
            "maxCount" => self.max_count = value,
            "maxLenPerMemory" => self.max_len_per_memory = value,
            "maxTotalLen" => self.max_total_len = value,
            "maxLenIndex" => self.max_len_index = value,
            "maxLenDescription" => self.max_len_description = value,
            "maxResults" => self.max_results = value,
            _ => unreachable!("only known params are set"),
        }
    }
}

/// A validated, enabled memories capability.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MemoriesConfig {
    /// The implementation: how memories are organized.
    pub strategy: Strategy,
    /// The scope asked for; what an agent binds is resolved at launch.
    pub scope: Scope,
    /// The six limits.
    pub limits: Limits,
    /// The Revise memories feature: off makes memories append-only.
    pub revise: bool,
}

/// The capability id.
pub const CAPABILITY_ID: &str = "memories";

/// Reads the profile's memories capability. `Ok(None)`: none, or disabled.
/// `Err`: every problem found, each a sentence naming the param and the fix.
pub fn from_capability(
    capability: Option<&Capability>,
) -> Result<Option<MemoriesConfig>, Vec<String>> {
    let Some(cap) = capability else {
        return Ok(None);
    };
    if !cap.enabled {
        return Ok(None);
    }
    let mut problems = Vec::new();
    let strategy = match cap.implementation.as_deref() {
        None => {
            problems.push(
                "memories: an enabled memories capability must name its implementation: one of scratchpad, markdown, keyword-search.".to_string(),
            );
            None
        }
        Some(name) => match Strategy::parse(name) {
            Some(s) => Some(s),
            None => {
                problems.push(format!(
                    "memories: unknown implementation {name:?}; the memory strategies are scratchpad, markdown and keyword-search."
                ));
                None
            }
        },
    };
    let scope = match cap.params.get("scope") {
        None => {
            problems.push("memories: params.scope is missing; set it to isolated, shared, inherited or read-only.".to_string());
            None
        }
        Some(serde_json::Value::String(s)) => match Scope::parse(s) {
            Some(scope) => Some(scope),
            None => {
                problems.push(format!(
                    "memories: params.scope {s:?} is not a scope; use isolated, shared, inherited or read-only."
                ));
                None
            }
        },
        Some(other) => {
            problems.push(format!(
                "memories: params.scope must be a string (isolated, shared, inherited or read-only), got {other}."
            ));
            None
        }
    };
    let mut limits = Limits::default();
    for param in LIMIT_PARAMS {
        match cap.params.get(param) {
            None => problems.push(format!(
                "memories: params.{param} is missing; every enabled memories capability writes all six limits (0 turns one off)."
            )),
            Some(value) => match value.as_u64() {
                Some(n) => limits.set(param, n),
                None => problems.push(format!(
                    "memories: params.{param} is {value}, not a whole count; write a whole number of 0 or more (0 turns the limit off)."
                )),
            },
        }
    }
    for name in cap.params.keys() {
        if name != "scope" && !LIMIT_PARAMS.contains(&name.as_str()) {
            problems.push(format!(
                "memories: unknown param {name:?}; the params are scope, {}.",
                LIMIT_PARAMS.join(", ")
            ));
        }
    }
    let mut revise = true;
    for (name, value) in &cap.features {
        match (name.as_str(), value) {
            ("reviseMemories", serde_json::Value::Bool(b)) => revise = *b,
            ("reviseMemories", other) => problems.push(format!(
                "memories: features.reviseMemories must be true or false, got {other}."
            )),
            (other, _) => problems.push(format!(
                "memories: unknown feature {other:?}; the one feature is reviseMemories."
            )),
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    Ok(Some(MemoriesConfig {
        strategy: strategy.expect("no problems means a strategy"),
        scope: scope.expect("no problems means a scope"),
        limits,
        revise,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Profile;

    fn cap(text: &str) -> Capability {
        json5::from_str(text).unwrap()
    }

    #[test]
    fn the_specs_examples_parse() {
        let p = Profile::from_json5(
            r#"{ id: "a", capabilities: [{
  "id": "memories",
  "enabled": true,
  "implementation": "markdown",
  "params": {
    "scope": "inherited",
    "maxCount": 64,
    "maxLenPerMemory": 8192,
    "maxTotalLen": 0,
    "maxLenIndex": 4096,
    "maxLenDescription": 256,
    "maxResults": 25,
  },
}] }"#,
            "p",
        )
        .unwrap();
        let config = from_capability(p.capability(CAPABILITY_ID))
            .unwrap()
            .unwrap();
        assert_eq!(config.strategy, Strategy::Markdown);
        assert_eq!(config.scope, Scope::Inherited);
        assert_eq!(config.limits.max_len_index, 4096);
        assert!(config.revise);
    }

    #[test]
    fn every_problem_is_reported_at_once() {
        let c = cap(
            r#"{ id: "memories", enabled: true, implementation: "vector", params: { scope: "global", maxCount: -1, maxLenPerMemory: 1.5, maxTotalLen: "x", maxLenIndex: 1, maxResults: 1, colour: 3 } }"#,
        );
        let problems = from_capability(Some(&c)).unwrap_err();
        let all = problems.join("\n");
        assert!(
            all.contains("\"vector\"") && all.contains("scratchpad, markdown and keyword-search"),
            "{all}"
        );
        assert!(all.contains("\"global\""), "{all}");
        assert!(all.contains("maxCount is -1, not a whole count"), "{all}");
        assert!(all.contains("maxLenPerMemory is 1.5"), "{all}");
        assert!(all.contains("maxTotalLen is \"x\""), "{all}");
        assert!(all.contains("maxLenDescription is missing"), "{all}");
        assert!(all.contains("unknown param \"colour\""), "{all}");
        assert_eq!(problems.len(), 7, "{all}");
    }

    #[test]
    fn a_disabled_capability_is_not_validated() {
        let c = cap(
            r#"{ id: "memories", enabled: false, implementation: "markdown", params: { scope: "nonsense" } }"#,
        );
        assert_eq!(from_capability(Some(&c)).unwrap(), None);
    }

    #[test]
    fn the_revise_feature_is_read() {
        let c = cap(
            r#"{ id: "memories", enabled: true, implementation: "scratchpad", features: { reviseMemories: false },
            params: { scope: "isolated", maxCount: 1, maxLenPerMemory: 0, maxTotalLen: 0, maxLenIndex: 0, maxLenDescription: 0, maxResults: 0 } }"#,
        );
        assert!(!from_capability(Some(&c)).unwrap().unwrap().revise);
    }
}
