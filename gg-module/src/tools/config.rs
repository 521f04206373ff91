//! The tools capability block: the upstream MCP servers an agent reaches,
//! `{ id: "tools", params: { servers: [...], timeMs, resultChars } }`.
//!
//! Every problem in a block is reported at once; a disabled block records its
//! configuration without validating it.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use serde::{Serialize, Serializer};
use serde_json::Value;

use super::names::glob_matches;
use crate::profile::Capability;

/// The capability id.
pub const CAPABILITY_ID: &str = "tools";

/// Milliseconds one tool call may take before it fails, for servers that set
/// no `timeMs` and a block that sets no default; 30 000 (30 s).
pub const DEFAULT_TIME_MS: u64 = 30_000;

/// The largest `timeMs` a block may write, in milliseconds; 600 000 (10 min).
pub const MAX_TIME_MS: u64 = 600_000;

/// Characters of one tool result a program receives before the rest is cut,
/// for servers that set no `resultChars` and a block that sets no default;
/// 100 000.
pub const DEFAULT_RESULT_CHARS: usize = 100_000;

/// The largest `resultChars` a block may write, in characters; 10 000 000.
pub const MAX_RESULT_CHARS: usize = 10_000_000;

/// The most characters a server name may have; a native tool name
/// (`server__tool`) must fit in 64 with room for the tool.
const MAX_NAME_CHARS: usize = 64;

/// The keys `params` may hold.
const PARAMS: [&str; 3] = ["servers", "timeMs", "resultChars"];

/// The keys one server object may hold.
const SERVER_KEYS: [&str; 11] = [
    "name",
    "command",
    "args",
    "env",
    "cwd",
    "url",
    "headers",
    "allow",
    "timeMs",
    "resultChars",
    "share",
];

/// The environment variable, and the `${...}` placeholder in a stdio
/// server's `args` and `env` values, naming the folder kept for that
/// server's own state: one per agent, or one per profile under
/// `share: "profile"` (under the state folder, `tools/<holder>/<server>`).
pub const SERVER_STATE_VAR: &str = "GG_SERVER_STATE";

/// A validated, enabled tools capability.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolsConfig {
    /// The servers, in the order the block lists them; names are distinct.
    pub servers: Vec<ServerConfig>,
}

/// One upstream MCP server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerConfig {
    /// Its name: programs import `gg/tools/<name>`; native tools are
    /// `<name>__<tool>`.
    pub name: String,
    /// How gg reaches it.
    pub transport: Transport,
    /// Globs of the tool names offered to the agent; a tool no glob matches
    /// is never listed or called.
    pub allow: Vec<String>,
    /// Milliseconds one call may take.
    pub time_ms: u64,
    /// Characters of one result kept; the rest is cut.
    pub result_chars: usize,
    /// Whose the server is: each agent's own (the default), or one for all
    /// of the profile's agents.
    pub share: Share,
}

/// Which agents one server process (or HTTP connection) serves, after the
/// memory scopes: `isolated` agents share nothing, so by default neither
/// do their servers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Share {
    /// One per agent: its process, its connection, its state folder.
    #[default]
    Agent,
    /// One for every agent of the profile (in one state folder).
    Profile,
}

impl Share {
    /// How a profile writes it.
    pub fn name(self) -> &'static str {
        match self {
            Share::Agent => "agent",
            Share::Profile => "profile",
        }
    }
}

impl ServerConfig {
    /// Whether the `allow` list offers this tool (any glob matches it).
    pub fn allows(&self, tool: &str) -> bool {
        self.allow.iter().any(|pattern| glob_matches(pattern, tool))
    }
}

/// How gg reaches a server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Transport {
    /// A local process gg launches, speaking MCP over stdin/stdout.
    Stdio {
        /// The program to run, looked up on `PATH` when not a path.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Variables added to the environment it inherits. Serialized as
        /// names only: values are often secrets.
        #[serde(serialize_with = "names_only")]
        env: BTreeMap<String, String>,
        /// The directory it starts in; gg's own when `None`.
        cwd: Option<PathBuf>,
    },
    /// A remote server speaking MCP's streamable HTTP transport.
    Http {
        /// Its endpoint, `http://` or `https://`.
        url: String,
        /// Headers sent with every request (often `Authorization`).
        /// Serialized as names only: values are often secrets.
        #[serde(serialize_with = "names_only")]
        headers: BTreeMap<String, String>,
    },
}

