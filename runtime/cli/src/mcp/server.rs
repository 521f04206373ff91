//! The MCP side: `tools/list`, `tools/call` and the resources, answered by
//! the agent thread.

use std::sync::{mpsc, Arc, Mutex};

use gg_module::Mode;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    InitializeRequestParams, InitializeResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult,
    Resource, ResourceContents, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::{json, Map, Value};
use tokio::sync::oneshot;

use super::agent_thread::{CallJob, Description, Job};
use super::sessions::{SessionAgent, SessionAgents, RESUME_HEADER};

/// The most bytes of arguments one call may carry.
pub const MAX_ARGUMENT_BYTES: usize = 256 * 1024;

#[derive(Clone)]
pub struct GgServer {
    /// The least severe level the client asked to hear (`logging/setLevel`);
    /// none until it asks.
    log_level: Arc<Mutex<Option<u8>>>,
    /// The agent's job channel: from the start over stdio, from
    /// `initialize` on for an HTTP session.
    jobs: Arc<Mutex<Option<mpsc::Sender<Job>>>>,
    /// An HTTP session's agent source, and the agent once initialized.
    http: Option<Arc<HttpSession>>,
}

struct HttpSession {
    agents: Arc<SessionAgents>,
    agent: Mutex<Option<SessionAgent>>,
}

/// The resource that names an HTTP session's agent and its resume token.
const SESSION_RESOURCE: &str = "gg://agent/session";

const RESOURCES: [(&str, &str, &str); 3] = [
    (
        "gg://agent/system-prompt",
        "system-prompt",
        "The system prompt to place in the model's context.",
    ),
    (
        "gg://agent/pinned",
        "pinned",
        "The pinned block (memories), rebuilt at compaction boundaries.",
    ),
    (
        "gg://agent/window",
        "window",
        "The whole window the agent's next turn would see, rendered.",
    ),
];

impl GgServer {
    /// The server of one stdio connection, for the agent behind `jobs`.
    pub fn new(jobs: mpsc::Sender<Job>) -> Self {
        GgServer {
            log_level: Arc::default(),
            jobs: Arc::new(Mutex::new(Some(jobs))),
            http: None,
        }
    }

    /// The server of one HTTP session: its agent (new, or resumed with the
    /// `Gg-Resume` header) starts at `initialize`.
    pub fn for_http_session(agents: Arc<SessionAgents>) -> Self {
        GgServer {
            log_level: Arc::default(),
            jobs: Arc::new(Mutex::new(None)),
            http: Some(Arc::new(HttpSession {
                agents,
                agent: Mutex::new(None),
            })),
        }
    }

    fn send(&self, job: Job) -> Result<(), McpError> {
        let jobs = self.jobs.lock().unwrap_or_else(|p| p.into_inner());
        let Some(jobs) = jobs.as_ref() else {
            return Err(McpError::invalid_request(
                "the session has no agent before `initialize`",
                None,
            ));
        };
        jobs.send(job)
            .map_err(|_| McpError::internal_error("the agent has stopped", None))
    }

