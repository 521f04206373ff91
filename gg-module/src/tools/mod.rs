//! The tools capability: upstream MCP servers whose tools an agent uses.
//! In code mode each server is a typed module, `gg/tools/<server>`, with one
//! async function per tool; in tool-calling mode each tool is a native tool,
//! `<server>__<tool>`. This module is the engine-free part: the capability
//! block, the names tools go by, their TypeScript declarations, and the
//! host's check of a call's argument.

mod anchor;
mod config;
mod names;
mod typescript;
mod validate;

pub use anchor::anchor_to;
pub use config::{
    check_server_name, ServerConfig, Share, ToolsConfig, Transport, CAPABILITY_ID,
    DEFAULT_RESULT_CHARS, DEFAULT_TIME_MS, MAX_RESULT_CHARS, MAX_TIME_MS, SERVER_STATE_VAR,
};
pub use names::{function_names, glob_matches, module_specifier_key, native_tool_name};
pub use typescript::{module_declaration, schema_type, ToolDeclaration};
pub use validate::validate;
