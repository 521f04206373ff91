//! Tools: upstream MCP servers (the profile's `tools` capability) and the
//! embedder's host functions, offered to programs as typed modules
//! (`import { readFile } from "gg/tools/files"`) and to tool-calling
//! models as native tools (`files__read_file`), through one code path.
//!
//! One file a step: [`hub`] is the process's tool runtime and its shared
//! server connections; [`upstream`] one server through rmcp's client;
//! [`host_function`] the embedder's tools; [`offered`] what one agent is
//! offered (names, typings, modules, native schemas); [`call`] one call,
//! checked host-side, limited, shaped and recorded; [`relay`] serves a
//! profile's servers to an agent in another process; [`reach`] refuses a
//! server pointed at a folder that holds the state folder.

pub(crate) mod call;
pub(crate) mod host_function;
pub(crate) mod hub;
pub(crate) mod offered;
pub(crate) mod reach;
mod relay;
pub(crate) mod upstream;

pub use host_function::{HostTool, ToolAnswer, ToolError};

/// Tool calls one agent may have waiting at once (a program that starts
/// more without awaiting them is refused `limit-exceeded` for the excess):
/// each holds a task on the host's tool runtime and a request at a server.
pub const MAX_IN_FLIGHT: usize = 64;

/// Characters of one call's argument, as JSON: 1 MiB. The argument crosses
/// to the server whole.
pub const MAX_ARGUMENT_CHARS: usize = 1 << 20;
pub use hub::{shutdown_tool_servers, start_tool_runtime};
pub use relay::{without_tools, ToolDescription, ToolRelay};
