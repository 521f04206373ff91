//! Tools served across a process boundary. An agent in a confined worker
//! process may neither start programs nor open sockets, so its upstream
//! servers run in the host process: the host opens them ([`ToolRelay`]),
//! hands the worker their descriptions ([`ToolDescription`]), which the
//! worker offers as host functions whose handler asks the host; each call
//! is checked on both sides and recorded by the agent, as any other.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::host_function::{HostTool, ToolAnswer, ToolError};
use super::hub::{self, ToolOwner};
use super::offered::OfferedTools;

/// One tool as it crosses to another process: everything but its handler.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolDescription {
    /// The server it belongs to (`gg/tools/<server>`).
    pub server: String,
    /// The tool's own name.
    pub name: String,
    /// What it does, as the server says it.
    pub description: String,
    /// The JSON Schema of its argument.
    pub input_schema: Value,
    /// The JSON Schema of its structured result, if it declares one.
    pub output_schema: Option<Value>,
    /// Its limit per call, in milliseconds.
    pub time_ms: u64,
    /// Most characters its result may have.
    pub result_chars: usize,
}

/// Time a relayed call is given beyond its own limit on the far side, in
/// milliseconds: the side that runs the call refuses it at its limit, with
/// its own words, before the waiting side gives up.
const RELAY_MARGIN_MS: u64 = 1_000;

impl ToolDescription {
    /// The tool as a host function whose calls `handler` answers (by
    /// asking the process that holds the server).
    pub fn into_host_tool<F, Fut>(self, handler: F) -> HostTool
    where
        F: Fn(Value) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = ToolAnswer> + Send + 'static,
    {
        let mut tool = HostTool::new(
            self.server,
            self.name,
            self.description,
            self.input_schema,
            handler,
        )
        .with_time_ms(self.time_ms.saturating_add(RELAY_MARGIN_MS));
        tool.output_schema = self.output_schema;
        tool.result_chars = self.result_chars;
        tool
    }
}

/// A profile's upstream tool servers, opened in this process for an agent
/// that runs in another.
pub struct ToolRelay {
    offered: OfferedTools,
}

impl ToolRelay {
    /// Opens the servers of `profile`'s `tools` block for one agent that
    /// no one else can name: servers of its own (a temporary folder each),
    /// or its profile's under `share: "profile"`. `None` when the profile
    /// has no tools. Every problem of the block, or the server that cannot
    /// start, is named. [`ToolRelay::open_for_agent`] keeps the servers'
    /// folders in the state folder instead.
    pub fn open(profile: &gg_module::Profile) -> Result<Option<ToolRelay>, gg_module::ConfigError> {
        let owner = ToolOwner {
            agent: None,
            profile: profile.id.clone(),
            state: None,
        };
        Self::open_as(profile, &owner)
    }

    /// Opens the servers of `profile`'s `tools` block for agent `agent_id`
    /// of the state folder `state`, as its own agent would open them: its
    /// own instances (or its profile's), with their folders under
    /// `state/tools/`. A server given a folder that holds the state folder
    /// is refused, as at an agent's launch.
    pub fn open_for_agent(
        profile: &gg_module::Profile,
        agent_id: &str,
        state: &std::path::Path,
    ) -> Result<Option<ToolRelay>, gg_module::ConfigError> {
        if let Some(config) = gg_module::tools::ToolsConfig::from_capability(
            profile.capability(gg_module::tools::CAPABILITY_ID),
        )
        .map_err(|problems| gg_module::ConfigError::Invalid(problems.join("\n")))?
        {
            let problems = super::reach::servers_reaching_state(&config, state);
            if !problems.is_empty() {
                return Err(gg_module::ConfigError::Invalid(problems.join("\n")));
            }
        }
        let owner = ToolOwner {
            agent: Some(agent_id.to_string()),
            profile: profile.id.clone(),
            state: Some(state.to_path_buf()),
        };
        Self::open_as(profile, &owner)
    }

    fn open_as(
        profile: &gg_module::Profile,
        owner: &ToolOwner,
    ) -> Result<Option<ToolRelay>, gg_module::ConfigError> {
        let config = gg_module::tools::ToolsConfig::from_capability(
            profile.capability(gg_module::tools::CAPABILITY_ID),
        )
        .map_err(|problems| gg_module::ConfigError::Invalid(problems.join("\n")))?;
        let Some(config) = config else {
            return Ok(None);
        };
        let offered = OfferedTools::open(Some(&config), &[], owner)?;
        Ok(Some(ToolRelay { offered }))
    }

    /// The allowed tools, to offer on the other side.
    pub fn descriptions(&self) -> Vec<ToolDescription> {
        self.offered
            .servers
            .iter()
            .flat_map(|s| {
                s.tools.iter().map(|t| ToolDescription {
                    server: s.name.clone(),
                    name: t.tool.clone(),
                    description: t.description.clone().unwrap_or_default(),
                    input_schema: t.input_schema.clone(),
                    output_schema: t.output_schema.clone(),
                    time_ms: s.time_ms,
                    result_chars: s.result_chars,
                })
            })
            .collect()
    }

    /// Runs one call here, checked and limited as an agent's own; `done`
    /// gets its answer on gg's tool runtime.
    pub fn call(
        &self,
        server: &str,
        tool: &str,
        argument: Value,
        done: impl FnOnce(ToolAnswer) + Send + 'static,
    ) {
        match self.offered.start(server, tool, argument) {
            Err(e) => done(Err(ToolError {
                code: e.code,
                message: e.message,
            })),
            Ok(pending) => {
                hub::handle().spawn(async move {
                    let (result, _record) = pending.answer().await;
                    done(result.map_err(|e| ToolError {
                        code: e.code,
                        message: e.message,
                    }));
                });
            }
        }
    }
}

/// `profile` without its `tools` block: what an agent whose tools are
/// relayed to it is opened with (its tools come as host functions).
pub fn without_tools(profile: &gg_module::Profile) -> gg_module::Profile {
    let mut profile = profile.clone();
    profile
        .capabilities
        .retain(|c| c.id != gg_module::tools::CAPABILITY_ID);
    profile
}
