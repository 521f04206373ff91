//! The tools one agent is offered: each server's allowed tools with the
//! names programs and native calls reach them by, the typings and modules
//! made from them, and the native tool schemas.

use std::sync::Arc;

use gg_module::tools::{
    function_names, module_declaration, native_tool_name, ServerConfig, ToolDeclaration,
    ToolsConfig,
};
use gg_module::ConfigError;
use serde_json::{json, Value};

use super::host_function::HostTool;
use super::hub::{self, ToolOwner};
use super::upstream::{Upstream, UpstreamError};

/// Where a server's calls go.
#[derive(Clone)]
pub(crate) enum Source {
    /// An upstream MCP server: the agent's own, or its profile's.
    Upstream(Arc<Upstream>),
    /// The embedder's own functions.
    Host,
}

/// One tool the agent may call.
#[derive(Clone)]
pub(crate) struct OfferedTool {
    /// The tool's own name (`read_text_file`).
    pub tool: String,
    /// Its function in the module (`readTextFile`).
    pub function: String,
    /// Its native tool name (`files__read_text_file`).
    pub native: String,
    pub description: Option<String>,
    pub input_schema: Value,
    pub output_schema: Option<Value>,
    /// The handler, for a host function.
    pub host: Option<HostTool>,
}

/// One server as the agent sees it.
#[derive(Clone)]
pub(crate) struct OfferedServer {
    pub name: String,
    pub source: Source,
    pub tools: Vec<OfferedTool>,
    /// Limit per call, in milliseconds.
    pub time_ms: u64,
    /// Most characters a result may have.
    pub result_chars: usize,
}

/// Every server the agent is offered, in the profile's order, then the
/// embedder's.
#[derive(Clone, Default)]
pub(crate) struct OfferedTools {
    pub servers: Vec<OfferedServer>,
    /// Who decides a call the profile allows, and the clock it stops.
    pub gate: ToolGate,
}

/// What a call passes after the profile's rules: the embedder's policy,
/// asked for the agent `agent`, and the agent's isolate's clock, which does
/// not run while a decision is awaited.
#[derive(Clone)]
pub(crate) struct ToolGate {
    pub agent: String,
    pub policy: std::sync::Arc<dyn crate::policy::HostPolicy>,
    pub clock: Option<crate::engine::WaitClock>,
}

impl Default for ToolGate {
    fn default() -> Self {
        ToolGate {
            agent: String::new(),
            policy: std::sync::Arc::new(crate::policy::ProfileRules),
            clock: None,
        }
    }
}

impl OfferedTools {
    /// Connects the profile's servers, `owner`'s instances of them (each
    /// named when it cannot start), and adds the embedder's host functions.
    pub fn open(
        config: Option<&ToolsConfig>,
        host_tools: &[HostTool],
        owner: &ToolOwner,
    ) -> Result<Self, ConfigError> {
        let mut servers = Vec::new();
        let mut failures = Vec::new();
        if let Some(config) = config {
            for server in &config.servers {
                match upstream_server(server, owner) {
                    Ok(offered) => servers.push(offered),
                    Err(reason) => failures.push(format!(
                        "tools: the server {:?} cannot be used: {reason}",
                        server.name
                    )),
                }
            }
        }
        if !failures.is_empty() {
            return Err(ConfigError::Invalid(failures.join("\n")));
        }
        for tool in host_tools {
            if config.is_some_and(|c| c.server(&tool.server).is_some()) {
                return Err(ConfigError::Invalid(format!(
                    "host tool {:?}: its server name {:?} is also an upstream server of the profile; give it another.",
                    tool.name, tool.server
                )));
            }
            if let Err(problem) = gg_module::tools::check_server_name(&tool.server) {
                return Err(ConfigError::Invalid(format!(
                    "host tool {:?}: {problem}",
                    tool.name
                )));
            }
            let index = match servers.iter().position(|s| s.name == tool.server) {
                Some(index) => index,
                None => {
                    servers.push(OfferedServer {
                        name: tool.server.clone(),
                        source: Source::Host,
                        tools: Vec::new(),
                        time_ms: tool.time_ms,
                        result_chars: tool.result_chars,
                    });
                    servers.len() - 1
                }
            };
            let server = &mut servers[index];
            if server.tools.iter().any(|t| t.tool == tool.name) {
                return Err(ConfigError::Invalid(format!(
                    "host tool {:?} of {:?} is registered twice.",
                    tool.name, tool.server
                )));
            }
            server.tools.push(OfferedTool {
                tool: tool.name.clone(),
                function: String::new(),
                native: native_tool_name(&tool.server, &tool.name),
                description: (!tool.description.is_empty()).then(|| tool.description.clone()),
                input_schema: tool.input_schema.clone(),
                output_schema: tool.output_schema.clone(),
                host: Some(tool.clone()),
            });
        }
        for server in &mut servers {
            let names: Vec<&str> = server.tools.iter().map(|t| t.tool.as_str()).collect();
            let functions = function_names(&names);
            for (tool, function) in server.tools.iter_mut().zip(functions) {
                tool.function = function;
            }
        }
        Ok(OfferedTools {
            servers,
            gate: ToolGate::default(),
        })
    }

