//! The memory calls, by name, and which of them an agent is offered.

use serde::Serialize;

use super::config::Strategy;

/// One memory call. Tool-calling mode uses [`Call::tool_name`], code mode
/// [`Call::module_name`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Call {
    /// `write_memory`: a new memory, under scratchpad.
    Write,
    /// `update_memory`: replaces a memory whole, under scratchpad.
    Update,
    /// `create_memory`: a new memory, under markdown and keyword-search.
    Create,
    /// `read_memory`: brings a memory's body (and code) into context.
    Read,
    /// `edit_memory`: search/replace on a memory's body.
    Edit,
    /// `delete_memory`: removes a memory, under every strategy.
    Delete,
    /// `search_memories`: ranks memories by keywords, under keyword-search.
    Search,
}

impl Call {
    /// Every call, in the order the spec lists them.
    pub const ALL: [Call; 7] = [
        Call::Write,
        Call::Update,
        Call::Create,
        Call::Read,
        Call::Edit,
        Call::Delete,
        Call::Search,
    ];

    /// The snake-case native tool name (`create_memory`).
    pub fn tool_name(self) -> &'static str {
        match self {
            Call::Write => "write_memory",
            Call::Update => "update_memory",
            Call::Create => "create_memory",
            Call::Read => "read_memory",
            Call::Edit => "edit_memory",
            Call::Delete => "delete_memory",
            Call::Search => "search_memories",
        }
    }

    /// The camel-case name on the `gg.memories` module (`createMemory`).
    pub fn module_name(self) -> &'static str {
        match self {
            Call::Write => "writeMemory",
            Call::Update => "updateMemory",
            Call::Create => "createMemory",
            Call::Read => "readMemory",
            Call::Edit => "editMemory",
            Call::Delete => "deleteMemory",
            Call::Search => "searchMemories",
        }
    }

    /// The call a native tool name spells, if any.
    pub fn from_tool_name(name: &str) -> Option<Call> {
        Call::ALL.into_iter().find(|c| c.tool_name() == name)
    }

    /// The call a `gg.memories` function name spells, if any.
    pub fn from_module_name(name: &str) -> Option<Call> {
        Call::ALL.into_iter().find(|c| c.module_name() == name)
    }

    /// Whether the call writes.
    pub fn writes(self) -> bool {
        !matches!(self, Call::Read | Call::Search)
    }

    /// Whether the Revise memories feature withholds it when off.
    pub fn revises(self) -> bool {
        matches!(self, Call::Update | Call::Edit | Call::Delete)
    }
}

/// The calls a strategy has at all.
pub fn strategy_calls(strategy: Strategy) -> &'static [Call] {
    match strategy {
        Strategy::Scratchpad => &[Call::Write, Call::Update, Call::Delete],
        Strategy::Markdown => &[Call::Create, Call::Read, Call::Edit, Call::Delete],
        Strategy::KeywordSearch => &[
            Call::Create,
            Call::Read,
            Call::Edit,
            Call::Delete,
            Call::Search,
        ],
    }
}

/// The calls an agent is offered: its strategy's, less revisions when the
/// feature is off, less writes for a read-only holder.
pub fn offered(strategy: Strategy, revise: bool, writable: bool) -> Vec<Call> {
    strategy_calls(strategy)
        .iter()
        .copied()
        .filter(|c| revise || !c.revises())
        .filter(|c| writable || !c.writes())
        .collect()
}