    /// Starts an HTTP session's agent: the one the `Gg-Resume` header's
    /// token names, or a new one.
    fn start_session_agent(
        &self,
        http: &HttpSession,
        context: &RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let token = context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| parts.headers.get(RESUME_HEADER))
            .map(|value| value.to_str().map(|t| t.trim().to_string()));
        let agent = tokio::task::block_in_place(|| match token {
            Some(Ok(token)) => http.agents.resume(&token),
            Some(Err(_)) => Err("the Gg-Resume header is not text".into()),
            None => http.agents.fresh(),
        })
        .map_err(|why| McpError::invalid_params(why, None))?;
        *self.jobs.lock().unwrap_or_else(|p| p.into_inner()) = Some(agent.jobs.clone());
        *http.agent.lock().unwrap_or_else(|p| p.into_inner()) = Some(agent);
        Ok(())
    }

    /// `gg://agent/session`'s text: the agent's id and its resume token.
    fn session_text(&self) -> Option<String> {
        let http = self.http.as_ref()?;
        let agent = http.agent.lock().unwrap_or_else(|p| p.into_inner());
        let agent = agent.as_ref()?;
        Some(
            json!({
                "agent": agent.id,
                "resumeToken": agent.resume_token,
                "resumeHeader": "Gg-Resume",
            })
            .to_string(),
        )
    }

    async fn describe(&self) -> Result<Description, McpError> {
        self.describe_with(false).await
    }

    async fn describe_with(&self, with_window: bool) -> Result<Description, McpError> {
        let (tx, rx) = oneshot::channel();
        self.send(Job::Describe {
            with_window,
            reply: tx,
        })?;
        rx.await
            .map_err(|_| McpError::internal_error("the agent has stopped", None))
    }

    fn tools(description: &Description) -> Vec<Tool> {
        match description.mode {
            Mode::Code => {
                let schema = json!({
                    "type": "object",
                    "properties": { "program": { "type": "string", "description": "A TypeScript program; `import { memories, views } from \"gg\"`." } },
                    "required": ["program"],
                    "additionalProperties": false
                });
                let calls: Vec<&str> = description
                    .memory_calls
                    .iter()
                    .map(String::as_str)
                    .collect();
                let text = format!(
                    "Run one TypeScript program as the agent's turn. The result is its acknowledgement (program id, value, console output or error) and the views and notices that arrived for the next turn. The gg module, with the memory calls this agent has:\n\n```ts\n{}\n```",
                    gg_module::system_prompt::gg_dts_offering(&calls).trim_end()
                );
                vec![Tool::new("run_program", text, object(schema))]
            }
            Mode::ToolCalling => description
                .tools
                .iter()
                .map(|t| {
                    Tool::new(
                        t["name"].as_str().unwrap_or("").to_string(),
                        t["description"].as_str().unwrap_or("").to_string(),
                        object(t["input_schema"].clone()),
                    )
                })
                .collect(),
        }
    }
}

/// Sends one of the program's console lines, when it is at or above the
/// client's level, as `notifications/message` (logger `gg.console`).
#[allow(deprecated)] // MCP logging: deprecated by SEP-2577, still what clients read
async fn send_console_line(
    threshold: Option<u8>,
    line: &gg_module::ConsoleLine,
    peer: &rmcp::Peer<RoleServer>,
) {
    use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam};
    let Some(threshold) = threshold else { return };
    let level = match line.level.as_str() {
        "debug" => LoggingLevel::Debug,
        "warn" => LoggingLevel::Warning,
        "error" => LoggingLevel::Error,
        _ => LoggingLevel::Info,
    };
    if severity(level) < threshold {
        return;
    }
    let mut message = LoggingMessageNotificationParam::new(level, Value::String(line.text.clone()));
    message.logger = Some("gg.console".into());
    // A client gone mid-call loses its log lines, not the result.
    let _ = peer.notify_logging_message(message).await;
}

/// RFC 5424's order of MCP's logging levels, least severe first.
#[allow(deprecated)]
fn severity(level: rmcp::model::LoggingLevel) -> u8 {
    use rmcp::model::LoggingLevel::*;
    match level {
        Debug => 0,
        Info => 1,
        Notice => 2,
        Warning => 3,
        Error => 4,
        Critical => 5,
        Alert => 6,
        Emergency => 7,
    }
}

fn object(value: Value) -> Arc<Map<String, Value>> {
    Arc::new(match value {
        Value::Object(map) => map,
        _ => Map::new(),
    })
}

