//! Host functions: tools an embedder implements in Rust, offered to the
//! agent exactly as an upstream server's tools are (a `gg/tools/<server>`
//! module, its typings, a native tool, the same limits and events).

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::Value;

/// What a host function's handler answers: the tool's result (a string is
/// its text; any other value its structured content), or a refusal.
pub type ToolAnswer = Result<Value, ToolError>;

type Handler = Arc<dyn Fn(Value) -> Pin<Box<dyn Future<Output = ToolAnswer> + Send>> + Send + Sync>;

/// A refusal from a host function: the program's `GgError` gets this code
/// and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolError {
    /// `invalid-argument`, `not-found`, `unavailable` or `io-error`.
    pub code: gg_module::ErrorCode,
    /// What went wrong, for the model.
    pub message: String,
}

impl ToolError {
    /// The arguments were wrong in a way the schema could not say.
    pub fn invalid_argument(message: impl Into<String>) -> Self {
        ToolError {
            code: gg_module::ErrorCode::InvalidArgument,
            message: message.into(),
        }
    }

    /// What the call asked for does not exist.
    pub fn not_found(message: impl Into<String>) -> Self {
        ToolError {
            code: gg_module::ErrorCode::NotFound,
            message: message.into(),
        }
    }

    /// The tool cannot serve now.
    pub fn unavailable(message: impl Into<String>) -> Self {
        ToolError {
            code: gg_module::ErrorCode::Unavailable,
            message: message.into(),
        }
    }

    /// The tool's own work failed.
    pub fn io_error(message: impl Into<String>) -> Self {
        ToolError {
            code: gg_module::ErrorCode::IoError,
            message: message.into(),
        }
    }
}

/// One tool an embedder registers on an agent
/// ([`AgentOptions::host_tools`](crate::AgentOptions::host_tools)). Tools
/// with the same `server` share the module `gg/tools/<server>`.
#[derive(Clone)]
pub struct HostTool {
    /// The module it appears in: `gg/tools/<server>`, and the prefix of
    /// its native tool name (`<server>__<name>`).
    pub server: String,
    /// The tool's name, as MCP would give it (`lookup_order`); programs
    /// call it in camel case (`lookupOrder`).
    pub name: String,
    /// What it does, for the model (JSDoc in the typings, the native
    /// tool's description).
    pub description: String,
    /// The JSON Schema of its one object argument, checked host-side
    /// before the handler runs.
    pub input_schema: Value,
    /// The JSON Schema of its structured result, when it answers one.
    pub output_schema: Option<Value>,
    /// Its limit per call, in milliseconds; default
    /// [`DEFAULT_TIME_MS`](gg_module::tools::DEFAULT_TIME_MS).
    pub time_ms: u64,
    /// The most characters its result may have (text, or structured content
    /// as JSON); default
    /// [`DEFAULT_RESULT_CHARS`](gg_module::tools::DEFAULT_RESULT_CHARS).
    pub result_chars: usize,
    handler: Handler,
}

impl HostTool {
    /// A tool of module `gg/tools/<server>` whose calls run `handler` on
    /// gg's tool runtime (a multi-threaded tokio runtime with I/O), after
    /// their argument has passed `input_schema`.
    pub fn new<F, Fut>(
        server: impl Into<String>,
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Value,
        handler: F,
    ) -> Self
    where
        F: Fn(Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ToolAnswer> + Send + 'static,
    {
        HostTool {
            server: server.into(),
            name: name.into(),
            description: description.into(),
            input_schema,
            output_schema: None,
            time_ms: gg_module::tools::DEFAULT_TIME_MS,
            result_chars: gg_module::tools::DEFAULT_RESULT_CHARS,
            handler: Arc::new(move |args| Box::pin(handler(args))),
        }
    }

    /// Declares the schema of the structured result.
    pub fn with_output_schema(mut self, schema: Value) -> Self {
        self.output_schema = Some(schema);
        self
    }

    /// Sets the limit per call, in milliseconds.
    pub fn with_time_ms(mut self, time_ms: u64) -> Self {
        self.time_ms = time_ms;
        self
    }

    pub(crate) fn run(&self, args: Value) -> Pin<Box<dyn Future<Output = ToolAnswer> + Send>> {
        (self.handler)(args)
    }
}

impl fmt::Debug for HostTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HostTool")
            .field("server", &self.server)
            .field("name", &self.name)
            .field("time_ms", &self.time_ms)
            .field("result_chars", &self.result_chars)
            .finish_non_exhaustive()
    }
}
