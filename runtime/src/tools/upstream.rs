//! One upstream MCP server, as rmcp's client reaches it: connected on
//! first need, its tool list kept, restarted on the call after it died.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use std::path::{Path, PathBuf};

use gg_module::tools::{ServerConfig, Transport, SERVER_STATE_VAR};
use rmcp::model::{CallToolRequestParams, CallToolResult, Tool};
use rmcp::service::{Peer, RoleClient, RunningService, ServiceError};
use rmcp::ServiceExt;
use tokio::io::AsyncBufReadExt;

/// Lines of a stdio server's stderr kept to explain why it failed.
const STDERR_LINES: usize = 8;

/// Why a connection or a call failed, as gg reports it.
#[derive(Debug, Clone, thiserror::Error)]
pub(crate) enum UpstreamError {
    /// The server could not be started or reached, or went away.
    #[error("{0}")]
    Unavailable(String),
    /// The server answered a protocol error (not a tool result).
    #[error("error {code}: {message}")]
    Protocol { code: i32, message: String },
    /// The call ran past its limit.
    #[error("no answer within {} ms", .0.as_millis())]
    TimedOut(Duration),
}

/// Why a server instance could not be started or connected: words for the
/// operator, to which [`UpstreamServer::explain`] adds the server's stderr.
#[derive(Debug)]
struct StartFailure(String);

impl From<String> for StartFailure {
    fn from(why: String) -> Self {
        StartFailure(why)
    }
}

/// Where a stdio server instance keeps what it writes of its own, named to
/// it as `GG_SERVER_STATE`.
#[derive(Debug, Clone)]
pub(crate) enum ServerHome {
    /// A folder under the state folder, kept across restarts: what the
    /// server kept is there for the holder's next instance.
    Kept(PathBuf),
    /// A folder of the system's temporary one, made at the first start and
    /// removed with the instance (an agent with no state folder keeps
    /// nothing either).
    Temporary,
}

/// How a temporary server folder's name begins: then the process's id,
/// a number and the server's name.
const TEMPORARY_PREFIX: &str = "gg-server-";

