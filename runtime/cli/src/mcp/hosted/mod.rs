//! A worker's agent state, kept by its host: the worker opens no store
//! file and no event stream. Its agent reads and writes through the same
//! traits as an agent that opens its own files ([`gg_runtime::HostedState`]),
//! backed by calls over the worker's channel ([`remote`]); the host opens
//! the files, answers each call, and refuses one that reaches past the
//! agent the worker serves ([`serve`]). A mutation is decided in the
//! worker, as in-process, while the host holds its transaction open: the
//! host asks for the decision, and the worker's reads inside it are
//! answered from the transaction.

pub mod protocol;
pub mod remote;
pub mod serve;