impl ServerHandler for GgServer {
    #[allow(deprecated)] // enable_logging: see set_level
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_logging()
                .build(),
        );
        let mut gg = Implementation::new("gg", env!("CARGO_PKG_VERSION"));
        gg.title = Some("gg: responses-as-code agents".into());
        info.server_info = gg;
        info
    }

    /// Answers `initialize` with gg's name and version and, as the
    /// instructions, the agent's system prompt (what a client should place
    /// in its model's context).
    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, McpError> {
        context.peer.set_peer_info(request.clone());
        let mut result = self.negotiate_initialize(&request)?;
        if let Some(http) = &self.http {
            self.start_session_agent(http, &context)?;
        }
        let description = self.describe().await?;
        result.instructions = Some(description.system_prompt);
        Ok(result)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let description = self.describe().await?;
        Ok(ListToolsResult::with_all_items(Self::tools(&description)))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let description = self.describe().await?;
        let tools = Self::tools(&description);
        let Some(tool) = tools.iter().find(|t| t.name == request.name) else {
            let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
            return Err(McpError::invalid_params(
                format!(
                    "unknown tool {:?}; this agent's tools are: {}",
                    request.name,
                    names.join(", ")
                ),
                None,
            ));
        };
        let arguments = Value::Object(request.arguments.clone().unwrap_or_default());
        let size = serde_json::to_string(&arguments)
            .map(|s| s.len())
            .unwrap_or(0);
        if size > MAX_ARGUMENT_BYTES {
            return Err(McpError::invalid_params(
                format!("the arguments are {size} bytes, over the {MAX_ARGUMENT_BYTES}-byte limit; send less per call"),
                None,
            ));
        }
        let schema = Value::Object((*tool.input_schema).clone());
        super::arguments::check(&schema, &arguments).map_err(|why| {
            McpError::invalid_params(format!("{}: the {why}", request.name), None)
        })?;
        let (tx, rx) = oneshot::channel();
        let threshold = *self.log_level.lock().unwrap_or_else(|p| p.into_inner());
        let (live, mut lines) = tokio::sync::mpsc::unbounded_channel();
        self.send(Job::Call(CallJob {
            name: request.name.to_string(),
            arguments,
            // Only a client that set a level hears the lines.
            console: threshold.is_some().then_some(live),
            reply: tx,
        }))?;
        // Each line is sent as the program prints it; the channel closes
        // when the turn ends, before the answer is sent, so every line
        // reaches the client before the result.
        let peer = context.peer.clone();
        let relay = async move {
            while let Some(line) = lines.recv().await {
                send_console_line(threshold, &line, &peer).await;
            }
        };
        let (answer, ()) = tokio::join!(rx, relay);
        let answer = answer.map_err(|_| McpError::internal_error("the agent has stopped", None))?;
        // A call the agent could not finish (its worker stopped at a limit
        // or ended) is the tool's failure, for the model to read, not a
        // malformed request.
        let answer = match answer {
            Ok(answer) => answer,
            Err(why) => return Ok(CallToolResult::error(vec![ContentBlock::text(why)]).into()),
        };
        let content = vec![ContentBlock::text(answer.text)];
        Ok(if answer.is_error {
            CallToolResult::error(content)
        } else {
            CallToolResult::success(content)
        }
        .into())
    }

    /// `logging/setLevel`: from now on the console lines of this session's
    /// programs at or above `level` arrive as log messages.
    #[allow(deprecated)] // MCP logging: deprecated by SEP-2577, still what clients read
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let level = severity(request.level);
        *self.log_level.lock().unwrap_or_else(|p| p.into_inner()) = Some(level);
        Ok(())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let session = self.http.as_ref().map(|_| {
            (
                SESSION_RESOURCE,
                "session",
                "This HTTP session's agent and the token that resumes it in a later session (send it as the Gg-Resume header of `initialize`).",
            )
        });
        let resources = RESOURCES
            .iter()
            .copied()
            .chain(session)
            .map(|(uri, name, description)| {
                let mut resource = Resource::new(uri, name);
                resource.description = Some(description.to_string());
                resource.mime_type = Some(if uri == SESSION_RESOURCE {
                    "application/json".into()
                } else {
                    "text/plain".into()
                });
                resource
            })
            .collect();
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        if request.uri == SESSION_RESOURCE {
            if let Some(text) = self.session_text() {
                return Ok(ReadResourceResult::new(vec![ResourceContents::text(
                    text,
                    request.uri.clone(),
                )])
                .into());
            }
        }
        let description = self
            .describe_with(request.uri == "gg://agent/window")
            .await?;
        let text = match request.uri.as_str() {
            "gg://agent/system-prompt" => description.system_prompt,
            "gg://agent/pinned" => description.pinned,
            "gg://agent/window" => description.window.unwrap_or_default(),
            other => {
                return Err(McpError::resource_not_found(
                    format!("no resource {other:?}"),
                    None,
                ))
            }
        };
        Ok(ReadResourceResult::new(vec![ResourceContents::text(text, request.uri.clone())]).into())
    }
}