/// Removes the temporary server folders of processes that are gone (one
/// killed before it could remove its own): each is named by its process.
fn remove_abandoned_homes() {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    let Ok(me) = std::fs::metadata("/proc/self").map(|m| std::os::unix::fs::MetadataExt::uid(&m))
    else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(TEMPORARY_PREFIX)) else {
            continue;
        };
        let Some(pid) = rest.split('-').next().and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        if Path::new(&format!("/proc/{pid}")).exists() {
            continue;
        }
        // Only this user's own: another user's folder is theirs to clean.
        let Ok(meta) = entry.path().symlink_metadata() else {
            continue;
        };
        if meta.is_dir() && std::os::unix::fs::MetadataExt::uid(&meta) == me {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Tells the temporary folders of one process apart.
static TEMPORARY_HOMES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

pub(crate) struct Upstream {
    pub(crate) config: ServerConfig,
    home: ServerHome,
    /// The temporary folder made for this instance, removed on drop.
    temporary: Mutex<Option<PathBuf>>,
    connection: tokio::sync::Mutex<Option<RunningService<RoleClient, ()>>>,
    tools: Mutex<Option<Arc<Vec<Tool>>>>,
    stderr: Arc<Mutex<VecDeque<String>>>,
}

impl Upstream {
    pub(crate) fn new(config: ServerConfig, home: ServerHome) -> Self {
        Upstream {
            config,
            home,
            temporary: Mutex::new(None),
            connection: tokio::sync::Mutex::new(None),
            tools: Mutex::new(None),
            stderr: Arc::default(),
        }
    }

    /// This instance's own folder, made if missing.
    fn home_folder(&self) -> Result<PathBuf, StartFailure> {
        match &self.home {
            ServerHome::Kept(dir) => {
                std::fs::create_dir_all(dir).map_err(|e| {
                    format!("its state folder {} cannot be made: {e}", dir.display())
                })?;
                Ok(dir.clone())
            }
            ServerHome::Temporary => {
                let mut made = self.temporary.lock().unwrap_or_else(|p| p.into_inner());
                if let Some(dir) = made.as_ref() {
                    return Ok(dir.clone());
                }
                remove_abandoned_homes();
                let dir = std::env::temp_dir().join(format!(
                    "{TEMPORARY_PREFIX}{}-{}-{}",
                    std::process::id(),
                    TEMPORARY_HOMES.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
                    self.config.name
                ));
                // Made new and private: no other user's folder is taken
                // over, and no other user reads what the server keeps.
                std::os::unix::fs::DirBuilderExt::mode(&mut std::fs::DirBuilder::new(), 0o700)
                    .create(&dir)
                    .map_err(|e| {
                        format!("its state folder {} cannot be made: {e}", dir.display())
                    })?;
                *made = Some(dir.clone());
                Ok(dir)
            }
        }
    }

    fn limit(&self) -> Duration {
        Duration::from_millis(self.config.time_ms)
    }

    /// The server's tools, listed when it was first connected.
    pub(crate) async fn tools(&self) -> Result<Arc<Vec<Tool>>, UpstreamError> {
        if let Some(tools) = self.tools.lock().unwrap_or_else(|p| p.into_inner()).clone() {
            return Ok(tools);
        }
        self.peer().await?;
        self.tools
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
            .ok_or_else(|| UpstreamError::Unavailable("it listed no tools".into()))
    }

    /// A live peer: the running connection, or a new one when there is
    /// none or the last one's transport has closed (the server exited).
    async fn peer(&self) -> Result<Peer<RoleClient>, UpstreamError> {
        let mut connection = self.connection.lock().await;
        if let Some(running) = connection.as_ref() {
            if !running.is_closed() && !running.peer().is_transport_closed() {
                return Ok(running.peer().clone());
            }
            tracing::info!(server = %self.config.name, "upstream tool server stopped; restarting it");
        }
        if let Some(old) = connection.take() {
            let _ = old.cancel().await;
        }
        let limit = self.limit();
        let running = match tokio::time::timeout(limit, self.connect()).await {
            Ok(Ok(running)) => running,
            Ok(Err(StartFailure(why))) => {
                return Err(UpstreamError::Unavailable(self.explain(why)))
            }
            Err(_) => {
                return Err(UpstreamError::Unavailable(self.explain(format!(
                    "it did not answer MCP's initialize within {} ms",
                    limit.as_millis()
                ))))
            }
        };
        let listed = tokio::time::timeout(limit, running.peer().list_all_tools()).await;
        let tools = match listed {
            Ok(Ok(tools)) => tools,
            Ok(Err(e)) => {
                return Err(UpstreamError::Unavailable(
                    self.explain(format!("listing its tools failed: {e}")),
                ))
            }
            Err(_) => {
                return Err(UpstreamError::Unavailable(self.explain(format!(
                    "it did not list its tools within {} ms",
                    limit.as_millis()
                ))))
            }
        };
        // The tool list a program was typed against is the first one: a
        // restarted server keeps its first list's names and schemas.
        let mut kept = self.tools.lock().unwrap_or_else(|p| p.into_inner());
        if kept.is_none() {
            *kept = Some(Arc::new(tools));
        }
        drop(kept);
        let peer = running.peer().clone();
        *connection = Some(running);
        Ok(peer)
    }

    /// The reason a server failed, with the last lines it wrote to stderr.
    fn explain(&self, reason: String) -> String {
        let stderr = self.stderr.lock().unwrap_or_else(|p| p.into_inner());
        if stderr.is_empty() {
            reason
        } else {
            let tail: Vec<&str> = stderr.iter().map(String::as_str).collect();
            format!("{reason}; its stderr ended: {}", tail.join(" | "))
        }
    }

    async fn connect(&self) -> Result<RunningService<RoleClient, ()>, StartFailure> {
        match &self.config.transport {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                let home = self.home_folder()?;
                let mut cmd = tokio::process::Command::new(command);
                cmd.args(args.iter().map(|a| with_home(a, &home)))
                    .envs(env.iter().map(|(k, v)| (k, with_home(v, &home))))
                    .env(SERVER_STATE_VAR, &home)
                    .kill_on_drop(true);
                if let Some(cwd) = cwd {
                    cmd.current_dir(cwd);
                }
                let (transport, stderr) = rmcp::transport::TokioChildProcess::builder(cmd)
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .map_err(|e| format!("`{command}` could not be started: {e}"))?;
                self.stderr
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .clear();
                if let Some(stderr) = stderr {
                    let kept = self.stderr.clone();
                    let server = self.config.name.clone();
                    tokio::spawn(async move {
                        let mut lines = tokio::io::BufReader::new(stderr).lines();
                        while let Ok(Some(line)) = lines.next_line().await {
                            tracing::debug!(server = %crate::untrusted(&server), "{}", crate::untrusted(&line));
                            let mut kept = kept.lock().unwrap_or_else(|p| p.into_inner());
                            if kept.len() == STDERR_LINES {
                                kept.pop_front();
                            }
                            kept.push_back(line.chars().take(400).collect());
                        }
                    });
                }
                ().serve(transport).await.map_err(|e| {
                    StartFailure(format!(
                        "it did not complete MCP's initialize: {}",
                        root_cause(&e)
                    ))
                })
            }
            Transport::Http { url, headers } => {
                use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
                let mut parsed = std::collections::HashMap::new();
                for (name, value) in headers {
                    let name = http::HeaderName::try_from(name.as_str())
                        .map_err(|e| format!("the header name {name:?} is not valid: {e}"))?;
                    let value = http::HeaderValue::try_from(value.as_str()).map_err(|e| {
                        format!("the header {name} has a value that is not valid: {e}")
                    })?;
                    parsed.insert(name, value);
                }
                let config = StreamableHttpClientTransportConfig::with_uri(url.as_str())
                    .custom_headers(parsed);
                let transport = rmcp::transport::StreamableHttpClientTransport::from_config(config);
                ().serve(transport).await.map_err(|e| {
                    StartFailure(format!(
                        "{url} did not complete MCP's initialize: {}",
                        root_cause(&e)
                    ))
                })
            }
        }
    }

    /// Calls `tool` with `arguments`, within `limit`.
    pub(crate) async fn call(
        &self,
        tool: &str,
        arguments: serde_json::Map<String, serde_json::Value>,
        limit: Duration,
    ) -> Result<CallToolResult, UpstreamError> {
        let peer = self.peer().await?;
        let params = CallToolRequestParams::new(tool.to_string()).with_arguments(arguments);
        match tokio::time::timeout(limit, peer.call_tool(params)).await {
            Err(_) => Err(UpstreamError::TimedOut(limit)),
            Ok(Ok(result)) => Ok(result),
            Ok(Err(ServiceError::McpError(e))) => Err(UpstreamError::Protocol {
                code: e.code.0,
                message: e.message.to_string(),
            }),
            Ok(Err(e)) => Err(UpstreamError::Unavailable(self.explain(format!(
                "the server went away during the call ({e}); it is restarted on the next call"
            )))),
        }
    }

    /// Shuts the server down: the transport closes, a stdio server is
    /// given `grace` to exit and then killed. A temporary folder goes with
    /// it (a restart makes a new one): the process may exit without
    /// dropping this instance.
    pub(crate) async fn stop(&self, grace: Duration) {
        let running = self.connection.lock().await.take();
        if let Some(mut running) = running {
            let _ = running.close_with_timeout(grace).await;
        }
        let temporary = self
            .temporary
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        if let Some(dir) = temporary {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// `text` with each `${GG_SERVER_STATE}` replaced by the server's folder.
fn with_home(text: &str, home: &Path) -> String {
    let placeholder = format!("${{{SERVER_STATE_VAR}}}");
    if text.contains(&placeholder) {
        text.replace(&placeholder, &home.display().to_string())
    } else {
        text.to_string()
    }
}

/// What went wrong at the bottom of an error's chain (a refused
/// certificate, a refused connection), which the outer errors, naming
/// transport types, only wrap.
fn root_cause(error: &dyn std::error::Error) -> String {
    let mut deepest = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        deepest = cause.to_string();
        source = cause.source();
    }
    deepest
}

impl Drop for Upstream {
    fn drop(&mut self) {
        // The last agent let go: the connection's task ends and the child,
        // spawned with kill_on_drop, goes with it.
        if let Some(running) = self.connection.get_mut().take() {
            running.cancellation_token().cancel();
        }
        if let Some(dir) = self
            .temporary
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .take()
        {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}