    pub fn is_empty(&self) -> bool {
        self.servers.is_empty()
    }

    /// The server `name`, or a refusal naming the ones there are.
    pub fn server(&self, name: &str) -> Result<&OfferedServer, gg_module::GgError> {
        self.servers.iter().find(|s| s.name == name).ok_or_else(|| {
            gg_module::GgError::unavailable(if self.servers.is_empty() {
                format!(
                    "there is no tool server {:?}: this agent has no tools.",
                    gg_module::Quoted(name)
                )
            } else {
                format!(
                    "there is no tool server {:?}; this agent's are {}.",
                    gg_module::Quoted(name),
                    self.server_names().join(", ")
                )
            })
        })
    }

    fn server_names(&self) -> Vec<String> {
        self.servers
            .iter()
            .map(|s| format!("{:?}", s.name))
            .collect()
    }

    /// The server and tool a native tool name stands for.
    pub fn by_native(&self, native: &str) -> Option<(&OfferedServer, &OfferedTool)> {
        self.servers
            .iter()
            .find_map(|s| s.tools.iter().find(|t| t.native == native).map(|t| (s, t)))
    }

    /// The TypeScript declarations of every server's module.
    pub fn declarations(&self) -> String {
        self.servers
            .iter()
            .map(|s| {
                let tools: Vec<ToolDeclaration> = s
                    .tools
                    .iter()
                    .map(|t| ToolDeclaration {
                        function: t.function.clone(),
                        tool: t.tool.clone(),
                        description: t.description.clone(),
                        input_schema: t.input_schema.clone(),
                        output_schema: t.output_schema.clone(),
                    })
                    .collect();
                module_declaration(&s.name, &tools)
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Each server's module: its import key (`tools/files`) and its
    /// JavaScript, one `async` function per tool over `tools.call`.
    pub fn modules(&self) -> Vec<(String, String)> {
        self.servers
            .iter()
            .map(|s| {
                let mut code = String::from("import { call } from \"gg/tools\";\n");
                let server = serde_json::to_string(&s.name).expect("a string");
                for t in &s.tools {
                    let tool = serde_json::to_string(&t.tool).expect("a string");
                    code.push_str(&format!(
                        "export async function {}(args) {{ return await call({server}, {tool}, args); }}\n",
                        t.function
                    ));
                }
                (gg_module::tools::module_specifier_key(&s.name), code)
            })
            .collect()
    }

    /// The native tools, in the shape the memory tools have.
    pub fn native_schemas(&self) -> Vec<Value> {
        let mut out = Vec::new();
        for s in &self.servers {
            for t in &s.tools {
                let mut description = t.description.clone().unwrap_or_default();
                if !description.is_empty() {
                    description.push(' ');
                }
                description.push_str(&format!("(Tool `{}` of server `{}`.)", t.tool, s.name));
                out.push(json!({
                    "name": t.native,
                    "description": description,
                    "input_schema": t.input_schema,
                }));
            }
        }
        out
    }

    /// The system prompt's section on tools.
    pub fn prompt_section(&self, mode: gg_module::Mode) -> String {
        match mode {
            gg_module::Mode::Code => format!(
                "## Tools\nEach tool server is a module: `import {{ … }} from \"gg/tools/<server>\"`. Its functions are async: each takes one object argument, checked against the tool's schema, and resolves to the tool's structured result when it has one, else its text. A failed call rejects with a GgError. Run independent calls together with `Promise.all`.\n\n```ts\n{}\n\n{}\n```",
                TOOLS_CALL_DTS.trim_end(),
                self.declarations().trim_end()
            ),
            gg_module::Mode::ToolCalling => format!(
                "## Tools\nBeside your other tools you have the tools of these servers, named `<server>__<tool>`: {}.",
                self.server_names().join(", ")
            ),
        }
    }
}

/// The typings of `gg/tools`, shown with the servers' modules.
const TOOLS_CALL_DTS: &str = r#"declare module "gg/tools" {
  /** Calls tool `tool` of server `server`, as each function of a "gg/tools/<server>" module does; rejects with a GgError. */
  export function call(server: string, tool: string, args?: object): Promise<unknown>;
}"#;

fn upstream_server(
    config: &ServerConfig,
    owner: &ToolOwner,
) -> Result<OfferedServer, UpstreamError> {
    let upstream = hub::upstream(config, owner);
    let listing = upstream.clone();
    let listed = hub::block_on(async move { listing.tools().await })
        .ok_or_else(|| UpstreamError::Unavailable("gg's tool runtime stopped".to_string()))??;
    let tools = listed
        .iter()
        .filter(|t| config.allows(&t.name))
        .map(|t| OfferedTool {
            tool: t.name.to_string(),
            function: String::new(),
            native: native_tool_name(&config.name, &t.name),
            description: t.description.as_ref().map(|d| d.to_string()),
            input_schema: Value::Object((*t.input_schema).clone()),
            output_schema: t
                .output_schema
                .as_ref()
                .map(|s| Value::Object((**s).clone())),
            host: None,
        })
        .collect();
    Ok(OfferedServer {
        name: config.name.clone(),
        source: Source::Upstream(upstream),
        tools,
        time_ms: config.time_ms,
        result_chars: config.result_chars,
    })
}
