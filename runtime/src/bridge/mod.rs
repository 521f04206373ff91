//! The `gg` bridge: everything a program's `gg` calls reach. The ops
//! ([`ops`]) are the whole surface an isolate can call; they dispatch memory
//! calls ([`memory_calls`]), which load and run code memories
//! ([`code_memories`]); native tool calls ([`tools`]) land on the same
//! functions; [`intl`] backs `Intl` with ICU4X.

pub(crate) mod code_memories;
pub(crate) mod intl;
pub(crate) mod memory_calls;
pub(crate) mod ops;
pub(crate) mod tools;