/// Serializes a map of secrets as the list of its keys, so a serialized
/// config can be logged or shown without leaking tokens.
fn names_only<S: Serializer>(map: &BTreeMap<String, String>, s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(map.keys())
}

/// What is wrong with a tool server's name (a profile's or a host
/// function's): empty when nothing is.
fn server_name_problems(name: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let chars = name.chars().count();
    let spelled = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !spelled || chars == 0 || chars > MAX_NAME_CHARS {
        problems.push(format!(
            "name {name:?} must be 1 to {MAX_NAME_CHARS} ASCII letters, digits, - and _ (programs import gg/tools/<name>)."
        ));
    }
    if name.contains("__") {
        problems.push(format!(
            "name {name:?} contains \"__\", which separates server from tool in native tool names (<server>__<tool>); use a single _ or -."
        ));
    }
    problems
}

/// Checks a tool server's name as the profile's are checked (a host
/// function's server, say): the first problem, if there is one.
pub fn check_server_name(name: &str) -> Result<(), crate::ConfigError> {
    match server_name_problems(name).into_iter().next() {
        Some(problem) => Err(crate::ConfigError::Invalid(format!("server {problem}"))),
        None => Ok(()),
    }
}

impl ToolsConfig {
    /// Reads the profile's tools capability. `Ok(None)`: none, another
    /// capability, or disabled (and then not validated). `Err`: every
    /// problem found, each a sentence naming the server and the fix.
    pub fn from_capability(cap: Option<&Capability>) -> Result<Option<ToolsConfig>, Vec<String>> {
        let Some(cap) = cap.filter(|c| c.id == CAPABILITY_ID && c.enabled) else {
            return Ok(None);
        };
        let mut problems = Vec::new();
        for key in cap.params.keys() {
            if !PARAMS.contains(&key.as_str()) {
                problems.push(format!(
                    "tools: unknown param {key:?}; the params are {}.",
                    PARAMS.join(", ")
                ));
            }
        }
        for key in cap.features.keys() {
            problems.push(format!(
                "tools: unknown feature {key:?}; the tools capability has no features."
            ));
        }
        let mut block_limit = |key: &str, max: u64, unit: &str| {
            limit(cap.params.get(key), &format!("params.{key}"), max, unit).unwrap_or_else(|e| {
                problems.push(format!("tools: {e}"));
                None
            })
        };
        let defaults = Limits {
            time_ms: block_limit("timeMs", MAX_TIME_MS, "milliseconds").unwrap_or(DEFAULT_TIME_MS),
            result_chars: block_limit("resultChars", MAX_RESULT_CHARS as u64, "characters")
                .map_or(DEFAULT_RESULT_CHARS, |n| n as usize),
        };
        let mut servers = Vec::new();
        match cap.params.get("servers") {
            None => problems.push(
                "tools: params.servers is missing; list the MCP servers to reach, e.g. servers: [{ name: \"files\", command: \"npx\", args: [...], allow: [\"*\"] }].".to_string(),
            ),
            Some(Value::Array(list)) if list.is_empty() => problems.push(
                "tools: params.servers is empty; list at least one MCP server, or disable the capability.".to_string(),
            ),
            Some(Value::Array(list)) => {
                // Which index first used each name, to name it in a clash.
                let mut first_use: HashMap<&str, usize> = HashMap::new();
                for (index, value) in list.iter().enumerate() {
                    if let Some(name) = value.get("name").and_then(Value::as_str) {
                        if let Some(first) = first_use.get(name) {
                            problems.push(format!(
                                "tools: servers[{index}] ({name:?}): the name {name:?} is already taken by servers[{first}]; give each server its own name."
                            ));
                        } else {
                            first_use.insert(name, index);
                        }
                    }
                    if let Some(server) = server(index, value, defaults, &mut problems) {
                        servers.push(server);
                    }
                }
            }
            Some(other) => problems.push(format!(
                "tools: params.servers must be an array of server objects, got {}.",
                shown(other)
            )),
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        Ok(Some(ToolsConfig { servers }))
    }

    /// The server with this name.
    pub fn server(&self, name: &str) -> Option<&ServerConfig> {
        self.servers.iter().find(|s| s.name == name)
    }
}

/// The block-wide defaults a server falls back on.
#[derive(Clone, Copy)]
struct Limits {
    time_ms: u64,
    result_chars: usize,
}

/// Reads one server object; `None` when it has a problem (each recorded).
fn server(
    index: usize,
    value: &Value,
    defaults: Limits,
    problems: &mut Vec<String>,
) -> Option<ServerConfig> {
    let before = problems.len();
    let Value::Object(obj) = value else {
        problems.push(format!(
            "tools: servers[{index}] must be an object {{ name, command or url, allow, ... }}, got {}.",
            shown(value)
        ));
        return None;
    };
    let label = match obj.get("name") {
        Some(Value::String(name)) => format!("tools: servers[{index}] ({name:?})"),
        _ => format!("tools: servers[{index}]"),
    };
    let mut problem = |text: String| problems.push(format!("{label}: {text}"));

    for key in obj.keys() {
        if !SERVER_KEYS.contains(&key.as_str()) {
            problem(format!(
                "unknown key {key:?}; a server's keys are {}.",
                SERVER_KEYS.join(", ")
            ));
        }
    }
    let name = match obj.get("name") {
        None => {
            problem("name is missing; give each server a name of ASCII letters, digits, - and _ (programs import gg/tools/<name>).".to_string());
            None
        }
        Some(Value::String(name)) => {
            for p in server_name_problems(name) {
                problem(p);
            }
            Some(name.clone())
        }
        Some(other) => {
            problem(format!("name must be a string, got {}.", shown(other)));
            None
        }
    };

    let command = obj.get("command").and_then(|v| match v {
        Value::String(s) if !s.is_empty() && !s.contains('\0') => Some(s.clone()),
        other => {
            problem(format!(
                "command must be a non-empty string naming the program to launch (e.g. \"npx\"), got {}.",
                shown(other)
            ));
            None
        }
    });
    let args = obj.get("args").map(|v| strings(v, "args", &mut problem));
    let env = obj.get("env").map(|v| {
        let map = string_map(v, "env", "{ \"NAME\": \"value\" }", &mut problem);
        for (key, value) in &map {
            if key.is_empty() || key.contains(['=', '\0']) {
                problem(format!(
                    "env holds the variable name {key:?}, which an environment cannot hold (it must be non-empty, without = or NUL)."
                ));
            }
            if value.contains('\0') {
                problem(format!(
                    "env.{key} holds a NUL character, which an environment cannot hold."
                ));
            }
        }
        map
    });
    let cwd = obj.get("cwd").and_then(|v| match v {
        Value::String(s) if !s.is_empty() && !s.contains('\0') => Some(PathBuf::from(s)),
        other => {
            problem(format!(
                "cwd must be a non-empty string naming the directory the server starts in, got {}.",
                shown(other)
            ));
            None
        }
    });
    let url = obj.get("url").and_then(|v| match v {
        Value::String(s)
            if ["http://", "https://"]
                .iter()
                .any(|scheme| s.len() > scheme.len() && s.starts_with(scheme)) =>
        {
            Some(s.clone())
        }
        other => {
            problem(format!(
                "url must be an http:// or https:// address of the server's MCP endpoint, got {}.",
                shown(other)
            ));
            None
        }
    });
    let headers = obj.get("headers").map(|v| {
        let map = string_map(v, "headers", "{ Authorization: \"Bearer ...\" }", &mut problem);
        for (key, value) in &map {
            if key.is_empty() || !key.chars().all(is_header_name_char) {
                problem(format!(
                    "headers holds the name {key:?}, which is not an HTTP header name (letters, digits and !#$%&'*+-.^_`|~ only)."
                ));
            }
            if value.contains(['\r', '\n', '\0']) {
                problem(format!(
                    "headers.{key} holds a line break or NUL, which an HTTP header cannot carry."
                ));
            }
        }
        map
    });

    let has = |key: &str| obj.contains_key(key);
    match (has("command"), has("url")) {
        (true, true) => problem(
            "has both command and url; a server is either a local process (command) or an HTTP endpoint (url), so keep one.".to_string(),
        ),
        (false, false) => problem(
            "has neither command nor url; set command to launch a local MCP server over stdio, or url to reach one over HTTP.".to_string(),
        ),
        (true, false) => {
            if has("headers") {
                problem("headers only apply to a url server; this one is launched with command, so remove them (or pass values through env).".to_string());
            }
        }
        (false, true) => {
            for key in ["args", "env", "cwd"] {
                if has(key) {
                    problem(format!(
                        "{key} only applies to a command server; this one is reached by url, so remove it."
                    ));
                }
            }
        }
    }

    let allow = match obj.get("allow") {
        None => {
            problem("allow is missing; list the tools this server offers (names or globs such as \"read_*\"), or write allow: [\"*\"] to offer every tool.".to_string());
            Vec::new()
        }
        Some(Value::Array(list)) if list.is_empty() => {
            problem("allow is empty, so the server would offer no tool; list tool names or globs, or write allow: [\"*\"] to offer every tool.".to_string());
            Vec::new()
        }
        Some(Value::Array(list)) => list
            .iter()
            .enumerate()
            .filter_map(|(i, v)| match v {
                Value::String(s) if !s.is_empty() => Some(s.clone()),
                other => {
                    problem(format!(
                        "allow[{i}] must be a non-empty tool name or glob, got {}.",
                        shown(other)
                    ));
                    None
                }
            })
            .collect(),
        Some(other) => {
            problem(format!(
                "allow must be an array of tool names or globs (e.g. [\"read_*\"] or [\"*\"]), got {}.",
                shown(other)
            ));
            Vec::new()
        }
    };
    let mut server_limit = |key: &str, max: u64, unit: &str| {
        limit(obj.get(key), key, max, unit).unwrap_or_else(|e| {
            problem(e.to_string());
            None
        })
    };
    let time_ms = server_limit("timeMs", MAX_TIME_MS, "milliseconds");
    let result_chars = server_limit("resultChars", MAX_RESULT_CHARS as u64, "characters");
    let share = match obj.get("share") {
        None => Share::Agent,
        Some(Value::String(s)) if s == "agent" => Share::Agent,
        Some(Value::String(s)) if s == "profile" => Share::Profile,
        Some(other) => {
            problem(format!(
                "share must be \"agent\" (the default: each agent gets its own server process or connection, as isolated memories are its own) or \"profile\" (one for every agent of this profile), got {}.",
                shown(other)
            ));
            Share::Agent
        }
    };

    if problems.len() > before {
        return None;
    }
    let transport = match (command, url) {
        (Some(command), None) => Transport::Stdio {
            command,
            args: args.unwrap_or_default(),
            env: env.unwrap_or_default(),
            cwd,
        },
        (None, Some(url)) => Transport::Http {
            url,
            headers: headers.unwrap_or_default(),
        },
        _ => unreachable!("a server without problems has exactly one transport"),
    };
    Some(ServerConfig {
        name: name.expect("a server without problems has a name"),
        transport,
        allow,
        time_ms: time_ms.unwrap_or(defaults.time_ms),
        result_chars: result_chars.map_or(defaults.result_chars, |n| n as usize),
        share,
    })
}

/// A whole number in `1..=max`; `Ok(None)` when absent, `Err` naming `what`
/// when wrong.
fn limit(
    value: Option<&Value>,
    what: &str,
    max: u64,
    unit: &str,
) -> Result<Option<u64>, crate::ConfigError> {
    let Some(value) = value else {
        return Ok(None);
    };
    match value.as_u64() {
        Some(n) if (1..=max).contains(&n) => Ok(Some(n)),
        _ => Err(crate::ConfigError::Invalid(format!(
            "{what} must be a whole number of {unit} from 1 to {max}, got {}.",
            shown(value)
        ))),
    }
}

/// An array of strings; each wrong element recorded as a problem.
fn strings(value: &Value, what: &str, problem: &mut impl FnMut(String)) -> Vec<String> {
    let Value::Array(list) = value else {
        problem(format!(
            "{what} must be an array of strings, got {}.",
            shown(value)
        ));
        return Vec::new();
    };
    list.iter()
        .enumerate()
        .filter_map(|(i, v)| match v {
            Value::String(s) if !s.contains('\0') => Some(s.clone()),
            other => {
                problem(format!(
                    "{what}[{i}] must be a string, got {}.",
                    shown(other)
                ));
                None
            }
        })
        .collect()
}

/// An object whose values are strings; each wrong value recorded as a
/// problem.
fn string_map(
    value: &Value,
    what: &str,
    example: &str,
    problem: &mut impl FnMut(String),
) -> BTreeMap<String, String> {
    let Value::Object(map) = value else {
        problem(format!(
            "{what} must be an object of strings ({example}), got {}.",
            shown(value)
        ));
        return BTreeMap::new();
    };
    map.iter()
        .filter_map(|(key, v)| match v {
            Value::String(s) => Some((key.clone(), s.clone())),
            other => {
                problem(format!(
                    "{what}.{key} must be a string, got {}.",
                    shown(other)
                ));
                None
            }
        })
        .collect()
}

/// Whether `c` may appear in an HTTP header name (RFC 9110 `tchar`).
fn is_header_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// A value as an error message shows it: its JSON, cut short.
fn shown(value: &Value) -> String {
    const MAX: usize = 60;
    let text = value.to_string();
    if text.chars().count() <= MAX {
        text
    } else {
        let cut: String = text.chars().take(MAX).collect();
        format!("{cut}…")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Profile;

    fn cap(text: &str) -> Capability {
        json5::from_str(text).unwrap()
    }

    fn parse(text: &str) -> Result<Option<ToolsConfig>, Vec<String>> {
        ToolsConfig::from_capability(Some(&cap(text)))
    }

    #[test]
    fn a_good_block_parses_to_the_exact_config() {
        let p = Profile::from_json5(
            r#"{ id: "a", capabilities: [{ id: "tools", enabled: true, params: {
    servers: [
      { name: "files", command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "/tmp/x"],
        env: { "K": "v" }, cwd: "/some/dir", allow: ["read_*", "list_directory"], timeMs: 10000, resultChars: 5000 },
      { name: "docs", url: "http://127.0.0.1:3000/mcp", headers: { Authorization: "Bearer x" }, allow: ["*"], share: "profile" },
    ],
    timeMs: 20000,
    resultChars: 7000,
}}] }"#,
            "p",
        )
        .unwrap();
        let config = ToolsConfig::from_capability(p.capability(CAPABILITY_ID))
            .unwrap()
            .unwrap();
        assert_eq!(
            config,
            ToolsConfig {
                servers: vec![
                    ServerConfig {
                        name: "files".into(),
                        transport: Transport::Stdio {
                            command: "npx".into(),
                            args: vec![
                                "-y".into(),
                                "@modelcontextprotocol/server-filesystem".into(),
                                "/tmp/x".into()
                            ],
                            env: BTreeMap::from([("K".into(), "v".into())]),
                            cwd: Some(PathBuf::from("/some/dir")),
                        },
                        allow: vec!["read_*".into(), "list_directory".into()],
                        time_ms: 10_000,
                        result_chars: 5_000,
                        share: Share::Agent,
                    },
                    ServerConfig {
                        name: "docs".into(),
                        transport: Transport::Http {
                            url: "http://127.0.0.1:3000/mcp".into(),
                            headers: BTreeMap::from([("Authorization".into(), "Bearer x".into())]),
                        },
                        allow: vec!["*".into()],
                        // The block's defaults fill what the server left out.
                        time_ms: 20_000,
                        result_chars: 7_000,
                        share: Share::Profile,
                    },
                ],
            }
        );
        assert_eq!(config.server("docs").unwrap().name, "docs");
        assert!(config.server("nope").is_none());
        let files = config.server("files").unwrap();
        assert!(files.allows("read_text_file"));
        assert!(files.allows("list_directory"));
        assert!(!files.allows("write_file"));
        assert!(config.server("docs").unwrap().allows("anything"));
    }

    #[test]
    fn the_built_in_defaults_apply_when_the_block_sets_none() {
        let config = parse(
            r#"{ id: "tools", params: { servers: [{ name: "a", command: "x", allow: ["*"] }] } }"#,
        )
        .unwrap()
        .unwrap();
        let a = &config.servers[0];
        assert_eq!(a.time_ms, DEFAULT_TIME_MS);
        assert_eq!(a.result_chars, DEFAULT_RESULT_CHARS);
        assert_eq!(
            a.transport,
            Transport::Stdio {
                command: "x".into(),
                args: vec![],
                env: BTreeMap::new(),
                cwd: None
            }
        );
    }

    #[test]
    fn every_problem_is_reported_at_once_naming_its_server() {
        let problems = parse(
            r#"{ id: "tools", params: { servers: [
                { name: "files", command: "npx", url: "http://x", allow: ["*"] },
                { name: "docs", url: "ftp://x", allow: ["*"], timeMs: 0 },
                { name: "bad name", command: "x" },
                { name: "files", command: "y", allow: ["*"], cmd: "z" },
            ], colour: 1 } }"#,
        )
        .unwrap_err();
        let all = problems.join("\n");
        let expected = [
            "tools: unknown param \"colour\"; the params are servers, timeMs, resultChars.",
            "tools: servers[0] (\"files\"): has both command and url;",
            "tools: servers[1] (\"docs\"): url must be an http:// or https:// address of the server's MCP endpoint, got \"ftp://x\".",
            "tools: servers[1] (\"docs\"): timeMs must be a whole number of milliseconds from 1 to 600000, got 0.",
            "tools: servers[2] (\"bad name\"): name \"bad name\" must be 1 to 64 ASCII letters, digits, - and _",
            "tools: servers[2] (\"bad name\"): allow is missing; list the tools this server offers (names or globs such as \"read_*\"), or write allow: [\"*\"] to offer every tool.",
            "tools: servers[3] (\"files\"): the name \"files\" is already taken by servers[0];",
            "tools: servers[3] (\"files\"): unknown key \"cmd\"; a server's keys are name, command, args, env, cwd, url, headers, allow, timeMs, resultChars, share.",
        ];
        for e in expected {
            assert!(
                problems.iter().any(|p| p.starts_with(e)),
                "missing {e:?} in\n{all}"
            );
        }
        assert_eq!(problems.len(), expected.len(), "{all}");
    }

    #[test]
    fn wrong_types_are_each_reported() {
        let problems = parse(
            r#"{ id: "tools", features: { x: true }, params: { timeMs: 1.5, resultChars: 20000000, servers: [
                { name: 3, command: "", args: "x", env: { A: 1, "B=C": "d" }, cwd: 2, allow: [] },
                { name: "h", url: "https://x/mcp", headers: { "Bad Name": "x", X: "a\nb" }, allow: ["", 1], args: [], env: {}, cwd: "/" },
                7,
                { name: "a__b", url: "http://", headers: [], allow: "*", resultChars: -1 },
            ] } }"#,
        )
        .unwrap_err();
        let all = problems.join("\n");
        let expected = [
            "tools: unknown feature \"x\"; the tools capability has no features.",
            "tools: params.timeMs must be a whole number of milliseconds from 1 to 600000, got 1.5.",
            "tools: params.resultChars must be a whole number of characters from 1 to 10000000, got 20000000.",
            "tools: servers[0]: name must be a string, got 3.",
            "tools: servers[0]: command must be a non-empty string naming the program to launch (e.g. \"npx\"), got \"\".",
            "tools: servers[0]: args must be an array of strings, got \"x\".",
            "tools: servers[0]: env.A must be a string, got 1.",
            "tools: servers[0]: env holds the variable name \"B=C\"",
            "tools: servers[0]: cwd must be a non-empty string naming the directory the server starts in, got 2.",
            "tools: servers[0]: allow is empty, so the server would offer no tool;",
            "tools: servers[1] (\"h\"): headers holds the name \"Bad Name\", which is not an HTTP header name",
            "tools: servers[1] (\"h\"): headers.X holds a line break or NUL",
            "tools: servers[1] (\"h\"): allow[0] must be a non-empty tool name or glob, got \"\".",
            "tools: servers[1] (\"h\"): allow[1] must be a non-empty tool name or glob, got 1.",
            "tools: servers[1] (\"h\"): args only applies to a command server;",
            "tools: servers[1] (\"h\"): env only applies to a command server;",
            "tools: servers[1] (\"h\"): cwd only applies to a command server;",
            "tools: servers[2] must be an object { name, command or url, allow, ... }, got 7.",
            "tools: servers[3] (\"a__b\"): name \"a__b\" contains \"__\"",
            "tools: servers[3] (\"a__b\"): url must be an http:// or https:// address",
            "tools: servers[3] (\"a__b\"): headers must be an object of strings ({ Authorization: \"Bearer ...\" }), got [].",
            "tools: servers[3] (\"a__b\"): allow must be an array of tool names or globs",
            "tools: servers[3] (\"a__b\"): resultChars must be a whole number of characters from 1 to 10000000, got -1.",
        ];
        for e in expected {
            assert!(
                problems.iter().any(|p| p.starts_with(e)),
                "missing {e:?} in\n{all}"
            );
        }
        assert_eq!(problems.len(), expected.len(), "{all}");
    }

    #[test]
    fn transports_must_be_chosen_once_and_headers_go_with_url() {
        let problems = parse(
            r#"{ id: "tools", params: { servers: [
                { name: "a", allow: ["*"] },
                { name: "b", command: "x", headers: { A: "b" }, allow: ["*"] },
            ] } }"#,
        )
        .unwrap_err();
        assert_eq!(
            problems,
            [
                "tools: servers[0] (\"a\"): has neither command nor url; set command to launch a local MCP server over stdio, or url to reach one over HTTP.",
                "tools: servers[1] (\"b\"): headers only apply to a url server; this one is launched with command, so remove them (or pass values through env).",
            ]
        );
    }

    #[test]
    fn share_is_agent_by_default_and_an_unknown_value_names_both() {
        let config = parse(
            r#"{ id: "tools", params: { servers: [{ name: "a", command: "x", allow: ["*"] }] } }"#,
        )
        .unwrap()
        .unwrap();
        assert_eq!(config.servers[0].share, Share::Agent);
        let problems = parse(
            r#"{ id: "tools", params: { servers: [
                 { name: "a", command: "x", allow: ["*"], share: "host" },
                 { name: "b", url: "http://h/mcp", allow: ["*"], share: true } ] } }"#,
        )
        .unwrap_err();
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(
            problems[0].starts_with("tools: servers[0] (\"a\"): share must be \"agent\"")
                && problems[0].contains("\"profile\"")
                && problems[0].ends_with("got \"host\"."),
            "{problems:?}"
        );
        assert!(
            problems[1].starts_with("tools: servers[1] (\"b\"): share must be")
                && problems[1].ends_with("got true."),
            "{problems:?}"
        );
    }

    #[test]
    fn servers_must_be_a_non_empty_array() {
        assert_eq!(
            parse(r#"{ id: "tools", params: {} }"#).unwrap_err(),
            ["tools: params.servers is missing; list the MCP servers to reach, e.g. servers: [{ name: \"files\", command: \"npx\", args: [...], allow: [\"*\"] }]."]
        );
        assert_eq!(
            parse(r#"{ id: "tools", params: { servers: [] } }"#).unwrap_err(),
            ["tools: params.servers is empty; list at least one MCP server, or disable the capability."]
        );
        assert_eq!(
            parse(r#"{ id: "tools", params: { servers: { name: "a" } } }"#).unwrap_err(),
            ["tools: params.servers must be an array of server objects, got {\"name\":\"a\"}."]
        );
    }

    #[test]
    fn names_may_be_64_characters_but_not_65() {
        let ok = format!(
            r#"{{ id: "tools", params: {{ servers: [{{ name: "{}", command: "x", allow: ["*"] }}] }} }}"#,
            "a".repeat(64)
        );
        assert!(parse(&ok).unwrap().is_some());
        let long = ok.replace(&"a".repeat(64), &"a".repeat(65));
        assert_eq!(parse(&long).unwrap_err().len(), 1);
        let empty = ok.replace(&"a".repeat(64), "");
        assert_eq!(parse(&empty).unwrap_err().len(), 1);
    }

    #[test]
    fn a_disabled_or_absent_capability_is_none_and_not_validated() {
        assert_eq!(ToolsConfig::from_capability(None).unwrap(), None);
        assert_eq!(
            parse(r#"{ id: "tools", enabled: false, params: { servers: 3 } }"#).unwrap(),
            None
        );
        assert_eq!(parse(r#"{ id: "memories", params: {} }"#).unwrap(), None);
    }

    #[test]
    fn serialized_configs_hide_secret_values() {
        let config = parse(
            r#"{ id: "tools", params: { servers: [
                { name: "a", url: "https://x/mcp", headers: { Authorization: "Bearer secret" }, allow: ["*"] },
                { name: "b", command: "x", env: { TOKEN: "hush" }, allow: ["*"] },
            ] } }"#,
        )
        .unwrap()
        .unwrap();
        let json = serde_json::to_string(&config).unwrap();
        assert!(!json.contains("secret") && !json.contains("hush"), "{json}");
        assert!(
            json.contains(r#""headers":["Authorization"]"#) && json.contains(r#""env":["TOKEN"]"#),
            "{json}"
        );
        assert!(
            json.contains(r#""kind":"http""#) && json.contains(r#""timeMs":30000"#),
            "{json}"
        );
    }
}
