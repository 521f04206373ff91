//! gg end to end: TypeScript programs from `fixtures/` run through the real
//! host, one module per capability, in one test binary.
//!
//! A test that changes or counts something process-wide (an engine switch,
//! an injected fault, the environment) runs in a process of its own through
//! [`gg_tests::alone`]; every other test shares the binary's process, as
//! agents share a long-lived host's.
//!
//! `cargo test -p gg-tests --test end_to_end -- scopes::` runs one module.

mod caught_stacks;
mod code_memories;
mod crash;
mod defects;
mod embedding;
mod escape;
mod host;
mod hostile;
mod import_edges;
mod lazy_functions;
mod lazy_primordials;
mod lifecycle;
mod long_lived_code;
mod memories;
mod persistence;
mod policy;
mod postgres;
mod scopes;
mod state_isolation;
mod tools;
mod turn_record;
mod web;
